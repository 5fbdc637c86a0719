/* The module panel (msprof-analyze module_statistic): for one rank, the tree of its modules --
 * the MSTX ranges of domain "Module", and the backward modules synthesized from autograd's
 * operator links -- with the device time of each module (its own operators' kernels and, in
 * "total", its sub-modules'), expandable to the module's operators and their kernels. Enter
 * shows the module's first range in the timeline; sort-next orders siblings by execution,
 * device time or name. Every number is tlq_modules', the `modules` of `tl summary --json`. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "util/satint.h"
#include "util/sort.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MOD_SORT_EXEC, MOD_SORT_TOTAL, MOD_SORT_NAME, MOD_SORT__COUNT };
static const ui_col mod_cols[] = {
    {"total", 10, UI_ALIGN_RIGHT, 0, 0, 0},
    {"self", 10, UI_ALIGN_RIGHT, 0, 0, 0},
    {"kernels", 8, UI_ALIGN_RIGHT, 0, 0, 0},
    {"ops", 7, UI_ALIGN_RIGHT, 0, 0, 0},
    {"module / operator [kernels]", 0, UI_ALIGN_LEFT, 2, 0, 0},
};
enum { MOD_NCOLS = sizeof mod_cols / sizeof *mod_cols };
static const char *const sort_names[MOD_SORT__COUNT] = {"execution order", "device time", "name"};

typedef struct mnode {
	const char *name; /* the path's last part (borrowed from the pool) */
	const char *path;
	size_t parent; /* SIZE_MAX at the top */
	int depth;
	int64_t self_ns, total_ns; /* its own operators; with its sub-modules */
	uint64_t kernels, ops;     /* with its sub-modules */
	int64_t first;             /* first operator start below it: the execution order */
	int64_t mstart, mend;      /* the first call of the module itself (end < start: none) */
	int backward;
	size_t *kids; /* child nodes */
	size_t nkids, kcap;
	size_t *rows; /* its operator rows (indexes into the rank's stats) */
	size_t nrows, rcap;
	int open;
} mnode;

typedef struct vis {      /* a line on screen: a module, or an operator row of one */
	size_t node, row; /* row SIZE_MAX: the module itself */
} vis;

typedef struct mod_state {
	tl_modules_result m;
	size_t *ranks; /* trace rank indexes with rows */
	size_t nranks, cur;
	tl_strpool *paths; /* the tree's path strings */
	mnode *n;
	size_t nn, ncap;
	size_t *top_nodes;
	size_t ntop, topcap;
	vis *v;
	size_t nv, vcap;
	int sort;
	ui_table tab; /* its rows are v */
	int built;
} mod_state;

static int
cmp_node(const void *ctx, size_t a, size_t b)
{
	const mod_state *s = ctx;
	const mnode *x = &s->n[a], *y = &s->n[b];
	switch (s->sort) {
	case MOD_SORT_TOTAL:
		if (x->total_ns != y->total_ns)
			return x->total_ns > y->total_ns ? -1 : 1;
		break;
	case MOD_SORT_NAME: {
		int c = strcmp(x->name, y->name);
		if (c)
			return c;
		break;
	}
	default:
		break;
	}
	return (x->first > y->first) - (x->first < y->first);
}

static void
free_tree(mod_state *s)
{
	for (size_t i = 0; i < s->nn; i++) {
		free(s->n[i].kids);
		free(s->n[i].rows);
	}
	free(s->n);
	free(s->top_nodes);
	if (s->paths)
		strpool_free(s->paths);
	s->n = NULL;
	s->top_nodes = NULL;
	s->paths = NULL;
	s->nn = s->ncap = s->ntop = s->topcap = 0;
}

/* The node of path p[0..len), made with its parents on first use; node_of maps pool ids. */
static size_t
node_at(mod_state *s, size_t **node_of, size_t *nof, const char *p, size_t len, int backward)
{
	uint32_t id = strpool_intern(s->paths, p, len);
	if (id < *nof && (*node_of)[id] != SIZE_MAX)
		return (*node_of)[id];
	size_t parent = SIZE_MAX;
	const char *slash = NULL;
	for (size_t i = len; i-- > 0;)
		if (p[i] == '/') {
			slash = p + i;
			break;
		}
	if (slash != NULL)
		parent = node_at(s, node_of, nof, p, (size_t)(slash - p), backward);
	mnode z = {.path = strpool_get(s->paths, id),
	           .parent = parent,
	           .first = INT64_MAX,
	           .mstart = 0,
	           .mend = -1,
	           .backward = backward};
	z.name = slash ? z.path + (slash - p) + 1 : z.path;
	z.depth = parent == SIZE_MAX ? 0 : s->n[parent].depth + 1;
	size_t k = s->nn;
	VEC_PUSH(s->n, s->nn, s->ncap, z);
	if (parent == SIZE_MAX)
		VEC_PUSH(s->top_nodes, s->ntop, s->topcap, k);
	else
		VEC_PUSH(s->n[parent].kids, s->n[parent].nkids, s->n[parent].kcap, k);
	if (id >= *nof) {
		size_t nc = id + 64;
		*node_of = xreallocarray(*node_of, nc, sizeof **node_of);
		for (size_t i = *nof; i < nc; i++)
			(*node_of)[i] = SIZE_MAX;
		*nof = nc;
	}
	(*node_of)[id] = k;
	return k;
}

static void
build_tree(mod_state *s)
{
	free_tree(s);
	if (s->nranks == 0)
		return;
	s->paths = strpool_new();
	const tl_module_stats *st = &s->m.stats[s->ranks[s->cur]];
	size_t *node_of = NULL, nof = 0;
	for (size_t i = 0; i < st->n; i++) {
		const tl_module_row *r = &st->v[i];
		char p[1024];
		tlq_module_path(r, p, sizeof p);
		size_t k = node_at(s, &node_of, &nof, p, strlen(p), r->backward);
		mnode *x = &s->n[k];
		VEC_PUSH(x->rows, x->nrows, x->rcap, i);
		x->self_ns = sat_add(x->self_ns, r->total_ns);
		if (x->mend < x->mstart || r->module_start < x->mstart) {
			x->mstart = r->module_start;
			x->mend = r->module_end;
		}
		for (size_t a = k; a != SIZE_MAX; a = s->n[a].parent) {
			mnode *y = &s->n[a];
			y->total_ns = sat_add(y->total_ns, r->total_ns);
			y->kernels += (uint64_t)r->nkernels * r->count;
			y->ops += r->count;
			if (r->op_start < y->first)
				y->first = r->op_start;
		}
	}
	free(node_of);
	for (size_t i = 0; i < s->nn; i++) /* the top level open */
		s->n[i].open = s->n[i].depth < 1;
}

static void
add_visible(mod_state *s, size_t k)
{
	vis x = {k, SIZE_MAX};
	VEC_PUSH(s->v, s->nv, s->vcap, x);
	mnode *n = &s->n[k];
	if (!n->open)
		return;
	for (size_t i = 0; i < n->nrows; i++) {
		vis y = {k, n->rows[i]};
		VEC_PUSH(s->v, s->nv, s->vcap, y);
	}
	sort_index(n->kids, n->nkids, cmp_node, s);
	for (size_t i = 0; i < n->nkids; i++)
		add_visible(s, n->kids[i]);
}

static void
build(mod_state *s)
{
	s->nv = 0;
	sort_index(s->top_nodes, s->ntop, cmp_node, s);
	for (size_t i = 0; i < s->ntop; i++)
		add_visible(s, s->top_nodes[i]);
	s->tab.n = s->nv;
	s->tab.sort_col = s->sort == MOD_SORT_TOTAL ? 0 : s->sort == MOD_SORT_NAME ? 4 : -1;
	if (s->tab.sel >= s->nv)
		s->tab.sel = s->nv ? s->nv - 1 : 0;
	s->built = 1;
}

static char *
ms_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 ".%03" PRId64, ns / 1000000, ns / 1000 % 1000);
	return buf;
}

static void
mod_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	mod_state *s = state;
	char k1[24], k2[24], k3[24], k4[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (s->nranks == 0) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Modules  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k1, sizeof k1));
		static const char *const none[] = {
		    "No module ranges in this profile.",
		    "Module statistics read MSTX ranges of the domain \"Module\", one per module",
		    "call: patch nn.Module.__call__ with",
		    "  torch_npu.npu.mstx.range_start(self.__class__.__name__, domain=\"Module\")",
		    "  (and range_end after it), profile with experimental_config(mstx=True) and",
		    "  export_type db. with_modules alone records Python frames, not these ranges.",
		};
		static const char *const nodb[] = {
		    "Module ranges found, but no operator that launched kernels lies in one.",
		    "The operators and their kernels come from the profile DB (PYTORCH_API,",
		    "CONNECTION_IDS, TASK): capture with export_type db.",
		};
		int has = s->m.with_ranges > 0;
		const char *const *t = has ? nodb : none;
		size_t nt = has ? sizeof nodb / sizeof *nodb : sizeof none / sizeof *none;
		for (size_t i = 0; i < nt && (int)i + 2 < h; i++)
			screen_printf(sc, x + 1, y + 2 + (int)i, w - 2, SLOT_NORMAL, "%s", t[i]);
		return;
	}
	if (!s->built)
		build(s);
	size_t ri = s->ranks[s->cur];
	screen_printf(sc, x, y, w, SLOT_TITLE,
	              " Modules of rank %d   (%s/%s rank, %s sort, Enter: its first range, "
	              "Space: open, %s: close)",
	              ui->tr->ranks[ri]->rank,
	              keymap_key_hint(&ui->keys, ACT_RANK_NEXT, k1, sizeof k1),
	              keymap_key_hint(&ui->keys, ACT_RANK_PREV, k2, sizeof k2),
	              keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k3, sizeof k3),
	              keymap_key_hint(&ui->keys, ACT_QUIT, k4, sizeof k4));
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "sorted by %s   ms; total: with sub-modules (and their [Backward]), "
	              "self: own operators'",
	              sort_names[s->sort]);
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
mod_row(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	mod_state *s = ctx;
	const vis *v = &s->v[row];
	const mnode *n = &s->n[v->node];
	char nb[600], kb[600];
	int slot = sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL;
	if (v->row == SIZE_MAX) {
		int leaf = n->nkids == 0 && n->nrows == 0;
		const char *mark = leaf      ? " "
		                   : n->open ? (ui->utf8 ? "\u25be" : "-")
		                             : (ui->utf8 ? "\u25b8" : "+");
		ms_text(n->total_ns, out->cell[0], sizeof out->cell[0]);
		ms_text(n->self_ns, out->cell[1], sizeof out->cell[1]);
		snprintf(out->cell[2], sizeof out->cell[2], "%" PRIu64, n->kernels);
		snprintf(out->cell[3], sizeof out->cell[3], "%" PRIu64, n->ops);
		snprintf(out->cell[4], sizeof out->cell[4], "%*s%s %s", 2 * n->depth, "", mark,
		         ui_clean(ui, n->name, nb, sizeof nb));
	} else { /* an operator of the module: its own line shape, in the note colour */
		const tl_module_row *m = &s->m.stats[s->ranks[s->cur]].v[v->row];
		ms_text(m->total_ns, out->cell[0], sizeof out->cell[0]);
		snprintf(out->cell[2], sizeof out->cell[2], "%" PRIu64,
		         (uint64_t)m->nkernels * m->count);
		snprintf(out->cell[3], sizeof out->cell[3], "%" PRIu64, m->count);
		snprintf(out->cell[4], sizeof out->cell[4], "%*s  %s [%s]", 2 * n->depth, "",
		         ui_clean(ui, m->op_name, nb, sizeof nb),
		         ui_clean(ui, m->kernel_list, kb, sizeof kb));
		slot = sel ? SLOT_LABEL_CURRENT : SLOT_DETAIL_KEY;
	}
	for (int c = 0; c < MOD_NCOLS; c++)
		out->slot[c] = (uint8_t)slot;
}

/* The module's first call in the timeline: its range on the rank's Module lane, selected; a
 * synthesized backward module has no range there, so its span is shown. */
static void
jump(tl_ui *ui, mod_state *s, const mnode *n)
{
	size_t ri = s->ranks[s->cur];
	int64_t t0 = n->mstart, t1 = n->mend;
	const mnode *m = n;
	while (t1 < t0 && m->kids != NULL && m->nkids > 0) { /* a path part without operators */
		m = &s->n[m->kids[0]];
		t0 = m->mstart;
		t1 = m->mend;
	}
	if (t1 < t0) {
		ui_message(ui, 1, "%s: no call of it holds an operator", n->path);
		return;
	}
	char tb[32], pb[600];
	ui_view_close(ui, &modules_panel_view);
	ui_message(ui, 0, "Rank %d, %s: %s ms on the device over %" PRIu64 " operators",
	           ui->tr->ranks[ri]->rank, ui_clean(ui, n->path, pb, sizeof pb),
	           ms_text(n->total_ns, tb, sizeof tb), n->ops);
	const tl_rank *r = ui->tr->ranks[ri];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_MSTX ||
		    strcmp(strpool_get(r->pool, t->label), "Module") != 0)
			continue;
		size_t k = track_first_starting_at(t, t0);
		for (; k < t->n && t->v[k].start == t0; k++)
			if (track_end(t, k) == t1) {
				ui_slice_ref sel = {ri, ti, k};
				timeline_reveal(ui, ri, t0, t1, &sel);
				return;
			}
	}
	timeline_reveal(ui, ri, t0, t1, NULL);
}

static void
set_open(mod_state *s, int open)
{
	for (size_t i = 0; i < s->nn; i++)
		s->n[i].open = open;
	s->built = 0;
	s->tab.sel = s->tab.top = 0;
}

static int
mod_action(tl_ui *ui, void *state, int a)
{
	mod_state *s = state;
	if (s->nranks > 0 && !s->built)
		build(s);
	if (ui_table_move(ui, &s->tab, a))
		return 1;
	const vis *v = s->tab.sel < s->nv ? &s->v[s->tab.sel] : NULL;
	switch (a) {
	case ACT_RANK_NEXT:
	case ACT_RANK_PREV:
		if (s->nranks == 0)
			return 1;
		s->cur = a == ACT_RANK_NEXT ? (s->cur + 1) % s->nranks
		                            : (s->cur + s->nranks - 1) % s->nranks;
		build_tree(s);
		s->built = 0;
		s->tab.sel = s->tab.top = 0;
		return 1;
	case ACT_SORT_NEXT:
		s->sort = (s->sort + 1) % MOD_SORT__COUNT;
		s->built = 0;
		s->tab.sel = s->tab.top = 0;
		ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		return 1;
	case ACT_TOGGLE_RANK: /* Space: open or close the module */
	case ACT_CURSOR_RIGHT:
	case ACT_CURSOR_LEFT:
		if (v == NULL)
			return 1;
		if (v->row != SIZE_MAX || (a == ACT_CURSOR_LEFT && !s->n[v->node].open)) {
			/* on an operator, or Left on a closed module: to the module above */
			size_t up = v->row != SIZE_MAX ? v->node : s->n[v->node].parent;
			for (size_t i = s->tab.sel; up != SIZE_MAX && i-- > 0;)
				if (s->v[i].node == up && s->v[i].row == SIZE_MAX) {
					s->tab.sel = i;
					break;
				}
			return 1;
		}
		s->n[v->node].open = a == ACT_CURSOR_RIGHT  ? 1
		                     : a == ACT_CURSOR_LEFT ? 0
		                                            : !s->n[v->node].open;
		s->built = 0;
		return 1;
	case ACT_TOGGLE_ALL: /* C: open every module, again: only the top */
		set_open(s, s->nv < s->nn + 1);
		return 1;
	case ACT_SELECT:
		if (v != NULL)
			jump(ui, s, &s->n[v->node]);
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
mod_open(tl_ui *ui)
{
	mod_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, mod_cols, MOD_NCOLS, 1, 3, mod_row, s);
	tlq_modules(ui->q, &s->m); /* read once, when first shown */
	s->ranks = xreallocarray(NULL, s->m.nranks ? s->m.nranks : 1, sizeof *s->ranks);
	for (size_t i = 0; i < s->m.nranks; i++)
		if (s->m.stats[i].n > 0)
			s->ranks[s->nranks++] = i;
	build_tree(s);
	return s;
}

static void
mod_close(tl_ui *ui, void *st)
{
	(void)ui;
	mod_state *s = st;
	free_tree(s);
	tlq_modules_free(&s->m);
	free(s->ranks);
	free(s->v);
	free(s);
}

const view_ops modules_panel_view = {
    .name = "modules",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_MODULES_PANEL,
    .open = mod_open,
    .draw = mod_draw,
    .action = mod_action,
    .close = mod_close,
};
