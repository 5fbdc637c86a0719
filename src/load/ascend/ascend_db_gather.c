#include "config.h"
#include "load/ascend/ascend_db_gather.h"
#include "model/ops.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Above this many ids per row read, connectionIds go to a hash (a crafted file with one huge id
 * must not make tl allocate for every id below it). */
#define DENSE_SLACK (1u << 20)

/* The slots of a block share a base for their calls' starts (calls come by connectionId, which
 * is launch order: a block's 256 calls span milliseconds) */
#define DBG_BLOCK_BITS 8

void
dbg_init(db_gather *d, tl_rank *r, tl_gather *g, const tl_u64map *strs, int has_ops,
         int has_launches, int64_t max_gt, int dense_gt)
{
	memset(d, 0, sizeof *d);
	d->r = r;
	d->g = g;
	d->strs = strs;
	if (g == NULL)
		return;
	if ((g->tables & TL_TABLE_OPS) && r->ops != NULL && has_ops)
		d->ops = r->ops;
	d->launches = (g->tables & TL_TABLE_LAUNCHES) && has_launches;
	if (dense_gt && max_gt >= 0)
		d->ngt = (size_t)max_gt + 1;
	if (d->ops != NULL) {
		d->gt_op = d->ngt ? xcalloc(d->ngt, sizeof *d->gt_op) : NULL;
		u64map_init(&d->gt_hop);
		u64map_init(&d->gt_dup);
	}
	if (d->launches) {
		d->work = d->ngt ? xcalloc(d->ngt / 8 + 1, 1) : NULL; /* a bit an id */
		u64map_init(&d->hwork);
		u64map_init(&d->hconn);
		off32_wide_init(&d->wide);
		off32_wide_init(&d->whost);
	}
}

/* The ops pool id of rank pool id s: the string as the operator reader interns it (up to its
 * first NUL). */
static uint32_t
op_str(db_gather *d, uint32_t s)
{
	if (s == 0)
		return 0;
	if (s >= d->nstr) {
		size_t n = d->nstr;
		d->nstr = strpool_count(d->r->pool);
		d->str = xreallocarray(d->str, d->nstr, sizeof *d->str);
		memset(d->str + n, 0, (d->nstr - n) * sizeof *d->str);
		if (s >= d->nstr)
			return 0;
	}
	if (d->str[s] == 0)
		d->str[s] = strpool_intern_cstr(d->ops->pool, strpool_get(d->r->pool, s)) + 1;
	return d->str[s] - 1;
}

/* The ops pool id of a STRING_IDS cell, as the operator reader maps it: an INTEGER id that
 * STRING_IDS has, else the empty string. */
static uint32_t
cell_str(db_gather *d, db_cell c)
{
	uint32_t id;
	if (c.type != SQLITE_INTEGER || !u64map_get(d->strs, (uint64_t)c.v, &id))
		return 0;
	return op_str(d, id);
}

#define NOT_AN_ID INT64_MIN /* a key part for a cell that is not an INTEGER */

static uint64_t
tuple_hash(const int64_t k[4])
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 4; i++) {
		h ^= (uint64_t)k[i];
		h *= 0xbf58476d1ce4e5b9u;
		h ^= h >> 31;
	}
	return h;
}

static void
tuple_put(db_gather *d, const int64_t k[4], uint32_t gi)
{
	if (2 * (d->tn + 1) > d->tmask + 1) { /* grow to keep it at most half full */
		size_t ocap = d->tkey ? d->tmask + 1 : 0, cap = ocap ? 2 * ocap : 256;
		int64_t *ok = d->tkey;
		uint32_t *og = d->tgrp;
		d->tkey = xreallocarray(NULL, cap, 4 * sizeof *d->tkey);
		d->tgrp = xcalloc(cap, sizeof *d->tgrp);
		d->tmask = cap - 1;
		d->tn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (og[i] != 0)
				tuple_put(d, ok + 4 * i, og[i] - 1);
		free(ok);
		free(og);
	}
	size_t i = tuple_hash(k) & d->tmask;
	while (d->tgrp[i] != 0)
		i = (i + 1) & d->tmask;
	memcpy(d->tkey + 4 * i, k, 4 * sizeof *k);
	d->tgrp[i] = gi + 1;
	d->tn++;
}

static int
tuple_get(const db_gather *d, const int64_t k[4], uint32_t *gi)
{
	if (d->tkey == NULL)
		return 0;
	for (size_t i = tuple_hash(k) & d->tmask; d->tgrp[i] != 0; i = (i + 1) & d->tmask)
		if (memcmp(d->tkey + 4 * i, k, 4 * sizeof *k) == 0) {
			*gi = d->tgrp[i] - 1;
			return 1;
		}
	return 0;
}

void
dbg_compute(db_gather *d, int64_t gt, const db_cell str[4])
{
	if (d->ops == NULL)
		return;
	int64_t k[4];
	for (int i = 0; i < 4; i++)
		k[i] = str[i].type == SQLITE_INTEGER ? str[i].v : NOT_AN_ID;
	uint32_t gi;
	if (!tuple_get(d, k, &gi)) {
		gi = op_data_group(d->ops, cell_str(d, str[0]), cell_str(d, str[1]),
		                   cell_str(d, str[2]), cell_str(d, str[3]));
		tuple_put(d, k, gi);
	}
	uint32_t old;
	if (gt >= 0 && (uint64_t)gt < d->ngt) {
		if (d->gt_op[gt] == 0) {
			d->gt_op[gt] = gi + 1;
			return;
		}
	} else if (!u64map_get(&d->gt_hop, (uint64_t)gt, NULL)) {
		u64map_put(&d->gt_hop, (uint64_t)gt, gi);
		return;
	}
	/* one more row of this id */
	uint32_t next = u64map_get(&d->gt_dup, (uint64_t)gt, &old) ? old + 1 : 0;
	struct db_dup x = {gi, next};
	VEC_PUSH(d->dup, d->ndup, d->dupcap, x);
	u64map_put(&d->gt_dup, (uint64_t)gt, (uint32_t)(d->ndup - 1));
}

void
dbg_work(db_gather *d, int64_t gt)
{
	if (!d->launches || gt < 0)
		return;
	if ((uint64_t)gt < d->ngt)
		d->work[gt >> 3] |= (uint8_t)(1u << (gt & 7));
	else
		u64map_put(&d->hwork, (uint64_t)gt, 1);
}

/* Slots [from, to) empty, and their blocks' bases none (from: a block's first slot) */
static void
slots_clear(db_gather *d, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		d->slot[i] = (struct dbg_slot){OFF32_NONE, OFF32_NONE};
	for (size_t b = from >> DBG_BLOCK_BITS; b < ((to - 1) >> DBG_BLOCK_BITS) + 1; b++)
		d->base[b] = INT64_MIN;
}

/* Room for cap slots (grown from callcap; cap a multiple of the block) */
static void
slots_grow(db_gather *d, size_t cap)
{
	d->slot = xreallocarray(d->slot, cap, sizeof *d->slot);
	d->base = xreallocarray(d->base, cap >> DBG_BLOCK_BITS, sizeof *d->base);
	slots_clear(d, d->callcap, cap);
	d->callcap = cap;
}

void
dbg_calls(db_gather *d, int64_t max_conn, int64_t rows)
{
	if (!d->launches)
		return;
	d->conn_hashed =
	    max_conn >= (int64_t)256 << 20 || max_conn > rows * 4 + (int64_t)DENSE_SLACK;
	if (!d->conn_hashed && max_conn >= 0) {
		d->ncall = (size_t)max_conn + 1;
		slots_grow(d, ((d->ncall >> DBG_BLOCK_BITS) + 1) << DBG_BLOCK_BITS);
	}
}

/* The start of slot k's call, INT64_MIN: none. */
static inline int64_t
call_host(const db_gather *d, size_t k)
{
	int64_t h = off32_get(d->slot[k].host, d->base[k >> DBG_BLOCK_BITS], &d->whost, k);
	return h == INT64_MAX ? INT64_MIN : h;
}

/* Slot k's call starts at t (a model time). */
static void
call_set_host(db_gather *d, size_t k, int64_t t)
{
	int64_t *base = &d->base[k >> DBG_BLOCK_BITS];
	if (*base == INT64_MIN)
		*base = t;
	off32_set(&d->slot[k].host, *base, t, &d->whost, k);
}

/* The slot of connectionId id, added when add (hashed: the next one), or SIZE_MAX. */
static size_t
conn_slot(db_gather *d, int64_t id, int add)
{
	if (id < 0)
		return SIZE_MAX;
	if (!d->conn_hashed)
		return (uint64_t)id < d->ncall ? (size_t)id : SIZE_MAX;
	uint32_t v;
	if (u64map_get(&d->hconn, (uint64_t)id, &v))
		return v;
	if (!add || d->ncall >= UINT32_MAX)
		return SIZE_MAX;
	u64map_put(&d->hconn, (uint64_t)id, (uint32_t)d->ncall);
	if (d->ncall == d->callcap)
		slots_grow(d, d->callcap ? 2 * d->callcap : (size_t)1 << DBG_BLOCK_BITS);
	return d->ncall++;
}

void
dbg_call(db_gather *d, db_cell conn, db_cell start)
{
	if (!d->launches || conn.type != SQLITE_INTEGER)
		return;
	if (start.type != SQLITE_INTEGER || !tl_time_ok(start.v))
		return; /* the load, reading it, says it */
	size_t k = conn_slot(d, conn.v, 1);
	if (k != SIZE_MAX)
		call_set_host(d, k, start.v);
}

int64_t
dbg_call_host(const db_gather *d, int64_t conn)
{
	if (!d->launches || conn < 0)
		return INT64_MIN;
	uint32_t v;
	if (!d->conn_hashed)
		return (uint64_t)conn < d->ncall ? call_host(d, (size_t)conn) : INT64_MIN;
	return u64map_get(&d->hconn, (uint64_t)conn, &v) ? call_host(d, v) : INT64_MIN;
}

static void
op_task(db_gather *d, uint32_t gi, int ok, int64_t dur, int64_t start)
{
	if (ok) /* else TASK's line of the load says it */
		op_data_push(d->ops, gi, dur, start);
}

void
dbg_task(db_gather *d, db_cell sc, db_cell ec, db_cell gc, db_cell cc)
{
	if (gc.type != SQLITE_INTEGER)
		return; /* no globalTaskId: neither an operator's task nor launched work */
	int64_t gt = gc.v;
	int s_int = sc.type == SQLITE_INTEGER;
	if (d->ops != NULL) {
		uint32_t gi = 0, k;
		int have = 0;
		if (gt >= 0 && (uint64_t)gt < d->ngt) {
			have = d->gt_op[gt] != 0;
			gi = d->gt_op[gt] - 1;
		} else {
			have = u64map_get(&d->gt_hop, (uint64_t)gt, &gi);
		}
		if (have) {
			int64_t s = sc.v, e = ec.v;
			int ok = s_int && ec.type == SQLITE_INTEGER && tl_time_ok(s) &&
			         tl_time_ok(e) && e >= s;
			int64_t dur = ok ? e - s : 0; /* unusable times may be anything */
			op_task(d, gi, ok, dur, s);
			/* most profiles have one row per id: no lookup per task then */
			if (d->ndup > 0 && u64map_get(&d->gt_dup, (uint64_t)gt, &k))
				for (uint32_t x = k + 1; x != 0; x = d->dup[x - 1].next)
					op_task(d, d->dup[x - 1].group, ok, dur, s);
		}
	}
	if (d->launches && d->slot != NULL && s_int && cc.type == SQLITE_INTEGER && gt >= 0 &&
	    ((uint64_t)gt < d->ngt ? (d->work[gt >> 3] >> (gt & 7) & 1) != 0
	                           : u64map_get(&d->hwork, (uint64_t)gt, NULL))) {
		size_t k = conn_slot(d, cc.v, 0);
		int64_t t = sc.v, h = k < d->ncall ? call_host(d, k) : INT64_MIN;
		if (h != INT64_MIN && tl_time_ok(t) &&
		    t < off32_get(d->slot[k].dev, h, &d->wide, k))
			off32_set(&d->slot[k].dev, h, t, &d->wide, k);
	}
}

/* The calls that launched work, in connectionId order (the order the launches were pushed in
 * before), to g: made in the slots' memory, grown to a tl_launch a slot and filled from the
 * last slot down (slot k's 16 bytes lie past the 8 of every slot below it, each slot read
 * before its place is written), then those with work moved down; the array itself when g has
 * none yet, shrunk to them. */
static void
launches_to(db_gather *d, tl_gather *g)
{
	size_t n = d->ncall, w = 0;
	for (size_t k = 0; k < n; k++)
		w += d->slot[k].dev != OFF32_NONE;
	if (w == 0)
		return;
	tl_launch *v = xreallocarray(d->slot, n, sizeof *v);
	d->slot = (struct dbg_slot *)v; /* read through while it is rewritten */
	for (size_t k = n; k-- > 0;) {
		int64_t h = call_host(d, k);
		tl_launch x = {h, off32_get(d->slot[k].dev, h, &d->wide, k)};
		memcpy(&v[k], &x, sizeof x);
	}
	d->slot = NULL;
	w = 0;
	for (size_t k = 0; k < n; k++)
		if (v[k].dev_start != INT64_MAX)
			v[w++] = v[k];
	if (g->launches == NULL) {
		g->launches = xreallocarray(v, w, sizeof *v);
		g->nlaunches = g->lcap = w;
		return;
	}
	for (size_t k = 0; k < w; k++)
		VEC_PUSH(g->launches, g->nlaunches, g->lcap, v[k]);
	free(v);
}

void
dbg_finish(db_gather *d, const char *path, int failed)
{
	if (d->g != NULL && failed)
		d->g->failed = 1;
	if (d->ops != NULL) {
		free(d->gt_op);
		u64map_free(&d->gt_hop);
		u64map_free(&d->gt_dup);
		free(d->dup);
		free(d->str);
		free(d->tkey);
		free(d->tgrp);
	}
	if (d->launches) {
		free(d->work);
		u64map_free(&d->hwork);
		u64map_free(&d->hconn);
		if (!failed && d->slot != NULL)
			launches_to(d, d->g);
		free(d->slot);
		free(d->base);
		off32_wide_free(&d->wide);
		off32_wide_free(&d->whost);
	}
	memset(d, 0, sizeof *d);
}
