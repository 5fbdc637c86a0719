/* The DB loader's state of a source (ascend_db_int.h's db_state): what the model cache keeps of
 * it, and META_DATA's values. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void
db_state_free(void *p)
{
	db_state *st = p;
	if (st != NULL)
		free(st->dist_args);
	free(st);
}

db_state *
db_state_of(tl_rank *r, size_t si)
{
	db_state *st = rank_source_state(r, si);
	if (st == NULL) {
		st = xcalloc(1, sizeof *st);
		rank_set_source_state(r, si, st, db_state_free);
	}
	return st;
}

/* META_DATA's value of name on c's connection, or NULL. */
char *
meta_value(tl_profdb *p, const char *name)
{
	sqlite3_stmt *st = NULL;
	char *v = NULL;
	if (p->has_meta &&
	    profdb_prepare(p, "SELECT value FROM META_DATA WHERE name = ?", &st) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
			v = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return v;
}

/* META_DATA's value of `name`: distributed_args as the load read it (kept in the source's
 * state, so in the model cache too), anything else read now. NULL: none. */
char *
ascend_db_meta(const tl_rank *r, size_t si, const char *name)
{
	const db_state *ds = rank_source_state(r, si);
	if (ds != NULL && ds->meta_read && strcmp(name, DIST_ARGS) == 0)
		return ds->dist_args != NULL ? xstrdup(ds->dist_args) : NULL;
	const char *path = r->sources[si]->path;
	tl_profdb p;
	char err[400], *v = NULL;
	if (profdb_open(&p, path, err, sizeof err) != 0)
		return NULL; /* the load said what is wrong with it */
	v = meta_value(&p, name);
	profdb_close(&p);
	return v;
}

/* The model cache keeps whether the operator pairs were read (they are in r->fwdbwd then), so
 * that a rank from the cache reads them when asked, and distributed_args as the load read it:
 * one byte of flags, then the text. Nothing when neither was read. */
enum { STATE_FWDBWD = 1, STATE_META = 2, STATE_DIST_ARGS = 4 };

void
ascend_db_state_save(const tl_rank *r, size_t si, uint8_t **out, size_t *len)
{
	const db_state *st = rank_source_state(r, si);
	*out = NULL;
	*len = 0;
	if (st == NULL || (!st->fwdbwd_read && !st->meta_read))
		return;
	size_t n = st->meta_read && st->dist_args != NULL ? strlen(st->dist_args) : 0;
	*out = xmalloc(1 + n);
	(*out)[0] =
	    (uint8_t)((st->fwdbwd_read ? STATE_FWDBWD : 0) | (st->meta_read ? STATE_META : 0) |
	              (n > 0 || (st->meta_read && st->dist_args != NULL) ? STATE_DIST_ARGS : 0));
	if (n > 0)
		memcpy(*out + 1, st->dist_args, n);
	*len = 1 + n;
}

int
ascend_db_state_restore(tl_rank *r, size_t si, const uint8_t *p, size_t len)
{
	if (len < 1 || p[0] == 0 || p[0] > 7 ||
	    ((p[0] & STATE_DIST_ARGS) && !(p[0] & STATE_META)) ||
	    (!(p[0] & STATE_DIST_ARGS) && len != 1) || memchr(p + 1, '\0', len - 1) != NULL)
		return -1;
	db_state *st = db_state_of(r, si);
	st->fwdbwd_read = (p[0] & STATE_FWDBWD) != 0;
	st->meta_read = (p[0] & STATE_META) != 0;
	if (p[0] & STATE_DIST_ARGS)
		st->dist_args = xstrndup((const char *)p + 1, len - 1);
	return 0;
}
