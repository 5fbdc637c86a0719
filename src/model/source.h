/* What discovery found and the loaders read: one data file of one rank (a source), its kind,
 * and the sorted list of them. The model owns these (a trace keeps its source list), so the
 * model does not depend on discovery: discovery fills them in, the loaders read them. */
#ifndef TL_SOURCE_H
#define TL_SOURCE_H
#include <stddef.h>
#include <stdint.h>

typedef enum tl_source_kind {
	TL_SRC_TORCH_DB,     /* ascend_pytorch_profiler_{r}.db */
	TL_SRC_MSPROF_DB,    /* PROF_x/msprof_*.db */
	TL_SRC_MINDSPORE_DB, /* ascend_mindspore_profiler_{r}.db */
	TL_SRC_TRACE_VIEW,   /* Ascend trace_view.json */
	TL_SRC_KINETO,       /* PyTorch profiler (Kineto) / Chrome trace JSON */
	TL_SRC_MSPROF_ITER,  /* PROF_x/device_N/timeline/msprof_{N}_{model}_{iter}.json: one
	                        iteration of one model (msprof --export=on, CANN <= 7.0) */
	TL_SRC_MS_TIMELINE,  /* MindSpore 1.x ascend_timeline_display_{r}.json */
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

#endif
