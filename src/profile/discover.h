/* Profile discovery: which ranks, which files. See ../shared/spec/ascend-format.md §1.4-1.5. */
#ifndef TL_DISCOVER_H
#define TL_DISCOVER_H
#include <stddef.h>
#include <stdint.h>

#include "util/rankspec.h"

typedef enum tl_source_kind {
	TL_SRC_TORCH_DB,     /* ascend_pytorch_profiler_{r}.db */
	TL_SRC_MSPROF_DB,    /* PROF_x/msprof_*.db */
	TL_SRC_MINDSPORE_DB, /* ascend_mindspore_profiler_{r}.db */
	TL_SRC_TRACE_VIEW,   /* Ascend trace_view.json */
	TL_SRC_KINETO,       /* PyTorch profiler (Kineto) / Chrome trace JSON */
	TL_SRC__COUNT
} tl_source_kind;

const char *source_kind_name(tl_source_kind);

/* Where a source's capture time came from, the most trustworthy last. */
typedef enum tl_capture_from {
	TL_CAPTURE_FILE_TIME,     /* the data file's modification time: only when nothing says */
	TL_CAPTURE_NAME,          /* the time stamp in the capture directory's (or file's) name */
	TL_CAPTURE_PROFILER_INFO, /* profiler_info*.json end_info.collectionTimeEnd */
	TL_CAPTURE_SESSION,       /* the DB's SESSION_TIME_INFO endTimeNs (load_capture_times) */
} tl_capture_from;

typedef struct tl_source {
	int rank;           /* -1 when it could not be determined */
	tl_source_kind kind;
	char *path;         /* the data file */
	char *dir;          /* the capture directory (…_ascend_pt, PROF_…), or the file's directory */
	int64_t capture_ns; /* capture time (epoch ns), 0 unknown: when the collection ended as
	                       the profile says, else the stamp in its name, else the file's time */
	tl_capture_from capture_from; /* where capture_ns came from */
	char *role;         /* verl / MindSpeed-RL role directory (<step>/<role>/…), or NULL */
	int role_step;      /* the <step> directory number in verl discrete mode, or -1 */
	const char *rank_from; /* how the rank was found: "file name", "profiler_info", ... */
	/* the file as discovery saw it: later reads (a slice's arguments) check that it is still
	 * the same file, not deleted, replaced or grown by a writer */
	uint64_t dev, ino;
	int64_t size, mtime_ns;
} tl_source;

typedef struct tl_sourcelist {
	tl_source *v; /* sorted by rank, then capture time, then path */
	size_t n, cap;
} tl_sourcelist;

/* Walks path (a directory, depth <= 10, symlink loops avoided, or a single file) and appends
 * every source whose rank is in `ranks` (NULL = all). Ranks asked for but absent are named in a
 * warning. Returns 0, or -1 when path cannot be read at all (message printed). A single file
 * that is not a profile is named in an error and lists nothing (0): callers treat it as they
 * treat a directory without profiles. */
int discover(const char *path, const tl_rankset *ranks, tl_sourcelist *out);
void sourcelist_free(tl_sourcelist *);
/* Sorts by rank, then capture time, then path (after capture times were refined). */
void sourcelist_sort(tl_sourcelist *);

#endif
