/* Inside the model cache (cache.c the directory and the bound, cache_write.c the writer and
 * the key, cache_read.c the checked reader): the file format's constants. The layout is at the
 * top of cache_write.c. */
#ifndef TL_LOAD_CACHE_INT_H
#define TL_LOAD_CACHE_INT_H
#include "load/cache.h"

#include <stddef.h>
#include <stdint.h>

#define CACHE_MAGIC "TLMODEL" /* 8 bytes with its NUL */
#define BYTE_ORDER_MARK 0x01020304u
#define END_MARK UINT64_C(0x444e454c444f4d54) /* "TMODLEND" */
#define FILE_EXT ".tlc"
#define RESULT_EXT ".tlr" /* a stored result (cache_result.c) */
#define TMP_PREFIX ".tmp-"

enum { RANK_LOADED = 1, RANK_HOST_ONLY = 2 };
/* TRACK_LOD: the lane's level of detail follows (model/lod.h: its block sums, then its nodes) */
enum { TRACK_STEP = 1, TRACK_DEV = 2, TRACK_LOD = 4 };
/* which gathered tables a file holds (tl_rank ops, launch_steps, comm, counters) */
enum { TABLE_OPS = 1, TABLE_LAUNCHES = 2, TABLE_COMM = 4, TABLE_COUNTERS = 8 };
#define NO_STR UINT64_MAX

/* SQLite's files beside a DB that a writer still holds ("-wal", "-journal"). */
#define CACHE_WRITER_SIDES 2
/* 1 when writer side i (< CACHE_WRITER_SIDES) lies beside s's file. */
int cache_writer_side(const tl_source *s, size_t i);
/* The slices of r. */
uint64_t cache_rank_slices(const tl_rank *r);

#endif
