/* Directories tl makes and removes for itself (the model cache's, the demo profile's). */
#ifndef TL_UTIL_FILES_H
#define TL_UTIL_FILES_H
#include <sys/types.h>

/* mkdir -p, each directory it makes with mode (0755 for shared ones, 0700 for the user's own).
 * Returns 0, or -1 with errno set. */
int util_mkdir_p(const char *path, mode_t mode);
/* Removes the tree at path, which tl made itself (a stale, partial demo profile); symbolic
 * links are removed, never followed. */
void util_rm_tree(const char *path);

#endif
