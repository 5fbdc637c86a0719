#include "config.h"
#include "analysis/stages.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/confpath.h"
#include "util/xalloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a rule line says: a stage (>= 0), or one of these. */
enum { RK_IGNORE = -2, RK_DECODE = -3, RK_FORWARD = -4, RK_BACKWARD = -5, RK_NONE = -100 };
#define TL_STAGE_LEVELS 16 /* nesting levels of the stage lane */
#define MATCH_LIMIT 100000 /* pcre2 match and depth limits per name and rule */

typedef struct stage_rule {
	int kind; /* a stage index or RK_* */
	pcre2_code *re;
} stage_rule;

struct tl_stage_rules {
	stage_rule *v;
	size_t n, cap;
	pcre2_match_context *mctx; /* bounds the work of one match: a user's pattern that
	                              backtracks badly gives up instead of hanging the viewer */
	char **names;              /* stage names: canonical, then other:NAME */
	size_t nnames, ncap;
	unsigned errors;
	int cleared; /* a user file said `clear` */
};

static const char *const canon[TL_STAGE__CANON] = {
    [TL_STAGE_ROLLOUT] = "rollout",
    [TL_STAGE_REF_LOGPROB] = "ref_logprob",
    [TL_STAGE_ACTOR_LOGPROB] = "actor_logprob",
    [TL_STAGE_REWARD] = "reward",
    [TL_STAGE_VALUES] = "values",
    [TL_STAGE_ADVANTAGE] = "advantage",
    [TL_STAGE_ACTOR_UPDATE] = "actor_update",
    [TL_STAGE_CRITIC_UPDATE] = "critic_update",
    [TL_STAGE_WEIGHT_SYNC] = "weight_sync",
};

static tl_stage_rules *
rules_new(void)
{
	tl_stage_rules *R = xcalloc(1, sizeof *R);
	R->mctx = pcre2_match_context_create(NULL);
	if (R->mctx == NULL) {
		fprintf(stderr, "tl: out of memory\n");
		abort();
	}
	pcre2_set_match_limit(R->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(R->mctx, MATCH_LIMIT);
	for (int i = 0; i < TL_STAGE__CANON; i++)
		VEC_PUSH(R->names, R->nnames, R->ncap, xstrdup(canon[i]));
	return R;
}

static void
rules_clear(tl_stage_rules *R)
{
	for (size_t i = 0; i < R->n; i++)
		pcre2_code_free(R->v[i].re);
	R->n = 0;
}

void
stage_rules_free(tl_stage_rules *R)
{
	if (R == NULL)
		return;
	rules_clear(R);
	pcre2_match_context_free(R->mctx);
	free(R->v);
	for (size_t i = 0; i < R->nnames; i++)
		free(R->names[i]);
	free(R->names);
	free(R);
}

unsigned
stage_rules_errors(const tl_stage_rules *R)
{
	return R->errors;
}

size_t
stage_rules_count(const tl_stage_rules *R)
{
	return R->nnames;
}

const char *
stage_rules_name(const tl_stage_rules *R, int stage)
{
	return stage >= 0 && (size_t)stage < R->nnames ? R->names[stage] : "?";
}

int
stage_rules_find(const tl_stage_rules *R, const char *name)
{
	for (size_t i = 0; i < R->nnames; i++)
		if (strcmp(R->names[i], name) == 0)
			return (int)i;
	return TL_STAGE_NONE;
}

/* Index of "other:NAME", added when new (not thread-safe). */
static int
stage_rules_other(tl_stage_rules *R, const char *name)
{
	char *full = xasprintf("other:%s", name);
	int i = stage_rules_find(R, full);
	if (i >= 0) {
		free(full);
		return i;
	}
	VEC_PUSH(R->names, R->nnames, R->ncap, full);
	return (int)R->nnames - 1;
}

/* A user stage name: other: and then letters, digits, _ . - / (shown in lanes and reports). */
static int
other_name_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-' || *s == '/'))
			return 0;
	return 1;
}

/* Parses text into R. user: lines come from the user's file (where `clear` is allowed). */
static void
rules_parse(tl_stage_rules *R, const char *text, const char *origin, int user)
{
	int lineno = 0;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len);
		p += len + (eol != NULL);
		lineno++;
		char *s = line;
		size_t l = strlen(s);
		while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
			s[--l] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#') {
			free(line);
			continue;
		}
		char *kw = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		int kind;
		if (strcmp(kw, "clear") == 0 && *s == '\0') {
			if (user) {
				rules_clear(R);
				R->cleared = 1;
			} else
				msg_warn(origin, "line %d: `clear` belongs in a user file; ignored",
				         lineno);
			free(line);
			continue;
		} else if (strcmp(kw, "ignore") == 0) {
			kind = RK_IGNORE;
		} else if (strcmp(kw, "decode") == 0) {
			kind = RK_DECODE;
		} else if (strcmp(kw, "forward") == 0) {
			kind = RK_FORWARD;
		} else if (strcmp(kw, "backward") == 0) {
			kind = RK_BACKWARD;
		} else if (strncmp(kw, "other:", 6) == 0 && other_name_ok(kw + 6)) {
			kind = stage_rules_other(R, kw + 6);
		} else if ((kind = stage_rules_find(R, kw)) < 0 || kind >= TL_STAGE__CANON) {
			msg_warn(
			    origin,
			    "line %d: unknown stage '%s' (expected rollout, ref_logprob, "
			    "actor_logprob, "
			    "reward, values, advantage, actor_update, critic_update, weight_sync, "
			    "other:NAME, ignore, decode, forward, backward or clear)",
			    lineno, kw);
			R->errors++;
			free(line);
			continue;
		}
		if (*s == '\0') {
			msg_warn(origin, "line %d: '%s' needs a pattern", lineno, kw);
			R->errors++;
			free(line);
			continue;
		}
		int err;
		PCRE2_SIZE off;
		pcre2_code *re =
		    pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED,
		                  PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, NULL);
		if (re == NULL) {
			PCRE2_UCHAR buf[160];
			pcre2_get_error_message(err, buf, sizeof buf);
			msg_warn(origin, "line %d: bad pattern at offset %zu: %s", lineno,
			         (size_t)off, (const char *)buf);
			R->errors++;
			free(line);
			continue;
		}
		/* no JIT: names are classified once each (cached), and valgrind cannot check
		 * JIT-generated code */
		stage_rule r = {kind, re};
		VEC_PUSH(R->v, R->n, R->cap, r);
		free(line);
	}
}

tl_stage_rules *
stage_rules_from_text(const char *text, const char *origin)
{
	tl_stage_rules *R = rules_new();
	rules_parse(R, text, origin, 1);
	return R;
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	char chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		VEC_RESERVE(buf, cap, n + got + 1);
		memcpy(buf + n, chunk, got);
		n += got;
		if (n > (1u << 20)) /* a rules file is a few lines; do not read a stray huge file */
			break;
	}
	fclose(f);
	VEC_RESERVE(buf, cap, n + 1);
	buf[n] = '\0';
	return buf;
}

tl_stage_rules *
stage_rules_load(const char *path)
{
	tl_stage_rules *R = rules_new();
	char *dflt = NULL;
	if (path == NULL) {
		dflt = config_path("stages");
		path = dflt;
	}
	char *user = path ? read_file(path) : NULL;
	if (user == NULL && path != NULL && dflt == NULL)
		msg_warn(path, "cannot read the stage rules; using the built-in ones");
	/* the user's lines first: the first match decides, so they override the built-in ones;
	 * `clear` in the user file drops everything before it, so built-in rules go in a
	 * separate list appended afterwards unless the user cleared them */
	tl_stage_rules *B = rules_new();
	rules_parse(B, stages_default_text, "stages.default (built in)", 0);
	if (user != NULL) {
		rules_parse(R, user, path, 1);
		free(user);
	}
	if (!R->cleared) { /* a `clear` line in the user file drops the built-in rules too */
		for (size_t i = 0; i < B->n; i++) {
			stage_rule r = B->v[i];
			if (r.kind >= TL_STAGE__CANON) /* an other: stage of the built-in file */
				r.kind = stage_rules_other(R, B->names[r.kind] + 6);
			VEC_PUSH(R->v, R->n, R->cap, r);
		}
		B->n = 0; /* moved */
	}
	R->errors += B->errors;
	stage_rules_free(B);
	free(dflt);
	return R;
}

static int
rule_matches(const tl_stage_rules *R, const stage_rule *r, const char *name, size_t len,
             pcre2_match_data *md)
{
	return pcre2_match(r->re, (PCRE2_SPTR)name, len, 0, 0, md, R->mctx) >= 0;
}

/* The kind of the first rule of kind k1 or k2 (or any stage when `stages`) that matches name,
 * or RK_NONE. */
static int
first_match(const tl_stage_rules *R, const char *name, size_t len, int stages, int k1, int k2)
{
	pcre2_match_data *md = NULL;
	int found = RK_NONE;
	for (size_t i = 0; i < R->n; i++) {
		int k = R->v[i].kind;
		if (!((stages && k >= 0) || k == k1 || k == k2))
			continue;
		if (md == NULL)
			md = pcre2_match_data_create(4, NULL);
		if (rule_matches(R, &R->v[i], name, len, md)) {
			found = k;
			break;
		}
	}
	pcre2_match_data_free(md);
	return found;
}

int
stage_rules_classify(const tl_stage_rules *R, const char *name, size_t len)
{
	int k = first_match(R, name, len, 1, RK_IGNORE, RK_IGNORE);
	if (k >= 0)
		return k;
	return k == RK_IGNORE ? TL_STAGE_IGNORED : TL_STAGE_NONE;
}

int
stage_rules_is_decode(const tl_stage_rules *R, const char *name, size_t len)
{
	return first_match(R, name, len, 0, RK_DECODE, RK_DECODE) == RK_DECODE;
}

int
stage_rules_pp(const tl_stage_rules *R, const char *name, size_t len)
{
	int k = first_match(R, name, len, 0, RK_FORWARD, RK_BACKWARD);
	return k == RK_FORWARD ? 'F' : k == RK_BACKWARD ? 'B' : 0;
}

/* ---- stage instances of a rank --------------------------------------------------------------- */

/* Per rank: the classification of each distinct name (pool id), computed once. */
typedef struct name_cache {
	tl_u64map m; /* name id -> class + 8 (so negative classes fit) */
} name_cache;

static int
cached_class(const tl_stage_rules *R, const tl_rank *r, name_cache *c, uint32_t name)
{
	uint32_t v;
	if (u64map_get(&c->m, name, &v))
		return (int)v - 8;
	int k = stage_rules_classify(R, strpool_get(r->pool, name), strpool_len(r->pool, name));
	u64map_put(&c->m, name, (uint32_t)(k + 8));
	return k;
}

static int
cmp_inst(const void *a, const void *b)
{
	const tl_stage_inst *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->stage > y->stage) - (x->stage < y->stage);
}

/* The source (index) whose envelope contains t, or SIZE_MAX. */
static size_t
source_at(const tl_rank *r, int64_t t)
{
	for (size_t i = 0; r->src_t0 && i < r->nsources; i++)
		if (r->src_t0[i] <= t && t <= r->src_t1[i])
			return i;
	return SIZE_MAX;
}

size_t
stages_of_rank(tl_stage_rules *R, const tl_rank *r, tl_stage_inst **out)
{
	tl_stage_inst *v = NULL;
	size_t n = 0, cap = 0;
	name_cache c;
	u64map_init(&c.m);
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!track_user_ranges(t))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			const tl_slice *s = &t->v[k];
			int64_t a, b;
			int dev = track_range_times(t, k, &a, &b);
			if (b <= a) /* a mark, not a range */
				continue;
			int st = cached_class(R, r, &c, s->name);
			if (st < 0)
				continue;
			tl_stage_inst x = {.stage = st,
			                   .start = a,
			                   .end = b,
			                   .host_start = s->start,
			                   .host_end = slice_end(t, s),
			                   .device = dev,
			                   .origin = strpool_get(r->pool, s->name)};
			VEC_PUSH(v, n, cap, x);
		}
	}
	u64map_free(&c.m);
	/* a capture without stage ranges, in a role directory: one stage over its envelope */
	size_t nranges = n;
	for (size_t i = 0; r->src_t0 && i < r->nsources; i++) {
		const tl_source *src = r->sources[i];
		if (src->role == NULL || r->src_t0[i] > r->src_t1[i])
			continue;
		int has = 0;
		for (size_t k = 0; k < nranges && !has; k++)
			has = v[k].start <= r->src_t1[i] && v[k].end >= r->src_t0[i];
		if (has)
			continue;
		int st = stage_rules_classify(R, src->role, strlen(src->role));
		if (st == TL_STAGE_IGNORED)
			continue;
		if (st == TL_STAGE_NONE)
			st = stage_rules_other(R, src->role);
		tl_stage_inst x = {.stage = st,
		                   .start = r->src_t0[i],
		                   .end = r->src_t1[i],
		                   .host_start = r->src_t0[i],
		                   .host_end = r->src_t1[i],
		                   .origin = src->role,
		                   .from_role = 1};
		VEC_PUSH(v, n, cap, x);
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_inst);
	/* steps (the one the host call was made in), and nesting levels (each instance on the
	 * lowest level free at its start) */
	int64_t lend[TL_STAGE_LEVELS];
	int nlv = 0;
	for (size_t k = 0; k < n; k++) {
		uint16_t si = rank_step_at(r, v[k].host_start);
		if (si != TL_NO_STEP) {
			v[k].step = r->steps[si].id;
		} else {
			size_t src = source_at(r, v[k].host_start);
			v[k].step = src != SIZE_MAX && r->sources[src]->role_step >= 0
			                ? r->sources[src]->role_step
			                : -1;
		}
		int L = 0;
		while (L < nlv && lend[L] > v[k].start)
			L++;
		if (L == nlv) {
			if (nlv < TL_STAGE_LEVELS)
				lend[nlv++] = INT64_MIN;
			else
				L = TL_STAGE_LEVELS -
				    1; /* deeper than stages nest: share the last */
		}
		v[k].level = L;
		if (v[k].end > lend[L])
			lend[L] = v[k].end;
	}
	*out = v;
	return n;
}

/* A range on an MSTX track is a decode step when a decode rule matches its name or its domain
 * (the track's label): vLLM's per-step range and dp_analysis' "step" live in domains of their
 * own. */
typedef struct decode_scan {
	const tl_stage_rules *R;
	const tl_rank *r;
	tl_u64map cache; /* name id -> 1 decode, 2 not */
} decode_scan;

static int
decode_domain(const decode_scan *c, const tl_track *t)
{
	const char *d = strpool_get(c->r->pool, t->label);
	return d != NULL && stage_rules_is_decode(c->R, d, strlen(d));
}

static int
decode_name(decode_scan *c, uint32_t name)
{
	uint32_t d;
	if (!u64map_get(&c->cache, name, &d)) {
		d = stage_rules_is_decode(c->R, strpool_get(c->r->pool, name),
		                          strpool_len(c->r->pool, name))
		        ? 1
		        : 2;
		u64map_put(&c->cache, name, d);
	}
	return d == 1;
}

/* Decode ranges of r inside [t0, t1] (all of them when t0 > t1), stopping at the first when
 * first_only; their host spans into *spans (grown, *cap its capacity) unless spans is NULL. */
static int
decode_ranges(const tl_stage_rules *R, const tl_rank *r, int64_t t0, int64_t t1, int first_only,
              tl_span **spans, size_t *cap)
{
	decode_scan c = {R, r, {0}};
	u64map_init(&c.cache);
	int n = 0, all = t0 > t1;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!track_user_ranges(t) || t->n == 0)
			continue;
		int whole = decode_domain(&c, t);
		for (size_t k = all ? 0 : track_first_starting_at(t, t0);
		     k < t->n && (all || t->v[k].start <= t1); k++) {
			const tl_slice *s = &t->v[k];
			int64_t se = slice_end(t, s);
			if (se <= s->start || (!all && se > t1)) /* a mark, or past t1 */
				continue;
			if (whole || decode_name(&c, s->name)) {
				if (spans != NULL) {
					size_t nn = (size_t)n;
					tl_span sp = {s->start, se};
					VEC_PUSH(*spans, nn, *cap, sp);
				}
				n++;
				if (first_only)
					goto done;
			}
		}
	}
done:
	u64map_free(&c.cache);
	return n;
}

int
stages_rank_has_decode(const tl_stage_rules *R, const tl_rank *r)
{
	return decode_ranges(R, r, 1, 0, 1, NULL, NULL) > 0;
}

int
stages_decode_count(const tl_stage_rules *R, const tl_rank *r, int has_decode, int stage,
                    int64_t t0, int64_t t1)
{
	if (has_decode)
		return decode_ranges(R, r, t0, t1, 0, NULL, NULL);
	if (stage != TL_STAGE_ROLLOUT)
		return -1;
	int n = 0;
	for (size_t k = 0; k < r->nsteps; k++)
		n += r->steps[k].start >= t0 && r->steps[k].end <= t1;
	return n > 0 ? n : -1;
}

static int
cmp_span(const void *a, const void *b)
{
	const tl_span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

size_t
stages_decode_spans(const tl_stage_rules *R, const tl_rank *r, int64_t t0, int64_t t1,
                    tl_span **out)
{
	tl_span *v = NULL;
	size_t cap = 0;
	int n = decode_ranges(R, r, t0, t1, 0, &v, &cap);
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, cmp_span);
	*out = v;
	return (size_t)n;
}

void
stages_add_lanes(tl_rank *r, const tl_stage_rules *R, const tl_stage_inst *v, size_t n)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_STAGE)
			return;
	if (n == 0)
		return;
	size_t n0 = r->ntracks;
	tl_track *lv[TL_STAGE_LEVELS] = {0};
	for (size_t k = 0; k < n; k++) {
		int L = v[k].level;
		if (lv[L] == NULL) {
			/* a level is a depth of the one stage lane (keyed by level, so each is new)
			 */
			lv[L] = rank_track(r, TL_LANE_STAGE, L, "Stage");
			lv[L]->depth = (uint16_t)L;
		}
		track_push(lv[L], v[k].start, v[k].end,
		           strpool_intern_cstr(r->pool, stage_rules_name(R, v[k].stage)),
		           (uint32_t)k);
	}
	/* stage tracks lead the rank's lanes (TL_LANE_STAGE is the first kind), by level */
	size_t added = r->ntracks - n0;
	tl_track **moved = xreallocarray(NULL, added, sizeof *moved);
	memcpy(moved, r->tracks + n0, added * sizeof *moved);
	for (size_t a = 1; a < added; a++) /* insertion sort by level: a handful */
		for (size_t b = a; b > 0 && moved[b - 1]->key > moved[b]->key; b--) {
			tl_track *tmp = moved[b];
			moved[b] = moved[b - 1];
			moved[b - 1] = tmp;
		}
	memmove(r->tracks + added, r->tracks, n0 * sizeof *r->tracks);
	memcpy(r->tracks, moved, added * sizeof *moved);
	free(moved);
	for (size_t k = 0; k < n; k++) {
		if (v[k].start < r->t_min)
			r->t_min = v[k].start;
		if (v[k].end > r->t_max)
			r->t_max = v[k].end;
	}
}
