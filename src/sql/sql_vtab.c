/* The virtual-table module: one eponymous, read-only table per entry of sql_tables (no
 * xCreate, so CREATE VIRTUAL TABLE cannot name it; no xUpdate, so it cannot be written). A scan
 * walks the ranks in the trace's order; xBestIndex hands `rank = N`, `step = N` (slices, ops)
 * and, on the slices, bounds on start_ns and end_ns to xFilter, which then walks one rank and a
 * window of each lane. The constraints are never marked omitted: SQLite checks every row again,
 * so a bound only narrows the walk and cannot change an answer. */
#include "config.h"
#include "sql/sql_int.h"
#include "util/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct sql_aux {
	sql_ctx *x;
	const sql_table *t;
} sql_aux;

typedef struct sql_vtab {
	sqlite3_vtab base;
	sql_aux *a;
} sql_vtab;

static int
vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
           char **err)
{
	(void)argc;
	(void)argv;
	(void)err;
	sql_aux *a = aux;
	size_t len = 32;
	for (int i = 0; i < a->t->ncols; i++)
		len += strlen(a->t->cols[i].name) + strlen(a->t->cols[i].type) + 4;
	char *ddl = xmalloc(len), *p = ddl;
	p += sprintf(p, "CREATE TABLE x(");
	for (int i = 0; i < a->t->ncols; i++)
		p += sprintf(p, "%s%s %s", i ? ", " : "", a->t->cols[i].name, a->t->cols[i].type);
	sprintf(p, ")");
	a->x->declaring = 1; /* the authorizer lets our own CREATE TABLE through */
	int rc = sqlite3_declare_vtab(db, ddl);
	a->x->declaring = 0;
	free(ddl);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	sql_vtab *v = sqlite3_malloc(sizeof *v);
	if (v == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->a = a;
	*out = &v->base;
	return SQLITE_OK;
}

static int
vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* What each argument of xFilter bounds, one letter per argument in idxStr: r the rank, k the
 * slices' kind, a the
 * lowest start, b the highest start, e the lowest end; A a start equal to it (a and b), E an
 * end equal to it (e and b: a slice starts at or before its end). */
static int
vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	const sql_table *t = ((sql_vtab *)vt)->a->t;
	char roles[64];
	int n = 0;
	double cost = 1e6, rows = 1e6;
	int have_rank = 0, have_time = 0, have_step = 0;
	for (int i = 0; i < ix->nConstraint && n < (int)sizeof roles - 1; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		if (!c->usable)
			continue;
		char role = 0;
		int col = c->iColumn,
		    lower =
		        c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT,
		    upper =
		        c->op == SQLITE_INDEX_CONSTRAINT_LE || c->op == SQLITE_INDEX_CONSTRAINT_LT,
		    eq = c->op == SQLITE_INDEX_CONSTRAINT_EQ;
		if (col == 0 && eq && !t->whole)
			role = 'r';
		else if (t->time_window && col == 2 && eq) /* the slices' kind */
			role = 'k';
		else if (t->step_col > 0 && col == t->step_col && eq)
			role = 's';
		else if (t->time_window && col == 4)
			role = lower ? 'a' : upper ? 'b' : eq ? 'A' : 0;
		else if (t->time_window && col == 5)
			role = lower ? 'e' : upper ? 'b' : eq ? 'E' : 0;
		if (role == 0)
			continue;
		if (role == 'r')
			have_rank = 1;
		else if (role == 's')
			have_step = 1;
		else
			have_time = 1;
		ix->aConstraintUsage[i].argvIndex = ++n;
		roles[n - 1] = role;
	}
	roles[n] = '\0';
	if (have_rank) {
		cost /= 8;
		rows /= 8;
	}
	if (have_time) {
		cost /= 4;
		rows /= 4;
	}
	if (have_step) {
		cost /= 4;
		rows /= 4;
	}
	ix->estimatedCost = cost;
	ix->estimatedRows = (sqlite3_int64)rows;
	if (n > 0) {
		ix->idxStr = sqlite3_mprintf("%s", roles);
		if (ix->idxStr == NULL)
			return SQLITE_NOMEM;
		ix->needToFreeIdxStr = 1;
	}
	return SQLITE_OK;
}

static int
vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	sql_cur *c = sqlite3_malloc(sizeof *c);
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->t = ((sql_vtab *)vt)->a->t;
	c->x = ((sql_vtab *)vt)->a->x;
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static int
vt_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

/* The generic walk: from row k of rank c->ri on, the first row (that may match the step asked
 * for). */
static void
generic_settle(sql_cur *c)
{
	while (c->ri < c->ri_end) {
		c->n = c->t->count(c->x, c->ri);
		if (c->has_step && c->t->step_may != NULL) {
			sql_step_window(c);
			if (!c->step_found)
				c->k = c->n; /* no such step on this rank */
			while (c->k < c->n && !c->t->step_may(c))
				c->k++;
		}
		if (c->k < c->n)
			return;
		c->ri++;
		c->k = 0;
		c->g = c->ti = 0;
	}
	c->eof = 1;
}

static int
vt_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv)
{
	(void)idxNum;
	sql_cur *c = (sql_cur *)cur;
	c->has_rank = c->has_step = 0;
	c->step_ri = SIZE_MAX;
	c->kind = -1;
	c->start_lo = c->end_lo = INT64_MIN;
	c->start_hi = INT64_MAX;
	c->eof = 0;
	c->rowid = 0;
	c->located = 0;
	c->k = c->n = c->ti = c->lo = c->hi = c->g = 0;
	int empty = 0;
	for (int i = 0; i < argc && idxStr != NULL && idxStr[i]; i++) {
		if (idxStr[i] == 'k') { /* a kind's name: the lanes of that kind only */
			const unsigned char *k = sqlite3_value_text(argv[i]);
			if (sqlite3_value_type(argv[i]) != SQLITE_TEXT || k == NULL)
				continue;
			int found = -2;
			for (int lk = 0; lk < TL_LANE__COUNT; lk++)
				if (strcmp((const char *)k, lane_kind_name((tl_lane_kind)lk)) == 0)
					found = lk;
			if (found == -2 || (c->kind >= 0 && c->kind != found))
				empty = 1;
			c->kind = found;
			continue;
		}
		/* a bound of another type (text, real, NULL) is not pushed down: the walk covers
		 * every row and SQLite compares */
		if (sqlite3_value_numeric_type(argv[i]) != SQLITE_INTEGER)
			continue;
		sqlite3_int64 v = sqlite3_value_int64(argv[i]);
		switch (idxStr[i]) {
		case 's': /* step = v */
			if (c->has_step && c->step_id != v)
				empty = 1;
			c->has_step = 1;
			c->step_id = v;
			break;
		case 'r':
			if (v < INT_MIN || v > INT_MAX)
				empty = 1;
			else if (c->has_rank && c->rank != (int)v)
				empty = 1;
			c->has_rank = 1;
			c->rank = (int)v;
			break;
		case 'A': /* start = v */
			if (v > c->start_lo)
				c->start_lo = v;
			if (v < c->start_hi)
				c->start_hi = v;
			break;
		case 'a':
			if (v > c->start_lo)
				c->start_lo = v;
			break;
		case 'E': /* end = v */
			if (v < c->start_hi)
				c->start_hi = v;
			/* fall through */
		case 'e':
			if (v > c->end_lo)
				c->end_lo = v;
			break;
		case 'b':
			if (v < c->start_hi)
				c->start_hi = v;
			break;
		}
	}
	if (c->x->q == NULL || empty) { /* compiled only, or nothing can match */
		c->eof = 1;
		return SQLITE_OK;
	}
	const tl_trace *tr = tlq_trace(c->x->q);
	c->ri = 0;
	c->ri_end = tr->nranks;
	if (c->has_rank) { /* the ranks are sorted by number */
		size_t lo = 0, hi = tr->nranks;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (tr->ranks[mid]->rank < c->rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->ri = lo;
		c->ri_end = lo < tr->nranks && tr->ranks[lo]->rank == c->rank ? lo + 1 : lo;
	}
	if (c->t->whole) { /* one walk, whatever the ranks */
		c->ri = 0;
		c->ri_end = 1;
	}
	c->t->prepare(c->x);
	if (c->t->first != NULL)
		c->t->first(c);
	else
		generic_settle(c);
	c->x->rows_read += !c->eof;
	return SQLITE_OK;
}

static int
vt_next(sqlite3_vtab_cursor *cur)
{
	sql_cur *c = (sql_cur *)cur;
	c->rowid++;
	c->located = 0;
	if (c->t->next != NULL) {
		c->t->next(c);
	} else {
		c->k++;
		generic_settle(c);
	}
	c->x->rows_read += !c->eof;
	return SQLITE_OK;
}

static int
vt_eof(sqlite3_vtab_cursor *cur)
{
	return ((sql_cur *)cur)->eof;
}

/* Column col of the cursor's row, by the table's column list (sql_int.h's sql_get). */
static int
vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	sql_cur *c = (sql_cur *)cur;
	if (!c->located) {
		c->located = 1;
		if (!c->t->locate(c))
			c->row[0] = c->row[1] = NULL;
	}
	if (col < 0 || col >= c->t->ncols)
		return SQLITE_OK;
	const sql_col *k = &c->t->cols[col];
	const char *p = c->row[k->src];
	if (k->get == SQL_FN) {
		if (c->row[0] != NULL)
			k->fn(c, ctx);
		return SQLITE_OK;
	}
	if (p == NULL && k->get != SQL_RANK)
		return SQLITE_OK; /* NULL */
	int64_t v = 0;
	const char *str = NULL;
	switch ((sql_get)k->get) {
	case SQL_FN:
		return SQLITE_OK;
	case SQL_RANK:
		if (c->row[0] == NULL)
			return SQLITE_OK;
		v = tlq_trace(c->x->q)->ranks[c->ri]->rank;
		break;
	case SQL_INT:
		v = *(const int *)(p + k->off);
		break;
	case SQL_I64:
		v = *(const int64_t *)(p + k->off);
		break;
	case SQL_U64:
		v = (int64_t) * (const uint64_t *)(p + k->off);
		break;
	case SQL_SIZE:
		v = (int64_t) * (const size_t *)(p + k->off);
		break;
	case SQL_U16:
		v = *(const uint16_t *)(p + k->off);
		break;
	case SQL_I64_AT:
		v = (*(int64_t *const *)(p + k->off))[c->idx];
		break;
	case SQL_DIFF:
		v = *(const int64_t *)(p + k->off) - *(const int64_t *)(p + k->off2);
		break;
	case SQL_SUM:
		v = *(const int64_t *)(p + k->off) + *(const int64_t *)(p + k->off2);
		break;
	case SQL_F64:
		sqlite3_result_double(ctx, *(const double *)(p + k->off));
		return SQLITE_OK;
	case SQL_STR:
		str = *(const char *const *)(p + k->off);
		break;
	case SQL_CHARS:
		str = p + k->off;
		break;
	case SQL_POOL:
		str = strpool_get(c->pool, *(const uint32_t *)(p + k->off));
		break;
	case SQL_STAGE:
		str = tlq_stage_name(c->x->q, *(const int *)(p + k->off));
		break;
	}
	switch ((sql_get)k->get) {
	case SQL_STR:
	case SQL_CHARS:
	case SQL_POOL:
	case SQL_STAGE:
		if (str != NULL && !(k->flags & SQL_NULL_EMPTY && str[0] == '\0'))
			sqlite3_result_text(ctx, str, -1, SQLITE_STATIC);
		break;
	default:
		if (!(k->flags & SQL_NULL_NEG && v < 0))
			sqlite3_result_int64(ctx, v);
		break;
	}
	return SQLITE_OK;
}

static int
vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = ((sql_cur *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module vt_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only */
    .xConnect = vt_connect,
    .xBestIndex = vt_best_index,
    .xDisconnect = vt_disconnect,
    .xDestroy = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
};

int
sql_vtab_register(sqlite3 *db, sql_ctx *x)
{
	for (size_t i = 0; i < sql_ntables; i++) {
		sql_aux *a = xcalloc(1, sizeof *a);
		a->x = x;
		a->t = &sql_tables[i];
		int rc = sqlite3_create_module_v2(db, sql_tables[i].name, &vt_module, a, free);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}
