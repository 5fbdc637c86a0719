/* Module profiles (gen_opts.modules): a model instrumented the way msprof-analyze's
 * module_statistic asks, nn.Module.__call__ patched with range_start(class name,
 * domain="Module") -- so each module call is an MSTX_EVENTS range of domain "Module" on the
 * Python thread -- trained for nsteps steps: the forward pass through nested modules, each
 * framework operator a PYTORCH_API row that launches its kernels (CANN_API, TASK,
 * COMPUTE_TASK_INFO, linked through CONNECTION_IDS), then autograd's backward operators on
 * their own thread in reverse order, each sharing a CONNECTION_IDS connectionId with its
 * forward operator (torch_npu's fwdbwd flow: sequence number + 5 << 28), then an optimizer
 * operator outside every module. The truth is each module path's device time, kernels and
 * operators, as module_statistic names them (see gen.h). */
#include "config.h"
#include "gen/gen_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOD_STR 7000000       /* STRING_IDS ids of the strings below */
#define MOD_OPLEN (12 * US)   /* a framework operator's host length */
#define MOD_OPGAP (4 * US)    /* between two operators */
#define MOD_EDGE (2 * US)     /* a module range starts this long before its first operator */
#define MOD_LAUNCH (2 * US)   /* an operator's first launch, this far into it; the next 4 us on */
#define MOD_BWD_GAP (30 * US) /* forward end to the first backward operator */

/* strings */
enum {
	MS_DOMAIN,
	MS_MODEL,
	MS_EMBEDDING,
	MS_LAYER,
	MS_ATTENTION,
	MS_MLP,
	MS_HEAD,
	MS_NORM,
	MS_EMBED_OP,
	MS_LINEAR,
	MS_FA,
	MS_SWIGLU,
	MS_ADD,
	MS_RMS,
	MS_MUL,
	MS_LOGSM,
	MS_MM_BWD,
	MS_FA_BWD,
	MS_SWIGLU_BWD,
	MS_ADD_BWD,
	MS_RMS_BWD,
	MS_MUL_BWD,
	MS_LOGSM_BWD,
	MS_OPTIM,
	MS__COUNT
};
static const char *const mod_str[MS__COUNT] = {
    "Module",
    "Model",
    "Embedding",
    "Layer",
    "Attention",
    "MLP",
    "Head",
    "Norm",
    "aten::embedding",
    "aten::linear",
    "npu_fusion_attention",
    "npu_swiglu",
    "aten::add",
    "npu_rms_norm",
    "aten::mul",
    "aten::log_softmax",
    "MmBackward0",
    "NpuFusionAttentionBackward",
    "NpuSwigluBackward",
    "AddBackward0",
    "NpuRmsNormBackward",
    "MulBackward0",
    "LogSoftmaxBackward0",
    "Optimizer.step#AdamW.step",
};

/* An operator: its kernels, and its backward operator's (bwd < 0: no autograd link). */
typedef struct mod_opdef {
	int name, nk, k[2];
	int bwd, nbk, bk[2];
} mod_opdef;
enum { O_EMBED, O_LINEAR, O_FA, O_SWIGLU, O_ADD, O_RMS, O_MUL, O_LOGSM, O_HEAD, O_OPTIM };
static const mod_opdef mod_ops[] = {
    [O_EMBED] = {MS_EMBED_OP, 1, {K_GATHER}, -1, 0, {0}}, /* a frozen embedding: no backward */
    [O_LINEAR] = {MS_LINEAR, 1, {K_MATMUL}, MS_MM_BWD, 2, {K_MATMUL, K_MATMUL}},
    [O_FA] = {MS_FA, 1, {K_FA}, MS_FA_BWD, 1, {K_FAG}},
    [O_SWIGLU] = {MS_SWIGLU, 1, {K_SWIGLU}, MS_SWIGLU_BWD, 2, {K_MUL, K_ADD}},
    [O_ADD] = {MS_ADD, 1, {K_ADD}, MS_ADD_BWD, 0, {0}}, /* its backward launches nothing */
    [O_RMS] = {MS_RMS, 1, {K_RMSNORM}, MS_RMS_BWD, 2, {K_RMSNORM, K_MUL}},
    [O_MUL] = {MS_MUL, 1, {K_MUL}, MS_MUL_BWD, 1, {K_MUL}},
    [O_LOGSM] = {MS_LOGSM, 1, {K_LOGSM}, MS_LOGSM_BWD, 1, {K_LOGSM}},
    [O_HEAD] = {MS_LINEAR, 2, {K_MATMUL, K_CAST}, MS_MM_BWD, 2, {K_MATMUL, K_MATMUL}},
    [O_OPTIM] = {MS_OPTIM, 1, {K_ADAMW}, -1, 0, {0}},
};

/* The forward pass: B(module) opens a module call, E closes it, anything else is an operator.
 * The two Norm calls differ in their operators, so module_statistic tells them apart as
 * Norm_0 and Norm_1 (forward) and, backward, the later call first: [Backward]Norm_0 is the
 * second call's. */
#define B(m) (1000 + (m))
#define E (-1)
static const int mod_script[] = {
    B(MS_MODEL),
    B(MS_EMBEDDING),
    O_EMBED,
    E,
    B(MS_LAYER),
    B(MS_ATTENTION),
    O_LINEAR,
    O_FA,
    O_LINEAR,
    E,
    B(MS_MLP),
    O_LINEAR,
    O_SWIGLU,
    O_LINEAR,
    E,
    O_ADD,
    E,
    B(MS_LAYER),
    B(MS_ATTENTION),
    O_LINEAR,
    O_FA,
    O_LINEAR,
    E,
    B(MS_MLP),
    O_LINEAR,
    O_SWIGLU,
    O_LINEAR,
    E,
    O_ADD,
    E,
    B(MS_HEAD),
    O_HEAD,
    E,
    B(MS_NORM),
    O_RMS,
    E,
    B(MS_NORM),
    O_RMS,
    O_MUL,
    E,
    O_LOGSM,
    E,
};
#define NSCRIPT (sizeof mod_script / sizeof mod_script[0])
#define MOD_MAXOPS 64

typedef struct fwd_op { /* a forward operator as written, for its backward operator */
	int def;
	char path[96];  /* its module's forward path, "Model/Layer/Attention" */
	char chain[96]; /* the module's parents, "Model/Layer" */
	char module[24];
	int norm_call; /* 0, 1: which Norm call it is in; -1 */
	int64_t seq;
} fwd_op;

static int64_t
kernel_ns(const gen_writer *w, int step, size_t op, int k, int bwd)
{
	return 3 * US +
	       (int64_t)(gen_seed_of(w->P->o.seed, 0x30D + (uint64_t)bwd,
	                             (uint64_t)w->rank << 20 | (uint64_t)step << 12 | (uint64_t)op,
	                             (uint64_t)k) %
	                 (11 * US));
}

static void
truth_add(gen_writer *w, const char *path, int64_t ns, int kernels)
{
	gen_rank *rk = (gen_rank *)w->rk;
	size_t i = 0;
	while (i < rk->nmodules && strcmp(rk->modules[i].path, path) != 0)
		i++;
	if (i == rk->nmodules) {
		gen_module_truth t = {.rank = w->rank};
		snprintf(t.path, sizeof t.path, "%s", path);
		VEC_PUSH(rk->modules, rk->nmodules, rk->modcap, t);
	}
	rk->modules[i].device_ns += ns;
	rk->modules[i].kernels += (uint64_t)kernels;
	rk->modules[i].ops++;
}

/* One operator at host [t, t + MOD_OPLEN) on thread gtid with its kernels, linked to flow (< 0:
 * none); returns its device time. */
static int64_t
w_op(gen_writer *w, int64_t t, int64_t gtid, int name, int nk, const int *k, int64_t flow,
     int64_t seq, int fwd_tid, int step, size_t opi, int bwd)
{
	int64_t id = w->next_oplink++, dev = 0;
	for (int i = 0; i < nk; i++) {
		int64_t ls = t + MOD_LAUNCH + i * 4 * US;
		int64_t conn = gen_w_launch_at(w, API_NODE, S_LAUNCH, ls);
		int64_t d = kernel_ns(w, step, opi, i, bwd), s = ls + LEAD;
		int stream = i == 0 ? STREAM_A : STREAM_B;
		int64_t g = gen_w_task(w, s, s + d, conn, gen_kernels[k[i]].task_type, INVALID_U32,
		                       stream, gen_w_taskid(w, stream));
		gen_w_cti(w, g, k[i], gen_kernels[k[i]].cti_type, d);
		int64_t v[2] = {id, conn};
		gen_w_row(w, Q_CONN_IDS, v, 2);
		dev += d;
	}
	if (flow >= 0) {
		int64_t v[2] = {id, flow};
		gen_w_row(w, Q_CONN_IDS, v, 2);
	}
	sqlite3_stmt *st = w->q[Q_TORCH];
	char s[24], e[24];
	if (w->err)
		return dev;
	snprintf(s, sizeof s, "%" PRId64, t);
	snprintf(e, sizeof e, "%" PRId64, (int64_t)(t + MOD_OPLEN));
	sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT); /* TEXT, as torch_npu writes them */
	sqlite3_bind_text(st, 2, e, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, gtid);
	if (nk > 0 || flow >= 0)
		sqlite3_bind_int64(st, 4, id);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, MOD_STR + name);
	sqlite3_bind_int64(st, 6, seq);
	sqlite3_bind_int64(st, 7, fwd_tid);
	for (int c = 8; c <= 10; c++)
		sqlite3_bind_null(st, c);
	sqlite3_bind_int64(st, 11, TORCH_OP);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert");
	sqlite3_reset(st);
	return dev;
}

static void
w_range(gen_writer *w, int64_t s, int64_t e, int name)
{
	int64_t v[10] = {s,
	                 e,
	                 MSTX_RANGE,
	                 INVALID_U32,
	                 INVALID_U32,
	                 MOD_STR + name,
	                 w->gtid_main,
	                 w->gtid_main,
	                 MOD_STR + MS_DOMAIN,
	                 INVALID_U32};
	gen_w_row(w, Q_MSTX, v, 10);
}

/* One step from host time t (w NULL: only the time it takes). Returns the time after it. */
static int64_t
mod_step(gen_writer *w, int step, int64_t t)
{
	int stack[16], depth = 0, norm_calls = 0;
	int64_t open_at[16];
	fwd_op f[MOD_MAXOPS];
	size_t nf = 0, opi = 0;
	for (size_t i = 0; i < NSCRIPT; i++) {
		int x = mod_script[i];
		if (x >= 1000) { /* a module call begins */
			open_at[depth] = t;
			stack[depth++] = x - 1000;
			if (x - 1000 == MS_NORM)
				norm_calls++;
			t += MOD_EDGE;
		} else if (x == E) {
			depth--;
			if (w != NULL)
				w_range(w, open_at[depth], t, stack[depth]);
			t += MOD_EDGE;
		} else {
			const mod_opdef *od = &mod_ops[x];
			fwd_op *o = &f[nf++];
			o->def = x;
			o->chain[0] = o->path[0] = '\0';
			for (int d = 0; d < depth; d++) {
				const char *nm = mod_str[stack[d]];
				char suf[16] = "";
				if (stack[d] == MS_NORM) /* the neighbouring calls differ: _0, _1 */
					snprintf(suf, sizeof suf, "_%d", norm_calls - 1);
				size_t l = strlen(o->path);
				snprintf(o->path + l, sizeof o->path - l, "%s%s%s", d ? "/" : "",
				         nm, suf);
				if (d + 1 < depth)
					memcpy(o->chain, o->path, sizeof o->chain);
			}
			snprintf(o->module, sizeof o->module, "%s", mod_str[stack[depth - 1]]);
			o->norm_call = stack[depth - 1] == MS_NORM ? norm_calls - 1 : -1;
			o->seq = PP_SEQ0 + (int64_t)step * MOD_MAXOPS + (int64_t)nf;
			if (w != NULL) {
				int64_t dev = w_op(w, t, w->gtid_main, od->name, od->nk, od->k,
				                   od->bwd >= 0 ? TORCH_FLOW_BASE + o->seq : -1,
				                   o->seq, 0, step, opi++, 0);
				truth_add(w, o->path, dev, od->nk);
			}
			t += MOD_OPLEN + MOD_OPGAP;
		}
	}
	/* backward, in reverse */
	t += MOD_BWD_GAP;
	for (size_t i = nf; i-- > 0;) {
		const mod_opdef *od = &mod_ops[f[i].def];
		if (od->bwd < 0)
			continue;
		if (w != NULL) {
			int64_t dev = w_op(w, t, w->gtid_autograd, od->bwd, od->nbk, od->bk,
			                   TORCH_FLOW_BASE + f[i].seq, f[i].seq, 1, step, opi++, 1);
			/* module_statistic: the module's parents as one name, then
			 * [Backward]module; the two Norm calls' backward runs neighbour too, the
			 * later call's first */
			char path[200], mod[40];
			if (f[i].norm_call >= 0)
				snprintf(mod, sizeof mod, "[Backward]%s_%d", f[i].module,
				         1 - f[i].norm_call);
			else
				snprintf(mod, sizeof mod, "[Backward]%s", f[i].module);
			snprintf(path, sizeof path, "%s%s%s", f[i].chain, f[i].chain[0] ? "/" : "",
			         mod);
			if (od->nbk > 0) /* an operator without kernels is no row */
				truth_add(w, path, dev, od->nbk);
		}
		t += MOD_OPLEN + MOD_OPGAP;
	}
	/* the optimizer, outside every module: no row */
	if (w != NULL)
		w_op(w, t, w->gtid_main, mod_ops[O_OPTIM].name, 1, mod_ops[O_OPTIM].k, -1, -1, 0,
		     step, opi++, 0);
	t += MOD_OPLEN + MOD_OPGAP;
	return t;
}

int
gen_plan_modules(gen_plan *P)
{
	int64_t t = P->t0;
	for (int k = 0; k < P->nsteps; k++) {
		int64_t end = mod_step(NULL, k, t + STEP_PRE) + LEAD + 20 * US + STEP_POST;
		gen_step_truth sp = {.step = k + 1, .start_ns = t, .end_ns = end};
		VEC_PUSH(P->tr.steps, P->tr.nsteps, P->step_cap, sp);
		t = end;
	}
	P->session_start = (P->t0 - MS) / US * US;
	P->session_end = (t + MS + US - 1) / US * US;
	return 0;
}

void
gen_w_modules(gen_writer *w)
{
	for (int i = 0; i < MS__COUNT; i++)
		gen_w_pair(w, w->q[Q_STR], MOD_STR + i, NULL, mod_str[i]);
	const gen_truth *T = &w->P->tr;
	for (size_t k = 0; k < T->nsteps; k++)
		mod_step(w, (int)k, T->steps[k].start_ns + STEP_PRE);
}
