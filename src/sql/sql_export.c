/* tl export: a window of the loaded profile for other tools, read from the slices table (so it
 * holds what `tl query` shows) and written row by row as the statement steps (memory does not
 * grow with the window: one row at a time, plus one entry per lane).
 *
 * chrome: one Chrome trace per rank, OUT/rank{r}.trace.json, in the process and thread naming
 * of Ascend's trace_view.json, which tl's JSON loader reads exactly, so that tl reads the export
 * back to the same overlap numbers: compute, memory-copy and other device work on "Ascend
 * Hardware" streams with a "Task Type" that says which it is, communication ops on "HCCL" group
 * threads (their sub-tasks on "Plane" threads), MSTX ranges in an MsprofTx-style process with
 * their domain, host slices under "CANN", the steps as ProfilerStep#N on a "Python" thread and
 * the counters as ph "C" events. One file per rank because the loader takes a Chrome file for one
 * rank (as every profiler writes them); Perfetto and MindStudio Insight open the files together.
 * A device slice whose step (the step of its launch) is not the step its start falls in gets a
 * HostToDevice flow from its step's start: the loader gives it its launch step by that flow.
 *
 * csv: the slices of the window as `tl query PATH "SELECT * FROM slices ..." --csv` prints them. */
#include "config.h"
#include "model/trace.h"
#include "sql/sql.h"
#include "sql/sql_int.h"
#include "util/jsonw.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PID_PYTHON = 1, PID_HW, PID_HCCL, PID_MSTX, PID_COUNTERS, PID_CANN /* and after */ };

typedef struct ex_lane {
	char *name; /* the model's lane label */
	int pid;
	int64_t tid;
} ex_lane;

struct tl_export {
	tl_export_opts o;
	tl_sql *slices, *counters;
	const tl_query *q;
	/* the rank being written */
	FILE *f;
	char *path;
	int rank;         /* the rank of f */
	tl_jsonw *w;      /* f's JSON writer: the array of events */
	const tl_rank *r; /* its model */
	tl_step *steps;   /* the steps written, sorted by start */
	size_t nsteps;
	ex_lane *lanes;
	size_t nlanes, lcap, last;
	char **procs; /* the host processes' names, pid PID_CANN + i */
	size_t nprocs, pcap;
	int64_t next_stream, next_plane, next_thread;
	long long nflows, nrows, dropped;
	int tty, failed;
};

/* ---- output checks ----------------------------------------------------------------------- */

/* Whether path (which may not exist yet) lies in or is the input: its directory's real path
 * against the input's. */
static int
inside_input(const char *input, const char *path)
{
	char in[PATH_MAX], dir[PATH_MAX], buf[PATH_MAX];
	if (realpath(input, in) == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	const char *parent = slash == NULL ? "." : slash == buf ? "/" : (*slash = '\0', buf);
	if (realpath(parent, dir) == NULL)
		return 0;
	const char *base = slash == NULL ? path : strrchr(path, '/') + 1;
	size_t n = strlen(dir);
	if (n + 1 + strlen(base) < sizeof dir) {
		snprintf(dir + n, sizeof dir - n, "%s%s", n > 1 ? "/" : "", base);
	}
	size_t m = strlen(in);
	return strncmp(dir, in, m) == 0 && (dir[m] == '\0' || dir[m] == '/' || m == 1);
}

static int
check_output(const tl_export_opts *o)
{
	struct stat st;
	if (o->format == TL_EXPORT_CSV && strcmp(o->out, "-") == 0)
		return 0;
	if (inside_input(o->input, o->out)) {
		msg_error("export: %s is inside the input %s: tl writes nothing in or beside its "
		          "inputs",
		          o->out, o->input);
		return -1;
	}
	if (stat(o->out, &st) == 0) {
		if (o->format == TL_EXPORT_CSV || !S_ISDIR(st.st_mode)) {
			msg_error("export: %s exists: tl export never overwrites a file", o->out);
			return -1;
		}
		DIR *d = opendir(o->out);
		struct dirent *de;
		int empty = d != NULL;
		while (d != NULL && (de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				empty = 0;
		if (d != NULL)
			closedir(d);
		if (!empty) {
			msg_error("export: %s is a directory that is not empty: tl export never "
			          "overwrites a file",
			          o->out);
			return -1;
		}
	}
	return 0;
}

/* ---- chrome ------------------------------------------------------------------------------ */

/* µs with three decimals, exact: the loader parses them back to the ns (a number, or as the
 * string Ascend's traces write "ts" as). */
static void
put_us(tl_jsonw *w, const char *key, int64_t ns, int quoted)
{
	char buf[48];
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
	         (unsigned)(a % 1000));
	if (quoted)
		jsonw_str_m(w, key, buf);
	else
		jsonw_raw_m(w, key, buf);
}

static void
meta(tl_export *e, const char *what, int pid, int64_t tid, const char *name)
{
	tl_jsonw *w = e->w;
	jsonw_object_begin(w);
	jsonw_str_m(w, "ph", "M");
	jsonw_str_m(w, "name", what);
	jsonw_i64_m(w, "pid", pid);
	jsonw_i64_m(w, "tid", tid);
	jsonw_object_begin_m(w, "args");
	jsonw_str_m(w, "name", name ? name : "");
	jsonw_end(w);
	jsonw_end(w);
}

/* The number after "stream" in a lane label ("Stream 7", "GPU 0 stream 7"), else -1. */
static int64_t
stream_number(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (strncasecmp(p, "stream", 6) != 0)
			continue;
		const char *q = p + 6;
		while (*q == ' ' || *q == '_' || *q == '-')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		int64_t x = 0;
		for (; *q >= '0' && *q <= '9' && x < (INT64_C(1) << 30); q++)
			x = x * 10 + (*q - '0');
		return x;
	}
	return -1;
}

/* The process of a slice kind (the slices table's kind column). */
static int
kind_pid(const char *kind)
{
	if (strcmp(kind, "comm") == 0 || strcmp(kind, "comm.task") == 0)
		return PID_HCCL;
	if (strcmp(kind, "mstx") == 0)
		return PID_MSTX;
	if (strcmp(kind, "host") == 0)
		return PID_CANN;
	return PID_HW;
}

/* The host process of a lane. The loader labels a host lane "PROCESS THREAD" and reads events
 * of a process it does not know by their names (a collective's name makes a communication op),
 * so a lane goes to "Python" or "CANN", the processes whose events are host events: "CANN
 * Thread 7" to CANN's "Thread 7", any other lane whole to CANN. A CPU-only trace's collectives
 * go to "Host" ("Host NAME"), which the loader reads by their names as the trace had them. */
static const char *
host_split(const char *lane, const char **thread)
{
	static const char *const known[] = {"Python", "CANN", "Host"};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		size_t n = strlen(known[i]);
		if (strncmp(lane, known[i], n) == 0 && lane[n] == ' ' && lane[n + 1] != '\0') {
			*thread = lane + n + 1;
			return known[i];
		}
	}
	*thread = lane;
	return "CANN";
}

/* The thread of (kind, lane), named on first use. */
static const ex_lane *
lane_of(tl_export *e, const char *kind, const char *lane)
{
	int pid = kind_pid(kind), plane = strcmp(kind, "comm.task") == 0;
	if (e->last < e->nlanes && strcmp(e->lanes[e->last].name, lane) == 0 &&
	    (e->lanes[e->last].pid == pid ||
	     (pid == PID_CANN && e->lanes[e->last].pid >= PID_CANN)))
		return &e->lanes[e->last];
	for (size_t i = 0; i < e->nlanes; i++)
		if (strcmp(e->lanes[i].name, lane) == 0 &&
		    (e->lanes[i].pid == pid || (pid == PID_CANN && e->lanes[i].pid >= PID_CANN))) {
			e->last = i;
			return &e->lanes[i];
		}
	ex_lane l = {xstrdup(lane), pid, 0};
	char label[300];
	const char *tname = lane;
	if (pid == PID_HW) {
		/* the loader keys a device lane by its stream number */
		int64_t sn = stream_number(lane);
		if (sn < 0 || sn >= (INT64_C(1) << 30)) {
			sn = e->next_stream++;
			snprintf(label, sizeof label, "Stream %" PRId64, sn);
			tname = label;
		}
		for (size_t i = 0; i < e->nlanes; i++) /* two lanes, one number: a new one */
			if (e->lanes[i].pid == PID_HW && e->lanes[i].tid == sn) {
				sn = e->next_stream++;
				snprintf(label, sizeof label, "Stream %" PRId64, sn);
				tname = label;
				break;
			}
		l.tid = sn;
	} else if (plane) { /* sub-task lanes: a thread named "Plane ..." */
		l.tid = (INT64_C(1) << 20) + e->next_plane++;
		if (strncmp(lane, "Plane", 5) != 0) {
			snprintf(label, sizeof label, "Plane %" PRId64, l.tid - (INT64_C(1) << 20));
			tname = label;
		}
	} else if (pid == PID_HCCL) {
		l.tid = e->next_thread++;
		if (strncasecmp(lane, "plane", 5) == 0) { /* a plane's name means a sub-task lane */
			snprintf(label, sizeof label, "Group %s", lane);
			tname = label;
		}
	} else if (pid == PID_CANN) {
		const char *pn = host_split(lane, &tname);
		/* a process per name, after the fixed ones */
		size_t j;
		for (j = 0; j < e->nprocs; j++)
			if (strcmp(e->procs[j], pn) == 0)
				break;
		if (j == e->nprocs) {
			VEC_PUSH(e->procs, e->nprocs, e->pcap, xstrdup(pn));
			meta(e, "process_name", PID_CANN + (int)j, 0, pn);
		}
		l.pid = PID_CANN + (int)j;
		l.tid = e->next_thread++;
	} else {
		l.tid = e->next_thread++;
	}
	meta(e, "thread_name", l.pid, l.tid, tname);
	VEC_PUSH(e->lanes, e->nlanes, e->lcap, l);
	e->last = e->nlanes - 1;
	return &e->lanes[e->last];
}

static void
lanes_clear(tl_export *e)
{
	for (size_t i = 0; i < e->nlanes; i++)
		free(e->lanes[i].name);
	e->nlanes = 0;
	e->last = SIZE_MAX;
	for (size_t i = 0; i < e->nprocs; i++)
		free(e->procs[i]);
	e->nprocs = 0;
}

static const tl_rank *
rank_by_number(const tl_query *q, int rank)
{
	const tl_trace *tr = tlq_trace(q);
	for (size_t i = 0; i < tr->nranks; i++)
		if (tr->ranks[i]->rank == rank)
			return tr->ranks[i];
	return NULL;
}

/* The steps of the window: --step N, the steps that meet --from/--to, or all. */
static void
steps_pick(tl_export *e, const tl_rank *r)
{
	free(e->steps);
	e->steps = xcalloc(r->nsteps ? r->nsteps : 1, sizeof *e->steps);
	e->nsteps = 0;
	for (size_t k = 0; k < r->nsteps; k++) {
		const tl_step *s = &r->steps[k];
		if (e->o.has_step && s->id != e->o.step)
			continue;
		if (e->o.has_window && (s->end < e->o.from || s->start >= e->o.to))
			continue;
		e->steps[e->nsteps++] = *s;
	}
}

static int counters_write(tl_export *e);

static void
step_write(tl_export *e, const tl_step *st)
{
	tl_jsonw *w = e->w;
	char name[48];
	snprintf(name, sizeof name, "ProfilerStep#%" PRId64, st->id);
	jsonw_object_begin(w);
	jsonw_str_m(w, "ph", "X");
	jsonw_str_m(w, "name", name);
	jsonw_str_m(w, "cat", "cpu_op");
	jsonw_i64_m(w, "pid", PID_PYTHON);
	jsonw_i64_m(w, "tid", 0);
	put_us(w, "ts", st->start, 1);
	put_us(w, "dur", st->end - st->start, 0);
	jsonw_end(w);
}

/* A step that work in the window was launched in, outside the window: written too, so that the
 * work keeps its step (the steps stay sorted by start). Returns its index, or SIZE_MAX. */
static size_t
step_add(tl_export *e, int64_t id)
{
	const tl_rank *r = e->r;
	for (size_t k = 0; r != NULL && k < r->nsteps; k++)
		if (r->steps[k].id == id) {
			size_t at = 0;
			while (at < e->nsteps && e->steps[at].start <= r->steps[k].start)
				at++;
			memmove(e->steps + at + 1, e->steps + at,
			        (e->nsteps - at) * sizeof *e->steps);
			e->steps[at] = r->steps[k];
			e->nsteps++;
			step_write(e, &r->steps[k]);
			return at;
		}
	return SIZE_MAX;
}

static int
file_close(tl_export *e)
{
	if (e->f == NULL)
		return 0;
	int rc = 0;
	if (counters_write(e) != 0)
		rc = -1;
	if (e->dropped > 0)
		msg_warn(
		    e->path,
		    "%lld compute or communication slices launched outside every step left out "
		    "(with one step in the file, tl would count them in it)",
		    e->dropped);
	e->dropped = 0;
	jsonw_end(e->w);
	jsonw_close(e->w, "\n");
	e->w = NULL;
	if (ferror(e->f) || fclose(e->f) != 0 || rc != 0) {
		if (rc == 0)
			msg_error("export: %s: cannot write: %s", e->path, strerror(errno));
		unlink(e->path);
		rc = -1;
	}
	e->f = NULL;
	lanes_clear(e);
	return rc;
}

/* OUT/rank{r}.trace.json; a rank tl could not number (-1) as rank_unknown, which tl reads back
 * without a number too ("rank-1" would read as rank 1). */
static void
file_name(char *buf, size_t n, const char *dir, int rank)
{
	if (rank < 0)
		snprintf(buf, n, "%s/rank_unknown.trace.json", dir);
	else
		snprintf(buf, n, "%s/rank%d.trace.json", dir, rank);
}

static int
file_open(tl_export *e, int rank)
{
	size_t n = strlen(e->o.out) + 40;
	free(e->path);
	e->path = xmalloc(n);
	file_name(e->path, n, e->o.out, rank);
	int fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 || (e->f = fdopen(fd, "w")) == NULL) {
		msg_error("export: %s: cannot create: %s", e->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	e->rank = rank;
	e->next_stream = INT64_C(1) << 20;
	e->next_plane = 0;
	e->next_thread = 1;
	e->w = jsonw_open(e->f);
	jsonw_array_begin_lines(e->w);
	meta(e, "process_name", PID_PYTHON, 0, "Python");
	meta(e, "thread_name", PID_PYTHON, 0, "Thread 0");
	meta(e, "process_name", PID_HW, 0, "Ascend Hardware");
	meta(e, "process_name", PID_HCCL, 0, "HCCL");
	meta(e, "process_name", PID_MSTX, 0, "MsprofTx");
	meta(e, "process_name", PID_COUNTERS, 0, "Counters");
	const tl_rank *r = e->r = rank_by_number(e->q, rank);
	if (r != NULL)
		steps_pick(e, r);
	else
		e->nsteps = 0;
	for (size_t k = 0; k < e->nsteps; k++)
		step_write(e, &e->steps[k]);
	return 0;
}

static void
progress(tl_export *e, int done)
{
	if (!e->tty)
		return;
	if (done)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\rtl: export: rank %d, %lld slices written", e->rank, e->nrows);
	fflush(stderr);
}

/* A launch flow from the Python thread at from to the slice of lane l starting at to. */
static void
flow_write(tl_export *e, const ex_lane *l, int64_t from, int64_t to)
{
	tl_jsonw *w = e->w;
	char id[24];
	snprintf(id, sizeof id, "%lld", ++e->nflows);
	jsonw_object_begin(w);
	jsonw_str_m(w, "ph", "s");
	jsonw_str_m(w, "cat", "HostToDevice");
	jsonw_str_m(w, "name", "launch");
	jsonw_str_m(w, "id", id);
	jsonw_i64_m(w, "pid", PID_PYTHON);
	jsonw_i64_m(w, "tid", 0);
	put_us(w, "ts", from, 1);
	jsonw_end(w);
	jsonw_object_begin(w);
	jsonw_str_m(w, "ph", "f");
	jsonw_str_m(w, "bp", "e");
	jsonw_str_m(w, "cat", "HostToDevice");
	jsonw_str_m(w, "name", "launch");
	jsonw_str_m(w, "id", id);
	jsonw_i64_m(w, "pid", l->pid);
	jsonw_i64_m(w, "tid", l->tid);
	put_us(w, "ts", to, 1);
	jsonw_end(w);
}

/* The index of the written step with this id, else SIZE_MAX. */
static size_t
step_index(const tl_export *e, int64_t id)
{
	for (size_t k = 0; k < e->nsteps; k++)
		if (e->steps[k].id == id)
			return k;
	return SIZE_MAX;
}

static int
chrome_row(sqlite3_stmt *st, void *arg)
{
	tl_export *e = arg;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		const char *lane = (const char *)sqlite3_column_text(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		const char *name = (const char *)sqlite3_column_text(st, 3);
		int64_t start = sqlite3_column_int64(st, 4), end = sqlite3_column_int64(st, 5);
		int has_step = sqlite3_column_type(st, 6) != SQLITE_NULL;
		int64_t step = sqlite3_column_int64(st, 6);
		if (kind == NULL || strcmp(kind, "step") == 0)
			continue; /* written from the rank's steps */
		if (strcmp(kind, "host") == 0 && name && strncmp(name, "ProfilerStep#", 13) == 0)
			continue; /* a step's own range: the steps are written as ProfilerStep#N */
		if (e->f == NULL || rank != e->rank) {
			if (file_close(e) != 0)
				return 1;
			if (file_open(e, rank) != 0)
				return 1;
		}
		int work = strcmp(kind, "compute") == 0 || strcmp(kind, "comm") == 0 ||
		           strcmp(kind, "comm.task") == 0;
		if (work && !has_step && e->r != NULL && e->r->nsteps > 0 && e->nsteps < 2) {
			/* launched outside every step: the loader would count it in the file's
			 * one step */
			e->dropped++;
			continue;
		}
		/* a CPU-only trace's collectives are host events, as the trace had them */
		const ex_lane *l;
		if (e->r != NULL && e->r->host_only && strcmp(kind, "comm") == 0) {
			char label[300];
			snprintf(label, sizeof label, "Host %s", lane ? lane : "");
			l = lane_of(e, "host", label);
		} else {
			l = lane_of(e, kind, lane ? lane : "");
		}
		tl_jsonw *w = e->w;
		jsonw_object_begin(w);
		jsonw_str_m(w, "ph", "X");
		jsonw_str_m(w, "name", name ? name : "");
		jsonw_i64_m(w, "pid", l->pid);
		jsonw_i64_m(w, "tid", l->tid);
		put_us(w, "ts", start, 1);
		put_us(w, "dur", end - start, 0);
		if (l->pid == PID_HW) {
			const char *ty = strcmp(kind, "compute") == 0  ? "AI_CORE"
			                 : strcmp(kind, "memcpy") == 0 ? "SDMA_SQE"
			                                               : "EVENT_RECORD";
			jsonw_object_begin_m(w, "args");
			if (strcmp(kind, "mstx.device") == 0) {
				jsonw_i64_m(w, "Physic Stream Id", l->tid);
				jsonw_i64_m(w, "Task Id", 0);
			} else {
				jsonw_str_m(w, "Task Type", ty);
				jsonw_i64_m(w, "Physic Stream Id", l->tid);
			}
			jsonw_end(w);
		} else if (l->pid == PID_MSTX) {
			jsonw_object_begin_m(w, "args");
			jsonw_str_m(w, "event_type", "start/end");
			jsonw_str_m(w, "domain", lane ? lane : "");
			jsonw_end(w);
		} else if (l->pid >= PID_CANN) {
			jsonw_str_m(w, "cat", "cpu_op");
		}
		jsonw_end(w);
		/* work launched in another step than the one its start falls in: a launch flow
		 * from its step, which the loader attributes it by (from before the rank's
		 * first step: launched in none) */
		if (work && !has_step && e->nsteps > 1 &&
		    steps_index_at(e->steps, e->nsteps, start) != SIZE_MAX)
			flow_write(e, l, e->r->steps[0].start - 1, start);
		size_t want = work && has_step ? step_index(e, step) : SIZE_MAX;
		if (work && has_step && want == SIZE_MAX)
			want = step_add(e, step);
		if (want != SIZE_MAX && e->nsteps > 1) {
			size_t at = steps_index_at(e->steps, e->nsteps, start);
			if (want != at)
				flow_write(e, l, e->steps[want].start, start);
		}
		if ((++e->nrows & 0xfffff) == 0)
			progress(e, 0);
		if (ferror(e->f)) {
			msg_error("export: %s: cannot write: %s", e->path, strerror(errno));
			return 1;
		}
	}
	return rc == SQLITE_DONE ? 0 : -rc;
}

static int
counter_row(sqlite3_stmt *st, void *arg)
{
	tl_export *e = arg;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int64_t t = sqlite3_column_int64(st, 1);
		tl_jsonw *w = e->w;
		jsonw_object_begin(w);
		jsonw_str_m(w, "ph", "C");
		jsonw_str_m(w, "name", name ? name : "");
		jsonw_i64_m(w, "pid", PID_COUNTERS);
		jsonw_i64_m(w, "tid", 0);
		put_us(w, "ts", t, 1);
		jsonw_object_begin_m(w, "args");
		if (sqlite3_column_type(st, 2) == SQLITE_INTEGER)
			jsonw_i64_m(w, "value", sqlite3_column_int64(st, 2));
		else
			jsonw_double_m(w, "value", "%.17g", sqlite3_column_double(st, 2));
		jsonw_end(w);
		jsonw_end(w);
	}
	return rc == SQLITE_DONE ? 0 : -rc;
}

/* The rank's counter samples in the window. */
static int
counters_write(tl_export *e)
{
	if (e->counters == NULL)
		return 0;
	tl_sql *s;
	char sql[256];
	if (e->o.has_window)
		snprintf(sql, sizeof sql,
		         "SELECT name, t_ns, value FROM counters WHERE rank = %d AND t_ns >= %lld "
		         "AND t_ns < %lld",
		         e->rank, e->o.from, e->o.to);
	else if (e->nsteps > 0 && e->o.has_step)
		snprintf(sql, sizeof sql,
		         "SELECT name, t_ns, value FROM counters WHERE rank = %d AND t_ns >= %lld "
		         "AND t_ns <= %lld",
		         e->rank, (long long)e->steps[0].start, (long long)e->steps[0].end);
	else
		snprintf(sql, sizeof sql, "SELECT name, t_ns, value FROM counters WHERE rank = %d",
		         e->rank);
	if ((s = sql_prepare(sql)) == NULL)
		return -1;
	int rc = sql_run_rows(s, e->q, counter_row, e);
	sql_free(s);
	return rc ? -1 : 0;
}

/* ---- the command ------------------------------------------------------------------------- */

static int
csv_rows(sqlite3_stmt *st, void *arg)
{
	return sql_out_rows(st, arg, TL_SQL_CSV, LLONG_MAX);
}

tl_export *
export_prepare(const tl_export_opts *o)
{
	if (check_output(o) != 0)
		return NULL;
	tl_export *e = xcalloc(1, sizeof *e);
	e->o = *o;
	e->rank = -1;
	e->last = SIZE_MAX;
	e->tty = isatty(STDERR_FILENO);
	char where[200] = "";
	if (o->has_step)
		snprintf(where, sizeof where, " WHERE step = %lld", o->step);
	else if (o->has_window)
		snprintf(where, sizeof where, " WHERE end_ns > %lld AND start_ns < %lld", o->from,
		         o->to);
	char sql[400];
	if (o->format == TL_EXPORT_CSV)
		snprintf(sql, sizeof sql, "SELECT * FROM slices%s", where);
	else
		snprintf(sql, sizeof sql,
		         "SELECT rank, lane, kind, name, start_ns, end_ns, step FROM slices%s",
		         where);
	e->slices = sql_prepare(sql);
	if (o->format == TL_EXPORT_CHROME)
		e->counters = sql_prepare("SELECT name, t_ns, value FROM counters");
	if (e->slices == NULL || (o->format == TL_EXPORT_CHROME && e->counters == NULL)) {
		export_free(e);
		return NULL;
	}
	return e;
}

unsigned
export_tables_needed(const tl_export *e)
{
	return sql_tables_needed(e->slices) | (e->counters ? sql_tables_needed(e->counters) : 0);
}

int
export_run(tl_export *e, const tl_query *q)
{
	e->q = q;
	if (e->o.format == TL_EXPORT_CSV) {
		FILE *f = stdout;
		int fd = -1;
		if (strcmp(e->o.out, "-") != 0) {
			fd = open(e->o.out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
				msg_error("export: %s: cannot create: %s", e->o.out,
				          strerror(errno));
				if (fd >= 0)
					close(fd);
				return 1;
			}
		}
		int rc = sql_run_rows(e->slices, q, csv_rows, f);
		if (fflush(f) != 0 || ferror(f)) {
			msg_error("export: %s: cannot write: %s", e->o.out, strerror(errno));
			rc = 1;
		}
		if (f != stdout && fclose(f) != 0)
			rc = 1;
		if (rc != 0 && f != stdout)
			unlink(e->o.out);
		return rc;
	}
	if (mkdir(e->o.out, 0777) != 0 && errno != EEXIST) {
		msg_error("export: %s: cannot create the directory: %s", e->o.out, strerror(errno));
		return 1;
	}
	int rc = sql_run_rows(e->slices, q, chrome_row, e);
	/* a rank with steps but no slice in the window still gets its file */
	const tl_trace *tr = tlq_trace(q);
	for (size_t i = 0; rc == 0 && i < tr->nranks; i++) {
		int rk = tr->ranks[i]->rank;
		char p[PATH_MAX];
		struct stat st;
		file_name(p, sizeof p, e->o.out, rk);
		if ((e->f != NULL && rk == e->rank) || stat(p, &st) == 0)
			continue;
		if (file_close(e) != 0 || file_open(e, rk) != 0)
			rc = 1;
	}
	if (file_close(e) != 0)
		rc = 1;
	progress(e, 1);
	return rc;
}

void
export_free(tl_export *e)
{
	if (e == NULL)
		return;
	if (e->f != NULL) {
		jsonw_abandon(e->w);
		fclose(e->f);
		unlink(e->path);
	}
	lanes_clear(e);
	free(e->lanes);
	free(e->procs);
	free(e->steps);
	free(e->path);
	sql_free(e->slices);
	sql_free(e->counters);
	free(e);
}
