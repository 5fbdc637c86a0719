/* Script mode (tig's TIG_SCRIPT): one key name or :-command per line, so tests and automation
 * drive the same code as a user at the keyboard. */
#ifndef TL_SCRIPT_H
#define TL_SCRIPT_H
#include <stdio.h>

typedef struct tl_script {
	FILE *f;
	char *path;
	int lineno;
	int errors;
} tl_script;

#define SCRIPT_MAXKEYS 512

typedef struct script_step {
	int is_cmd; /* text holds a :-command (without the ':') */
	char text[1100];
	int keys[SCRIPT_MAXKEYS];
	int nkeys;
} script_step;

/* Returns 0, or -1 with a message on stderr. */
int script_open(tl_script *, const char *path);
/* The next step: 1, or 0 at the end of the script. A line that is not a key name and not a
 * command is typed character by character (text for the / and : prompts); "/PATTERN" is
 * a whole search (as :search PATTERN). Blank lines and
 * lines starting with '#' are skipped; "<Hash>" is the '#' key. */
int script_next(tl_script *, script_step *);
void script_close(tl_script *);

#endif
