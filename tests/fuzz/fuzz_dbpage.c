/* The page scanner (load/ascend/dbpage.c) on one (mutated) SQLite file image read from
 * memory: every page of the first 8 as a table's root, with a few column sets, each scanned to
 * its end, every TEXT and BLOB byte of every row read. */
#include "config.h"
#include "fuzz.h"

#include <string.h>

#include "load/ascend/dbpage.h"

typedef struct image {
	const uint8_t *p;
	size_t n;
} image;

static long
image_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const image *m = ctx;
	if (off >= m->n)
		return 0;
	size_t k = m->n - (size_t)off < n ? m->n - (size_t)off : n;
	memcpy(buf, m->p + off, k);
	return (long)k;
}

static const dbpage_col set_all[] = {{0, 0}, {1, 1}, {2, 0}, {3, 0},
                                     {4, 1}, {5, 0}, {6, 0}, {7, 0}};
static const dbpage_col set_sparse[] = {{-1, 0}, {9, 0}, {3, 1}, {40, 0}};
static const dbpage_col set_first[] = {{0, 0}};

FUZZ_ENTRY(dbpage)
{
	static const struct {
		const dbpage_col *cols;
		int n;
	} sets[] = {{set_all, 8}, {set_sparse, 4}, {set_first, 1}};
	image m = {data, size};
	uint32_t npages = 1;
	if (size >= 100) {
		uint32_t ps = (uint32_t)data[16] << 8 | data[17];
		if (ps == 1)
			ps = 65536;
		if (ps >= 512)
			npages = (uint32_t)(size / ps);
	}
	volatile unsigned sum = 0;
	for (uint32_t root = 1; root <= npages && root <= 8; root++) {
		for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
			char err[128];
			dbpage_scan *s = dbpage_open(image_read, &m, size, root, sets[k].cols,
			                             sets[k].n, err, sizeof err);
			if (s == NULL)
				continue;
			int rc;
			while ((rc = dbpage_next(s)) == DBPAGE_ROW) {
				sum += (unsigned)dbpage_rowid(s);
				for (int i = 0; i < sets[k].n; i++) {
					const dbpage_cell *c = dbpage_cell_at(s, i);
					if (c->type == DBPAGE_TEXT || c->type == DBPAGE_BLOB)
						for (uint32_t j = 0; j < c->n; j++)
							sum += c->p[j];
				}
			}
			if (rc < 0 && (dbpage_next(s) != rc || dbpage_error(s)[0] == '\0'))
				__builtin_trap(); /* an error repeats, with a reason */
			dbpage_close(s);
		}
	}
	(void)sum;
	return 0;
}
