/* Inside the loaders: what the format files share, and no one outside src/load/ sees. */
#ifndef TL_LOAD_INT_H
#define TL_LOAD_INT_H
#include "load/load.h"

/* 0 when src is still the file tl loaded (same device, inode, size and mtime); else -1 after
 * one "arguments" line to fn saying what happened to it. Read again long after loading, a
 * file may be gone, or not the file it was. */
int load_source_unchanged(const tl_source *src, load_arg_fn fn, void *ctx);

/* The DB loader's arguments hook (ascend_db_args.c). */
int ascend_db_args(const tl_rank *, size_t si, const tl_track *, size_t idx, load_arg_fn fn,
                   void *ctx);

#endif
