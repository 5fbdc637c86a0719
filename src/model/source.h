/* What discovery found and the loaders read: one data file of one rank (a source), its kind,
 * and the sorted list of them. The model owns these (a trace keeps its source list), so the
 * model does not depend on discovery: discovery fills them in, the loaders read them. */
#ifndef TL_SOURCE_H
#define TL_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a format's files hold, which code outside its loader asks (source_has) instead of
 * testing its kind. */
enum {
	/* the file says when its capture ended (a DB's SESSION_TIME_INFO): load_capture_times */
	TL_FMT_SESSION_TIME = 1u << 0,
	/* the file may name its host (a DB's HOST_INFO): the hosts' clocks group ranks by it */
	TL_FMT_HOST_INFO = 1u << 1,
	/* the file holds its own host <-> device links (a DB's connectionIds), which the link
	 * hooks read; without it the links are the trace's flow events */
	TL_FMT_OWN_LINKS = 1u << 2,
	/* one file per iteration: a device's files share its lanes, and a slice's file is the one
	 * whose time span holds it (tl info prints a device's files on one line) */
	TL_FMT_PER_ITERATION = 1u << 3,
	/* a GPU trace: a job of its own, never one run with Ascend ranks (discover_runs) */
	TL_FMT_GPU = 1u << 4,
	/* communication as HCCL group and plane threads (trace_view.json's) */
	TL_FMT_HCCL_GROUPS = 1u << 5,
};

#define TL_FMT_ASCEND_DB (TL_FMT_SESSION_TIME | TL_FMT_HOST_INFO | TL_FMT_OWN_LINKS)

/* The input formats, the one list of them (docs/architecture.md, "How to add ... A new input
 * format"): one row each, X(KIND, name, loader, capabilities, probe glob, probe magic):
 *  - the kind is TL_SRC_KIND; a row's place is its kind's number, which the model cache
 *    stores: add a format at the end;
 *  - the name is what tl info prints;
 *  - the loader is the tl_loader that reads it (load/load.h): only load/loaders.c expands this
 *    column, the one layer that has the loaders;
 *  - the capabilities are the TL_FMT_ flags above;
 *  - the probe: discovery lists a loose file (or one named on the command line) as this
 *    format when its name matches the glob and, unless NULL, its first bytes are the magic,
 *    before its own name classes. A glob PREFIX{r}SUFFIX is torch_npu's naming: the prefix, an
 *    optional "_" and the rank, the suffix; any other is fnmatch's, the rank from the name's
 *    rank3 or rank_3. NULL, NULL for a format found by discovery's layouts of directories
 *    (profile/discover_walk.c), as the Ascend DBs and JSON exports are. */
#define TL_FORMATS(X)                                                                              \
	/* ascend_pytorch_profiler_{r}.db */                                                       \
	X(TORCH_DB, "torch_npu DB", loader_ascend_db, TL_FMT_ASCEND_DB, NULL, NULL)                \
	/* PROF_x/msprof_*.db */                                                                   \
	X(MSPROF_DB, "msprof DB", loader_ascend_db, TL_FMT_ASCEND_DB, NULL, NULL)                  \
	/* ascend_mindspore_profiler_{r}.db */                                                     \
	X(MINDSPORE_DB, "MindSpore DB", loader_ascend_db, TL_FMT_ASCEND_DB, NULL, NULL)            \
	/* Ascend trace_view.json */                                                               \
	X(TRACE_VIEW, "trace_view.json", loader_trace_json, TL_FMT_HCCL_GROUPS, NULL, NULL)        \
	/* PyTorch profiler (Kineto) / Chrome trace JSON */                                        \
	X(KINETO, "Kineto JSON", loader_trace_json, TL_FMT_GPU, NULL, NULL)                        \
	/* PROF_x/device_N/timeline/msprof_{N}_{model}_{iter}.json: one iteration of one model     \
	 * (msprof --export=on, CANN <= 7.0) */                                                    \
	X(MSPROF_ITER, "msprof export, per-iteration JSON (CANN \xe2\x89\xa4 7)",                  \
	  loader_trace_json, TL_FMT_PER_ITERATION | TL_FMT_HCCL_GROUPS, NULL, NULL)                \
	/* MindSpore 1.x ascend_timeline_display_{r}.json */                                       \
	X(MS_TIMELINE, "MindSpore 1.x timeline", loader_trace_json, 0,                             \
	  "ascend_timeline_display{r}.json", NULL)

typedef enum tl_source_kind {
#define TL_SRC_KIND_(kind, name, loader, caps, glob, magic) TL_SRC_##kind,
	TL_FORMATS(TL_SRC_KIND_)
#undef TL_SRC_KIND_
	    TL_SRC__COUNT
} tl_source_kind;

/* A format's row, but for its loader (which only the loaders' layer sees). */
typedef struct tl_format {
	const char *name;         /* what tl info prints */
	unsigned caps;            /* TL_FMT_* */
	const char *glob, *magic; /* the probe, or NULL */
} tl_format;

/* The row of kind k; NULL for no kind. The rows are one array in kind order: source_format(0)
 * is the first of TL_SRC__COUNT. */
const tl_format *source_format(tl_source_kind k);
/* The format's name (tl info), from its row; "unknown" for no kind. */
const char *source_kind_name(tl_source_kind);
/* The format's capabilities (TL_FMT_*), from its row; 0 for no kind. */
unsigned source_kind_caps(tl_source_kind);

/* Where a source's capture time came from, the most trustworthy last. */
typedef enum tl_capture_from {
	TL_CAPTURE_FILE_TIME,     /* the data file's modification time: only when nothing says */
	TL_CAPTURE_NAME,          /* the time stamp in the capture directory's (or file's) name */
	TL_CAPTURE_PROFILER_INFO, /* profiler_info*.json end_info.collectionTimeEnd */
	TL_CAPTURE_SESSION,       /* the DB's SESSION_TIME_INFO endTimeNs (load_capture_times) */
} tl_capture_from;

typedef struct tl_source {
	int rank; /* -1 when it could not be determined */
	tl_source_kind kind;
	char *path; /* the data file */
	char *dir;  /* the capture directory (…_ascend_pt, PROF_…), or the file's directory */
	int64_t capture_ns; /* capture time (epoch ns), 0 unknown: when the collection ended as
	                       the profile says, else the stamp in its name, else the file's time */
	tl_capture_from capture_from; /* where capture_ns came from */
	char *role;            /* verl / MindSpeed-RL role directory (<step>/<role>/…), or NULL */
	int role_step;         /* the <step> directory number in verl discrete mode, or -1 */
	const char *rank_from; /* how the rank was found: "file name", "profiler_info", ... */
	/* TL_SRC_MSPROF_ITER: the model id and iteration in the file name, and how many model ids
	 * the device's timeline holds (with two or more, step ids carry the model: see
	 * MSPROF_MODEL_STEP); -1, -1, 0 for the other kinds */
	int model_id, iteration, models;
	/* the file as discovery saw it: later reads (a slice's arguments) check that it is still
	 * the same file, not deleted, replaced or grown by a writer */
	uint64_t dev, ino;
	int64_t size, mtime_ns;
} tl_source;

/* The step id of iteration `iter` of model `model` on a device whose timeline holds several
 * models: the models' iterations stay apart (model 2 iteration 3 is step 2000003). */
#define MSPROF_MODEL_STEP(model, iter) ((int64_t)(model)*1000000 + (iter))

typedef struct tl_sourcelist {
	tl_source *v; /* sorted by rank, then capture time, then path */
	size_t n, cap;
} tl_sourcelist;

/* Frees a source's strings (not the struct itself). */
void source_free(tl_source *);
/* Frees every source's strings and the array; the list is left empty. */
void sourcelist_free(tl_sourcelist *);
/* Sorts by rank, then capture time, then path (after capture times were refined). */
void sourcelist_sort(tl_sourcelist *);
/* Whether the source's format has every capability of caps (TL_FMT_*). */
int source_has(const tl_source *, unsigned caps);
/* Whether sb (a stat of its path, or fstat of a descriptor opened on it) is still the file as
 * discovery saw it: the same device, inode, size and modification time. A source found
 * without them (inode and size 0: made by a test or a fuzz target) is taken as it is. */
int source_is_file(const tl_source *, const struct stat *sb);

#endif
