/* The DB loader's counters hook, read on demand. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/msg.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- counters (on demand): allocator totals, NPU memory, module memory, AI Core frequency ----
 * Each table is a series of samples keyed by a group (a STRING_IDS component or type, a module
 * id); one counter per (value column, group). Memory is in bytes, time in ns, frequency in
 * MHz. */

typedef struct ctr_table {
	const char *table, *time_col, *group_col;
	int group_kind; /* 0: STRING_IDS id, 1: ENUM_MODULE id, 2: no group */
	const char *val_col[3];
	tl_counter_kind kind[3];
	int nval;
	int unordered; /* real writers write it out of time order: sorted without a word */
} ctr_table;

static const ctr_table ctr_tables[] = {
    {.table = "MEMORY_RECORD",
     .time_col = "timestamp",
     .group_col = "component",
     .group_kind = 0,
     .val_col = {"totalAllocated", "totalReserved", "totalActive"},
     .kind = {TL_CTR_ALLOCATED, TL_CTR_RESERVED, TL_CTR_ACTIVE},
     .nval = 3},
    {.table = "NPU_MEM",
     .time_col = "timestampNs",
     .group_col = "type",
     .group_kind = 0,
     .val_col = {"hbm", "ddr"},
     .kind = {TL_CTR_NPU_HBM, TL_CTR_NPU_DDR},
     .nval = 2},
    {.table = "NPU_MODULE_MEM",
     .time_col = "timestampNs",
     .group_col = "moduleId",
     .group_kind = 1,
     .val_col = {"totalReserved"},
     .kind = {TL_CTR_MODULE},
     .nval = 1},
    /* msprof writes the sample taken at the start of collection after the first change (seen
     * in real files) */
    {.table = "AICORE_FREQ",
     .time_col = "timestampNs",
     .group_kind = 2,
     .val_col = {"freq"},
     .kind = {TL_CTR_FREQ},
     .nval = 1,
     .unordered = 1},
};

/* An integer cell: INTEGER, or a REAL holding a whole number (NUMERIC columns). */
static int
col_int(sqlite3_stmt *st, int col, int64_t *out)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(st, col);
		return 0;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, col);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	default:
		return -1;
	}
}

static void
read_counter_table(db_ctx *c, size_t src_index, const ctr_table *ct, const tl_u64map *modules)
{
	if (!db_has_table(c, ct->table))
		return;
	const char *cols[5] = {ct->time_col, ct->group_col ? ct->group_col : ct->time_col};
	for (int i = 0; i < ct->nval; i++)
		cols[2 + i] = ct->val_col[i];
	int have[5];
	sqlite3_stmt *st = db_prepare_cols(c, ct->table, cols, 2 + ct->nval, have, NULL);
	if (st == NULL)
		return;
	tl_counter *cache[3] = {NULL, NULL, NULL};
	int64_t last_group = INT64_MIN;
	size_t bad = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		db_rows(c, 1);
		int64_t t;
		if (!have[0] || col_int(st, 0, &t) != 0 || !tl_time_ok(t)) {
			bad++;
			continue;
		}
		int64_t g = 0;
		if (ct->group_kind != 2) {
			int gt = sqlite3_column_type(st, 1);
			if (gt != SQLITE_INTEGER && gt != SQLITE_NULL) {
				bad += (size_t)ct->nval; /* a group that is no id: whose? */
				continue;
			}
			g = gt == SQLITE_INTEGER ? sqlite3_column_int64(st, 1) : INT64_MIN + 1;
		}
		if (g != last_group) {
			char name[64] = "";
			const char *gname = name;
			uint32_t m;
			if (ct->group_kind == 0)
				gname = strpool_get(c->r->pool, db_str_id(c, st, 1));
			else if (ct->group_kind == 1 && u64map_get(modules, (uint64_t)g, &m))
				gname = strpool_get(c->r->pool, m);
			else if (ct->group_kind == 1)
				snprintf(name, sizeof name, "module %" PRId64, g);
			if (*gname == '\0' && ct->group_kind != 2)
				gname = "(none)";
			for (int i = 0; i < ct->nval; i++)
				cache[i] =
				    rank_counter(c->r, ct->kind[i], gname, (uint16_t)src_index);
			last_group = g;
		}
		for (int i = 0; i < ct->nval; i++) {
			int64_t v;
			if (!have[2 + i] || col_int(st, 2 + i, &v) != 0) {
				bad++; /* a NULL size: that value only */
				continue;
			}
			counter_push(cache[i], t, v);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_fail(c, ct->table, rc);
	size_t back = 0;
	for (size_t i = 0; i < c->r->ncounters; i++)
		for (int k = 0; k < ct->nval; k++)
			if (c->r->counters[i]->kind == ct->kind[k] &&
			    c->r->counters[i]->source == (uint16_t)src_index)
				back += counter_sort(c->r->counters[i]);
	if (bad)
		msg_warn(c->path, "%s: %zu values without a usable time, group or number skipped",
		         ct->table, bad);
	if (back && !ct->unordered)
		msg_warn(c->path, "%s: %zu samples out of time order (put in order)", ct->table,
		         back);
}

void
ascend_db_counters(const tl_source *src, size_t src_index, tl_rank *r)
{
	db_ctx c;
	if (db_open(&c, src, r, "no memory or frequency counters") != 0)
		return;
	u64map_init(&c.strs);
	db_read_strings(&c);
	tl_u64map modules; /* ENUM_MODULE id -> pool id */
	u64map_init(&modules);
	sqlite3_stmt *st;
	if (!c.failed && db_has_table(&c, "ENUM_MODULE") &&
	    db_prepare(&c, "SELECT id, name FROM ENUM_MODULE", &st) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && v != NULL)
				u64map_put(&modules, (uint64_t)sqlite3_column_int64(st, 0),
				           strpool_intern_cstr(r->pool, v));
		}
		sqlite3_finalize(st);
	}
	for (size_t i = 0; i < sizeof ctr_tables / sizeof *ctr_tables && !c.failed; i++)
		read_counter_table(&c, src_index, &ctr_tables[i], &modules);
	u64map_free(&modules);
	u64map_free(&c.strs);
	profdb_close(&c.pdb);
}
