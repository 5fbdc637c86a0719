/* Discovery's path utilities and directory listings, with the identity sets that keep a walk
 * from visiting a directory or a file twice. */
#include "config.h"
#include "profile/discover_int.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- paths ---------------------------------------------------------------------------- */

char *
disc_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n > 0 && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

/* Last component of a path without trailing slashes. */
const char *
disc_path_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Everything before the last component ("." or "/" at the top). */
char *
disc_path_dir(const char *p)
{
	const char *s = strrchr(p, '/');
	if (s == NULL)
		return xstrdup(".");
	if (s == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(s - p));
}

/* ---- directory listing and identity sets --------------------------------------------------- */

static int
dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const dirent_name *)a)->name, ((const dirent_name *)b)->name);
}

void
disc_dirlist_free(dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		free(dl->v[i].name);
	free(dl->v);
	dl->v = NULL;
	dl->n = dl->cap = 0;
}

/* The names in dir (without . and ..), sorted so that the walk is the same on every run.
 * Returns -1 with errno set. */
int
disc_dirlist_read(const char *dir, dirlist *dl)
{
	memset(dl, 0, sizeof *dl);
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		dirent_name e = {xstrdup(de->d_name), de->d_type};
		VEC_PUSH(dl->v, dl->n, dl->cap, e);
		errno = 0;
	}
	int e = errno;
	closedir(d);
	if (e != 0) {
		disc_dirlist_free(dl);
		errno = e;
		return -1;
	}
	if (dl->n > 1)
		qsort(dl->v, dl->n, sizeof *dl->v, dirent_cmp);
	return 0;
}

/* What an entry is, following symlinks. */
int
disc_entry_type(const char *path, unsigned char d_type)
{
	if (d_type == DT_DIR)
		return ENT_DIR;
	if (d_type == DT_REG)
		return ENT_FILE;
	struct stat st;
	if (stat(path, &st) != 0)
		return ENT_BROKEN;
	return S_ISDIR(st.st_mode) ? ENT_DIR : S_ISREG(st.st_mode) ? ENT_FILE : ENT_OTHER;
}

static size_t
fid_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)ino;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

/* Adds (dev, ino); returns 1 when it was not there yet. */
int
disc_fidset_add(fidset *s, dev_t dev, ino_t ino)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		fid_slot *nv = xcalloc(nc, sizeof *nv);
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i].used)
				continue;
			size_t j = fid_hash(s->v[i].dev, s->v[i].ino) & (nc - 1);
			while (nv[j].used)
				j = (j + 1) & (nc - 1);
			nv[j] = s->v[i];
		}
		free(s->v);
		s->v = nv;
		s->cap = nc;
	}
	size_t j = fid_hash(dev, ino) & (s->cap - 1);
	while (s->v[j].used) {
		if (s->v[j].dev == dev && s->v[j].ino == ino)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->v[j].dev = dev;
	s->v[j].ino = ino;
	s->v[j].used = 1;
	s->n++;
	return 1;
}
