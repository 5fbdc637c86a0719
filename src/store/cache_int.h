/* Inside the model cache (cache.c the directory and the bound, cache_write.c the writer and
 * the key, cache_read.c the checked reader): the file format's constants. The layout is at the
 * top of cache_write.c. */
#ifndef TL_LOAD_CACHE_INT_H
#define TL_LOAD_CACHE_INT_H
#include "store/cache.h"

#include <stddef.h>
#include <stdint.h>

#define CACHE_MAGIC "TLMODEL" /* 8 bytes with its NUL */
#define BYTE_ORDER_MARK 0x01020304u
#define END_MARK UINT64_C(0x444e454c444f4d54) /* "TMODLEND" */
#define FILE_EXT ".tlc"
#define RESULT_EXT ".tlr" /* a stored result (cache_result.c) */
#define TMP_PREFIX ".tmp-"

enum { RANK_LOADED = 1, RANK_HOST_ONLY = 2, RANK_OWN_OVERLAP = 4 };
/* TRACK_STEP: a step tag per slice follows; TRACK_STEP_RUNS: the runs of the tags (u64 count,
 * u64 step_cover, the tl_step_run array); TRACK_LOD: the lane's level of detail follows
 * (model/lod.h: its block sums, then its nodes); TRACK_ARG: each slice's row id (tl_track.arg);
 * TRACK_LEND: the long slices' ends (lend) */
enum {
	TRACK_STEP = 1,
	TRACK_DEV = 2,
	TRACK_LOD = 4,
	TRACK_STEP_RUNS = 8,
	TRACK_ARG = 16,
	TRACK_LEND = 32
};
/* which gathered tables a file holds (tl_rank ops, launch_steps, comm, counters) */
enum { TABLE_OPS = 1, TABLE_LAUNCHES = 2, TABLE_COMM = 4, TABLE_COUNTERS = 8 };
#define NO_STR UINT64_MAX

/* The fixed header of a model (TL_CACHE_HEADER bytes) and of a stored result (RESULT_HEADER):
 * magic (8 bytes), u32 version, u32 byte-order mark, u64 file size, u64 body checksum, u64 key
 * length. Checks b[0..len) against magic and version and the size against len; sets *sum and
 * *keylen (the caller checks the checksum and the key). Returns NULL, or why it is not one. */
const char *cache_header_check(const uint8_t *b, size_t len, size_t header, const char *magic,
                               uint32_t version, uint64_t *sum, uint64_t *keylen);

/* ---- trust (cache.c, cache_trust.c) -----------------------------------------------------------
 */
/* Counts file, owned by the untrusted uid, as skipped (once per name), for cache_load_done's
 * line. */
void cache_note_ignored(tl_cache *c, const char *file, uid_t uid);
/* The user's own alternative to the cache file name file: NAME.uUID.EXT (malloc'd). */
char *cache_alt_name(const char *file);
/* Renames the temporary file tmp to file, or, when another user's file holds that name (never
 * replaced), to cache_alt_name(file). Returns 0 with the name used in *placed (malloc'd), or
 * -1 with errno set (EEXIST: other users' files hold both names). */
int cache_place(const char *tmp, const char *file, char **placed);

/* SQLite's files beside a DB that a writer still holds ("-wal", "-journal"). */
#define CACHE_WRITER_SIDES 2
/* 1 when writer side i (< CACHE_WRITER_SIDES) lies beside s's file. */
int cache_writer_side(const tl_source *s, size_t i);
/* The slices of r. */
uint64_t cache_rank_slices(const tl_rank *r);

/* The reader (cache_decode_mapped) on a file tl has checked whole before or wrote itself, as a
 * stamp says (trusted): the header, the key, every size, count and index are still checked,
 * as they cost O(lanes and tables); the body checksum, each slice's and operator task's
 * values and each lane's level of detail against its slices (the O(bytes) part) are not, and
 * of the operator and communication tables only those in keep (TL_TABLE_*) are read: the
 * others are stepped over (their counts and lengths still checked) and left out. */
tl_rank *cache_decode_stamped(const void *buf, size_t len, const tl_source *src, size_t n,
                              int replay, int trusted, unsigned keep, char *err, size_t errlen);

/* The reader (cache_decode_stamped) on a mapped file, from which a file truncated by another
 * program while it is mapped raises SIGBUS: then NULL, said in err. */
tl_rank *cache_decode_guarded(const void *map, size_t len, const tl_source *src, size_t n,
                              int replay, int trusted, unsigned keep, char *err, size_t errlen);
/* Makes the mapping map[0..len) r's backing (unmapped with the rank). */
void cache_set_backing(tl_rank *r, void *map, size_t len);
/* cache_write_fd, with the data forced to disk (fsync) when sync is set: a file others will
 * find by name must be whole after a crash; a spilled rank's file dies with the process. */
int cache_write_fd_sync(int fd, const uint8_t *key, size_t klen, const tl_rank *r,
                        char *const *warn, size_t nwarn, uint64_t *bytes, int sync);

/* ---- "verified once" stamps (cache_stamp.c): real is the cache file's real path ---------- */
struct stat;
/* 1 when a stamp says the file real, whose fstat is st and whose header holds the checksum
 * sum, is one tl checked whole (or wrote) and nothing has written since. */
int cache_stamp_ok(const char *real, const struct stat *st, uint64_t sum);
/* Records that the file real (fstat st, header checksum sum) was checked whole or just
 * written. Silent when there is no stamp directory or it cannot be written. */
void cache_stamp_put(const char *real, const struct stat *st, uint64_t sum);
/* 1 when st's ctime is so recent that a write could still leave it unchanged: not stamped
 * after a check (cache_stamp_put would trust a file that may change under the same ctime). */
int cache_stamp_racy(const struct stat *st);
/* Removes the stamp of the file real (evicted). */
void cache_stamp_drop(const char *real);
/* The stamps of the cache files in cache_dir that still exist (drop = 0), or removes them,
 * with those of files that are gone and writers' leftovers, returning how many of cache_dir's
 * it removed (drop = 1). */
long cache_stamp_sweep(const char *cache_dir, int drop);

#endif
