/* Whose cache files are read (cache.h, "whose files are read", says the rule and why).
 *
 * A cache file's checksum and key prove that it is whole and meant for these inputs, not who
 * made it: anyone who can read the profile and the tl binary can compute both. What only the
 * kernel can vouch for is the file's owner, so a file is read only when its owner is one the
 * user trusts: the user, root (who could change tl itself), and the owners named by
 * --trust-cache, TL_CACHE_TRUST or the config file's trust-cache line. The directory counts
 * too: one that untrusted users may write without the sticky bit lets them rename and remove
 * the user's own files at will, so nothing in it is read or written. */
#include "config.h"
#include "store/cache_int.h"
#include "util/confpath.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_FILE "config"
#define CONFIG_MAX (64 * 1024) /* bytes: a bigger file is not a config file */

static uid_t *t_uids;
static gid_t *t_gids;
static size_t t_nuids, t_ngids;

/* The verdicts so far, by owner: each costs a passwd and group lookup, and the loader threads
 * ask for every file. */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uid_t uid;
	int trusted;
} memo[32];
static size_t nmemo;

/* ---- the passwd and group databases ------------------------------------------------------------
 * Through NSS in the dynamic build (users from LDAP and the like included); the static build
 * links no NSS function (it could not load NSS's modules: tests/release/test_static.sh) and
 * reads /etc/passwd and /etc/group itself. Every lookup is reentrant: loader threads ask. */

/* What a lookup found: a user's or group's name, its id, a user's primary group, and of a
 * group's member list whether it holds who and whether it holds anyone else. */
typedef struct account {
	char name[256];
	unsigned long id, gid;
	int has_who, has_other;
} account;

static void
members(account *a, const char *list, const char *who)
{
	const char *p = list;
	while (p != NULL && *p != '\0') {
		size_t n = strcspn(p, ",");
		if (n > 0) {
			int is = who != NULL && strlen(who) == n && strncmp(p, who, n) == 0;
			a->has_who |= is;
			a->has_other |= !is;
		}
		p += n + (p[n] == ',');
	}
}

#ifdef TL_STATIC_BINARY
/* The entry of file (passwd: 7 fields, group: 4) whose name is name or, name NULL, whose id is
 * id; group members are matched against who. Returns 0 when found. */
static int
db_find(const char *file, const char *name, unsigned long id, const char *who, account *a)
{
	FILE *f = fopen(file, "re");
	if (f == NULL)
		return -1;
	char line[4096];
	int found = -1;
	while (found != 0 && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		char *fld[7] = {0}, *p = line;
		int nf = 0;
		for (; nf < 7 && p != NULL; nf++) {
			fld[nf] = p;
			p = strchr(p, ':');
			if (p != NULL)
				*p++ = '\0';
		}
		if (nf < 4 || fld[0][0] == '\0' || fld[0][0] == '+' || fld[0][0] == '-' ||
		    strspn(fld[2], "0123456789") != strlen(fld[2]) || fld[2][0] == '\0')
			continue;
		unsigned long v = strtoul(fld[2], NULL, 10);
		if (name != NULL ? strcmp(fld[0], name) != 0 : v != id)
			continue;
		memset(a, 0, sizeof *a);
		snprintf(a->name, sizeof a->name, "%s", fld[0]);
		a->id = v;
		if (strcmp(file, "/etc/group") == 0)
			members(a, fld[3], who);
		else
			a->gid = strtoul(fld[3], NULL, 10);
		found = 0;
	}
	fclose(f);
	return found;
}

static int
user_by_id(uid_t uid, account *a)
{
	return db_find("/etc/passwd", NULL, uid, NULL, a);
}

static int
user_by_name(const char *name, account *a)
{
	return db_find("/etc/passwd", name, 0, NULL, a);
}

static int
group_by_id(gid_t gid, const char *who, account *a)
{
	return db_find("/etc/group", NULL, gid, who, a);
}

static int
group_by_name(const char *name, account *a)
{
	return db_find("/etc/group", name, 0, NULL, a);
}
#else
static int
user_fill(int rc, const struct passwd *res, account *a)
{
	if (rc != 0 || res == NULL)
		return -1;
	memset(a, 0, sizeof *a);
	snprintf(a->name, sizeof a->name, "%s", res->pw_name);
	a->id = res->pw_uid;
	a->gid = res->pw_gid;
	return 0;
}

static int
user_by_id(uid_t uid, account *a)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int rc = getpwuid_r(uid, &pw, buf, sizeof buf, &res);
	return user_fill(rc, res, a);
}

static int
user_by_name(const char *name, account *a)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int rc = getpwnam_r(name, &pw, buf, sizeof buf, &res);
	return user_fill(rc, res, a);
}

/* A group's entry (its member list can be long: the buffer grows as getgr*_r asks). */
static int
group_fill(gid_t gid, const char *name, const char *who, account *a)
{
	struct group gr, *res = NULL;
	size_t len = 16384;
	char *buf = xmalloc(len);
	int rc;
	while ((rc = name != NULL ? getgrnam_r(name, &gr, buf, len, &res)
	                          : getgrgid_r(gid, &gr, buf, len, &res)) == ERANGE &&
	       len < (16u << 20)) {
		len *= 2;
		buf = xrealloc(buf, len);
	}
	int found = rc == 0 && res != NULL ? 0 : -1;
	if (found == 0) {
		memset(a, 0, sizeof *a);
		snprintf(a->name, sizeof a->name, "%s", gr.gr_name);
		a->id = gr.gr_gid;
		for (char **m = gr.gr_mem; *m != NULL; m++)
			members(a, *m, who);
	}
	free(buf);
	return found;
}

static int
group_by_id(gid_t gid, const char *who, account *a)
{
	return group_fill(gid, NULL, who, a);
}

static int
group_by_name(const char *name, account *a)
{
	return group_fill(0, name, NULL, a);
}
#endif

/* 1 when the user uid is a member of the group gid (its primary group, or listed in it). */
static int
in_group(uid_t uid, gid_t gid)
{
	account u = {0}, g = {0};
	if (user_by_id(uid, &u) != 0)
		return 0;
	if (u.gid == gid)
		return 1;
	return group_by_id(gid, u.name, &g) == 0 && g.has_who;
}

static int
decide(uid_t uid)
{
	if (uid == geteuid() || uid == 0)
		return 1;
	for (size_t i = 0; i < t_nuids; i++)
		if (t_uids[i] == uid)
			return 1;
	for (size_t i = 0; i < t_ngids; i++)
		if (in_group(uid, t_gids[i]))
			return 1;
	return 0;
}

int
cache_trust_uid(uid_t uid)
{
	pthread_mutex_lock(&memo_lock);
	for (size_t i = 0; i < nmemo; i++)
		if (memo[i].uid == uid) {
			int t = memo[i].trusted;
			pthread_mutex_unlock(&memo_lock);
			return t;
		}
	int t = decide(uid);
	if (nmemo < sizeof memo / sizeof memo[0]) {
		memo[nmemo].uid = uid;
		memo[nmemo++].trusted = t;
	}
	pthread_mutex_unlock(&memo_lock);
	return t;
}

/* 1 when a number (all digits, below 2^31) is in s, in *v. */
static int
parse_id(const char *s, unsigned long *v)
{
	if (*s == '\0' || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return 0;
	*v = strtoul(s, NULL, 10);
	return *v < 0x80000000ul;
}

int
cache_trust_set(const char *spec, char *err, size_t errlen)
{
	free(t_uids);
	free(t_gids);
	t_uids = NULL;
	t_gids = NULL;
	t_nuids = t_ngids = 0;
	size_t ucap = 0, gcap = 0;
	char *copy = xstrdup(spec != NULL ? spec : "");
	int rc = 0;
	for (char *save = NULL, *w = strtok_r(copy, ", \t", &save); w != NULL;
	     w = strtok_r(NULL, ", \t", &save)) {
		unsigned long id;
		int group = *w == '@';
		const char *name = w + group;
		account a = {0};
		if (parse_id(name, &id)) {
			if (group)
				VEC_PUSH(t_gids, t_ngids, gcap, (gid_t)id);
			else
				VEC_PUSH(t_uids, t_nuids, ucap, (uid_t)id);
		} else if (!group && user_by_name(name, &a) == 0) {
			VEC_PUSH(t_uids, t_nuids, ucap, (uid_t)a.id);
		} else if (group_by_name(name, &a) == 0) {
			VEC_PUSH(t_gids, t_ngids, gcap, (gid_t)a.id);
		} else if (rc == 0) { /* the first one said; the others still apply */
			snprintf(err, errlen, "no %s named '%s'", group ? "group" : "user or group",
			         name);
			rc = -1;
		}
	}
	free(copy);
	pthread_mutex_lock(&memo_lock);
	nmemo = 0;
	pthread_mutex_unlock(&memo_lock);
	return rc;
}

/* 1 when the group gid is one whose members are all trusted: a group --trust-cache names, or
 * the user's own private group (named as the user, no other members listed: the Debian and
 * Red Hat way, under which a umask of 002 makes the user's directories group-writable). */
static int
group_trusted(gid_t gid)
{
	for (size_t i = 0; i < t_ngids; i++)
		if (t_gids[i] == gid)
			return 1;
	account me = {0}, g = {0};
	return user_by_id(geteuid(), &me) == 0 && group_by_id(gid, me.name, &g) == 0 &&
	       strcmp(g.name, me.name) == 0 && !g.has_other;
}

const char *
cache_trust_dir(const struct stat *st, char *why, size_t n)
{
	if (st->st_mode & S_ISVTX) /* others' renames and removals of the user's files fail */
		return NULL;
	if (st->st_mode & S_IWOTH) {
		snprintf(why, n,
		         "every user may write it (mode %04o) and it has no sticky bit, so anyone "
		         "could replace its files (chmod +t or o-w makes it trusted)",
		         (unsigned)(st->st_mode & 07777));
		return why;
	}
	if ((st->st_mode & S_IWGRP) && !group_trusted(st->st_gid)) {
		account a = {0};
		char g[sizeof a.name];
		if (group_by_id(st->st_gid, NULL, &a) == 0)
			snprintf(g, sizeof g, "%s", a.name);
		else
			snprintf(g, sizeof g, "%lu", (unsigned long)st->st_gid);
		snprintf(why, n,
		         "group %s may write it (mode %04o) and it has no sticky bit (chmod +t, "
		         "or --trust-cache @%s when every member of the group is trusted)",
		         g, (unsigned)(st->st_mode & 07777), g);
		return why;
	}
	return NULL;
}

void
cache_owner_name(uid_t uid, char *buf, size_t n)
{
	account a = {0};
	if (user_by_id(uid, &a) == 0)
		snprintf(buf, n, "uid %lu (%s)", (unsigned long)uid, a.name);
	else
		snprintf(buf, n, "uid %lu", (unsigned long)uid);
}

char *
cache_trust_config(void)
{
	char *path = config_path(CONFIG_FILE);
	if (path == NULL)
		return NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *text = NULL, *spec = NULL;
	if (fd < 0) {
		if (errno != ENOENT)
			msg_warn(path, "cannot read it: %s; its settings do not apply",
			         strerror(errno));
	} else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX) {
		msg_warn(path, "not a config file; its settings do not apply");
	} else if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	           (st.st_mode & (S_IWGRP | S_IWOTH))) {
		/* it says whose files to trust: one others could write would let them name
		 * themselves */
		msg_warn(path, "not trusted: it is not the user's own, or others may write it; its "
		               "settings do not apply");
	} else {
		text = xmalloc((size_t)st.st_size + 1);
		ssize_t got = read(fd, text, (size_t)st.st_size);
		text[got > 0 ? got : 0] = '\0';
	}
	if (fd >= 0)
		close(fd);
	const char *p = text != NULL ? text : "";
	char *line;
	for (int no = 1; (line = config_next_line(&p)) != NULL; no++) {
		char *w[3];
		int nw = config_words(line, w, 3, " \t\r");
		if (nw == 2 && strcmp(w[0], "trust-cache") == 0) {
			char *joined =
			    spec != NULL ? xasprintf("%s,%s", spec, w[1]) : xstrdup(w[1]);
			free(spec);
			spec = joined;
		} else if (nw > 0) {
			msg_warn(path,
			         "line %d: not a setting tl knows (trust-cache OWNER[,OWNER...]); "
			         "ignored",
			         no);
		}
		free(line);
	}
	free(text);
	free(path);
	return spec;
}
