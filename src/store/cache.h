/* The model cache: one file per rank under $XDG_CACHE_HOME/tl/models (or --cache-dir), holding
 * what the loaders made of that rank's captures (tracks, slices, steps, strings, the warnings
 * they gave), so that the next open reads one file instead of SQLite or JSON.
 *
 * One file per rank, not per capture: a rank is the unit the loaders fill (all captures of a
 * rank share its string pool and merge on its timeline, and rank_finish orders and splits the
 * merged tracks), so a rank's file is what a load produces and what `--rank` selects, and a
 * `tl index --rank` on one host writes exactly its ranks' files.
 *
 * The key is the cache format version and, for every file the rank was read from (the data
 * files and the capture's profiler_info / profiler_metadata files, which discovery reads for
 * the rank and capture time): its real path, inode, size and modification time. The device
 * number is left out: hosts mounting the same shared storage see it under different device
 * numbers, and a shared cache directory must serve them all. A file's full key is stored in it
 * and compared, so a name collision can never hand back another rank.
 *
 * A cache file is untrusted input: its header, sizes, every count and index, and a checksum of
 * the whole body are checked before anything is used; a bad file is named in one line, ignored
 * and rewritten. And a whole, valid file proves nothing of who made it (the key and the
 * checksum are anyone's to compute): a file is read only when its owner is trusted and its
 * directory is not one untrusted users may write without the sticky bit (cache_trust.c). */
#ifndef TL_CACHE_H
#define TL_CACHE_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/trace.h"
#include "profile/discover.h"
#include "util/rankspec.h"

/* 3: the gathered tables (operators, launches, comm, counters); 4: the overlap lanes, and lanes
 * read in place from the mapping; 5: each operator task's start beside its duration; 6: a
 * trace's counter events; 7: each lane's level of detail; 8: the body checksum in eight lanes
 * instead of four (twice as fast to verify: it no longer vectorises into emulated multiplies);
 * 9: a rank's overlap lanes may be its profile's own (OVERLAP_ANALYSIS, RANK_OWN_OVERLAP), and
 * CANN 7.0 report DBs are read; 10: the rank's host; 11: the host-bound idle gaps; 12: each
 * operator's durations summed beside them (tl summary's totals without reading them); 13: slices of
 * 16 bytes (the end as a duration, long ones' ends in a table), their row ids apart, and a lane's
 * step tags as runs (TRACK_STEP_RUNS) */
#define TL_CACHE_VERSION 13
#define TL_CACHE_MAX_DEFAULT (UINT64_C(4) << 30) /* bytes: LRU eviction above this */

typedef enum tl_cache_status {
	TL_CACHE_HIT,       /* read from its cache file */
	TL_CACHE_WROTE,     /* loaded and written */
	TL_CACHE_UNWRITTEN, /* loaded, not written (cache off, unwritable, or input changed) */
} tl_cache_status;

/* What happened to one rank (for `tl index`). */
typedef struct tl_cache_rec {
	int rank;
	tl_cache_status status;
	char *file; /* the cache file */
	uint64_t bytes, slices;
} tl_cache_rec;

typedef struct tl_cache {
	char *dir;          /* owned; NULL: caching is off */
	uint64_t max_bytes; /* LRU bound of the directory's cache files */
	int read_only;      /* could not write here: read what is there, write nothing */
	char ro_why[128];   /* why not */
	pthread_mutex_t lock;
	int warned;     /* the one "cannot write" warning was given */
	int complained; /* a cache file was not used or not written: said on stderr (no stored
	                 * result keeps that line: it tells of the cache, not of the profile) */
	tl_cache_rec *recs;
	size_t nrecs, rcap;
	int spill; /* the viewer's --no-cache (cache_open_spill): nothing is read, and each rank is
	            * written to an unlinked file in dir and mapped back (read_only: no directory
	            * would do, the ranks stay in memory) */
	/* trust (cache_trust.c): distrust_dir, why the directory is not trusted (nothing in it
	 * is read or written; said once, dir_said); the files of untrusted owners skipped
	 * (named once each, so a rank looked up twice counts once), said in one line by
	 * cache_load_done */
	char *distrust_dir;
	int dir_said;
	char **ignored;
	uid_t *ignored_uid;
	size_t nignored, icap;
} tl_cache;

/* Opens the cache in dir (NULL: the default), creating the directory; the bound comes from
 * TL_CACHE_MAX (bytes, or with K, M, G, T) or TL_CACHE_MAX_DEFAULT. A directory that cannot be
 * created or written is a read-only cache: read, and one warning when a rank would have been
 * written. Returns 0. */
int cache_open(tl_cache *, const char *dir);
void cache_close(tl_cache *);

/* The rank whose captures are src[0..n) (the job's sources, in the trace's list), read from
 * its cache file, or NULL (no file, or a bad one: said in one line). Replays the warnings its
 * load gave. keep: the tables (TL_TABLE_*) the caller keeps; of a file a stamp vouches for,
 * the operator and communication tables outside it are stepped over, not read (the caller
 * would drop them: load_drop_tables), so that they cost nothing. */
tl_rank *cache_load_rank(tl_cache *, const tl_source *src, size_t n, unsigned keep);
/* Writes r (finished, loaded from src[0..n)) with the warnings its load gave (path/text pairs;
 * path may be NULL). Skipped when an input changed while it was read. Returns 1 when written. */
int cache_store_rank(tl_cache *, const tl_source *src, size_t n, const tl_rank *r,
                     char *const *warn, size_t nwarn);
/* The rank just written for src[0..n), mapped back from its file (its lanes then file-backed,
 * not anonymous memory), or NULL; says nothing and records nothing. */
tl_rank *cache_remap_rank(tl_cache *, const tl_source *src, size_t n);
/* 1 when ranks loaded now will be written (cache_store_rank). */
int cache_will_write(const tl_cache *);
/* Removes the least recently used of the user's own cache files until they are within the
 * bound (others' files are never removed, nor counted). */
void cache_evict(tl_cache *);
/* At the end of a load: says the one line of the files skipped as not trusted (how many,
 * whose), then evicts (cache_evict). */
void cache_load_done(tl_cache *);

/* ---- whose files are read (cache_trust.c) ----------------------------------------------------
 * A file is read when its owner is trusted: the user running tl, root, and the owners named
 * by cache_trust_set (--trust-cache, else TL_CACHE_TRUST, else the config file's trust-cache
 * line). Its directory must not be writable by untrusted users unless it has the sticky bit.
 * Files are written under the user's umask; a name another user's file holds is never
 * replaced (the user's own alternative name is used: NAME.uUID.tlc), and eviction and --clear
 * remove only the user's own files. */

/* Trusts the owners in spec, OWNER[,OWNER...]: a user name or uid, a group name, or @GROUP /
 * @GID (the members of the group; a bare name that is both a user and a group is the user).
 * Returns 0, or -1 with why in err (a name that is neither). */
int cache_trust_set(const char *spec, char *err, size_t errlen);
/* The trust-cache lines of the config file ($XDG_CONFIG_HOME/tl/config), joined (malloc'd),
 * or NULL; a line it does not know, or a file others may write, is said in one line. */
char *cache_trust_config(void);
/* 1 when files owned by uid are read. */
int cache_trust_uid(uid_t uid);
struct stat;
/* NULL when a directory of fstat st may hold trusted files, else why not (in why). */
const char *cache_trust_dir(const struct stat *st, char *why, size_t n);
/* "uid 65534 (nobody)" into buf. */
void cache_owner_name(uid_t uid, char *buf, size_t n);

/* ---- spilling (cache_spill.c) ----------------------------------------------------------------
 * The viewer with --no-cache keeps every rank it loads: in anonymous memory, its model and
 * derived lanes cost the host about three times what tl summary holds at once. Instead each
 * rank is written in the cache format to a file that has no name (O_TMPFILE, or created and
 * unlinked at once) and mapped back in its place, as the writing path maps back what it stores:
 * its pages are then file-backed, the kernel's to drop and read again. Nothing persists, no
 * later open can find the file, and nothing is ever read from the cache. */

/* Opens c for spilling into dir (NULL: the cache's default directory), else into $TMPDIR
 * (when set) or /var/tmp or /tmp: the first that is writable and on a disk, not a tmpfs (whose
 * pages are memory already). Returns 0 when TL_SPILL=0 (c left closed: the caller uses no
 * cache), else 1; when no directory will do, c spills nothing and the first rank says so in
 * one warning. */
int cache_open_spill(tl_cache *c, const char *dir);
/* r (finished, loaded from src[0..n)) written to a spill file and mapped back: the new rank,
 * or NULL (r then stays; the first failure says so in one warning and stops spilling). */
tl_rank *cache_spill_rank(tl_cache *c, const tl_source *src, size_t n, const tl_rank *r);

/* Cache files read since start whose stamp said they were checked before (the O(bytes)
 * checks skipped), and those checked whole (TL_STATS). */
uint64_t cache_stamped_opens(void);
uint64_t cache_checked_opens(void);

/* `tl cache`: where, how many files, how many bytes, how many are stamped as checked, and
 * whose they are and which owners are trusted. */
void cache_report(const tl_cache *, FILE *);
/* `tl cache --clear`: removes every cache file of the user's own (and temporary file) and
 * their stamps. Returns the count of ranks' files (*results: of stored results; *others: the
 * other users' files left), -1 when the directory cannot be read. */
long cache_clear(const tl_cache *, long *results, long *others);

/* ---- stored results (cache_result.c) --------------------------------------------------------
 * A command whose output is a function of its ranks' models and its own arguments (tl summary)
 * keeps that output beside the rank files: the next run with the same arguments over the same
 * unchanged inputs prints it without mapping a rank. The key is every rank's model key (its
 * files' identity, the tl build, the cache format: cache_key) and the words the command adds
 * (its command line, the stage rules' text, the environment it reads). A result is stored only
 * when every rank of the run was read from or written to the cache (cache_all_kept). */
typedef struct tl_result {
	int status; /* the command's exit status */
	char *out;  /* what it wrote to stdout (NUL-terminated, nout bytes before it) */
	size_t nout;
	char *err; /* and to stderr */
	size_t nerr;
} tl_result;

/* The key of a result over sl (discover's list, as load_trace reads it) and words[0..nwords)
 * (malloc'd, *len bytes). */
uint8_t *cache_result_key(const tl_sourcelist *sl, const char *const *words, size_t nwords,
                          size_t *len);
/* The same for the profile at path with --rank ranks (NULL: all), found by discovery, and the
 * words of a command line (argv[0..argc)) and cache_result_env(rules_path); NULL when nothing is
 * found there. */
uint8_t *cache_result_key_path(const char *path, const tl_rankset *ranks, const char *rules_path,
                               int argc, char *const *argv, size_t *len);
/* The words a report's result adds to its key besides its command line: the stage rules' text
 * (rules_path, NULL: the config folder's stages file) and the environment variables that can
 * change a report's bytes (malloc'd string; a rules file with a NUL byte is cut there, which
 * only costs a stored result). */
char *cache_result_env(const char *rules_path);
/* 1 with *out filled (cache_result_free it) when a result is stored under key; 0 when none (a bad
 * file is named in one line and then replaced by the next cache_result_put). */
int cache_result_get(tl_cache *, const uint8_t *key, size_t klen, tl_result *out);
/* Stores res under key (a temporary file renamed into place). Returns 1 when stored. */
int cache_result_put(tl_cache *, const uint8_t *key, size_t klen, const tl_result *res);
void cache_result_free(tl_result *);
/* Binary parts: bytes a command keeps with the stored results for the next run to decode (the
 * critical path of a profile, tlq_critical_encode), never printed. A part is a result file of
 * its own kind: a command's output is never read as a part, nor a part printed as output (a
 * text result's bytes are checked as printable, a part's only by its decoder). cache_part_get
 * reads the part under key and hands its bytes to take (valid during the call only), which
 * returns NULL when it took them, else why they are not what it wrote (named in one line, as a
 * spoiled result is, and replaced by the next cache_part_put). 1 when taken; 0 a miss, or
 * spoiled. */
typedef const char *(*cache_part_take)(const uint8_t *p, size_t n, void *ctx);
int cache_part_get(tl_cache *, const uint8_t *key, size_t klen, cache_part_take take, void *ctx);
int cache_part_put(tl_cache *, const uint8_t *key, size_t klen, const void *p, size_t n);
/* The mapped cache file r's lanes point into (tl_rank.backing): 0 with its address and length,
 * -1 when r is not read from a mapped file (--no-cache, a miss, a rank built otherwise). */
int cache_rank_mapping(const tl_rank *r, const void **p, size_t *len);

/* The reader itself, for tests and the fuzz target: a result file's bytes checked against key.
 * Returns NULL with *out filled, or NULL with out->out NULL (another key's result: a miss), or
 * why the bytes are not a result file (among them: text holding a control character but the
 * newline, or invalid UTF-8, which tl never prints). */
const char *cache_result_decode(const uint8_t *b, size_t len, const uint8_t *key, size_t klen,
                                tl_result *out);
/* The same for a part: NULL with *part (into b) and *n, or NULL with *part NULL (a miss), or why
 * the bytes are not a part's file (among them: a text result's). */
const char *cache_part_decode(const uint8_t *b, size_t len, const uint8_t *key, size_t klen,
                              const uint8_t **part, size_t *n);
#define RESULT_HEADER 40 /* bytes before a result file's key */
/* 1 when every rank the cache saw in this process was read from it or written to it. */
int cache_all_kept(const tl_cache *);

/* The reader itself, for tests and the fuzz target: a cache file's bytes checked and decoded
 * against the key of src[0..n). Returns the rank, or NULL with the reason in err. */
tl_rank *cache_decode(const void *buf, size_t len, const tl_source *src, size_t n, char *err,
                      size_t errlen);
/* The same, the rank's slices, step tags and device spans pointing into buf (tl_track.borrowed),
 * which must outlive the rank: a mapped file that the rank then owns (tl_rank.backing). replay:
 * give the warnings the file's load gave again. */
tl_rank *cache_decode_mapped(const void *buf, size_t len, const tl_source *src, size_t n,
                             int replay, char *err, size_t errlen);
/* Writes a cache file of r under key to fd (closed here; a new, empty file). Returns 0 with
 * its size in *bytes, -1 (errno set) when it could not be written. */
int cache_write_fd(int fd, const uint8_t *key, size_t klen, const tl_rank *r, char *const *warn,
                   size_t nwarn, uint64_t *bytes);
/* The key blob of src[0..n) (malloc'd, *len bytes). */
uint8_t *cache_key(const tl_source *src, size_t n, size_t *len);
/* The body checksum a header carries (for tests and the fuzz target, which repair it). */
uint64_t cache_checksum(const void *buf, size_t len);
#define TL_CACHE_HEADER 64

#endif
