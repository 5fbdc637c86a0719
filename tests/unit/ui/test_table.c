/* Unit tests of the list panels' table: the columns that fit a narrow panel, joined and split
 * cells, the selection kept in sight, the page keys and the stable sort. */
#include "config.h"
#include "ui/actions.h"
#include "ui/screen.h"
#include "ui/table.h"
#include "util/sort.h"
#include "ui/theme.h"
#include "ui/view.h"
#include "util/xalloc.h"

#include <stdlib.h>

#include "../test.h"

/* line y of the screen as ASCII text, trailing blanks cut */
static char *
line(const tl_ui *ui, int y, char *buf, size_t len)
{
	size_t n = 0;
	for (int x = 0; x < ui->scr.w && n + 1 < len; x++) {
		uint32_t ch = ui->scr.cell[y * ui->scr.w + x].ch;
		buf[n++] = ch < 0x80 ? (char)ch : '?';
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	return buf;
}

static uint8_t
slot_at(const tl_ui *ui, int x, int y)
{
	return ui->scr.cell[y * ui->scr.w + x].slot;
}

static const char *const names[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
static const int counts[] = {5, 123456, 7, 7, 1, 7};

static void
row_cells(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	(void)ui;
	(void)ctx;
	snprintf(out->cell[0], sizeof out->cell[0], "%d", counts[i]);
	snprintf(out->cell[1], sizeof out->cell[1], "%s", names[i]);
	snprintf(out->cell[2], sizeof out->cell[2], "%zu.5", i);
	snprintf(out->cell[3], sizeof out->cell[3], "group-%zu", i);
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
}

static const ui_col cols[] = {
    {"count", 5, UI_ALIGN_RIGHT, 0, 0, 0},
    {"name", 4, UI_ALIGN_LEFT, 0, 0, 0},
    {"ratio", 6, UI_ALIGN_RIGHT, 0, 1, 0},
    {"group", 0, UI_ALIGN_LEFT, 2, 2, 8},
};

static void
test_draw(void)
{
	tl_ui *ui = xcalloc(1, sizeof *ui);
	char b[128];
	screen_resize(&ui->scr, 40, 6);
	ui_table t;
	ui_table_init(&t, cols, 4, 1, 2, row_cells, NULL);
	t.n = 6;
	screen_clear(&ui->scr, SLOT_TITLE); /* to see which blanks are drawn */
	ui_table_draw(ui, &t, 0, 0, 40, 5);
	CHECK_STR(line(ui, 1, b, sizeof b), " count name  ratio  group", "header at line head - 1");
	CHECK_STR(line(ui, 2, b, sizeof b), ">    5 alph    0.5  group-0",
	          "first row selected; a left cell is cut to its width");
	/* a number wider than its column is shown whole and pushes the rest on */
	CHECK_STR(line(ui, 3, b, sizeof b), " 123456 beta    1.5  group-1", "a wide number");
	CHECK(slot_at(ui, 2, 2) == SLOT_LABEL_CURRENT && slot_at(ui, 2, 3) == SLOT_RANK,
	      "the first cell in its own slot");
	CHECK(slot_at(ui, 6, 2) == SLOT_TITLE && slot_at(ui, 11, 2) == SLOT_NORMAL,
	      "a blank between cells of two slots stays as it was, one within a slot is drawn");
	/* 3 rows shown (h 5 - head 2): the page is 2 */
	CHECK_EQ_I64(ui_table_page(ui, &t), 6 - 1 - 2 - 1, "a page is the rows shown less one");
	CHECK(ui_table_move(ui, &t, ACT_LAST_LANE) && t.sel == 5, "last row");
	screen_clear(&ui->scr, SLOT_NORMAL);
	ui_table_draw(ui, &t, 0, 0, 40, 5);
	CHECK(t.top == 3, "the selection is kept in sight (top %zu)", t.top);
	CHECK_STR(line(ui, 4, b, sizeof b), ">    7 zeta    5.5  group-5",
	          "the last row at the bottom");
	CHECK(ui_table_move(ui, &t, ACT_PAGE_UP) && t.sel == 3, "page up by a page");
	CHECK(!ui_table_move(ui, &t, ACT_SELECT), "Enter is the panel's");

	/* narrow: the group (priority 2) leaves first, then the ratio (1) */
	screen_clear(&ui->scr, SLOT_NORMAL);
	ui_table_draw(ui, &t, 0, 0, 24, 5);
	CHECK_STR(line(ui, 1, b, sizeof b), " count name  ratio", "at 24 columns the group leaves");
	screen_clear(&ui->scr, SLOT_NORMAL);
	ui_table_draw(ui, &t, 0, 0, 15, 5);
	CHECK_STR(line(ui, 1, b, sizeof b), " count name", "at 15 the ratio too");

	/* split: every cell at its own place, the header's sorted column current */
	t.split = 1;
	t.sort_col = 1;
	t.sel = t.top = 0;
	screen_clear(&ui->scr, SLOT_NORMAL);
	ui_table_draw(ui, &t, 0, 0, 40, 5);
	CHECK_STR(line(ui, 3, b, sizeof b), " 123456beta    1.5  group-1",
	          "split cells do not move: a wide one is overwritten by the next");
	CHECK(slot_at(ui, 7, 1) == SLOT_LABEL_CURRENT && slot_at(ui, 1, 1) == SLOT_LABEL,
	      "the sorted column's header is current");
	screen_free(&ui->scr);
	free(ui);
}

static int
by_count(const void *ctx, size_t a, size_t b)
{
	(void)ctx;
	return (counts[a] > counts[b]) - (counts[a] < counts[b]);
}

static void
test_sort(void)
{
	size_t order[6] = {0, 1, 2, 3, 4, 5};
	sort_index(order, 6, by_count, NULL);
	static const size_t want[6] = {4, 0, 2, 3, 5, 1};
	int same = 1;
	for (int i = 0; i < 6; i++)
		same &= order[i] == want[i];
	CHECK(same, "stable: equal counts keep their order (%zu %zu %zu %zu %zu %zu)", order[0],
	      order[1], order[2], order[3], order[4], order[5]);
	/* a longer run: against insertion sort */
	enum { N = 1000 };
	size_t *o = xreallocarray(NULL, N, sizeof *o), *ref = xreallocarray(NULL, N, sizeof *ref);
	for (size_t i = 0; i < N; i++)
		o[i] = ref[i] = (i * 7919) % 6;
	sort_index(o, N, by_count, NULL);
	for (size_t i = 1; i < N; i++)
		for (size_t j = i; j > 0 && by_count(NULL, ref[j - 1], ref[j]) > 0; j--) {
			size_t x = ref[j];
			ref[j] = ref[j - 1];
			ref[j - 1] = x;
		}
	CHECK(memcmp(o, ref, N * sizeof *o) == 0, "1000 rows as insertion sort puts them");
	free(o);
	free(ref);
}

int
main(void)
{
	test_draw();
	test_sort();
	return test_done();
}
