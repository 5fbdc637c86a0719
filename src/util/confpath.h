/* Where the user's own tl files live: $XDG_CONFIG_HOME/tl/, else ~/.config/tl/. */
#ifndef TL_CONFPATH_H
#define TL_CONFPATH_H

/* The path of FILE in the user's tl config folder (malloc'd), or NULL when neither
 * XDG_CONFIG_HOME nor HOME is set. */
char *config_path(const char *file);

#endif
