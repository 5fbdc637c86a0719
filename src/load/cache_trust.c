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
#include "load/cache_int.h"
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

/* A user's name (malloc'd) and primary group, or NULL when the passwd database has none. */
static char *
user_name(uid_t uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) != 0 || res == NULL)
		return NULL;
	if (gid != NULL)
		*gid = pw.pw_gid;
	return xstrdup(pw.pw_name);
}

/* 1 when the user uid (named name, primary group pgid) is a member of the group gid. */
static int
in_group(const char *name, gid_t pgid, gid_t gid)
{
	if (pgid == gid)
		return 1;
	struct group gr, *res = NULL;
	size_t len = 16384;
	char *buf = xmalloc(len);
	int found = 0;
	if (getgrgid_r(gid, &gr, buf, len, &res) == 0 && res != NULL)
		for (char **m = gr.gr_mem; *m != NULL && !found; m++)
			found = strcmp(*m, name) == 0;
	free(buf);
	return found;
}

static int
decide(uid_t uid)
{
	if (uid == geteuid() || uid == 0)
		return 1;
	for (size_t i = 0; i < t_nuids; i++)
		if (t_uids[i] == uid)
			return 1;
	if (t_ngids == 0)
		return 0;
	gid_t pgid = 0;
	char *name = user_name(uid, &pgid);
	int ok = 0;
	for (size_t i = 0; i < t_ngids && name != NULL && !ok; i++)
		ok = in_group(name, pgid, t_gids[i]);
	free(name);
	return ok;
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
		struct passwd *pw = NULL;
		struct group *gr = NULL;
		if (parse_id(name, &id)) {
			if (group)
				VEC_PUSH(t_gids, t_ngids, gcap, (gid_t)id);
			else
				VEC_PUSH(t_uids, t_nuids, ucap, (uid_t)id);
		} else if (!group && (pw = getpwnam(name)) != NULL) {
			VEC_PUSH(t_uids, t_nuids, ucap, pw->pw_uid);
		} else if ((gr = getgrnam(name)) != NULL) {
			VEC_PUSH(t_gids, t_ngids, gcap, gr->gr_gid);
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
	gid_t pgid = 0;
	char *me = user_name(geteuid(), &pgid);
	struct group gr, *res = NULL;
	size_t len = 16384;
	char *buf = xmalloc(len);
	int ok = 0;
	if (me != NULL && getgrgid_r(gid, &gr, buf, len, &res) == 0 && res != NULL &&
	    strcmp(gr.gr_name, me) == 0) {
		ok = 1;
		for (char **m = gr.gr_mem; *m != NULL; m++)
			ok &= strcmp(*m, me) == 0;
	}
	free(buf);
	free(me);
	return ok;
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
		struct group *gr = getgrgid(st->st_gid);
		char g[64];
		if (gr != NULL)
			snprintf(g, sizeof g, "%s", gr->gr_name);
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
	char *name = user_name(uid, NULL);
	if (name != NULL)
		snprintf(buf, n, "uid %lu (%s)", (unsigned long)uid, name);
	else
		snprintf(buf, n, "uid %lu", (unsigned long)uid);
	free(name);
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
