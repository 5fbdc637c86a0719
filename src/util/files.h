/* Directories tl makes and removes for itself (the model cache's, the demo profile's). */
#ifndef TL_UTIL_FILES_H
#define TL_UTIL_FILES_H

/* mkdir -p with mode 0755. Returns 0, or -1 with errno set. */
int util_mkdir_p(const char *path);
/* Removes the tree at path, which tl made itself (a stale, partial demo profile); symbolic
 * links are removed, never followed. */
void util_rm_tree(const char *path);

#endif
