/* Bookmarks: named places (a rank and a time) set with `:mark NAME`, listed in a panel where
 * Enter goes back to one. They are kept per profile in the user's state directory,
 * $XDG_STATE_HOME/tl/bookmarks/ (default ~/.local/state/tl/bookmarks/), one file per profile
 * named by a hash of its source files' paths — never beside the profile, which is read-only to
 * tl. The file is text: "# profile PATH" and then NAME<TAB>RANK<TAB>TIME lines, the time in ns
 * on the profile's clock. In the panel, x or Delete deletes the bookmark under the cursor;
 * `:unmark NAME` deletes one by name. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BOOKMARK_NAME_MAX 64

typedef struct bookmark {
	char name[BOOKMARK_NAME_MAX];
	int rank; /* the profile's rank number */
	int64_t t;
} bookmark;

typedef struct bm_state {
	int loaded;
	char *file; /* NULL: no state directory (neither XDG_STATE_HOME nor HOME) */
	bookmark *v;
	size_t n, cap;
	ui_table tab;
} bm_state;

/* The state directory's tl folder (malloc'd), or NULL. */
static char *
state_dir(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		return xasprintf("%s/tl/bookmarks", xdg);
	if (home && *home)
		return xasprintf("%s/.local/state/tl/bookmarks", home);
	return NULL;
}

static int
mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	int rc = mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

/* FNV-1a over the source paths: the same profile opened again finds its bookmarks. */
static uint64_t
profile_hash(const tl_trace *tr)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < tr->sources.n; i++) {
		for (const char *p = tr->sources.v[i].path; p && *p; p++) {
			h ^= (unsigned char)*p;
			h *= 1099511628211ULL;
		}
		h ^= '\n';
		h *= 1099511628211ULL;
	}
	return h;
}

static void
load(tl_ui *ui, bm_state *s)
{
	if (s->loaded)
		return;
	s->loaded = 1;
	char *dir = state_dir();
	if (dir == NULL)
		return;
	s->file = xasprintf("%s/%016" PRIx64 ".tsv", dir, profile_hash(ui->tr));
	free(dir);
	FILE *f = fopen(s->file, "r");
	if (f == NULL)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		bookmark b = {0};
		char *tab = strchr(line, '\t');
		if (tab == NULL || tab - line >= BOOKMARK_NAME_MAX || tab == line)
			continue;
		memcpy(b.name, line, (size_t)(tab - line));
		long long t;
		if (sscanf(tab + 1, "%d\t%lld", &b.rank, &t) != 2)
			continue;
		b.t = t;
		VEC_PUSH(s->v, s->n, s->cap, b);
	}
	fclose(f);
}

static int
save(tl_ui *ui, bm_state *s)
{
	if (s->file == NULL)
		return -1;
	char *dir = xstrdup(s->file);
	*strrchr(dir, '/') = '\0';
	int rc = mkdir_p(dir);
	free(dir);
	if (rc != 0)
		return -1;
	char *tmp = xasprintf("%s.tmp", s->file);
	FILE *f = fopen(tmp, "w");
	if (f == NULL) {
		free(tmp);
		return -1;
	}
	fprintf(f, "# tl bookmarks of the profile %s\n",
	        ui->tr->sources.n ? ui->tr->sources.v[0].dir : "?");
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s\t%d\t%" PRId64 "\n", s->v[i].name, s->v[i].rank, s->v[i].t);
	rc = fclose(f) == 0 ? rename(tmp, s->file) : -1;
	if (rc != 0)
		remove(tmp);
	free(tmp);
	return rc;
}

int
bookmarks_add(tl_ui *ui, const char *name)
{
	bm_state *s = ui_view_state(ui, &bookmarks_view);
	load(ui, s);
	size_t len = strlen(name);
	if (len == 0 || len >= BOOKMARK_NAME_MAX || strpbrk(name, "\t\n\r")) {
		ui_message(ui, 1, "mark: a name of 1 to %d characters", BOOKMARK_NAME_MAX - 1);
		return -1;
	}
	size_t ri = timeline_current_rank(ui);
	bookmark b = {.rank = ri < ui->tr->nranks ? ui->tr->ranks[ri]->rank : 0,
	              .t = timeline_cursor(ui)};
	memcpy(b.name, name, len + 1);
	size_t i;
	for (i = 0; i < s->n && strcmp(s->v[i].name, name) != 0; i++)
		;
	if (i < s->n)
		s->v[i] = b; /* the same name again moves it */
	else
		VEC_PUSH(s->v, s->n, s->cap, b);
	char at[48], nm[96];
	if (save(ui, s) != 0)
		ui_message(ui, 1, "Bookmark %s set, but not kept: cannot write %s",
		           ui_clean(ui, name, nm, sizeof nm), s->file ? s->file : "(no HOME)");
	else
		ui_message(ui, 0, "Bookmark %s: rank %d at %s (%zu kept for this profile)",
		           ui_clean(ui, name, nm, sizeof nm), b.rank,
		           ui_time(ui, b.t, at, sizeof at), s->n);
	return 0;
}

/* Deletes bookmark i and writes the file again. */
static int
bm_delete(tl_ui *ui, bm_state *s, size_t i)
{
	char nm[96];
	ui_clean(ui, s->v[i].name, nm, sizeof nm);
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
	s->n--;
	if (s->tab.sel >= s->n && s->tab.sel > 0)
		s->tab.sel--;
	if (save(ui, s) != 0) {
		ui_message(ui, 1, "Bookmark %s deleted, but not kept: cannot write %s", nm,
		           s->file ? s->file : "(no HOME)");
		return -1;
	}
	ui_message(ui, 0, "Bookmark %s deleted (%zu kept for this profile)", nm, s->n);
	return 0;
}

int
bookmarks_delete(tl_ui *ui, const char *name)
{
	bm_state *s = ui_view_state(ui, &bookmarks_view);
	load(ui, s);
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return bm_delete(ui, s, i);
	char nm[96];
	ui_message(ui, 1, "unmark: no bookmark '%s' (' lists them)",
	           ui_clean(ui, name, nm, sizeof nm));
	return -1;
}

static void
bm_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	bm_state *s = st;
	load(ui, s);
	char k[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	screen_printf(sc, x, y, w, SLOT_TITLE,
	              " Bookmarks: %zu   (Enter: go there, x: delete, %s: close)", s->n,
	              keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k));
	if (s->n == 0) {
		screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		              "None yet: :mark NAME sets one at the cursor, on the current rank.");
		return;
	}
	s->tab.n = s->n;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
bm_row(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	const bm_state *s = ctx;
	ui_clean(ui, s->v[i].name, out->cell[0], sizeof out->cell[0]);
	snprintf(out->cell[1], sizeof out->cell[1], "%d", s->v[i].rank);
	ui_time(ui, s->v[i].t, out->cell[2], sizeof out->cell[2]);
	for (int c = 0; c < 3; c++)
		out->slot[c] = sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL;
}

static int
bm_action(tl_ui *ui, void *st, int a)
{
	bm_state *s = st;
	load(ui, s);
	s->tab.n = s->n;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER: {
		bookmark b = s->v[s->tab.sel];
		ui_view_close(ui, &bookmarks_view);
		for (size_t ri = 0; ri < ui->tr->nranks; ri++)
			if (ui->tr->ranks[ri]->rank == b.rank)
				timeline_goto_rank(ui, ri);
		timeline_goto(ui, b.t);
		char nm[96], at[48];
		ui_message(ui, 0, "Bookmark %s: rank %d at %s", ui_clean(ui, b.name, nm, sizeof nm),
		           b.rank, ui_time(ui, b.t, at, sizeof at));
		return 1;
	}
	case UI_LIST_OTHER:
		return 0; /* not the panel's: the view stack's rule */
	default:
		return 1;
	}
}

static int
bm_key(tl_ui *ui, void *st, int key)
{
	bm_state *s = st;
	int del = 0;
	key_parse("<Delete>", &del);
	if (key != 'x' && key != del)
		return 0;
	load(ui, s);
	if (s->tab.sel < s->n)
		bm_delete(ui, s, s->tab.sel);
	else
		ui_message(ui, 0, "No bookmark to delete");
	return 1;
}

static void *
bm_open(tl_ui *ui)
{
	(void)ui;
	static const ui_col cols[] = {
	    {"name", 24, UI_ALIGN_LEFT_WHOLE, 0, 0, 0},
	    {"rank", 6, UI_ALIGN_RIGHT, 0, 0, 0},
	    {"time", 16, UI_ALIGN_RIGHT, 0, 0, 0},
	};
	bm_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, cols, 3, 2, 2, bm_row, s);
	return s;
}

static void
bm_close(tl_ui *ui, void *st)
{
	(void)ui;
	bm_state *s = st;
	free(s->v);
	free(s->file);
	free(s);
}

const view_ops bookmarks_view = {
    .name = "bookmarks",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_BOOKMARKS,
    .open = bm_open,
    .draw = bm_draw,
    .action = bm_action,
    .key = bm_key,
    .close = bm_close,
};
