/* Pipeline parallelism against the generator's ground truth: pipeline blocks and bubble ratios
 * for 1F1B and GPipe, the PP stage from distributed_args, from P2P partners or from --pp, split
 * markers, and operators that say nothing of their stage. */
#include "config.h"

#include <cJSON.h>
#include <glob.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/lanes.h"
#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"
#include "rl_test.h"

/* ---- pipeline parallelism ---------------------------------------------------------------- */

/* device: the ranges carry a stream (gen_opts.pp_device_ranges): their host parts are a few
 * microseconds, 600 us ahead of the device; the truth's blocks are their device parts. */
static void
check_pp_as(int sched, int no_meta, int no_p2p, int opt_pp, int op_pairs, int device,
            tl_pp_source want_src, const char *name)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 8;
	o.nsteps = 2;
	o.pp = 4;
	o.pp_microbatches = 8;
	o.pp_schedule = sched;
	o.pp_no_meta = no_meta;
	o.pp_no_p2p = no_p2p;
	o.pp_op_pairs = op_pairs;
	o.pp_device_ranges = device;
	o.seed = 5;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, name, &t, &tr))
		return;
	if (device) {
		/* the profile is what the case says: short host parts, early; device parts that
		 * are the blocks, named on the device lane by the decoded message */
		size_t host_ok = 0, dev_ok = 0, nranges = 0;
		for (size_t i = 0; i < tr.nranks; i++) {
			const tl_rank *r = tr.ranks[i];
			for (size_t k = 0; k < r->ntracks; k++) {
				const tl_track *x = r->tracks[k];
				for (size_t q = 0; x->kind == TL_LANE_MSTX && q < x->n; q++) {
					nranges++;
					host_ok += x->dev != NULL && track_dur(x, q) < 20 * 1000 &&
					           x->dev[q].start - x->v[q].start > 500 * 1000;
				}
				for (size_t q = 0; x->kind == TL_LANE_MSTX_DEV && q < x->n; q++) {
					int mb = -1;
					const char *nm = strpool_get(r->pool, x->v[q].name);
					sscanf(nm, "%*[a-z_] (micro-batch %d)", &mb);
					for (size_t g = 0; g < t.npp_blocks; g++)
						dev_ok +=
						    t.pp_blocks[g].rank == r->rank &&
						    t.pp_blocks[g].start_ns == x->v[q].start &&
						    t.pp_blocks[g].end_ns == track_end(x, q) &&
						    t.pp_blocks[g].microbatch == mb &&
						    strncmp(nm,
						            t.pp_blocks[g].kind == 'F'
						                ? "forward_step ("
						                : "backward_step (",
						            14) == 0;
				}
			}
		}
		CHECK(nranges == t.npp_blocks && host_ok == nranges,
		      "%s: every range's host part is under 20 us and over 500 us ahead of its "
		      "device part (%zu of %zu)",
		      name, host_ok, nranges);
		CHECK(dev_ok == t.npp_blocks,
		      "%s: the device lane has one slice per block, named 'forward_step "
		      "(micro-batch N)' (%zu of %zu)",
		      name, dev_ok, t.npp_blocks);
	}
	tl_query_opts ro = {.pp = opt_pp, .bubbles_per_rank = 1000};
	tl_query *rl = tlq_open(&tr, &ro);
	if (device) {
		/* the idle gaps between a block's kernels lie inside its device part (and after its
		 * host part ended): the device was inside that range and had nothing to run */
		const tl_rl_bubble *bv;
		size_t nb = tlq_bubbles(rl, &bv), inside = 0, named = 0;
		for (size_t q = 0; q < t.npp_blocks; q++) {
			const gen_pp_block_truth *g = &t.pp_blocks[q];
			char want[64];
			snprintf(want, sizeof want, "inside %s_step (micro-batch %d),",
			         g->kind == 'F' ? "forward" : "backward", g->microbatch);
			size_t hit = 0;
			for (size_t k = 0; k < nb; k++)
				if (tr.ranks[bv[k].rank]->rank == g->rank &&
				    bv[k].start >= g->start_ns && bv[k].end <= g->end_ns) {
					hit++;
					named += bv[k].reason == TL_BUBBLE_LAUNCH_GAP &&
					         strstr(bv[k].detail, want) != NULL;
				}
			inside += hit > 0;
		}
		CHECK(inside == t.npp_blocks && named >= t.npp_blocks,
		      "%s: the gaps inside each block are launch gaps inside its range, named with "
		      "its micro-batch (%zu blocks, %zu gaps)",
		      name, inside, named);
	}
	const tl_pipeline *p = tlq_pipeline(rl);
	CHECK(p->source == want_src, "%s: PP stages from %s (got %s)", name,
	      pipeline_source_name(want_src), pipeline_source_name(p->source));
	CHECK(p->npp == 4 && p->nsteps == 2, "%s: 4 PP stages, 2 steps", name);
	size_t from = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		from += p->rank_blocks[i] == (op_pairs ? TL_PP_BLOCKS_OPS : TL_PP_BLOCKS_RANGES);
	CHECK(from == 8 && p->ranks_from_ops == (op_pairs ? 8u : 0u),
	      "%s: every rank's blocks come from its %s", name,
	      op_pairs ? "forward/backward operator pairs" : "forward/backward ranges");
	size_t map_ok = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		map_ok += p->rank_stage[i] == tr.ranks[i]->rank / 2;
	CHECK_EQ_I64(map_ok, 8, "every rank's PP stage is rank / dp");
	size_t blocks_ok = 0, nblocks = 0, ratio_ok = 0, ranks_ok = 0;
	for (size_t k = 0; k < p->nsteps; k++) {
		const tl_pp_step *s = &p->steps[k];
		for (size_t i = 0; i < s->nstages; i++) {
			const tl_pp_stage *ps = &s->stages[i];
			ranks_ok += ps->nranks == 2 && tr.ranks[ps->ranks[0]]->rank == 2 * (int)i &&
			            tr.ranks[ps->ranks[1]]->rank == 2 * (int)i + 1;
			int shown = ps->shown != SIZE_MAX ? tr.ranks[ps->shown]->rank : -1;
			size_t b = 0;
			for (size_t q = 0; q < t.npp_blocks; q++) {
				const gen_pp_block_truth *g = &t.pp_blocks[q];
				if (g->rank != shown || g->step != s->step)
					continue;
				nblocks++;
				if (b < ps->nblocks && ps->blocks[b].kind == g->kind &&
				    ps->blocks[b].microbatch == g->microbatch &&
				    ps->blocks[b].start == g->start_ns &&
				    ps->blocks[b].end == g->end_ns)
					blocks_ok++;
				b++;
			}
			for (size_t q = 0; q < t.npp_stages; q++) {
				const gen_pp_stage_truth *g = &t.pp_stages[q];
				if (g->step == s->step && g->pp_stage == ps->pp_stage &&
				    fabs(ps->bubble_ratio -
				         (double)g->idle_ns / (double)g->span_ns) < 1e-12 &&
				    s->end - s->start == g->span_ns)
					ratio_ok++;
			}
		}
	}
	CHECK_EQ_I64(ranks_ok, 8, "each PP stage lists its two ranks");
	CHECK(nblocks == 2 * 4 * 16 && blocks_ok == nblocks,
	      "%s: blocks, kinds, micro-batch numbers and times equal the schedule (%zu of %zu)",
	      name, blocks_ok, nblocks);
	CHECK_EQ_I64(ratio_ok, 8, "per-stage bubble ratios equal the schedule's");
	size_t links = 0, links_ok = 0;
	for (size_t k = 0; k < p->nsteps; k++)
		links += p->steps[k].nlinks;
	for (size_t q = 0; q < t.np2p; q++) {
		const gen_p2p_truth *g = &t.p2p[q];
		for (size_t k = 0; k < p->nsteps; k++)
			for (size_t l = 0; l < p->steps[k].nlinks; l++) {
				const tl_pp_link *x = &p->steps[k].links[l];
				links_ok += tr.ranks[x->from_rank]->rank == g->src_rank &&
				            tr.ranks[x->to_rank]->rank == g->dst_rank &&
				            x->send_start == g->send_start_ns &&
				            x->send_end == g->send_end_ns &&
				            x->recv_start == g->recv_start_ns &&
				            x->recv_end == g->recv_end_ns &&
				            p->steps[k].step == g->step;
			}
	}
	CHECK(links == t.np2p && links_ok == t.np2p,
	      "%s: every send paired with its receive (%zu/%zu)", name, links_ok, t.np2p);
	if (!no_p2p)
		CHECK(t.np2p == 2 * 2 * 3 * 2 * 8,
		      "the schedule moves 2 x 3 x 8 per replica and step");
	const tl_slow_result *sr = tlq_slow_ranks(rl);
	CHECK(sr->instances == 0 && sr->n == 0, "P2P ops are not collectives: no slow-rank votes");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* A file that keeps a range's begin and end markers as TASK rows of their own (each a
 * zero-length row at its marker's time, both with the range's connectionId), not paired into
 * one as msprof does: the device range is still first marker start to last marker end, and the
 * blocks are the same. */
static void
test_pp_split_markers(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	o.pp_microbatches = 4;
	o.pp_device_ranges = 1;
	o.seed = 9;
	gen_truth t;
	char *out = xasprintf("%s/pp-split", tmp);
	memset(&t, 0, sizeof t);
	CHECK(gen_profile(&o, out, &t) == 0, "generate pp-split");
	char *pat = xasprintf("%s/*/ASCEND_PROFILER_OUTPUT/*.db", out);
	glob_t g;
	size_t split = 0;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			sqlite3 *db;
			if (sqlite3_open(g.gl_pathv[i], &db) != SQLITE_OK)
				continue;
			split +=
			    sqlite3_exec(
			        db,
			        "CREATE TEMP TABLE m AS SELECT rowid AS r FROM TASK WHERE taskType "
			        "= "
			        "(SELECT id FROM STRING_IDS WHERE value = 'MsTx');"
			        "INSERT INTO TASK SELECT endNs, endNs, deviceId, connectionId, "
			        "globalTaskId + 1000000, globalPid, taskType, contextId, streamId, "
			        "taskId + 1, modelId FROM TASK WHERE rowid IN (SELECT r FROM m);"
			        "UPDATE TASK SET endNs = startNs WHERE rowid IN (SELECT r FROM m);",
			        NULL, NULL, NULL) == SQLITE_OK;
			sqlite3_close(db);
		}
		globfree(&g);
	}
	CHECK_EQ_I64(split, 4, "every rank's marker rows split in two");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(out, &lo, &tr) != 0) {
		CHECK(0, "load pp-split");
		free(out);
		free(pat);
		gen_truth_free(&t);
		return;
	}
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	size_t ok = 0, n = 0;
	for (size_t k = 0; k < p->nsteps; k++)
		for (size_t s = 0; s < p->steps[k].nstages; s++) {
			const tl_pp_stage *ps = &p->steps[k].stages[s];
			for (size_t b = 0; b < ps->nblocks; b++, n++)
				for (size_t q = 0; q < t.npp_blocks; q++)
					ok += t.pp_blocks[q].rank == tr.ranks[ps->shown]->rank &&
					      t.pp_blocks[q].start_ns == ps->blocks[b].start &&
					      t.pp_blocks[q].end_ns == ps->blocks[b].end &&
					      t.pp_blocks[q].microbatch == ps->blocks[b].microbatch;
		}
	CHECK(n == t.npp_blocks && ok == n,
	      "split markers: every block is first marker start to last marker end (%zu of %zu)",
	      ok, n);
	size_t dev = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		for (size_t k = 0; k < tr.ranks[i]->ntracks; k++)
			if (tr.ranks[i]->tracks[k]->kind == TL_LANE_MSTX_DEV)
				dev += tr.ranks[i]->tracks[k]->n;
	CHECK_EQ_I64(dev, t.npp_blocks, "split markers: one device-lane slice per range");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
	free(out);
	free(pat);
}

static void
check_pp(int sched, int no_meta, int no_p2p, int opt_pp, int op_pairs, tl_pp_source want_src,
         const char *name)
{
	check_pp_as(sched, no_meta, no_p2p, opt_pp, op_pairs, 0, want_src, name);
}

/* Operator pairs alone do not make a pipeline: every training job has them. With nothing that
 * says the job is pipeline-parallel (no distributed_args, no send/receive, no --pp), there is
 * no PP view and the DBs' operator tables are not even read. */
static void
test_pp_ops_unsaid(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	o.pp_no_meta = 1;
	o.pp_no_p2p = 1;
	o.pp_op_pairs = 1;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "pp-ops-unsaid", &t, &tr))
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	size_t read = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		read += tr.ranks[i]->nfwdbwd > 0;
	CHECK(p->nsteps == 0 && p->ranks_with_blocks == 0 && read == 0,
	      "operator pairs without a sign of PP: no pipeline, operator tables unread");
	char why[256];
	CHECK_STR(pipeline_absence(&tr, p, why, sizeof why),
	          "Pipeline parallelism: none found (no forward or backward step ranges; see STAGE "
	          "RULES in tl(1)).",
	          "the plain message");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);

	/* the same with --pp 4: the pipeline is there */
	gen_truth t2;
	if (!gen_load(&o, "pp-ops-told", &t2, &tr))
		return;
	tl_query_opts ro = {.pp = 4};
	rl = tlq_open(&tr, &ro);
	p = tlq_pipeline(rl);
	CHECK(p->npp == 4 && p->nsteps == 1 && p->ranks_from_ops == 4,
	      "--pp 4: four PP stages from operator pairs");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t2);
}

/* Interleaved 1F1B (Megatron's virtual pipeline: two model chunks per stage, 2 stages, 4
 * micro-batches) marked only by operator pairs. In order of forward start the forward of chunk 1
 * of micro-batch 0 follows chunk 0 of micro-batch 1 while its backward runs earlier: the
 * forward-order pass alone would merge the two; the backward-order pass separates them. Each
 * block is three layers' operators; blocks are numbered by forward order within the step. */
static void
test_pp_ops_interleaved(void)
{
	/* stage 0's order: 4 warm-up forwards, 1F1B, 4 cool-down backwards; (chunk, micro-batch) */
	static const struct {
		char kind;
		int chunk, mb;
	} sched[16] = {{'F', 0, 0}, {'F', 0, 1}, {'F', 1, 0}, {'F', 1, 1}, {'F', 0, 2}, {'B', 1, 0},
	               {'F', 0, 3}, {'B', 1, 1}, {'F', 1, 2}, {'B', 0, 0}, {'F', 1, 3}, {'B', 0, 1},
	               {'B', 1, 2}, {'B', 1, 3}, {'B', 0, 2}, {'B', 0, 3}};
	const int64_t T0 = INT64_C(1700000000000000000), BLK = 10000, OP = 3000;
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	for (int rk = 0; rk < 2; rk++) {
		tl_rank *r = rank_new(rk);
		tl_step st = {1, T0, T0 + 16 * BLK};
		size_t base;
		rank_add_steps(r, &st, 1, &base);
		int64_t fs[2][4][3], fe[2][4][3];
		for (int b = 0; b < 16; b++) {
			int64_t t0 = T0 + b * BLK;
			for (int j = 0; j < 3; j++) { /* forward: layers 0,1,2; backward: 2,1,0 */
				int layer = sched[b].kind == 'F' ? j : 2 - j;
				int64_t s = t0 + j * OP, e = s + OP - 1000;
				if (sched[b].kind == 'F') {
					fs[sched[b].chunk][sched[b].mb][layer] = s;
					fe[sched[b].chunk][sched[b].mb][layer] = e;
				} else {
					rank_add_fwdbwd(r, fs[sched[b].chunk][sched[b].mb][layer],
					                fe[sched[b].chunk][sched[b].mb][layer], s,
					                e);
				}
			}
		}
		rank_finish(r);
		tr.ranks[tr.nranks++] = r;
	}
	tr.t_min = T0;
	tr.t_max = T0 + 16 * BLK;
	tl_stage_rules *R = stage_rules_load(NULL);
	tl_pipeline P;
	pipeline_build(&tr, R, NULL, 2, 1, &P);
	char seq[128] = "";
	int extents = 0;
	if (P.nsteps == 1 && P.steps[0].nstages == 2) {
		const tl_pp_stage *ps = &P.steps[0].stages[0];
		for (size_t b = 0; b < ps->nblocks; b++) {
			size_t l = strlen(seq);
			snprintf(seq + l, sizeof seq - l, "%s%c%d", b ? " " : "",
			         ps->blocks[b].kind, ps->blocks[b].microbatch);
			extents += ps->blocks[b].start == T0 + (int64_t)b * BLK &&
			           ps->blocks[b].end == T0 + (int64_t)b * BLK + 2 * OP + OP - 1000;
		}
	}
	CHECK_STR(seq, "F0 F1 F2 F3 F4 B2 F5 B3 F6 B0 F7 B1 B6 B7 B4 B5",
	          "interleaved 1F1B: one block per chunk and micro-batch, F and B numbered alike");
	CHECK_EQ_I64(extents, 16, "each block spans its three operators exactly");
	pipeline_free(&P);
	stage_rules_free(R);
	trace_free(&tr);
}

static void
test_pp(void)
{
	check_pp(GEN_PP_1F1B, 0, 0, 0, 0, TL_PP_FROM_META, "pp-1f1b");
	check_pp(GEN_PP_GPIPE, 0, 0, 0, 0, TL_PP_FROM_META, "pp-gpipe");
	check_pp(GEN_PP_1F1B, 1, 0, 0, 0, TL_PP_FROM_PARTNERS, "pp-partners");
	check_pp(GEN_PP_GPIPE, 1, 1, 4, 0, TL_PP_FROM_OPTION, "pp-option");
	/* no forward/backward ranges: the blocks come from the operator pairs autograd links */
	check_pp(GEN_PP_1F1B, 0, 0, 0, 1, TL_PP_FROM_META, "pp-ops-1f1b");
	check_pp(GEN_PP_GPIPE, 0, 0, 0, 1, TL_PP_FROM_META, "pp-ops-gpipe");
	check_pp(GEN_PP_1F1B, 1, 0, 0, 1, TL_PP_FROM_PARTNERS, "pp-ops-partners");
	check_pp(GEN_PP_GPIPE, 1, 1, 4, 1, TL_PP_FROM_OPTION, "pp-ops-option");
	check_pp_as(GEN_PP_1F1B, 0, 0, 0, 0, 1, TL_PP_FROM_META, "pp-device-1f1b");
	check_pp_as(GEN_PP_GPIPE, 0, 0, 0, 0, 1, TL_PP_FROM_META, "pp-device-gpipe");
	check_pp_as(GEN_PP_1F1B, 1, 0, 0, 0, 1, TL_PP_FROM_PARTNERS, "pp-device-partners");
	test_pp_split_markers();
	test_pp_ops_unsaid();
	test_pp_ops_interleaved();

	/* 1F1B shape on stage 0: 3 warm-up forwards, alternation, 3 cool-down backwards */
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "pp-shape", &t, &tr))
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	char seq[128] = "";
	if (p->nsteps == 1)
		for (size_t b = 0; b < p->steps[0].stages[0].nblocks; b++) {
			size_t l = strlen(seq);
			snprintf(seq + l, sizeof seq - l, "%c%d ",
			         p->steps[0].stages[0].blocks[b].kind,
			         p->steps[0].stages[0].blocks[b].microbatch);
		}
	CHECK_STR(seq, "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7 ", "1F1B order on stage 0");
	double r0 = p->nsteps ? p->steps[0].stages[0].bubble_ratio : 0;
	CHECK(r0 > 0.2 && r0 < 0.5, "stage 0 bubble ratio near (p-1)/(m+p-1) = 0.27 (%.3f)", r0);
	char *js = summary(&tr, 1);
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	const cJSON *pp = j ? cJSON_GetObjectItemCaseSensitive(j, "pipeline") : NULL;
	const cJSON *st =
	    pp ? cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pp, 0), "stages") : NULL;
	const cJSON *s0 = st ? cJSON_GetArrayItem(st, 0) : NULL;
	const cJSON *b0 =
	    s0 ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s0, "blocks"), 0) : NULL;
	CHECK(s0 && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s0, "ranks")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s0, "pp_stage")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s0, "bubble_ratio")),
	      "pipeline[0].stages[0] has pp_stage, ranks, bubble_ratio");
	const cJSON *bf = s0 ? cJSON_GetObjectItemCaseSensitive(s0, "blocks_from") : NULL;
	CHECK(cJSON_IsString(bf) && strcmp(bf->valuestring, "ranges") == 0,
	      "blocks from forward/backward ranges: \"blocks_from\": \"ranges\"");
	CHECK(b0 && strcmp(cJSON_GetObjectItemCaseSensitive(b0, "kind")->valuestring, "F") == 0 &&
	          cJSON_GetObjectItemCaseSensitive(b0, "microbatch")->valueint == 0 &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b0, "start_ns")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b0, "end_ns")),
	      "blocks[0] is {\"kind\":\"F\",\"microbatch\":0,\"start_ns\",\"end_ns\"}");
	cJSON_Delete(j);
	free(js);
	char *txt = summary(&tr, 0);
	CHECK(txt && strstr(txt, "Pipeline parallelism: 4 PP stages (from distributed_args)") &&
	          strstr(txt, " F0 F1 F2 F3 B0 F4 B1"),
	      "text summary shows the pipeline");
	CHECK(txt && strstr(txt, "RL stages: none found"),
	      "a PP profile has no RL stages: said so");
	free(txt);
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

int
main(void)
{
	if (rl_test_begin("pipeline") != 0)
		return test_done();
	test_pp();
	rm_rf(tmp);
	return test_done();
}
