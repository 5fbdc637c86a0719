/* tl query's output: an aligned table (the rows held until the widths are known), CSV (RFC
 * 4180: a header row, CRLF, fields with a comma, quote or line break quoted, quotes doubled) or
 * JSON (an array of objects, one per line, streamed). Text comes from the profile: the table
 * makes it safe for a terminal, JSON escapes it, CSV keeps it as it is unless out is a
 * terminal. */
#include "config.h"
#include "sql/sql.h"
#include "sql/sql_int.h"
#include "util/jsonw.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CELL_MAX 80 /* the table's widest column, in characters */

static int
is_tty(FILE *f)
{
	return isatty(fileno(f));
}

/* Characters (UTF-8 sequences) of s. */
static size_t
width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void
csv_field(FILE *out, const char *s, int safe)
{
	char buf[4096];
	if (safe)
		s = text_sanitize(s, buf, sizeof buf, 1);
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static void
json_value(tl_jsonw *w, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		jsonw_null(w);
		return;
	case SQLITE_INTEGER:
		jsonw_i64(w, sqlite3_column_int64(st, i));
		return;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, i);
		if (isfinite(d)) { /* the shortest of 15 or 17 digits that reads back the same */
			char buf[40];
			snprintf(buf, sizeof buf, "%.15g", d);
			if (strtod(buf, NULL) != d)
				snprintf(buf, sizeof buf, "%.17g", d);
			jsonw_raw(w, buf);
		} else
			jsonw_null(w);
		return;
	}
	case SQLITE_BLOB: { /* as hex text */
		const unsigned char *b = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i);
		char *hex = xmalloc((size_t)n * 2 + 1);
		for (int k = 0; k < n; k++)
			snprintf(hex + 2 * k, 3, "%02x", b[k]);
		hex[2 * n] = '\0';
		jsonw_str(w, hex);
		free(hex);
		return;
	}
	default: {
		const char *s = (const char *)sqlite3_column_text(st, i);
		jsonw_str(w, s ? s : "");
		return;
	}
	}
}

/* A cell of the table as text: NULL empty, a blob in hex, text made safe and cut at CELL_MAX. */
static char *
cell_text(sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i);
	if (type == SQLITE_NULL)
		return xstrdup("");
	if (type == SQLITE_BLOB) {
		int n = sqlite3_column_bytes(st, i), m = n > CELL_MAX / 2 ? CELL_MAX / 2 : n;
		const unsigned char *b = sqlite3_column_blob(st, i);
		char *s = xmalloc((size_t)m * 2 + 4);
		for (int k = 0; k < m; k++)
			sprintf(s + 2 * k, "%02x", b[k]);
		strcpy(s + 2 * m, m < n ? "..." : "");
		return s;
	}
	const char *t = (const char *)sqlite3_column_text(st, i);
	char buf[CELL_MAX * 4 + 16];
	text_sanitize(t ? t : "", buf, sizeof buf, 1);
	if (width(buf) > CELL_MAX) { /* cut at a character's start */
		size_t w = 0, k = 0;
		for (; buf[k] && w < CELL_MAX - 3; k++)
			w += ((unsigned char)buf[k + 1] & 0xC0) != 0x80;
		strcpy(buf + k, "...");
	}
	return xstrdup(buf);
}

static int
stopped_rows(long long max_rows)
{
	msg_error("query: stopped at the row limit (%lld rows): add LIMIT or narrow the query "
	          "(WHERE rank = N, a time window)",
	          max_rows);
	return 1;
}

int
sql_out_rows(sqlite3_stmt *st, FILE *out, int format, long long max_rows)
{
	int nc = sqlite3_column_count(st), rc;
	long long nrows = 0;
	int tty = is_tty(out);
	if (format == TL_SQL_CSV) {
		for (int i = 0; i < nc; i++) {
			fputs(i ? "," : "", out);
			csv_field(out, sqlite3_column_name(st, i), tty);
		}
		fputs("\r\n", out);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (++nrows > max_rows)
				return stopped_rows(max_rows);
			for (int i = 0; i < nc; i++) {
				fputs(i ? "," : "", out);
				const char *s = (const char *)sqlite3_column_text(st, i);
				if (s != NULL && sqlite3_column_type(st, i) != SQLITE_BLOB)
					csv_field(out, s, tty);
			}
			fputs("\r\n", out);
		}
		return rc == SQLITE_DONE ? 0 : -rc;
	}
	if (format == TL_SQL_JSON) {
		tl_jsonw *w = jsonw_open(out);
		jsonw_array_begin_lines(w);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (++nrows > max_rows) {
				jsonw_end(w);
				jsonw_close(w, "\n");
				return stopped_rows(max_rows);
			}
			jsonw_object_begin(w);
			for (int i = 0; i < nc; i++) {
				jsonw_key(w, sqlite3_column_name(st, i));
				json_value(w, st, i);
			}
			jsonw_end(w);
		}
		jsonw_end(w);
		jsonw_close(w, "\n");
		return rc == SQLITE_DONE ? 0 : -rc;
	}
	/* the table: every row first, for the widths */
	char **cells = NULL;
	unsigned char *right = xcalloc(nc ? (size_t)nc : 1, 1); /* numbers align right */
	size_t *w = xcalloc(nc ? (size_t)nc : 1, sizeof *w), ncells = 0, cap = 0;
	for (int i = 0; i < nc; i++) {
		char buf[CELL_MAX * 4 + 16];
		w[i] = width(text_sanitize(sqlite3_column_name(st, i), buf, sizeof buf, 1));
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (++nrows > max_rows) {
			rc = SQLITE_DONE;
			break;
		}
		for (int i = 0; i < nc; i++) {
			int type = sqlite3_column_type(st, i);
			if (nrows == 1) /* by the first row's types */
				right[i] = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
			char *s = cell_text(st, i);
			size_t cw = width(s);
			if (cw > w[i])
				w[i] = cw;
			VEC_PUSH(cells, ncells, cap, s);
		}
	}
	int status = 0;
	if (nrows > max_rows) {
		status = stopped_rows(max_rows);
	} else if (rc != SQLITE_DONE) {
		status = -rc;
	} else {
		for (int i = 0; i < nc; i++) {
			char buf[CELL_MAX * 4 + 16];
			const char *h =
			    text_sanitize(sqlite3_column_name(st, i), buf, sizeof buf, 1);
			fprintf(out, "%s%*s%s", i ? "  " : "",
			        right[i] ? (int)(w[i] - width(h)) : 0, "", h);
			if (!right[i] && i + 1 < nc)
				fprintf(out, "%*s", (int)(w[i] - width(h)), "");
		}
		fputs("\n", out);
		for (int i = 0; i < nc; i++) {
			fputs(i ? "  " : "", out);
			for (size_t k = 0; k < w[i]; k++)
				putc('-', out);
		}
		fputs("\n", out);
		for (size_t r = 0; nc > 0 && r < ncells / (size_t)nc; r++) {
			for (int i = 0; i < nc; i++) {
				const char *s = cells[r * (size_t)nc + (size_t)i];
				int pad = (int)(w[i] - width(s));
				if (right[i])
					fprintf(out, "%s%*s%s", i ? "  " : "", pad, "", s);
				else
					fprintf(out, "%s%s%*s", i ? "  " : "", s,
					        i + 1 < nc ? pad : 0, "");
			}
			fputs("\n", out);
		}
		fprintf(out, "(%lld row%s)\n", nrows, nrows == 1 ? "" : "s");
	}
	for (size_t i = 0; i < ncells; i++)
		free(cells[i]);
	free(cells);
	free(right);
	free(w);
	return status;
}
