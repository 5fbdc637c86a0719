/* The user's own tl files: where they live ($XDG_CONFIG_HOME/tl/, else ~/.config/tl/), how
 * their text splits into lines and words, and what reading one came to. */
#ifndef TL_CONFPATH_H
#define TL_CONFPATH_H
#include <stddef.h>

/* The path of FILE in the user's tl config folder (malloc'd), or NULL when neither
 * XDG_CONFIG_HOME nor HOME is set. */
char *config_path(const char *file);

/* What reading a user's config file (a theme, a keymap) came to. */
typedef enum tl_conf_status {
	TL_CONF_OK = 0,
	TL_CONF_BAD_LINE = -1,   /* a message names a bad line; the other lines apply */
	TL_CONF_UNREADABLE = -2, /* the file cannot be found or read: nothing of it applies */
} tl_conf_status;

/* The next line of config text at *p (malloc'd, without its newline; *p moves past it), or
 * NULL at the end of the text. */
char *config_next_line(const char **p);
/* Splits line in place into at most max words separated by any of the characters of seps; a
 * word starting with '#' starts a comment, which ends the line. Returns the number of words. */
int config_words(char *line, char **tok, int max, const char *seps);

#endif
