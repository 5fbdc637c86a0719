/* A rowid table's b-tree read straight from a SQLite file's pages: see dbpage.h. The format
 * is https://www.sqlite.org/fileformat2.html; the names below are its own (U, the usable page
 * size; P, a cell's payload size; X, M and K of the local/overflow split).
 *
 * The reads: the parent of the pages the scan goes to next names them all, so a page is read
 * with those of its next siblings that follow it in the file, one after the other (a chunk of
 * up to CHUNK_BYTES), and they are served from that chunk; nothing is read that the scan will
 * not use (a file whose tables' pages alternate, as a writer inserting into several tables at
 * once leaves them, costs more reads, not more bytes: a chunk of the pages after the one
 * wanted read 2.5-3.7 times the table's bytes on the bench profile). An interior page is copied
 * from the chunk into its own buffer, one per level of the stack, and an overflow page into the
 * overflow buffer, so that the leaf being scanned stays in the chunk. A page the page count says
 * exists and the read does not give (a short read: the file shrank, or the reader failed) is
 * DBPAGE_IOERR; a page number past the page count is DBPAGE_CORRUPT. */
#include "config.h"
#include "load/ascend/dbpage.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (256 << 10) /* the largest chunk, at least 4 pages */
#define MAX_DEPTH 40            /* interior levels; SQLite's own limit is 20 */
#define PAD 8                   /* readable bytes after a buffer records are decoded from */
#define MAX_FIELD 32767         /* SQLite's largest column count, less one */
#define MAX_PAYLOAD (1u << 30)  /* above SQLite's largest string or blob (1e9 bytes) */

/* b-tree page types */
#define PAGE_INTERIOR 0x05
#define PAGE_LEAF 0x0D

typedef struct level {
	unsigned char *page; /* a copy of the interior page (usable bytes) */
	uint32_t pgno;
	uint32_t hdr;    /* the b-tree header's offset: 100 on page 1, else 0 */
	uint32_t ncells; /* cells; the right-most pointer is child ncells */
	uint32_t next;   /* the next child to visit, 0 .. ncells; past: done */
} level;

struct dbpage_scan {
	dbpage_read_fn read;
	void *ctx;
	uint32_t pgsz, usable; /* page size; U */
	uint32_t npages;
	uint32_t root;
	uint64_t visits; /* pages visited (b-tree and overflow); more than npages: a cycle */

	/* the chunk: pages first .. first + n - 1 */
	unsigned char *chunk;
	uint32_t chunk_first, chunk_n;
	uint32_t chunk_max; /* pages: the largest chunk */

	level stack[MAX_DEPTH];
	int depth;
	int started, done;

	/* the leaf being scanned (in the chunk) */
	const unsigned char *leaf;
	uint32_t leaf_pgno, leaf_ptrs, leaf_ncells, leaf_next;

	unsigned char *ovpage;  /* one overflow page */
	unsigned char *scratch; /* an overflowing payload, assembled */
	size_t scratch_cap;

	/* the record: serial type and offset of fields 0 .. maxfield */
	int ncols, maxfield;
	dbpage_col *cols;
	uint64_t *stype;
	uint64_t *off;
	dbpage_cell *cells;
	int64_t rowid;

	int err;
	char errmsg[160];
};

static uint32_t
get2(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
get4(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A varint at p, reading no byte at or past end: its length (1..9), or 0 when it runs past
 * end. The 9th byte contributes all 8 bits. */
static inline int
get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	size_t avail = (size_t)(end - p);
	if (avail > 0 && p[0] < 0x80) {
		*v = p[0];
		return 1;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < 8; i++) {
		if (i >= avail)
			return 0;
		x = x << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*v = x;
			return (int)i + 1;
		}
	}
	if (avail < 9)
		return 0;
	*v = x << 8 | p[8];
	return 9;
}

__attribute__((format(printf, 3, 4))) static int
fail(dbpage_scan *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
	va_end(ap);
	s->err = code;
	return code;
}

/* Reads n bytes at off: 0, or DBPAGE_IOERR on a failed or short read. */
static int
read_at(dbpage_scan *s, void *buf, size_t n, uint64_t off, uint32_t pgno)
{
	long got = s->read(s->ctx, buf, n, off);
	if (got < 0)
		return fail(s, DBPAGE_IOERR, "page %u: the read failed", pgno);
	if ((size_t)got < n)
		return fail(s, DBPAGE_IOERR, "page %u: the file ends inside it (it shrank?)", pgno);
	return 0;
}

/* Page pgno, from the chunk (read anew when pgno is not in it, with the run - 1 pages after
 * it): a pointer valid until the next page_get, or NULL with s->err set. Counts the visit. */
static const unsigned char *
page_get(dbpage_scan *s, uint32_t pgno, uint32_t run, const char *what)
{
	if (pgno < 1 || pgno > s->npages) {
		fail(s, DBPAGE_CORRUPT, "page %u (%s) is not in the file (1..%u)", pgno, what,
		     s->npages);
		return NULL;
	}
	if (++s->visits > s->npages) {
		fail(s, DBPAGE_CORRUPT, "page %u: more pages visited than the file has (a cycle)",
		     pgno);
		return NULL;
	}
	if (pgno >= s->chunk_first && pgno - s->chunk_first < s->chunk_n)
		return s->chunk + (size_t)(pgno - s->chunk_first) * s->pgsz;
	uint32_t n = run < 1 ? 1 : run > s->chunk_max ? s->chunk_max : run;
	if (n > s->npages - pgno + 1)
		n = s->npages - pgno + 1;
	s->chunk_n = 0;
	if (read_at(s, s->chunk, (size_t)n * s->pgsz, (uint64_t)(pgno - 1) * s->pgsz, pgno) != 0)
		return NULL;
	s->chunk_first = pgno;
	s->chunk_n = n;
	return s->chunk;
}

/* Checks the b-tree page pg (number pgno) of a table: its type, and that its header and cell
 * pointer array fit the usable size. Returns its type and sets *ncells and *ptrs (the pointer
 * array's offset), or 0 with s->err set. */
static int
page_check(dbpage_scan *s, const unsigned char *pg, uint32_t pgno, uint32_t *ncells, uint32_t *ptrs)
{
	uint32_t hdr = pgno == 1 ? 100 : 0;
	int type = pg[hdr];
	if (type != PAGE_LEAF && type != PAGE_INTERIOR) {
		fail(s, DBPAGE_CORRUPT, "page %u: type 0x%02x is not a table b-tree page", pgno,
		     type);
		return 0;
	}
	*ptrs = hdr + (type == PAGE_LEAF ? 8 : 12);
	*ncells = get2(pg + hdr + 3);
	if ((uint64_t)*ptrs + 2 * (uint64_t)*ncells > s->usable) {
		fail(s, DBPAGE_CORRUPT, "page %u: %u cells do not fit the page", pgno, *ncells);
		return 0;
	}
	return type;
}

/* Cell i's offset on page pg (pointer array at ptrs, ncells cells), checked to leave room for
 * need bytes inside the usable size; 0 with s->err set when it does not. */
static uint32_t
cell_at(dbpage_scan *s, const unsigned char *pg, uint32_t pgno, uint32_t ptrs, uint32_t ncells,
        uint32_t i, uint32_t need)
{
	uint32_t c = get2(pg + ptrs + 2 * i);
	if (c < ptrs + 2 * ncells || (uint64_t)c + need > s->usable) {
		fail(s, DBPAGE_CORRUPT, "page %u: cell %u at %u is outside the cell area", pgno, i,
		     c);
		return 0;
	}
	return c;
}

/* Child i of the interior level L: cell i's left child, or the right-most pointer. */
static uint32_t
child_of(dbpage_scan *s, const level *L, uint32_t i)
{
	if (i == L->ncells)
		return get4(L->page + L->hdr + 8);
	uint32_t c = cell_at(s, L->page, L->pgno, L->hdr + 12, L->ncells, i, 4);
	return c ? get4(L->page + c) : 0;
}

/* Child i of L as child_of reads it, without saying anything: 0 for a pointer that is not
 * sound (child_of says so when the scan reaches it). */
static uint32_t
child_peek(const dbpage_scan *s, const level *L, uint32_t i)
{
	if (i == L->ncells)
		return get4(L->page + L->hdr + 8);
	uint32_t ptrs = L->hdr + 12;
	uint32_t c = get2(L->page + ptrs + 2 * i);
	if (c < ptrs + 2 * L->ncells || (uint64_t)c + 4 > s->usable)
		return 0;
	return get4(L->page + c);
}

/* How many of L's children from child i on are the pages one after the other in the file
 * (at most a chunk): what one read brings in for the scan's next pages. */
static uint32_t
run_of(const dbpage_scan *s, const level *L, uint32_t i)
{
	uint32_t first = child_peek(s, L, i), n = 1;
	while (first != 0 && i + n <= L->ncells && n < s->chunk_max &&
	       child_peek(s, L, i + n) == first + n)
		n++;
	return n;
}

/* Goes down from page pgno (to be read with the run - 1 pages after it) along first children
 * to a leaf, pushing the interior pages: 0, or an error code. */
static int
descend(dbpage_scan *s, uint32_t pgno, uint32_t run)
{
	for (;;) {
		if (pgno == 1 && s->depth > 0) /* page 1 is the schema's root, no one's child */
			return fail(s, DBPAGE_CORRUPT, "page %u: a child pointer to page 1",
			            s->stack[s->depth - 1].pgno);
		const unsigned char *pg = page_get(s, pgno, run, "a b-tree page");
		uint32_t ncells, ptrs;
		if (pg == NULL)
			return s->err;
		int type = page_check(s, pg, pgno, &ncells, &ptrs);
		if (type == 0)
			return s->err;
		if (type == PAGE_LEAF) {
			s->leaf = pg;
			s->leaf_pgno = pgno;
			s->leaf_ptrs = ptrs;
			s->leaf_ncells = ncells;
			s->leaf_next = 0;
			return 0;
		}
		if (s->depth == MAX_DEPTH)
			return fail(s, DBPAGE_CORRUPT,
			            "page %u: the b-tree is deeper than %d levels", pgno,
			            MAX_DEPTH);
		level *L = &s->stack[s->depth++];
		if (L->page == NULL)
			L->page = xmalloc(s->pgsz);
		memcpy(L->page, pg, s->usable);
		L->pgno = pgno;
		L->hdr = pgno == 1 ? 100 : 0;
		L->ncells = ncells;
		L->next = 1;
		pgno = child_of(s, L, 0);
		if (s->err)
			return s->err;
		run = run_of(s, L, 0);
	}
}

#define NO_MORE_LEAVES 1

/* The next leaf in key order: 0 (s->leaf set), NO_MORE_LEAVES, or an error code. */
static int
next_leaf(dbpage_scan *s)
{
	if (!s->started) {
		s->started = 1;
		return descend(s, s->root, 1);
	}
	while (s->depth > 0) {
		level *L = &s->stack[s->depth - 1];
		if (L->next > L->ncells) {
			s->depth--;
			continue;
		}
		uint32_t i = L->next++;
		uint32_t child = child_of(s, L, i);
		if (s->err)
			return s->err;
		return descend(s, child, run_of(s, L, i));
	}
	return NO_MORE_LEAVES;
}

/* Assembles an overflowing payload of p bytes, local of them at cell (then the first overflow
 * page's number) into s->scratch: 0, or an error code. */
static int
overflow(dbpage_scan *s, const unsigned char *cell, uint64_t p, uint32_t local)
{
	uint32_t per = s->usable - 4;
	uint64_t rest = p - local;
	if (p > MAX_PAYLOAD || (rest + per - 1) / per > s->npages)
		return fail(s, DBPAGE_CORRUPT,
		            "page %u: a payload of %llu bytes is more than the file holds",
		            s->leaf_pgno, (unsigned long long)p);
	if (s->scratch_cap < p) {
		free(s->scratch);
		s->scratch = xcalloc(1, (size_t)p + PAD);
		s->scratch_cap = (size_t)p;
	}
	memcpy(s->scratch, cell, local);
	size_t at = local;
	uint32_t next = get4(cell + local);
	while (rest > 0) {
		if (next < 1 || next > s->npages)
			return fail(s, DBPAGE_CORRUPT,
			            "page %u: overflow page %u is not in the file (1..%u)",
			            s->leaf_pgno, next, s->npages);
		if (++s->visits > s->npages)
			return fail(s, DBPAGE_CORRUPT,
			            "page %u: more pages visited than the file has (an overflow "
			            "cycle)",
			            next);
		const unsigned char *ov;
		if (next >= s->chunk_first && next - s->chunk_first < s->chunk_n) {
			ov = s->chunk + (size_t)(next - s->chunk_first) * s->pgsz;
		} else {
			if (read_at(s, s->ovpage, s->usable, (uint64_t)(next - 1) * s->pgsz,
			            next) != 0)
				return s->err;
			ov = s->ovpage;
		}
		uint32_t n = rest < per ? (uint32_t)rest : per;
		memcpy(s->scratch + at, ov + 4, n);
		at += n;
		rest -= n;
		next = get4(ov);
	}
	/* the format ends a chain with 0: a chain that goes on where its payload ends is
	 * corrupt, and so is any that runs into a cycle (every page of a cycle has a next) */
	if (next != 0)
		return fail(s, DBPAGE_CORRUPT,
		            "page %u: an overflow chain goes on past its payload (to page %u)",
		            s->leaf_pgno, next);
	return 0;
}

/* The bytes of serial types 0 .. 11; -1: reserved (10 and 11) */
static const signed char small_bytes[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};

/* The big-endian two's-complement integer of w bytes (1 .. 8) at v. Reads 8 bytes at v: every
 * buffer a record is decoded from has PAD bytes after its end. One load and a shift, no branch
 * on the width (the widths of a column's values vary from row to row). */
static inline int64_t
get_int(const unsigned char *v, int w)
{
	uint64_t u;
	memcpy(&u, v, sizeof u);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	u = __builtin_bswap64(u);
#endif
	return (int64_t)u >> (64 - 8 * w);
}

/* The bytes of the one-byte serial types 0 .. 127; RESERVED: 10 and 11 */
#define RESERVED 0xff
#define S2(t)                                                                                      \
	((t) >= 12                ? ((t)-12) / 2                                                   \
	 : (t) == 10 || (t) == 11 ? RESERVED                                                       \
	 : (t) == 5               ? 6                                                              \
	 : (t) == 6 || (t) == 7   ? 8                                                              \
	 : (t) >= 8               ? 0                                                              \
	                          : (t))
#define S8(t) S2(t), S2(t + 1), S2(t + 2), S2(t + 3), S2(t + 4), S2(t + 5), S2(t + 6), S2(t + 7)
#define S32(t) S8(t), S8(t + 8), S8(t + 16), S8(t + 24)
static const unsigned char byte_bytes[128] = {S32(0), S32(32), S32(64), S32(96)};

/* Walks the serial types of the record rec (len bytes, header hsize of which the size varint
 * takes k) up to the highest wanted field, setting s->stype and s->off: the record's field
 * count (at most maxfield + 1), or -1 with s->err set. */
static int
walk_header(dbpage_scan *s, const unsigned char *rec, uint64_t len, uint64_t hsize, int k,
            uint32_t cellno)
{
	const unsigned char *h = rec + k, *hend = rec + hsize;
	uint64_t body = hsize, *stype = s->stype, *off = s->off;
	int f, last = s->maxfield;
	/* a one-byte serial type's value is at most 57 bytes: the sum is checked once at the
	 * end; a longer one's at once (it may be anything up to 2^63) */
	for (f = 0; f <= last && h < hend; f++) {
		uint64_t t, size;
		if (*h < 0x80) {
			t = *h++;
			size = byte_bytes[t];
			if (size == RESERVED)
				goto bad_type;
		} else {
			int n = get_varint(h, hend, &t);
			if (n == 0)
				goto bad_type;
			h += n;
			size = t >= 12 ? (t - 12) >> 1 : (uint64_t)(int64_t)small_bytes[t];
			/* body first: the one-byte sizes before may have taken it past len already
			 * (len - body would wrap, and two sizes of 2^63 would wrap body back) */
			if (body > len || size > len - body)
				goto past;
		}
		stype[f] = t;
		off[f] = body;
		body += size;
	}
	if (body > len)
		goto past;
	return f;
bad_type:
	fail(s, DBPAGE_CORRUPT, "page %u: cell %u: field %d: a reserved or cut serial type",
	     s->leaf_pgno, cellno, f);
	return -1;
past:
	fail(s, DBPAGE_CORRUPT, "page %u: cell %u: field %d runs past the record", s->leaf_pgno,
	     cellno, f);
	return -1;
}

/* Decodes the wanted fields of the record rec (len bytes, PAD bytes readable after it) into
 * s->cells: 0, or an error code. */
static int
record(dbpage_scan *s, const unsigned char *rec, uint64_t len, uint32_t cellno)
{
	uint64_t hsize;
	int k = get_varint(rec, rec + len, &hsize);
	if (k == 0 || hsize < (uint64_t)k || hsize > len)
		return fail(s, DBPAGE_CORRUPT, "page %u: cell %u: a bad record header size",
		            s->leaf_pgno, cellno);
	int nfields = walk_header(s, rec, len, hsize, k, cellno);
	if (nfields < 0)
		return s->err;
	const uint64_t *stype = s->stype, *off = s->off;
	for (int i = 0; i < s->ncols; i++) {
		dbpage_cell *c = &s->cells[i];
		int f = s->cols[i].field;
		if (f < 0 || f >= nfields) {
			c->type = DBPAGE_NULL;
			continue;
		}
		uint64_t t = stype[f];
		const unsigned char *v = rec + off[f];
		int64_t x;
		if (t - 1 < 6) { /* integers of 1 .. 8 bytes */
			x = get_int(v, small_bytes[t]);
		} else if (t >= 12) {
			c->type = t & 1 ? DBPAGE_TEXT : DBPAGE_BLOB;
			c->n = (uint32_t)((t - 12) >> 1);
			c->p = v;
			continue;
		} else if (t == 8 || t == 9) {
			x = (int64_t)t - 8;
		} else if (t == 7) {
			uint64_t u = (uint64_t)get_int(v, 8);
			double d;
			memcpy(&d, &u, sizeof d);
			if (isnan(d)) { /* SQLite reads a stored NaN as NULL */
				c->type = DBPAGE_NULL;
			} else {
				c->type = DBPAGE_FLOAT;
				c->f = d;
			}
			continue;
		} else {
			c->type = DBPAGE_NULL;
			continue;
		}
		if (s->cols[i].real) {
			c->type = DBPAGE_FLOAT;
			c->f = (double)x;
		} else {
			c->type = DBPAGE_INTEGER;
			c->i = x;
		}
	}
	return 0;
}

/* Decodes cell i of the current leaf: 0, or an error code. */
static int
leaf_cell(dbpage_scan *s, uint32_t i)
{
	const unsigned char *pg = s->leaf;
	uint32_t U = s->usable;
	uint32_t c = cell_at(s, pg, s->leaf_pgno, s->leaf_ptrs, s->leaf_ncells, i, 2);
	if (c == 0)
		return s->err;
	const unsigned char *p = pg + c, *end = pg + U;
	uint64_t len, rowid;
	int n = get_varint(p, end, &len);
	int m = n ? get_varint(p + n, end, &rowid) : 0;
	if (m == 0)
		return fail(s, DBPAGE_CORRUPT, "page %u: cell %u runs past the page", s->leaf_pgno,
		            i);
	p += n + m;
	s->rowid = (int64_t)rowid;
	uint32_t X = U - 35;
	if (len <= X) {
		if (len > (uint64_t)(end - p))
			return fail(s, DBPAGE_CORRUPT, "page %u: cell %u runs past the page",
			            s->leaf_pgno, i);
		return record(s, p, len, i);
	}
	uint32_t M = ((U - 12) * 32 / 255) - 23;
	uint64_t K = M + ((len - M) % (U - 4));
	uint32_t local = K <= X ? (uint32_t)K : M;
	if ((uint64_t)local + 4 > (uint64_t)(end - p))
		return fail(s, DBPAGE_CORRUPT, "page %u: cell %u runs past the page", s->leaf_pgno,
		            i);
	if (overflow(s, p, len, local) != 0)
		return s->err;
	return record(s, s->scratch, len, i);
}

int
dbpage_next(dbpage_scan *s)
{
	if (s->err)
		return s->err;
	if (s->done)
		return DBPAGE_DONE;
	while (s->leaf == NULL || s->leaf_next >= s->leaf_ncells) {
		s->leaf = NULL;
		int rc = next_leaf(s);
		if (rc == NO_MORE_LEAVES) {
			s->done = 1;
			return DBPAGE_DONE;
		}
		if (rc != 0)
			return rc;
	}
	if (leaf_cell(s, s->leaf_next++) != 0)
		return s->err;
	return DBPAGE_ROW;
}

/* Checks the file header h: 0, or -1 with a reason in err. Sets the page size, U and the page
 * count. */
static int
header(dbpage_scan *s, const unsigned char *h, uint64_t file_bytes, char *err, size_t errlen)
{
	if (memcmp(h, "SQLite format 3", 16) != 0) {
		snprintf(err, errlen, "not a SQLite 3 file");
		return -1;
	}
	uint32_t ps = get2(h + 16);
	if (ps == 1)
		ps = 65536;
	if (ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0) {
		snprintf(err, errlen, "a page size of %u", ps);
		return -1;
	}
	if (h[19] > 2) {
		snprintf(err, errlen, "file format read version %u", h[19]);
		return -1;
	}
	if (ps - h[20] < 480) {
		snprintf(err, errlen, "%u reserved bytes of a %u-byte page", h[20], ps);
		return -1;
	}
	if (h[21] != 64 || h[22] != 32 || h[23] != 32) {
		snprintf(err, errlen, "payload fractions %u/%u/%u (not 64/32/32)", h[21], h[22],
		         h[23]);
		return -1;
	}
	uint32_t enc = get4(h + 56);
	if (enc != 1) {
		snprintf(err, errlen, "text encoding %u (not UTF-8)", enc);
		return -1;
	}
	uint64_t n = file_bytes / ps;
	uint32_t inhdr = get4(h + 28);
	if (inhdr != 0 && get4(h + 24) == get4(h + 92) && inhdr < n)
		n = inhdr;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	s->pgsz = ps;
	s->usable = ps - h[20];
	s->npages = (uint32_t)n;
	return 0;
}

dbpage_scan *
dbpage_open(dbpage_read_fn read, void *ctx, uint64_t file_bytes, uint32_t root_page,
            const dbpage_col *cols, int ncols, char *err, size_t errlen)
{
	unsigned char h[100];
	if (ncols < 0 || ncols > DBPAGE_MAX_COLS) {
		snprintf(err, errlen, "%d columns (at most %d)", ncols, DBPAGE_MAX_COLS);
		return NULL;
	}
	for (int i = 0; i < ncols; i++)
		if (cols[i].field < -1 || cols[i].field > MAX_FIELD) {
			snprintf(err, errlen, "field %d (at most %d)", cols[i].field, MAX_FIELD);
			return NULL;
		}
	long got = file_bytes >= sizeof h ? read(ctx, h, sizeof h, 0) : 0;
	if (got < (long)sizeof h) {
		snprintf(err, errlen,
		         got < 0 ? "the header: the read failed"
		                 : "the file is shorter than a SQLite header");
		return NULL;
	}
	dbpage_scan *s = xcalloc(1, sizeof *s);
	s->read = read;
	s->ctx = ctx;
	if (header(s, h, file_bytes, err, errlen) != 0) {
		free(s);
		return NULL;
	}
	s->root = root_page;
	s->chunk_max = CHUNK_BYTES / s->pgsz < 4 ? 4 : CHUNK_BYTES / s->pgsz;
	s->chunk = xcalloc(1, (size_t)s->chunk_max * s->pgsz + PAD);
	s->ovpage = xmalloc(s->pgsz);
	s->ncols = ncols;
	s->maxfield = -1;
	s->cols = xcalloc((size_t)ncols + 1, sizeof *s->cols);
	s->cells = xcalloc((size_t)ncols + 1, sizeof *s->cells);
	for (int i = 0; i < ncols; i++) {
		s->cols[i] = cols[i];
		if (s->cols[i].field > s->maxfield)
			s->maxfield = s->cols[i].field;
		s->cells[i].type = DBPAGE_NULL;
	}
	s->stype = xcalloc((size_t)s->maxfield + 2, sizeof *s->stype);
	s->off = xcalloc((size_t)s->maxfield + 2, sizeof *s->off);
	/* the root: read (into the chunk, where the scan finds it) and its type checked */
	uint32_t ncells, ptrs;
	const unsigned char *pg = page_get(s, root_page, 1, "the root");
	if (pg == NULL || page_check(s, pg, root_page, &ncells, &ptrs) == 0) {
		snprintf(err, errlen, "%s", s->errmsg);
		dbpage_close(s);
		return NULL;
	}
	s->visits = 0;
	return s;
}

const dbpage_cell *
dbpage_cell_at(const dbpage_scan *s, int i)
{
	return &s->cells[i];
}

int64_t
dbpage_rowid(const dbpage_scan *s)
{
	return s->rowid;
}

const char *
dbpage_error(const dbpage_scan *s)
{
	return s->err ? s->errmsg : "";
}

uint64_t
dbpage_pages_read(const dbpage_scan *s)
{
	return s->visits;
}

void
dbpage_close(dbpage_scan *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < MAX_DEPTH; i++)
		free(s->stack[i].page);
	free(s->chunk);
	free(s->ovpage);
	free(s->scratch);
	free(s->cols);
	free(s->cells);
	free(s->stype);
	free(s->off);
	free(s);
}
