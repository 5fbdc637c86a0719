#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "report/triage.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/timefmt.h"

/* Overlap table: one row per rank and step, times in ms with ns precision (µs with three
 * decimals would be torch_npu's unit; ms reads better at step scale). */
/* Step length, memory and the communication split per rank and step (cluster_time_summary). */
static void
text_split(FILE *f, const tl_query *q, const tl_rank_steps *rs)
{
	const tl_trace *tr = tlq_trace(q);
	static const char *const hdr[] = {"step time", "memory", "mem.exposed", "comm.transmit",
	                                  "comm.wait"};
	fprintf(
	    f, "\nStep split per rank and step (ms; mem.exposed = memcpy covered by neither "
	       "compute nor\ncommunication; comm.transmit/comm.wait: per collective, the "
	       "shortest op of its group\nand the rest, 0 where ranks of the group are missing)\n");
	fprintf(f, "%6s %8s", "rank", "step");
	for (int i = 0; i < 5; i++)
		fprintf(f, " %14s", hdr[i]);
	fprintf(f, "\n");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_step_overlap *so = rs[i].so;
		const tl_step_split *sp = rs[i].sp;
		for (size_t k = 0; k < rs[i].n; k++) {
			char step[24];
			if (so[k].step_id < 0)
				snprintf(step, sizeof step, "all");
			else
				snprintf(step, sizeof step, "%" PRId64, so[k].step_id);
			int64_t v[5] = {sp[k].step_ns, sp[k].memory_ns,
			                sp[k].memory_not_overlapped_ns, sp[k].transmit_ns,
			                sp[k].wait_ns};
			char rb[16];
			fprintf(f, "%6s %8s", report_rank(rb, tr->ranks[i]->rank), step);
			for (int c = 0; c < 5; c++) {
				int64_t a = v[c] < 0 ? -v[c] : v[c];
				fprintf(f, " %s%7" PRId64 ".%06" PRId64, v[c] < 0 ? "-" : " ",
				        a / 1000000, a % 1000000);
			}
			fprintf(f, "\n");
		}
	}
}

void
report_summary_text(FILE *f, const tl_query *q)
{
	report_summary_text_opts(f, q, NULL);
}

/* The critical path: the caller's, or computed into *own (freed by cp_done); NULL while the
 * caller's is still being computed (ro->cp_wait: cp_now). */
static const tl_cp_result *
cp_get(const tl_query *q, const report_opts *ro, tl_cp_result *own)
{
	if (ro != NULL && ro->cp != NULL)
		return ro->cp;
	if (ro != NULL && ro->cp_wait != NULL)
		return NULL;
	tlq_critical(q, NULL, 0, own);
	return own;
}

/* The path once the findings have it (they waited for it). */
static const tl_cp_result *
cp_now(const report_opts *ro, const tl_cp_result *cp)
{
	return cp != NULL ? cp : ro->cp_wait(ro->cp_ctx);
}

/* The findings (into *fv, their count returned), their rules run beside a path that may still
 * be computed: not yet said to be on it or not (findings_on_path, once the caller has let go of
 * what the rules read). */
static size_t
findings_first(const tl_query *q, const tl_coll_result *cr, const tl_comm_result *cm,
               const tl_rank_steps *rs, tl_finding **fv)
{
	tl_find_opts fo = {.cr = cr, .cm = cm, .rs = rs};
	size_t nf = tlq_findings(q, &fo, fv);
	tlq_release_pages(q);
	return nf;
}

/* What both summaries start from: the communication, the collectives, every rank's steps
 * (ranks in parallel), the path (computed beside the rest: cp NULL until waited for, else
 * mine or the caller's) and the findings (not yet said to be on the path). */
typedef struct sum_in {
	tl_comm_result cm;
	tl_coll_result cr;
	tl_rank_steps *rs;
	tl_cp_result mine;
	const tl_cp_result *cp;
	tl_finding *fv;
	size_t nf;
} sum_in;

static void
summary_inputs(const tl_query *q, const report_opts *ro, sum_in *s)
{
	tlq_comm_once(q, &s->cm);
	tlq_collectives(q, &s->cr);
	tlq_release_pages(q); /* a batch summary: each analysis's pages given back (query.h) */
	s->rs = tlq_rank_steps(q, &s->cr, &s->cm);
	s->cp = cp_get(q, ro, &s->mine);
	tlq_release_pages(q);
	s->fv = NULL;
	s->nf = findings_first(q, &s->cr, &s->cm, s->rs, &s->fv);
}

/* The path (*cp; NULL: waited for, ro->cp_wait), and whether each finding is on it. */
static void
findings_on_path(const report_opts *ro, const tl_cp_result **cp, tl_finding *fv, size_t nf)
{
	*cp = cp_now(ro, *cp);
	tlq_findings_on_path(fv, nf, *cp);
}

static void
cp_done(const tl_cp_result *cp, tl_cp_result *own)
{
	if (cp == own)
		tlq_critical_free(own);
}

/* The overlap per rank and step (with whose clock, several hosts'). */
static void
text_overlap(FILE *f, const tl_query *q, const tl_rank_steps *rs)
{
	const tl_trace *tr = tlq_trace(q);
	static const char *const hdr[] = {"computing",    "communication", "overlapped",
	                                  "comm.exposed", "free",          "preparing"};
	if (report_clock_moved(tr)) /* several hosts: whose clock the times are on */
		report_clock_text(f, tr);
	fprintf(f, "Overlap per rank and step (ms; comm.exposed = communication not overlapped)\n");
	int own = 0;
	fprintf(f, "%6s %8s", "rank", "step");
	for (int i = 0; i < 6; i++)
		fprintf(f, " %14s", hdr[i]);
	fprintf(f, "\n");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		const tl_step_overlap *so = rs[i].so;
		size_t n = rs[i].n;
		if (r->host_only) {
			/* no device work: computing, overlap and free mean nothing, zeros would
			 * mislead; the host collectives are the communication */
			tl_overlap all;
			tlq_overlap(r, INT64_MIN, INT64_MAX, &all);
			char rb[16];
			fprintf(f,
			        "%6s %8s  no device activity (a CPU-only trace); host collectives "
			        "%" PRId64 ".%06" PRId64 " ms\n",
			        report_rank(rb, r->rank), "-", all.communication / 1000000,
			        all.communication % 1000000);
			n = 0;
		}
		for (size_t k = 0; k < n; k++) {
			char step[24];
			if (so[k].step_id < 0)
				snprintf(step, sizeof step, "all");
			else
				snprintf(step, sizeof step, "%" PRId64, so[k].step_id);
			int64_t v[6] = {so[k].o.computing,  so[k].o.communication,
			                so[k].o.overlapped, so[k].o.comm_not_overlapped,
			                so[k].o.free,       so[k].o.preparing};
			char rb[16];
			fprintf(f, "%6s %8s", report_rank(rb, r->rank), step);
			for (int c = 0; c < 6; c++) {
				int64_t a = v[c] < 0 ? -v[c] : v[c];
				fprintf(f, " %s%7" PRId64 ".%06" PRId64, v[c] < 0 ? "-" : " ",
				        a / 1000000, a % 1000000);
			}
			fprintf(f, "\n");
		}
		if (r->own_overlap && n > 0 && so[0].step_id >= 0) {
			/* the DB's own analysis answers for the whole capture: its Free spans
			 * the device's tasks, outside the steps' work too */
			tl_overlap all;
			tlq_overlap(r, INT64_MIN, INT64_MAX, &all);
			int64_t v[5] = {all.computing, all.communication, all.overlapped,
			                all.comm_not_overlapped, all.free};
			char rb[16];
			fprintf(f, "%6s %8s", report_rank(rb, r->rank), "capture");
			for (int c = 0; c < 5; c++)
				fprintf(f, "  %7" PRId64 ".%06" PRId64, v[c] / 1000000,
				        v[c] % 1000000);
			fprintf(f, " %14s\n", "-");
			own = 1;
		}
	}
	if (own)
		fprintf(
		    f,
		    "(capture: the DB's own OVERLAP_ANALYSIS over the whole capture; its "
		    "Free spans the device's\nfirst to last task, the steps' only their work)\n");
}

/* The RL stages (after the overlap). */
static void
text_rl(FILE *f, const tl_query *q)
{
	report_rl_text(f, q);
	tlq_release_pages(q);
}

/* The host and the modules (after the communication). */
static void
text_host(FILE *f, const tl_query *q)
{
	report_host_text(f, q);
	tlq_release_pages(q);
	report_modules_text(f, q);
}

/* What follows the verdict but the critical path: the overlap and split per rank and step,
 * the RL stages, the communication, the host and the modules. */
static void
text_body(FILE *f, const tl_query *q, const tl_comm_result *cm, const tl_coll_result *cr,
          const tl_rank_steps *rs)
{
	text_overlap(f, q, rs);
	text_rl(f, q);
	text_split(f, q, rs);
	report_comm_text(f, q, cm, cr);
	text_host(f, q);
}

static void
sum_in_free(const tl_query *q, sum_in *s)
{
	tlq_rank_steps_free(q, s->rs);
	tlq_collectives_free(&s->cr);
	tlq_comm_free(&s->cm);
}

/* The body's parts in memory, in the order they print: the overlap, the RL stages, the split
 * and the communication, the host and the modules. */
enum { BODY_OVERLAP, BODY_RL, BODY_COMM, BODY_HOST, BODY__PARTS };
typedef struct body_part {
	char *p;
	size_t n;
} body_part;

static FILE *
part_open(body_part *b)
{
	b->p = NULL;
	b->n = 0;
	return open_memstream(&b->p, &b->n);
}

/* The body into memory (0; -1: no memory, nothing made). What reads the communication, the
 * collectives and the steps first, and those let go (*s's) before the RL stages, the host and
 * the modules read the profile's tables (their own 8-12 MB) beside the path. */
static int
body_made(const tl_query *q, sum_in *s, body_part b[BODY__PARTS])
{
	FILE *f[BODY__PARTS];
	int ok = 1;
	for (int i = 0; i < BODY__PARTS; i++)
		ok &= (f[i] = part_open(&b[i])) != NULL;
	if (!ok) {
		for (int i = 0; i < BODY__PARTS; i++) {
			if (f[i] != NULL)
				fclose(f[i]);
			free(b[i].p);
		}
		return -1;
	}
	text_overlap(f[BODY_OVERLAP], q, s->rs);
	text_split(f[BODY_COMM], q, s->rs);
	report_comm_text(f[BODY_COMM], q, &s->cm, &s->cr);
	sum_in_free(q, s);
	text_rl(f[BODY_RL], q);
	text_host(f[BODY_HOST], q);
	for (int i = 0; i < BODY__PARTS; i++)
		fclose(f[i]);
	return 0;
}

/* The verdict first, the critical path last. The path is computed beside the rest (ro's
 * cp_wait): what follows the verdict is made into memory first and what it read let go, so
 * that the path's last steps, the longest part of the run, find only the model beside them. */
void
report_summary_text_opts(FILE *f, const tl_query *q, const report_opts *ro)
{
	sum_in in;
	summary_inputs(q, ro, &in);
	body_part b[BODY__PARTS];
	int made = body_made(q, &in, b) == 0;
	findings_on_path(ro, &in.cp, in.fv, in.nf);
	/* the verdict first: the top three findings */
	report_verdict_text(f, q, in.fv, in.nf);
	free(in.fv);
	fprintf(f, "\n");
	if (made) {
		for (int i = 0; i < BODY__PARTS; i++) {
			fwrite(b[i].p, 1, b[i].n, f);
			free(b[i].p);
		}
	} else { /* no memory for it: written as it is made */
		text_body(f, q, &in.cm, &in.cr, in.rs);
		sum_in_free(q, &in);
	}
	report_critical_summary_text(f, q, in.cp);
	cp_done(in.cp, &in.mine);
}

void
report_summary_json(FILE *f, const tl_query *q)
{
	report_summary_json_opts(f, q, NULL);
}

/* A rank's member of "ranks": its steps' overlap and split, then what was added after them. */
static void
json_rank(tl_jsonw *w, const tl_rank *r, const tl_rank_steps *rs)
{
	jsonw_object_begin(w);
	report_jw_rank(w, "rank", r->rank);
	jsonw_array_begin_m(w, "steps");
	for (size_t k = 0; k < rs->n; k++) {
		const tl_overlap *o = &rs->so[k].o;
		const tl_step_split *sp = &rs->sp[k];
		jsonw_object_begin(w);
		jsonw_i64_m(w, "step", rs->so[k].step_id);
		jsonw_i64_m(w, "computing_ns", o->computing);
		jsonw_i64_m(w, "communication_ns", o->communication);
		jsonw_i64_m(w, "overlapped_ns", o->overlapped);
		jsonw_i64_m(w, "communication_not_overlapped_ns", o->comm_not_overlapped);
		jsonw_i64_m(w, "free_ns", o->free);
		jsonw_i64_m(w, "preparing_ns", o->preparing);
		jsonw_i64_m(w, "step_ns", sp->step_ns);
		jsonw_i64_m(w, "memory_ns", sp->memory_ns);
		jsonw_i64_m(w, "memory_not_overlapped_ns", sp->memory_not_overlapped_ns);
		jsonw_i64_m(w, "communication_transmit_stage_ns", sp->transmit_ns);
		jsonw_i64_m(w, "communication_wait_stage_ns", sp->wait_ns);
		jsonw_end(w);
	}
	jsonw_end(w);
	/* added after the fields that were there first: a new field, nothing moved */
	jsonw_bool_m(w, "device_activity", !r->host_only);
	if (r->own_overlap) {
		/* the DB's own OVERLAP_ANALYSIS over the whole capture */
		tl_overlap all;
		tlq_overlap(r, INT64_MIN, INT64_MAX, &all);
		jsonw_object_begin_m(w, "overlap_table");
		jsonw_i64_m(w, "computing_ns", all.computing);
		jsonw_i64_m(w, "communication_ns", all.communication);
		jsonw_i64_m(w, "communication_not_overlapped_ns", all.comm_not_overlapped);
		jsonw_i64_m(w, "free_ns", all.free);
		jsonw_end(w);
	}
	jsonw_end(w);
}

/* The whole document through one writer, each section a function that writes its members into
 * the object w has open (report.h). */
void
report_summary_json_opts(FILE *f, const tl_query *q, const report_opts *ro)
{
	const tl_trace *tr = tlq_trace(q);
	sum_in in;
	summary_inputs(q, ro, &in);
	tl_jsonw *w = jsonw_open(f);
	jsonw_object_begin(w);
	jsonw_array_begin_m(w, "ranks");
	for (size_t i = 0; i < tr->nranks; i++)
		json_rank(w, tr->ranks[i], &in.rs[i]);
	jsonw_end(w);
	tlq_rank_steps_free(q, in.rs);
	report_rl_json(w, q, ro); /* stages, imbalance, pipeline, slow_ranks, bubbles, dp */
	tlq_release_pages(q);
	report_comm_json(w, q, &in.cm, &in.cr);
	tlq_collectives_free(
	    &in.cr); /* before the wait for the path: its last steps are the run's */
	tlq_comm_free(&in.cm);
	report_ops_json(w, q);
	tlq_release_pages(q);
	report_modules_json(w, q);
	report_host_json(w, q);
	report_memory_json(w, q);
	if (report_clock_moved(tr)) /* one host, or clocks that agree: the output stays as it was */
		report_clock_json(w, tr);
	findings_on_path(ro, &in.cp, in.fv, in.nf);
	jsonw_array_begin_m(w, "findings");
	for (size_t i = 0; i < in.nf; i++)
		report_finding_jw(w, q, &in.fv[i], i + 1);
	jsonw_end(w);
	free(in.fv);
	report_critical_summary_json(w, q, in.cp); /* after the findings: nothing moved */
	cp_done(in.cp, &in.mine);
	jsonw_end(w);
	jsonw_close(w, "\n");
}
