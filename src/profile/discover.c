/* Profile discovery: walk a path and list every capture's data file with its rank, capture time
 * and RL role, and several captures per rank (verl <step>/<role>/, MindSpeed-RL <role>/). This
 * file is the entry and what comes after the walk (discover_walk.c): roles, the --rank filter,
 * the order. */
#include "config.h"
#include "profile/discover_int.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Role directories written by verl's discrete mode (<step>/<role>/) and MindSpeed-RL (<role>/). */
static const char *const known_roles[] = {
    "actor_update",          "rollout_generate",   "actor_compute_log_prob",
    "ref_compute_log_prob",  "compute_values",     "critic_update",
    "compute_rm_score",      "actor_generate",     "reference_compute_log_prob",
    "critic_compute_values", "actor_image_embeds",
};

/* ---- after the walk: roles, filter, order -------------------------------------------------- */

static int
role_known(const char *name)
{
	for (size_t i = 0; i < sizeof known_roles / sizeof *known_roles; i++)
		if (strcmp(name, known_roles[i]) == 0)
			return 1;
	return 0;
}

static int
hint_ref_cmp(const void *a, const void *b)
{
	const hint_ref *x = a, *y = b;
	int c = strcmp(x->h->parent, y->h->parent);
	if (c == 0)
		c = strcmp(x->h->dir, y->h->dir);
	if (c == 0)
		c = (x->s->rank > y->s->rank) - (x->s->rank < y->s->rank);
	return c;
}

/* Distinct known ranks in v[a, b) (sorted by rank within one directory). */
static int
hint_ranks(const hint_ref *v, size_t a, size_t b)
{
	int n = 0;
	for (size_t i = a; i < b; i++)
		if (v[i].s->rank >= 0 && (i == a || v[i].s->rank != v[i - 1].s->rank))
			n++;
	return n;
}

/* The directory above a capture is its role when it is a known verl / MindSpeed-RL role name, or
 * when it sits in a step directory (verl's <step>/<role>/), holds captures of several ranks and
 * has a sibling that does too (several roles side by side). Sibling directories of many ranks
 * without a step above them (level0/, level2/, runs/exp1/) are just where the user keeps runs. */
static void
roles_decide(walk *w)
{
	hint_ref *v = xcalloc(w->found.n, sizeof *v);
	size_t m = 0;
	for (size_t i = 0; i < w->found.n; i++)
		if (w->hints[i].name != NULL)
			v[m++] = (hint_ref){&w->hints[i], &w->found.v[i]};
	qsort(v, m, sizeof *v, hint_ref_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && strcmp(v[b].h->parent, v[a].h->parent) == 0)
			b++;
		int groups = 0;
		for (size_t i = a; i < b;) {
			size_t j = i;
			while (j < b && strcmp(v[j].h->dir, v[i].h->dir) == 0)
				j++;
			if (hint_ranks(v, i, j) >= 2)
				groups++;
			i = j;
		}
		for (size_t i = a; i < b;) {
			size_t j = i;
			while (j < b && strcmp(v[j].h->dir, v[i].h->dir) == 0)
				j++;
			int general = groups >= 2 && hint_ranks(v, i, j) >= 2 && v[i].h->step >= 0;
			for (size_t k = i; k < j; k++) {
				if (!general && !role_known(v[k].h->name))
					continue;
				v[k].s->role = xstrdup(v[k].h->name);
				v[k].s->role_step = v[k].h->step;
			}
			i = j;
		}
		a = b;
	}
	free(v);
}

static int
sourcelist_has_rank(const tl_sourcelist *l, int rank)
{
	size_t lo = 0, hi = l->n; /* sorted by rank */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo].rank == rank;
}

/* One line naming every rank asked for that no source has: "rank(s) 3, 5-7 asked for…". */
static void
ranks_warn_missing(const char *path, const tl_rankset *rs, const tl_sourcelist *out,
                   size_t unknown_dropped)
{
	char list[640];
	size_t len = 0, more = 0;
	int any = 0;
	list[0] = '\0';
	for (size_t i = 0; i < rs->n;) {
		if (sourcelist_has_rank(out, rs->ranks[i])) {
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < rs->n && rs->ranks[j] == rs->ranks[j - 1] + 1 &&
		       !sourcelist_has_rank(out, rs->ranks[j]))
			j++;
		char item[32];
		if (j - i == 1)
			snprintf(item, sizeof item, "%d", rs->ranks[i]);
		else
			snprintf(item, sizeof item, "%d-%d", rs->ranks[i], rs->ranks[j - 1]);
		if (len + strlen(item) + 8 < sizeof list) {
			const char *sep = any ? ", " : "";
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", sep, item);
		} else {
			more += j - i;
		}
		any = 1;
		i = j;
	}
	if (!any)
		return;
	char tail[160] = "";
	if (more)
		snprintf(tail, sizeof tail, " and %zu more", more);
	char unk[160] = "";
	if (unknown_dropped)
		snprintf(
		    unk, sizeof unk,
		    " (%zu source(s) whose rank is not known were left out by the rank filter)",
		    unknown_dropped);
	msg_warn(path, "rank(s) %s%s asked for but not found%s", list, tail, unk);
}

int
discover(const char *path, const tl_rankset *ranks, tl_sourcelist *out)
{
	char buf[1024];
	struct stat st;
	if (stat(path, &st) != 0) {
		msg_error("%s: %s", text_sanitize(path, buf, sizeof buf, 1), strerror(errno));
		return -1;
	}
	walk w;
	memset(&w, 0, sizeof w);
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	char *root = xstrndup(path, plen);
	char *real = NULL;
	int rc = 0;

	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(root);
		if (d == NULL) {
			msg_error("%s: cannot open directory: %s",
			          text_sanitize(path, buf, sizeof buf, 1), strerror(errno));
			rc = -1;
			goto done;
		}
		closedir(d);
		real = realpath(root, NULL);
		const char *rname = disc_path_base(real ? real : root);
		if (strcmp(rname, APO_NAME) == 0 && real != NULL) {
			/* pointed at the output directory itself: its parent is the capture */
			char *cap = disc_path_dir(real);
			disc_capture_scan(&w, cap, root, -1);
			free(cap);
		} else {
			w.names[0] = rname;
			w.paths[0] = root;
			disc_walk_dir(&w, root, 0);
		}
		if (w.too_deep)
			msg_warn(root, "directories more than %d levels down were not searched",
			         DISCOVER_MAX_DEPTH);
	} else if (S_ISREG(st.st_mode)) {
		/* not a profile: the caller sees no sources */
		rc = disc_discover_file(&w, root) == DISC_FILE_UNREADABLE ? -1 : 0;
	} else {
		msg_error("%s: not a directory or a regular file",
		          text_sanitize(path, buf, sizeof buf, 1));
		rc = -1;
	}
	disc_dup_report(&w, root);
	if (rc != 0)
		goto done;

	roles_decide(&w);
	disc_capture_times_from_info(&w.found);
	int all = ranks == NULL || ranks->all;
	size_t unknown_dropped = 0;
	tl_rankset have = {0}; /* the ranks there are, for when none asked for is */
	size_t have_cap = 0;
	for (size_t i = 0; i < w.found.n; i++) {
		tl_source *s = &w.found.v[i];
		if (!all && s->rank >= 0)
			VEC_PUSH(have.ranks, have.n, have_cap, s->rank);
		/* rank -1: the loader may still find it (RANK_DEVICE_MAP), but a filter cannot */
		int keep = all || (s->rank >= 0 && rankset_has(ranks, s->rank));
		if (keep) {
			VEC_PUSH(out->v, out->n, out->cap, *s);
		} else {
			unknown_dropped += s->rank < 0;
			source_free(s);
		}
	}
	w.found.n = 0;
	if (out->n > 1)
		sourcelist_sort(out);
	if (!all) {
		ranks_warn_missing(root, ranks, out, unknown_dropped);
		if (out->n == 0 && have.n > 0) {
			rankset_normalize(&have);
			char list[640];
			rankset_format(&have, list, sizeof list);
			msg_warn(root, "the ranks there are: %s", list);
		}
	}
	free(have.ranks);

done:
	for (size_t i = 0; i < w.found.n; i++)
		source_free(&w.found.v[i]);
	free(w.found.v);
	for (size_t i = 0; i < w.nhints; i++) {
		free(w.hints[i].name);
		free(w.hints[i].dir);
		free(w.hints[i].parent);
	}
	free(w.hints);
	free(w.dirs.v);
	free(w.files.v);
	free(real);
	free(root);
	return rc;
}
