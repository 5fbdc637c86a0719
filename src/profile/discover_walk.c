/* Discovery's walk: the directory layouts of torch_npu, msprof and MindSpore, where each one
 * writes the rank, and one file named on the command line. Nothing here writes: files are
 * opened read-only, only to read their first bytes. */
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

/* How the rank was found (tl_source.rank_from). */
static const char RF_FILE_NAME[] = "file name";
static const char RF_INFO_NAME[] = "profiler_info file name";
static const char RF_INFO_RANK[] = "profiler_info rank_id";
static const char RF_DEVICE_INFO[] = "info.json rank_id";
static const char RF_DISTRIBUTED[] = "distributedInfo";
static const char RF_UNKNOWN[] = "unknown";
static const char RF_DIR_NAME[] = "directory name";
static const char RF_DEVICE_ID[] = "device id (info.json without rank_id)";

/* ---- the walk ------------------------------------------------------------------------------ */

/* Lists one data file. cap_depth is the depth of the capture (the …_ascend_pt or PROF_
 * directory, or a loose file itself) below the root, -1 when it is not below the root.
 * Returns 1 when listed, 0 when it was listed already (reached twice through links), -1 when it
 * cannot be opened (warned). */
static int
walk_add(walk *w, tl_source_kind kind, const char *path, const char *dir, int rank,
         const char *from, int64_t capture_ns, int cap_depth)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		msg_warn(path, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		msg_warn(path, "not a regular file; skipped");
		close(fd);
		return -1;
	}
	close(fd);
	if (!disc_fidset_add(&w->files, st.st_dev, st.st_ino))
		return 0;
	tl_source s;
	memset(&s, 0, sizeof s);
	s.capture_from = capture_ns != 0 ? TL_CAPTURE_NAME : TL_CAPTURE_FILE_TIME;
	if (capture_ns == 0)
		capture_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

	s.rank = rank >= 0 ? rank : -1;
	s.kind = kind;
	s.path = xstrdup(path);
	s.dir = xstrdup(dir);
	s.capture_ns = capture_ns;
	s.role = NULL;
	s.role_step = -1;
	s.rank_from = rank >= 0 ? from : RF_UNKNOWN;
	s.model_id = s.iteration = -1;
	s.models = 0;
	s.dev = (uint64_t)st.st_dev;
	s.ino = (uint64_t)st.st_ino;
	s.size = (int64_t)st.st_size;
	s.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

	role_hint h = {NULL, NULL, NULL, -1};
	if (cap_depth >= 2 && cap_depth - 1 <= DISCOVER_MAX_DEPTH &&
	    !disc_str_digits(w->names[cap_depth - 1])) {
		h.name = xstrdup(w->names[cap_depth - 1]);
		h.dir = xstrdup(w->paths[cap_depth - 1]);
		h.parent = xstrdup(w->paths[cap_depth - 2]);
		const char *sn = w->names[cap_depth - 2];
		size_t sl = strlen(sn);
		if (sl > 0 && sl <= 9 && disc_str_digits(sn))
			h.step = disc_digits_num(sn, (int)sl);
	}
	VEC_PUSH(w->found.v, w->found.n, w->found.cap, s);
	VEC_PUSH(w->hints, w->nhints, w->caphints, h);
	return 1;
}

static void
capture_init(capture *c, const char *dir, int depth)
{
	c->dir = dir;
	c->depth = depth;
	c->stamp = disc_capture_stamp(disc_path_base(dir));
	c->rank_known = 0;
	c->rank = -1;
	c->rank_from = RF_UNKNOWN;
}

/* The rank after the file name's: profiler_info_{r}.json in the capture directory, else its
 * rank_id. */
static int
capture_rank(capture *c, const char **from)
{
	if (!c->rank_known) {
		c->rank_known = 1;
		dirlist dl;
		if (disc_dirlist_read(c->dir, &dl) != 0) {
			msg_warn(c->dir, "cannot read directory: %s", strerror(errno));
			*from = c->rank_from;
			return c->rank;
		}
		for (size_t i = 0; i < dl.n && c->rank < 0; i++) {
			int r;
			if (disc_name_rank_match(dl.v[i].name, "profiler_info", ".json", &r) &&
			    r >= 0) {
				c->rank = r;
				c->rank_from = RF_INFO_NAME;
			}
		}
		for (size_t i = 0; i < dl.n && c->rank < 0; i++) {
			const char *n = dl.v[i].name;
			if (!disc_str_starts(n, "profiler_info") || !disc_str_ends(n, ".json"))
				continue;
			char *p = disc_path_join(c->dir, n);
			int r = disc_json_file_rank(p, "rank_id");
			free(p);
			if (r >= 0) {
				c->rank = r;
				c->rank_from = RF_INFO_RANK;
			}
		}
		disc_dirlist_free(&dl);
	}
	*from = c->rank_from;
	return c->rank;
}

static int is_capture_name(const char *name);

/* The rank of a trace_view.json, which holds none itself (a DB has RANK_DEVICE_MAP, which the
 * loader reads): profiler_info in its capture directory, else the capture directory's name
 * (rank3_ascend_pt, job_rank_3_x), else the same of the *_ascend_pt directory it sits in (a
 * few levels up: a copy moved into a folder of its own), else -1 (tl info then says where it
 * looked). */
static int
trace_view_rank(capture *c, const char **from)
{
	int r = capture_rank(c, from);
	if (r < 0 && (r = disc_name_rank_pattern(disc_path_base(c->dir))) >= 0)
		*from = RF_DIR_NAME;
	char *d = disc_path_dir(c->dir);
	for (int up = 0; r < 0 && up < 3 && strcmp(d, disc_path_base(d)) != 0; up++) {
		if (is_capture_name(disc_path_base(d))) {
			capture pc;
			capture_init(&pc, d, -1);
			r = capture_rank(&pc, from);
			if (r < 0 && (r = disc_name_rank_pattern(disc_path_base(d))) >= 0)
				*from = RF_DIR_NAME;
			break;
		}
		char *next = disc_path_dir(d);
		free(d);
		d = next;
	}
	free(d);
	return r;
}

/* msprof captures: rank_id of PROF/device_{id}/info.json.{id}. -1 when absent, or when the
 * devices disagree (then the loader decides, and the user is told). */
static int
prof_device_rank(const char *prof, const dirlist *dl)
{
	int rank = -1, other = -1;
	for (size_t i = 0; i < dl->n; i++) {
		const char *d;
		if (!disc_name_digits(dl->v[i].name, "device_", "", &d))
			continue;
		char *dpath = disc_path_join(prof, dl->v[i].name);
		dirlist in;
		if (disc_entry_type(dpath, dl->v[i].type) != ENT_DIR) {
			free(dpath);
			continue;
		}
		if (disc_dirlist_read(dpath, &in) != 0) {
			msg_warn(dpath, "cannot read directory: %s", strerror(errno));
			free(dpath);
			continue;
		}
		for (size_t j = 0; j < in.n; j++) {
			if (!disc_name_digits(in.v[j].name, "info.json.", "", &d))
				continue;
			char *f = disc_path_join(dpath, in.v[j].name);
			int r = disc_json_file_rank(f, "rank_id");
			free(f);
			if (r < 0)
				continue;
			if (rank < 0)
				rank = r;
			else if (r != rank)
				other = r;
		}
		disc_dirlist_free(&in);
		free(dpath);
	}
	if (other >= 0) {
		msg_warn(prof, "devices of ranks %d and %d in one PROF directory; rank undecided",
		         rank, other);
		return -1;
	}
	return rank;
}

/* ---- msprof's per-iteration export (CANN 6.x-7.0, msprof --export=on) -------------------- */

/* The rank of device directory devdir (PROF_x/device_{N}): rank_id of its info.json.{N}, else
 * the device id (one host's devices in msprof-analyze's order), else -1. */
static int
device_dir_rank(const char *devdir, const char **from)
{
	dirlist dl;
	int rank = -1, dev = -1;
	const char *d;
	size_t nd = disc_name_digits(disc_path_base(devdir), "device_", "", &d);
	if (nd > 0)
		dev = disc_digits_rank(d, nd);
	*from = RF_UNKNOWN;
	if (disc_dirlist_read(devdir, &dl) != 0)
		return -1;
	for (size_t i = 0; i < dl.n && rank < 0; i++) {
		if (!disc_name_digits(dl.v[i].name, "info.json.", "", &d))
			continue;
		char *f = disc_path_join(devdir, dl.v[i].name);
		rank = disc_json_file_rank(f, "rank_id");
		free(f);
		if (rank >= 0)
			*from = RF_DEVICE_INFO;
	}
	disc_dirlist_free(&dl);
	if (rank < 0 && dev >= 0) {
		rank = dev;
		*from = RF_DEVICE_ID;
	}
	return rank;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* devdir/timeline/msprof_{N}_{model}_{iter}.json: one source per file, all of the device's
 * rank; the task_time_*, hccl_* and step_trace_* files beside them repeat parts of the same
 * events and are only counted (disc_dup_report). cap: the capture directory (the PROF_ one, or
 * devdir itself when the walk started there). Returns the number of files listed. */
static int
device_iter_scan(walk *w, const char *devdir, const char *cap, int64_t stamp, int cap_depth)
{
	char *tdir = disc_path_join(devdir, "timeline");
	dirlist dl;
	if (disc_dirlist_read(tdir, &dl) != 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			msg_warn(tdir, "cannot read directory: %s", strerror(errno));
		free(tdir);
		return 0;
	}
	int *models = NULL;
	size_t nm = 0, mcap = 0, nfound = 0, ndup = 0;
	int dev, model, iter;
	for (size_t i = 0; i < dl.n; i++) {
		const char *n = dl.v[i].name;
		if (disc_msprof_iter_match(n, "msprof_", &dev, &model, &iter)) {
			VEC_PUSH(models, nm, mcap, model);
			nfound++;
		} else if (disc_msprof_iter_match(n, "task_time_", &dev, &model, &iter) ||
		           disc_msprof_iter_match(n, "hccl_", &dev, &model, &iter) ||
		           disc_msprof_iter_match(n, "step_trace_", &dev, &model, &iter)) {
			ndup++;
		}
	}
	int listed = 0;
	if (nfound > 0) {
		qsort(models, nm, sizeof *models, cmp_int);
		int distinct = 0;
		for (size_t i = 0; i < nm; i++)
			distinct += i == 0 || models[i] != models[i - 1];
		const char *from;
		int rank = device_dir_rank(devdir, &from);
		for (size_t i = 0; i < dl.n; i++) {
			const char *n = dl.v[i].name;
			if (!disc_msprof_iter_match(n, "msprof_", &dev, &model, &iter))
				continue;
			char *p = disc_path_join(tdir, n);
			if (walk_add(w, TL_SRC_MSPROF_ITER, p, cap, rank, from, stamp, cap_depth) >
			    0) {
				tl_source *s = &w->found.v[w->found.n - 1];
				s->model_id = model;
				s->iteration = iter;
				s->models = distinct;
				listed++;
			}
			free(p);
		}
		w->dup_files += ndup;
	}
	free(models);
	disc_dirlist_free(&dl);
	free(tdir);
	return listed;
}

/* The distinct model ids of the msprof_{N}_{model}_{iter}.json files in tdir. */
static int
timeline_models(const char *tdir)
{
	dirlist dl;
	int seen[64], n = 0, dev, model, iter;
	if (disc_dirlist_read(tdir, &dl) != 0)
		return 1;
	for (size_t i = 0; i < dl.n && n < 64; i++) {
		if (!disc_msprof_iter_match(dl.v[i].name, "msprof_", &dev, &model, &iter))
			continue;
		int k = 0;
		while (k < n && seen[k] != model)
			k++;
		if (k == n)
			seen[n++] = model;
	}
	disc_dirlist_free(&dl);
	return n > 0 ? n : 1;
}

/* Every device_{N} of a PROF_ directory with a per-iteration export. */
static int
prof_iter_scan(walk *w, const char *prof, const dirlist *dl, int64_t stamp, int cap_depth)
{
	int found = 0;
	for (size_t i = 0; i < dl->n; i++) {
		const char *d;
		if (!disc_name_digits(dl->v[i].name, "device_", "", &d))
			continue;
		char *dpath = disc_path_join(prof, dl->v[i].name);
		if (disc_entry_type(dpath, dl->v[i].type) == ENT_DIR)
			found += device_iter_scan(w, dpath, prof, stamp, cap_depth);
		free(dpath);
	}
	return found;
}

void
disc_dup_report(walk *w, const char *root)
{
	if (w->dup_files > 0)
		msg_warn(root,
		         "%zu task_time_*, hccl_* and step_trace_* file%s of per-iteration msprof "
		         "exports skipped: they repeat the msprof_* timelines",
		         w->dup_files, w->dup_files == 1 ? "" : "s");
	w->dup_files = 0;
}

/* The newest msprof_{ts}.db in dl (msprof: "newest name wins"), or NULL. */
static const char *
prof_newest_db(const dirlist *dl)
{
	const char *best = NULL, *bd = NULL;
	size_t bn = 0;
	for (size_t i = 0; i < dl->n; i++) {
		const char *d;
		size_t n = disc_name_digits(dl->v[i].name, "msprof_", ".db", &d);
		if (n && (best == NULL || disc_digits_cmp(d, n, bd, bn) > 0)) {
			best = dl->v[i].name;
			bd = d;
			bn = n;
		}
	}
	return best;
}

/* The rank of device dev of a PROF_ directory: rank_id of its device_{dev}/info.json.{dev}, or
 * -1. */
static int
prof_dev_rank(const char *prof, const char *dev, size_t n)
{
	char *f = xasprintf("%s/device_%.*s/info.json.%.*s", prof, (int)n, dev, (int)n, dev);
	int r = disc_json_file_rank(f, "rank_id");
	free(f);
	return r;
}

/* CANN 7.0's export DBs of a PROF_ directory: report_{device}.db in it, in its device_{N}/ or
 * in their sqlite/, each a device of its own (its rank from that device's info.json). Returns
 * the number added. */
static int
prof_report_dbs(walk *w, const char *prof, const dirlist *dl, int depth, capture *c)
{
	int found = 0;
	int64_t stamp = disc_capture_stamp(disc_path_base(prof));
	for (int level = 0; level < 3; level++) {
		for (size_t i = 0; i < dl->n; i++) {
			const char *d;
			char *dir;
			if (level == 0) {
				if (i > 0)
					break;
				dir = xstrdup(prof);
			} else if (disc_name_digits(dl->v[i].name, "device_", "", &d)) {
				dir = level == 1 ? disc_path_join(prof, dl->v[i].name)
				                 : xasprintf("%s/%s/sqlite", prof, dl->v[i].name);
			} else {
				continue;
			}
			dirlist in;
			if (disc_dirlist_read(dir, &in) != 0) {
				free(dir);
				continue;
			}
			for (size_t j = 0; j < in.n; j++) {
				size_t n = disc_name_digits(in.v[j].name, "report_", ".db", &d);
				if (n == 0)
					continue;
				char *path = disc_path_join(dir, in.v[j].name);
				const char *from = RF_UNKNOWN;
				int rank = c ? capture_rank(c, &from) : -1;
				if (rank < 0) {
					rank = prof_dev_rank(prof, d, n);
					from = rank >= 0 ? RF_DEVICE_INFO : RF_UNKNOWN;
				}
				walk_add(w, TL_SRC_MSPROF_DB, path, c ? c->dir : prof, rank, from,
				         stamp, c ? c->depth : depth);
				free(path);
				found++;
			}
			disc_dirlist_free(&in);
			free(dir);
		}
	}
	return found;
}

/* The timeline of a PROF_ directory: its newest msprof DB, else the newest msprof JSON export
 * (all slices of it). c is the torch_npu capture it sits in, or NULL for a standalone msprof run.
 * Returns the number of data files recognised. */
static int
prof_scan(walk *w, const char *prof, int depth, capture *c)
{
	dirlist dl, mpo;
	if (disc_dirlist_read(prof, &dl) != 0) {
		msg_warn(prof, "cannot read directory: %s", strerror(errno));
		return 0;
	}
	memset(&mpo, 0, sizeof mpo);
	char *mpo_path = disc_path_join(prof, MPO_NAME);
	const char *db = prof_newest_db(&dl);
	int have_mpo = 0;
	if (db == NULL) {
		have_mpo = disc_dirlist_read(mpo_path, &mpo) == 0;
		if (!have_mpo && errno != ENOENT && errno != ENOTDIR)
			msg_warn(mpo_path, "cannot read directory: %s", strerror(errno));
	}

	/* torch_npu looks in the PROF root, then in mindstudio_profiler_output */
	char **files = NULL;
	size_t nfiles = 0, capfiles = 0;
	int iter_files = 0;
	tl_source_kind kind = TL_SRC_MSPROF_DB;
	int reports = 0;
	if (db != NULL) {
		VEC_PUSH(files, nfiles, capfiles, disc_path_join(prof, db));
	} else if (have_mpo && (db = prof_newest_db(&mpo)) != NULL) {
		VEC_PUSH(files, nfiles, capfiles, disc_path_join(mpo_path, db));
	} else if (have_mpo) {
		const char *best = NULL;
		size_t bn = 0;
		for (size_t i = 0; i < mpo.n; i++) {
			const char *ts;
			size_t n = disc_msprof_json_ts(mpo.v[i].name, &ts);
			if (n && (best == NULL || disc_digits_cmp(ts, n, best, bn) > 0)) {
				best = ts;
				bn = n;
			}
		}
		for (size_t i = 0; best != NULL && i < mpo.n; i++) {
			const char *ts, *n = mpo.v[i].name;
			size_t tn = disc_msprof_json_ts(n, &ts);
			if (tn && disc_digits_cmp(ts, tn, best, bn) == 0)
				VEC_PUSH(files, nfiles, capfiles, disc_path_join(mpo_path, n));
		}
		kind = TL_SRC_TRACE_VIEW;
	}

	if (nfiles > 0) {
		const char *from = RF_UNKNOWN;
		int rank = c ? capture_rank(c, &from) : -1;
		if (rank < 0) {
			rank = prof_device_rank(prof, &dl);
			from = RF_DEVICE_INFO;
		}
		int64_t stamp = disc_capture_stamp(disc_path_base(prof));
		if (stamp == 0 && c != NULL)
			stamp = c->stamp;
		for (size_t i = 0; i < nfiles; i++)
			walk_add(w, kind, files[i], c ? c->dir : prof, rank, from, stamp,
			         c ? c->depth : depth);
	} else if ((reports = prof_report_dbs(w, prof, &dl, depth, c)) > 0) {
		/* CANN 7.0's report_{device}.db: added, each a device of its own */
	} else {
		/* the older export: device_{N}/timeline/msprof_{N}_{model}_{iter}.json */
		int64_t stamp = disc_capture_stamp(disc_path_base(prof));
		if (stamp == 0 && c != NULL)
			stamp = c->stamp;
		iter_files = prof_iter_scan(w, prof, &dl, stamp, c ? c->depth : depth);
		if (iter_files == 0 && c == NULL)
			msg_warn(prof,
			         "no msprof_*.db, msprof_*.json, report_*.db or "
			         "device_*/timeline/msprof_*.json in this PROF directory; export "
			         "it first (msprof --export=on --output=DIR)");
	}
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(mpo_path);
	disc_dirlist_free(&mpo);
	disc_dirlist_free(&dl);
	return (int)nfiles + iter_files + reports;
}

/* Preference among the files of one ASCEND_PROFILER_OUTPUT: one capture = one source, and the DB
 * holds everything trace_view.json has. -1: not a timeline. */
static int
output_pref(const char *name, tl_source_kind *kind, int *rank)
{
	switch (disc_name_classify(name, rank)) {
	case NK_TORCH_DB:
		*kind = TL_SRC_TORCH_DB;
		return *rank >= 0 ? 0 : 1;
	case NK_MS_DB:
		*kind = TL_SRC_MINDSPORE_DB;
		return *rank >= 0 ? 2 : 3;
	case NK_TRACE_VIEW:
		*kind = TL_SRC_TRACE_VIEW;
		return 4;
	default:
		return -1;
	}
}

/* Lists the timeline of one ASCEND_PROFILER_OUTPUT: the best file that opens. Returns 1 when
 * it holds one (listed, or unreadable and warned), 0 when it holds none. */
static int
output_scan(walk *w, capture *c, const char *apo, const dirlist *dl)
{
	int ndb = 0, db_rank = -1, recognised = 0;
	for (size_t i = 0; i < dl->n; i++) {
		tl_source_kind kind;
		int rank, pref = output_pref(dl->v[i].name, &kind, &rank);
		if (pref >= 0 && kind != TL_SRC_TRACE_VIEW) {
			ndb++;
			/* the DB's number also names the rank of a trace_view.json fallback */
			if (db_rank < 0)
				db_rank = rank;
		}
	}
	for (int pref = 0; pref <= 4; pref++) {
		for (size_t i = 0; i < dl->n; i++) {
			tl_source_kind kind;
			int rank;
			if (output_pref(dl->v[i].name, &kind, &rank) != pref)
				continue;
			const char *from = RF_FILE_NAME;
			if (rank < 0)
				rank = capture_rank(c, &from);
			if (rank < 0 && db_rank >= 0) {
				rank = db_rank;
				from = RF_FILE_NAME;
			}
			if (rank < 0 && kind == TL_SRC_TRACE_VIEW)
				rank = trace_view_rank(c, &from);
			char *p = disc_path_join(apo, dl->v[i].name);
			int r = walk_add(w, kind, p, c->dir, rank, from, c->stamp, c->depth);
			free(p);
			recognised = 1;
			if (r < 0)
				continue; /* cannot open (warned): try the next best */
			if (r > 0 && ndb > 1 && kind != TL_SRC_TRACE_VIEW)
				msg_warn(apo, "%d profiler DBs in one capture; using %s", ndb,
				         dl->v[i].name);
			return 1;
		}
	}
	return recognised;
}

/* A torch_npu / MindSpore capture (…_ascend_pt, …_ascend_ms, or any directory holding
 * ASCEND_PROFILER_OUTPUT). apo: its output directory, NULL for cap/ASCEND_PROFILER_OUTPUT. */
void
disc_capture_scan(walk *w, const char *cap, const char *apo, int depth)
{
	capture c;
	capture_init(&c, cap, depth);
	char *apo_own = apo ? NULL : disc_path_join(cap, APO_NAME);
	if (apo == NULL)
		apo = apo_own;

	int found = 0;
	dirlist dl;
	if (disc_dirlist_read(apo, &dl) == 0) {
		found = output_scan(w, &c, apo, &dl);
		disc_dirlist_free(&dl);
	} else if (errno != ENOENT && errno != ENOTDIR) {
		msg_warn(apo, "cannot read directory: %s", strerror(errno));
		found = 1;
	}
	free(apo_own);
	if (found)
		return;

	/* not parsed into ASCEND_PROFILER_OUTPUT: the raw CANN PROF_ directories may hold a DB */
	if (disc_dirlist_read(cap, &dl) != 0) {
		msg_warn(cap, "cannot read directory: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < dl.n; i++) {
		if (!disc_str_starts(dl.v[i].name, "PROF_"))
			continue;
		char *p = disc_path_join(cap, dl.v[i].name);
		if (disc_entry_type(p, dl.v[i].type) == ENT_DIR)
			found += prof_scan(w, p, depth + 1, &c);
		free(p);
	}
	disc_dirlist_free(&dl);
	if (found == 0)
		msg_warn(cap, "profiler capture without a timeline (no profiler DB or "
		              "trace_view.json in " APO_NAME "); was it parsed?");
}

/* A data file met in an ordinary directory: it is its own capture, so a role is the name of
 * the directory it sits in. */
static void
file_scan(walk *w, const char *dir, const char *name, const char *path, int depth)
{
	int rank;
	name_kind nk = disc_name_classify(name, &rank);
	int cap_depth = depth + 1;
	const char *from = RF_FILE_NAME;
	capture c;
	json_peek pk;
	int probed = disc_probe_kind(name, path, &rank);
	if (probed >= 0) { /* a format's probe claims it (model/source.h, TL_FORMATS) */
		walk_add(w, (tl_source_kind)probed, path, dir, rank, from, 0, cap_depth);
		return;
	}

	switch (nk) {
	case NK_NONE:
		return;
	case NK_TORCH_DB:
	case NK_MS_DB:
	case NK_TRACE_VIEW:
		/* collected loose, perhaps with its profiler_info next to it */
		capture_init(&c, dir, depth);
		if (rank < 0)
			rank = nk == NK_TRACE_VIEW ? trace_view_rank(&c, &from)
			                           : capture_rank(&c, &from);
		walk_add(w,
		         nk == NK_TORCH_DB ? TL_SRC_TORCH_DB
		         : nk == NK_MS_DB  ? TL_SRC_MINDSPORE_DB
		                           : TL_SRC_TRACE_VIEW,
		         path, dir, rank, from, 0, cap_depth);
		return;
	case NK_MSPROF_DB:
		walk_add(w, TL_SRC_MSPROF_DB, path, dir, -1, RF_UNKNOWN, 0, cap_depth);
		return;
	case NK_MSMONITOR_DB: {
		int64_t stamp = 0;
		disc_msmonitor_match(name, &rank, &stamp);
		walk_add(w, TL_SRC_MSPROF_DB, path, dir, rank, from, stamp, cap_depth);
		return;
	}
	case NK_MSPROF_JSON:
		if (disc_json_peek_file(path, &pk) == 0 && pk.trace)
			walk_add(w, TL_SRC_TRACE_VIEW, path, dir, -1, RF_UNKNOWN, 0, cap_depth);
		return;
	case NK_JSON:
		if (disc_json_peek_file(path, &pk) != 0 || !pk.trace)
			return;
		if (pk.ascend) { /* a trace_view.json by another name */
			capture_init(&c, dir, depth);
			rank = disc_name_rank_pattern(name);
			if (rank < 0)
				rank = trace_view_rank(&c, &from);
			walk_add(w, TL_SRC_TRACE_VIEW, path, dir, rank, from, 0, cap_depth);
			return;
		}
		if (pk.rank >= 0) {
			rank = pk.rank;
			from = RF_DISTRIBUTED;
		} else {
			rank = disc_name_rank_pattern(name);
		}
		walk_add(w, TL_SRC_KINETO, path, dir, rank, from, 0, cap_depth);
		return;
	}
}

static int
is_capture_name(const char *name)
{
	return disc_str_ends(name, "_ascend_pt") || disc_str_ends(name, "_ascend_ms");
}

void
disc_walk_dir(walk *w, const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		msg_warn(path, "cannot open: %s", strerror(errno));
		return;
	}
	if (!disc_fidset_add(&w->dirs, st.st_dev, st.st_ino))
		return; /* been here: a symlink loop, or a second link to the same directory */

	const char *name = w->names[depth];
	if (disc_str_starts(name, "PROF_")) {
		prof_scan(w, path, depth, NULL);
		return;
	}
	if (is_capture_name(name)) {
		disc_capture_scan(w, path, NULL, depth);
		return;
	}
	/* one device of a per-iteration msprof export (PROF_x/device_{N}, or its timeline/
	 * named itself): that device's rank */
	const char *dd;
	char *dev = NULL, *real = NULL;
	int is_dev = disc_name_digits(name, "device_", "", &dd) > 0;
	if (is_dev || (depth == 0 && strcmp(name, "timeline") == 0))
		real = realpath(path, NULL);
	if (is_dev) {
		dev = xstrdup(path);
	} else if (real != NULL) {
		dev = disc_path_dir(real);
		if (!disc_name_digits(disc_path_base(dev), "device_", "", &dd)) {
			free(dev);
			dev = NULL;
		}
	}
	if (dev != NULL) {
		/* the PROF_ directory above names the capture time */
		char *up = real ? disc_path_dir(real) : NULL;
		char *prof = up && strcmp(name, "timeline") == 0 ? disc_path_dir(up) : up;
		int64_t stamp = 0;
		if (prof && disc_str_starts(disc_path_base(prof), "PROF_"))
			stamp = disc_capture_stamp(disc_path_base(prof));
		int found = device_iter_scan(w, dev, dev, stamp, depth);
		if (prof != up)
			free(prof);
		free(up);
		free(dev);
		if (found > 0) {
			free(real);
			return;
		}
	}
	free(real);
	dirlist dl;
	if (disc_dirlist_read(path, &dl) != 0) {
		msg_warn(path, "cannot read directory: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < dl.n; i++) {
		if (strcmp(dl.v[i].name, APO_NAME) == 0) {
			char *p = disc_path_join(path, APO_NAME);
			int isdir = disc_entry_type(p, dl.v[i].type) == ENT_DIR;
			free(p);
			if (isdir) {
				disc_capture_scan(w, path, NULL, depth);
				disc_dirlist_free(&dl);
				return;
			}
		}
	}
	for (size_t i = 0; i < dl.n; i++) {
		const char *n = dl.v[i].name;
		char *child = disc_path_join(path, n);
		switch (disc_entry_type(child, dl.v[i].type)) {
		case ENT_DIR:
			/* hidden directories (.git, .cache, …) never hold a profile */
			if (n[0] == '.')
				break;
			if (depth + 1 > DISCOVER_MAX_DEPTH) {
				w->too_deep = 1;
				break;
			}
			w->names[depth + 1] = n;
			w->paths[depth + 1] = child;
			disc_walk_dir(w, child, depth + 1);
			w->names[depth + 1] = w->paths[depth + 1] = NULL;
			break;
		case ENT_FILE:
			file_scan(w, path, n, child, depth);
			break;
		case ENT_BROKEN: {
			int r;
			if (disc_name_classify(n, &r) != NK_NONE)
				msg_warn(child, "cannot open: %s", strerror(errno));
			break;
		}
		default:
			break;
		}
		free(child);
	}
	disc_dirlist_free(&dl);
}

/* path (real: its real path, in fdir, below up) as one iteration of a per-iteration msprof
 * export (device_{N}/timeline/msprof_{N}_{model}_{iter}.json), with its device's rank. Returns
 * 1 when it is one (listed, or warned), 0 when it is not. */
static int
iter_file(walk *w, const char *path, const char *real, const char *fdir, const char *up)
{
	int dev, model, iter;
	const char *dd, *from;
	if (!disc_msprof_iter_match(disc_path_base(real), "msprof_", &dev, &model, &iter) ||
	    strcmp(disc_path_base(fdir), "timeline") != 0 ||
	    !disc_name_digits(disc_path_base(up), "device_", "", &dd))
		return 0;
	int rank = device_dir_rank(up, &from);
	char *prof = disc_path_dir(up);
	int64_t stamp = disc_str_starts(disc_path_base(prof), "PROF_")
	                    ? disc_capture_stamp(disc_path_base(prof))
	                    : 0;
	free(prof);
	if (walk_add(w, TL_SRC_MSPROF_ITER, path, up, rank, from, stamp, -1) > 0) {
		tl_source *s = &w->found.v[w->found.n - 1];
		s->model_id = model;
		s->iteration = iter;
		s->models = timeline_models(fdir);
	}
	return 1;
}

/* path (named name, real: its real path, in fdir) as the format whose probe claims it (its name
 * or its target's), its rank from that name. Returns 1 when one does (listed, or warned). */
static int
probe_file(walk *w, const char *path, const char *name, const char *real, const char *fdir)
{
	int rank, k = disc_probe_kind(name, path, &rank);
	if (k < 0)
		k = disc_probe_kind(disc_path_base(real), path, &rank);
	if (k < 0)
		return 0;
	walk_add(w, (tl_source_kind)k, path, fdir, rank, RF_FILE_NAME, 0, -1);
	return 1;
}

/* path (name class nk: an msprof DB or JSON, in fdir, below up) as PROF_x/msprof_*.db or
 * PROF_x/mindstudio_profiler_output/msprof_*, its rank from the capture or the devices'
 * info.json. Returns 1 when listed (or warned), 0 when it is no trace. */
static int
prof_file(walk *w, const char *path, name_kind nk, const char *fdir, const char *up)
{
	const char *prof = NULL;
	if (disc_str_starts(disc_path_base(fdir), "PROF_"))
		prof = fdir;
	else if (!strcmp(disc_path_base(fdir), MPO_NAME) &&
	         disc_str_starts(disc_path_base(up), "PROF_"))
		prof = up;
	json_peek pk;
	if (nk == NK_MSPROF_JSON && (disc_json_peek_file(path, &pk) != 0 || !pk.trace))
		return 0;
	int rank = -1;
	const char *from = RF_UNKNOWN;
	int64_t stamp = 0;
	if (prof != NULL) {
		char *pdir = disc_path_dir(prof);
		capture c;
		capture_init(&c, pdir, -1);
		if (is_capture_name(disc_path_base(pdir)))
			rank = capture_rank(&c, &from);
		dirlist dl;
		if (rank < 0 && disc_dirlist_read(prof, &dl) == 0) {
			rank = prof_device_rank(prof, &dl);
			from = RF_DEVICE_INFO;
			disc_dirlist_free(&dl);
		}
		stamp = disc_capture_stamp(disc_path_base(prof));
		free(pdir);
	}
	walk_add(w, nk == NK_MSPROF_DB ? TL_SRC_MSPROF_DB : TL_SRC_TRACE_VIEW, path,
	         prof ? prof : fdir, rank, from, stamp, -1);
	return 1;
}

/* path names one file (discover_int.h). A file that is no profile finds nothing, and the command
 * exits as it does for a directory without profiles. */
disc_file_status
disc_discover_file(walk *w, const char *path)
{
	char buf[1024];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		msg_error("%s: cannot open: %s", text_sanitize(path, buf, sizeof buf, 1),
		          strerror(errno));
		return DISC_FILE_UNREADABLE;
	}
	close(fd);
	char *real = realpath(path, NULL);
	if (real == NULL) {
		msg_error("%s: %s", text_sanitize(path, buf, sizeof buf, 1), strerror(errno));
		return DISC_FILE_UNREADABLE;
	}
	const char *name = disc_path_base(path);
	char *fdir = disc_path_dir(real);
	char *up = disc_path_dir(fdir);
	int rank, ok = 1;
	const char *from = RF_FILE_NAME;
	capture c;
	json_peek pk;
	name_kind nk = disc_name_classify(name, &rank);
	if (nk == NK_NONE || nk == NK_JSON) {
		/* a symlink with a name of its own: the target's name may say more */
		name_kind rk = disc_name_classify(disc_path_base(real), &rank);
		if (rk != NK_NONE)
			nk = rk;
		if (rk != NK_NONE && rk != NK_JSON)
			name = disc_path_base(real);
	}

	if (iter_file(w, path, real, fdir, up) || probe_file(w, path, name, real, fdir)) {
		free(up);
		free(fdir);
		free(real);
		return DISC_FILE_ADDED;
	}

	switch (nk) {
	case NK_TORCH_DB:
	case NK_MS_DB:
	case NK_TRACE_VIEW: {
		/* …_ascend_pt/ASCEND_PROFILER_OUTPUT/file: the capture is two levels up */
		const char *cap = strcmp(disc_path_base(fdir), APO_NAME) == 0 ? up : fdir;
		capture_init(&c, cap, -1);
		if (rank < 0)
			rank = nk == NK_TRACE_VIEW ? trace_view_rank(&c, &from)
			                           : capture_rank(&c, &from);
		walk_add(w,
		         nk == NK_TORCH_DB ? TL_SRC_TORCH_DB
		         : nk == NK_MS_DB  ? TL_SRC_MINDSPORE_DB
		                           : TL_SRC_TRACE_VIEW,
		         path, cap, rank, from, c.stamp, -1);
		break;
	}
	case NK_MSPROF_DB:
	case NK_MSPROF_JSON:
		ok = prof_file(w, path, nk, fdir, up);
		break;
	case NK_MSMONITOR_DB: {
		int64_t stamp = 0;
		disc_msmonitor_match(name, &rank, &stamp);
		walk_add(w, TL_SRC_MSPROF_DB, path, fdir, rank, from, stamp, -1);
		break;
	}
	case NK_JSON:
		if (disc_json_peek_file(path, &pk) != 0 || !pk.trace) {
			ok = 0;
			break;
		}
		if (pk.ascend) { /* a trace_view.json by another name */
			const char *cap = strcmp(disc_path_base(fdir), APO_NAME) == 0 ? up : fdir;
			capture_init(&c, cap, -1);
			rank = disc_name_rank_pattern(name);
			if (rank < 0)
				rank = trace_view_rank(&c, &from);
			walk_add(w, TL_SRC_TRACE_VIEW, path, cap, rank, from, c.stamp, -1);
			break;
		}
		if (pk.rank >= 0) {
			rank = pk.rank;
			from = RF_DISTRIBUTED;
		} else {
			rank = disc_name_rank_pattern(name);
			if (rank < 0)
				rank = disc_name_rank_pattern(disc_path_base(real));
		}
		walk_add(w, TL_SRC_KINETO, path, fdir, rank, from, 0, -1);
		break;
	case NK_NONE:
		if (disc_str_ends(name, ".db") && strcmp(name, "analysis.db") != 0 &&
		    strcmp(name, "communication_analyzer.db") != 0 &&
		    strcmp(name, "cluster_analysis.db") != 0) {
			/* a renamed unified DB: the loader reads its RANK_DEVICE_MAP */
			walk_add(w, TL_SRC_MSPROF_DB, path, fdir, -1, RF_UNKNOWN, 0, -1);
		} else {
			ok = 0;
		}
		break;
	}
	if (!ok)
		msg_error("%s: neither a profiler DB (ascend_pytorch_profiler_*.db, msprof_*.db) "
		          "nor a Chrome/Kineto trace JSON",
		          text_sanitize(path, buf, sizeof buf, 1));
	free(up);
	free(fdir);
	free(real);
	return ok ? DISC_FILE_ADDED : DISC_FILE_NOT_PROFILE;
}
