/* Inside discovery: what its files share (discover_names.c: pure classifiers of file and
 * directory names; discover_paths.c: path utilities and directory listings; discover_files.c:
 * small files, JSON peeking and capture times; discover_walk.c: the walk; discover.c: the entry,
 * roles, the --rank filter). Nothing outside src/profile/ includes it. */
#ifndef TL_DISCOVER_INT_H
#define TL_DISCOVER_INT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "profile/discover.h"

/* directories below the root that are read: msprof-analyze's os.walk limit */
#define DISCOVER_MAX_DEPTH 10
/* bytes of a JSON file read to tell a trace from other JSON */
#define DISCOVER_PEEK (64 * 1024)
/* profiler_info / info.json bigger than this are not metadata */
#define DISCOVER_META_MAX (16 << 20)
#define APO_NAME "ASCEND_PROFILER_OUTPUT"
#define MPO_NAME "mindstudio_profiler_output" /* msprof text output inside PROF_* */

typedef struct json_peek {
	int trace;      /* an object with "traceEvents", or an array whose first object has "ph" */
	int rank;       /* distributedInfo.rank, or -1 */
	int ascend;     /* an Ascend trace_view.json (msprof / torch_npu text export), whatever its
	                 * name: "ts" as a string of µs, or Ascend process names */
	char host[256]; /* a root "hostname" (or distributedInfo's) before traceEvents, "" none */
} json_peek;

typedef enum name_kind {
	NK_NONE,
	NK_TORCH_DB,     /* ascend_pytorch_profiler[_{r}].db */
	NK_MS_DB,        /* ascend_mindspore_profiler[_{r}].db */
	NK_MSPROF_DB,    /* msprof_{digits}.db; CANN 7.0's report_{device}.db */
	NK_MSMONITOR_DB, /* msmonitor_{pid}_{ts}_{rank|-1}.db */
	NK_TRACE_VIEW,   /* trace_view.json */
	NK_MSPROF_JSON,  /* msprof_[slice_{k}_]{ts}.json: trace_view's format */
	NK_JSON,         /* any other JSON that may be a Chrome/Kineto trace */
} name_kind;

typedef struct dirent_name {
	char *name;
	unsigned char type; /* DT_* from readdir, DT_UNKNOWN when not given */
} dirent_name;

typedef struct dirlist {
	dirent_name *v;
	size_t n, cap;
} dirlist;

enum { ENT_OTHER, ENT_DIR, ENT_FILE, ENT_BROKEN };

typedef struct fid_slot {
	dev_t dev;
	ino_t ino;
	int used;
} fid_slot;

/* A set of (device, inode) pairs: open addressing, power-of-two size. */
typedef struct fidset {
	fid_slot *v;
	size_t n, cap;
} fidset;

/* Where a source's capture sits, for the role decision after the walk. */
typedef struct role_hint {
	char *name;   /* the directory directly above the capture (not the root, not a number) */
	char *dir;    /* its path */
	char *parent; /* the path of the directory above that */
	int step;     /* that directory's number when it is all digits (verl <step>), else -1 */
} role_hint;

typedef struct walk {
	tl_sourcelist found; /* everything recognised, before the rank filter */
	role_hint *hints;    /* parallel to found.v */
	size_t nhints, caphints;
	fidset dirs;  /* directories entered: symlink loops and second links end here */
	fidset files; /* data files listed: one file reached through two links is listed once */
	/* names[d], paths[d]: the directory being walked at depth d (borrowed from the walk) */
	const char *names[DISCOVER_MAX_DEPTH + 1];
	const char *paths[DISCOVER_MAX_DEPTH + 1];
	int too_deep;
	/* per-iteration msprof exports: the task_time_*, hccl_* and step_trace_* files left out
	 * (they repeat parts of the msprof_* timelines) */
	size_t dup_files;
} walk;

/* A torch_npu / MindSpore capture directory and its rank evidence, read when first needed. */
typedef struct capture {
	const char *dir;
	int depth; /* below the root, -1 when above it */
	int64_t stamp;
	int rank_known;
	int rank;
	const char *rank_from;
} capture;

typedef struct hint_ref {
	const role_hint *h;
	tl_source *s;
} hint_ref;

/* Epoch ns that a profile could have been written at (1990 .. 2100): anything else is not a
 * wall-clock time. */
#define CAPTURE_NS_MIN INT64_C(631152000000000000)
#define CAPTURE_NS_MAX INT64_C(4102444800000000000)

/* discover_names.c */
int disc_str_digits(const char *s);
/* The number in the digit span [s, s+n), or -1 when it is not one or exceeds TL_RANK_MAX. */
int disc_digits_rank(const char *s, size_t n);
int disc_str_ends(const char *s, const char *suffix);
int disc_str_starts(const char *s, const char *prefix);
/* name == prefix digits suffix with at least one digit: returns the number of digits and points
 * *digits at them, else 0. */
size_t disc_name_digits(const char *name, const char *prefix, const char *suffix,
                        const char **digits);
/* name == prefix ["_" digits] suffix, e.g. ascend_pytorch_profiler_3.db. Returns 1 on a match
 * with *rank = the number, or -1 when there is none (or it is not a plausible rank). */
int disc_name_rank_match(const char *name, const char *prefix, const char *suffix, int *rank);
/* Kineto file names: "rank-N", "rank_N" or "rankN" not preceded by a letter. */
int disc_name_rank_pattern(const char *name);
/* Compares two digit strings as numbers (no leading-zero games: longer is bigger). */
int disc_digits_cmp(const char *a, size_t na, const char *b, size_t nb);

/* discover_paths.c */
char *disc_path_join(const char *dir, const char *name);
/* Last component of a path without trailing slashes. */
const char *disc_path_base(const char *p);
/* Everything before the last component ("." or "/" at the top). */
char *disc_path_dir(const char *p);

/* discover_names.c */
int disc_digits_num(const char *s, int n);
/* Capture time from a directory name, 0 when the name carries none:
 * {worker}_{pid}_{YYYYmmddHHMMSSmmm}_ascend_pt (local time), …_ascend_ms (UTC),
 * PROF_{n}_{YYYYmmddHHMMSSmmm}_{random} (local time). */
int64_t disc_capture_stamp(const char *name);

/* discover_files.c */
/* The top-level `key` of a small JSON file as a rank, or -1 (with a warning when the file cannot
 * be read or parsed; a missing or -1 key is normal). */
int disc_json_file_rank(const char *path, const char *key);
/* Looks at the first DISCOVER_PEEK bytes of path. Returns -1 (warned) when it cannot be read. */
int disc_json_peek_file(const char *path, json_peek *pk);
/* Whether name matches a probe's glob (model/source.h, TL_FORMATS: PREFIX{r}SUFFIX, or an
 * fnmatch glob); *rank gets the rank the name says, or -1. */
int disc_probe_name(const char *glob, const char *name, int *rank);
/* The formats' probes (model/source.h, TL_FORMATS): the kind of the first of rows[0..n) whose
 * glob matches name (*rank: the rank the name says, or -1) and whose magic (unless NULL) the
 * file at path starts with (path NULL: the name alone); -1 when none does (rows without a glob
 * never do). */
int disc_probe(const tl_format *rows, size_t n, const char *name, const char *path, int *rank);
/* disc_probe over the formats' list: the kind that claims a loose file, or -1. */
int disc_probe_kind(const char *name, const char *path, int *rank);
/* Capture times from the profiler's own record where there is one (profiler_info*.json). */
void disc_capture_times_from_info(tl_sourcelist *l);

/* discover_names.c */
/* msprof_{ts}.json or msprof_slice_{k}_{ts}.json: returns the length of the ts digits. */
size_t disc_msprof_json_ts(const char *name, const char **ts);
/* prefix{dev}_{model}_{iter}.json (msprof's per-iteration export, CANN <= 7.0): 1 on a match. */
int disc_msprof_iter_match(const char *name, const char *prefix, int *dev, int *model, int *iter);
/* msmonitor_{pid}_{ts}_{rank|-1}.db: 1 on a match, with the rank and the time stamp. */
int disc_msmonitor_match(const char *name, int *rank, int64_t *stamp);
name_kind disc_name_classify(const char *name, int *rank);

/* discover_paths.c */
void disc_dirlist_free(dirlist *dl);
/* The names in dir (without . and ..), sorted so that the walk is the same on every run.
 * Returns -1 with errno set. */
int disc_dirlist_read(const char *dir, dirlist *dl);
/* What an entry is, following symlinks. */
int disc_entry_type(const char *path, unsigned char d_type);
/* Adds (dev, ino); returns 1 when it was not there yet. */
int disc_fidset_add(fidset *s, dev_t dev, ino_t ino);

/* discover_walk.c */
/* A torch_npu / MindSpore capture (…_ascend_pt, …_ascend_ms, or any directory holding
 * ASCEND_PROFILER_OUTPUT). apo: its output directory, NULL for cap/ASCEND_PROFILER_OUTPUT. */
void disc_capture_scan(walk *w, const char *cap, const char *apo, int depth);
void disc_walk_dir(walk *w, const char *path, int depth);
/* After the walk: the one line saying which duplicate files of per-iteration exports were
 * left out. */
void disc_dup_report(walk *w, const char *root);
/* What disc_discover_file made of a file. */
typedef enum disc_file_status {
	DISC_FILE_ADDED,       /* a source, added to w */
	DISC_FILE_UNREADABLE,  /* cannot be read (message printed) */
	DISC_FILE_NOT_PROFILE, /* no profile: like a directory without one, nothing is found */
} disc_file_status;
/* path names one file. */
disc_file_status disc_discover_file(walk *w, const char *path);

#endif
