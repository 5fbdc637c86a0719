/* Profile discovery: walk a path and list every capture's data file with its rank, capture time
 * and RL role: the directory layouts of torch_npu, msprof and MindSpore, where the rank is
 * written, and several captures per rank (verl <step>/<role>/, MindSpeed-RL <role>/).
 * Nothing here writes: files are opened read-only, only to read their first bytes. */
#include "config.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* directories below the root that are read: msprof-analyze's os.walk limit */
#define DISCOVER_MAX_DEPTH 10
/* bytes of a JSON file read to tell a trace from other JSON */
#define DISCOVER_PEEK (64 * 1024)
/* profiler_info / info.json bigger than this are not metadata */
#define DISCOVER_META_MAX (16 << 20)
#define APO_NAME "ASCEND_PROFILER_OUTPUT"
#define MPO_NAME "mindstudio_profiler_output" /* msprof text output inside PROF_* */

/* How the rank was found (tl_source.rank_from). */
static const char RF_FILE_NAME[] = "file name";
static const char RF_INFO_NAME[] = "profiler_info file name";
static const char RF_INFO_RANK[] = "profiler_info rank_id";
static const char RF_DEVICE_INFO[] = "info.json rank_id";
static const char RF_DISTRIBUTED[] = "distributedInfo";
static const char RF_UNKNOWN[] = "unknown";
static const char RF_DIR_NAME[] = "directory name";

/* Role directories written by verl's discrete mode (<step>/<role>/) and MindSpeed-RL (<role>/). */
static const char *const known_roles[] = {
	"actor_update",
	"rollout_generate",
	"actor_compute_log_prob",
	"ref_compute_log_prob",
	"compute_values",
	"critic_update",
	"compute_rm_score",
	"actor_generate",
	"reference_compute_log_prob",
	"critic_compute_values",
	"actor_image_embeds",
};


/* ---- small string helpers --------------------------------------------------------------- */

static int
digits_all(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
str_digits(const char *s)
{
	return digits_all(s, strlen(s));
}

/* The number in the digit span [s, s+n), or -1 when it is not one or exceeds TL_RANK_MAX. */
static int
digits_rank(const char *s, size_t n)
{
	if (!digits_all(s, n))
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		v = v * 10 + (s[i] - '0');
		if (v > TL_RANK_MAX)
			return -1;
	}
	return (int)v;
}

static int
str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int
str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* name == prefix digits suffix with at least one digit: returns the number of digits and points
 * *digits at them, else 0. */
static size_t
name_digits(const char *name, const char *prefix, const char *suffix, const char **digits)
{
	size_t n = strlen(name), lp = strlen(prefix), ls = strlen(suffix);
	if (n <= lp + ls || !str_starts(name, prefix) || !str_ends(name, suffix))
		return 0;
	if (!digits_all(name + lp, n - lp - ls))
		return 0;
	*digits = name + lp;
	return n - lp - ls;
}

/* name == prefix ["_" digits] suffix, e.g. ascend_pytorch_profiler_3.db. Returns 1 on a match
 * with *rank = the number, or -1 when there is none (or it is not a plausible rank). */
static int
name_rank_match(const char *name, const char *prefix, const char *suffix, int *rank)
{
	size_t n = strlen(name), lp = strlen(prefix), ls = strlen(suffix);
	if (n < lp + ls || !str_starts(name, prefix) || !str_ends(name, suffix))
		return 0;
	const char *mid = name + lp;
	size_t lm = n - lp - ls;
	if (lm == 0) {
		*rank = -1;
		return 1;
	}
	if (mid[0] != '_' || !digits_all(mid + 1, lm - 1))
		return 0;
	*rank = digits_rank(mid + 1, lm - 1);
	return 1;
}

/* Kineto file names: "rank-N", "rank_N" or "rankN" not preceded by a letter. */
static int
name_rank_pattern(const char *name)
{
	for (const char *p = name; *p != '\0'; p++) {
		if (strncasecmp(p, "rank", 4) != 0 || (p > name && isalpha((unsigned char)p[-1])))
			continue;
		const char *q = p + 4;
		if (*q == '-' || *q == '_')
			q++;
		size_t n = 0;
		while (isdigit((unsigned char)q[n]))
			n++;
		int r = n ? digits_rank(q, n) : -1;
		if (r >= 0)
			return r;
	}
	return -1;
}

/* Compares two digit strings as numbers (no leading-zero games: longer is bigger). */
static int
digits_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	if (na != nb)
		return na < nb ? -1 : 1;
	return memcmp(a, b, na);
}

/* ---- paths ---------------------------------------------------------------------------- */

static char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n > 0 && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

/* Last component of a path without trailing slashes. */
static const char *
path_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Everything before the last component ("." or "/" at the top). */
static char *
path_dir(const char *p)
{
	const char *s = strrchr(p, '/');
	if (s == NULL)
		return xstrdup(".");
	if (s == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(s - p));
}

/* ---- time stamps in directory names ------------------------------------------------------ */

static int
digits_num(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* "YYYYmmddHHMMSS" or "YYYYmmddHHMMSSmmm" (local time, or UTC) to epoch ns; 0 when invalid. */
static int64_t
stamp_to_ns(const char *s, size_t n, int utc)
{
	if ((n != 14 && n != 17) || !digits_all(s, n))
		return 0;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = digits_num(s, 4) - 1900;
	tm.tm_mon = digits_num(s + 4, 2) - 1;
	tm.tm_mday = digits_num(s + 6, 2);
	tm.tm_hour = digits_num(s + 8, 2);
	tm.tm_min = digits_num(s + 10, 2);
	tm.tm_sec = digits_num(s + 12, 2);
	int ms = n == 17 ? digits_num(s + 14, 3) : 0;
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return 0;
	tm.tm_isdst = -1;
	time_t t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return 0;
	return (int64_t)t * 1000000000 + (int64_t)ms * 1000000;
}

/* Capture time from a directory name, 0 when the name carries none:
 * {worker}_{pid}_{YYYYmmddHHMMSSmmm}_ascend_pt (local time), …_ascend_ms (UTC),
 * PROF_{n}_{YYYYmmddHHMMSSmmm}_{random} (local time). */
static int64_t
capture_stamp(const char *name)
{
	int utc;
	size_t end;
	if (str_ends(name, "_ascend_pt") || str_ends(name, "_ascend_ms")) {
		utc = str_ends(name, "_ascend_ms");
		end = strlen(name) - strlen("_ascend_pt");
		size_t b = end;
		while (b > 0 && name[b - 1] != '_')
			b--;
		return stamp_to_ns(name + b, end - b, utc);
	}
	if (str_starts(name, "PROF_")) {
		const char *p = strchr(name + 5, '_');
		if (p == NULL)
			return 0;
		p++;
		const char *q = strchr(p, '_');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		return stamp_to_ns(p, n, 0);
	}
	return 0;
}

/* ---- reading small files ----------------------------------------------------------------- */

/* Reads at most max bytes of a regular file into a NUL-terminated buffer (owned by the caller).
 * Returns NULL with errno set on failure. */
static char *
file_read(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	size_t want = (uintmax_t)st.st_size < max ? (size_t)st.st_size : max;
	char *buf = xmalloc(want + 1);
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* A rank in JSON: a number, or a string of digits ("rank_id" is either). -1 otherwise. */
static int
json_rank(const cJSON *it)
{
	if (cJSON_IsNumber(it)) {
		double d = it->valuedouble;
		if (d >= 0 && d <= TL_RANK_MAX && d == (double)(int)d)
			return (int)d;
		return -1;
	}
	if (cJSON_IsString(it) && it->valuestring != NULL)
		return digits_rank(it->valuestring, strlen(it->valuestring));
	return -1;
}

/* The top-level `key` of a small JSON file as a rank, or -1 (with a warning when the file cannot
 * be read or parsed; a missing or -1 key is normal). */
static int
json_file_rank(const char *path, const char *key)
{
	size_t len;
	char *buf = file_read(path, DISCOVER_META_MAX, &len);
	if (buf == NULL) {
		msg_warn(path, "cannot read: %s", strerror(errno));
		return -1;
	}
	cJSON *doc = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (doc == NULL) {
		msg_warn(path, "not valid JSON; its %s is ignored", key);
		return -1;
	}
	int r = json_rank(cJSON_GetObjectItemCaseSensitive(doc, key));
	cJSON_Delete(doc);
	return r;
}

/* ---- peeking at the start of a JSON file -------------------------------------------------- */

static const char *
json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at '"': returns the byte after the closing quote, NULL when the buffer ends first. */
static const char *
json_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Returns the byte after the value at p, NULL when the buffer ends inside it. */
static const char *
json_skip_value(const char *p, const char *end)
{
	if (p >= end)
		return NULL;
	if (*p == '"')
		return json_skip_string(p, end);
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				p = json_skip_string(p, end);
				if (p == NULL)
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
	    *p != '\n' && *p != '\r')
		p++;
	return p < end ? p : NULL;
}

typedef struct json_peek {
	int trace;  /* an object with "traceEvents", or an array whose first object has "ph" */
	int rank;   /* distributedInfo.rank, or -1 */
	int ascend; /* an Ascend trace_view.json (msprof / torch_npu text export), whatever its
		     * name: "ts" as a string of µs, or Ascend process names */
} json_peek;

static int
json_key_is(const char *k, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(k, want, n) == 0;
}

/* Walks the members of the object at p ('{'), calling back for each key; stops when the buffer
 * ends. Returns 1 when `stop_key` was found. */
static int
json_members(const char *p, const char *end, json_peek *pk, const char *stop_key)
{
	p++;
	for (;;) {
		p = json_ws(p, end);
		if (p >= end || *p != '"')
			return 0;
		const char *k = p + 1, *q = json_skip_string(p, end);
		if (q == NULL)
			return 0;
		size_t kn = (size_t)(q - 1 - k);
		if (stop_key != NULL && json_key_is(k, kn, stop_key))
			return 1;
		p = json_ws(q, end);
		if (p >= end || *p != ':')
			return 0;
		p = json_ws(p + 1, end);
		if (p >= end)
			return 0;
		const char *v = p;
		if (pk != NULL && json_key_is(k, kn, "traceEvents") && *v == '[')
			pk->trace = 1;
		q = json_skip_value(v, end);
		if (q == NULL)
			return 0;
		if (pk != NULL && json_key_is(k, kn, "distributedInfo") && *v == '{') {
			cJSON *di = cJSON_ParseWithLength(v, (size_t)(q - v));
			if (di != NULL)
				pk->rank = json_rank(cJSON_GetObjectItemCaseSensitive(di, "rank"));
			cJSON_Delete(di);
		}
		p = json_ws(q, end);
		if (p >= end || *p != ',')
			return 0;
		p++;
	}
}

/* Looks at the first DISCOVER_PEEK bytes of path. Returns -1 (warned) when it cannot be read. */
static int
json_peek_file(const char *path, json_peek *pk)
{
	pk->trace = 0;
	pk->rank = -1;
	pk->ascend = 0;
	size_t n;
	char *buf = file_read(path, DISCOVER_PEEK, &n);
	if (buf == NULL) {
		msg_warn(path, "cannot read: %s", strerror(errno));
		return -1;
	}
	const char *p = buf, *end = buf + n;
	if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	p = json_ws(p, end);
	if (p < end && *p == '[') {
		p = json_ws(p + 1, end);
		if (p < end && *p == '{')
			pk->trace = json_members(p, end, NULL, "ph");
		/* Kineto and the legacy exporter write "ts" as a number; Ascend files as a string
		 * (torch_npu keeps the nanoseconds that way), and name their processes after the
		 * msprof layers */
		pk->ascend = pk->trace && (memmem(p, (size_t)(end - p), "\"ts\": \"", 7) != NULL ||
					      memmem(p, (size_t)(end - p), "\"ts\":\"", 6) != NULL ||
					      memmem(p, (size_t)(end - p), "\"Ascend Hardware\"", 17) != NULL ||
					      memmem(p, (size_t)(end - p), "\"Overlap Analysis\"", 18) != NULL);
	} else if (p < end && *p == '{') {
		json_members(p, end, pk, NULL);
	}
	free(buf);
	return 0;
}

/* ---- file name classes --------------------------------------------------------------------- */

typedef enum name_kind {
	NK_NONE,
	NK_TORCH_DB,     /* ascend_pytorch_profiler[_{r}].db */
	NK_MS_DB,        /* ascend_mindspore_profiler[_{r}].db */
	NK_MSPROF_DB,    /* msprof_{digits}.db */
	NK_MSMONITOR_DB, /* msmonitor_{pid}_{ts}_{rank|-1}.db */
	NK_TRACE_VIEW,   /* trace_view.json */
	NK_MSPROF_JSON,  /* msprof_[slice_{k}_]{ts}.json: trace_view's format */
	NK_JSON,         /* any other JSON that may be a Chrome/Kineto trace */
} name_kind;

/* msprof_{ts}.json or msprof_slice_{k}_{ts}.json: returns the length of the ts digits. */
static size_t
msprof_json_ts(const char *name, const char **ts)
{
	size_t n = name_digits(name, "msprof_", ".json", ts);
	if (n)
		return n;
	const char *k;
	if (!str_starts(name, "msprof_slice_") || !str_ends(name, ".json"))
		return 0;
	k = name + strlen("msprof_slice_");
	size_t nk = 0;
	while (isdigit((unsigned char)k[nk]))
		nk++;
	if (nk == 0 || k[nk] != '_')
		return 0;
	return name_digits(k + nk, "_", ".json", ts);
}

/* msmonitor_{pid}_{ts}_{rank|-1}.db: 1 on a match, with the rank and the time stamp. */
static int
msmonitor_match(const char *name, int *rank, int64_t *stamp)
{
	if (!str_starts(name, "msmonitor_") || !str_ends(name, ".db"))
		return 0;
	const char *p = name + strlen("msmonitor_"), *end = name + strlen(name) - 3;
	const char *u1 = memchr(p, '_', (size_t)(end - p));
	if (u1 == NULL || !digits_all(p, (size_t)(u1 - p)))
		return 0;
	const char *ts = u1 + 1, *u2 = memchr(ts, '_', (size_t)(end - ts));
	if (u2 == NULL || !digits_all(ts, (size_t)(u2 - ts)))
		return 0;
	const char *r = u2 + 1;
	if (end - r == 2 && memcmp(r, "-1", 2) == 0)
		*rank = -1;
	else if (digits_all(r, (size_t)(end - r)))
		*rank = digits_rank(r, (size_t)(end - r));
	else
		return 0;
	*stamp = stamp_to_ns(ts, (size_t)(u2 - ts), 0);
	return 1;
}

static name_kind
name_classify(const char *name, int *rank)
{
	const char *d;
	int64_t stamp;
	*rank = -1;
	if (name_rank_match(name, "ascend_pytorch_profiler", ".db", rank))
		return NK_TORCH_DB;
	if (name_rank_match(name, "ascend_mindspore_profiler", ".db", rank))
		return NK_MS_DB;
	if (name_digits(name, "msprof_", ".db", &d))
		return NK_MSPROF_DB;
	if (msmonitor_match(name, rank, &stamp))
		return NK_MSMONITOR_DB;
	if (strcmp(name, "trace_view.json") == 0)
		return NK_TRACE_VIEW;
	if (msprof_json_ts(name, &d))
		return NK_MSPROF_JSON;
	if (!str_ends(name, ".json") || name[0] == '.')
		return NK_NONE;
	/* metadata written next to the traces, never a timeline */
	if (str_starts(name, "profiler_info") || str_starts(name, "profiler_metadata") ||
	    str_starts(name, "communication"))
		return NK_NONE;
	return NK_JSON;
}

/* ---- directory listing and identity sets --------------------------------------------------- */

typedef struct dirent_name {
	char *name;
	unsigned char type; /* DT_* from readdir, DT_UNKNOWN when not given */
} dirent_name;

typedef struct dirlist {
	dirent_name *v;
	size_t n, cap;
} dirlist;

static int
dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const dirent_name *)a)->name, ((const dirent_name *)b)->name);
}

static void
dirlist_free(dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		free(dl->v[i].name);
	free(dl->v);
	dl->v = NULL;
	dl->n = dl->cap = 0;
}

/* The names in dir (without . and ..), sorted so that the walk is the same on every run.
 * Returns -1 with errno set. */
static int
dirlist_read(const char *dir, dirlist *dl)
{
	memset(dl, 0, sizeof *dl);
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		dirent_name e = {xstrdup(de->d_name), de->d_type};
		VEC_PUSH(dl->v, dl->n, dl->cap, e);
		errno = 0;
	}
	int e = errno;
	closedir(d);
	if (e != 0) {
		dirlist_free(dl);
		errno = e;
		return -1;
	}
	if (dl->n > 1)
		qsort(dl->v, dl->n, sizeof *dl->v, dirent_cmp);
	return 0;
}

enum { ENT_OTHER, ENT_DIR, ENT_FILE, ENT_BROKEN };

/* What an entry is, following symlinks. */
static int
entry_type(const char *path, unsigned char d_type)
{
	if (d_type == DT_DIR)
		return ENT_DIR;
	if (d_type == DT_REG)
		return ENT_FILE;
	struct stat st;
	if (stat(path, &st) != 0)
		return ENT_BROKEN;
	return S_ISDIR(st.st_mode) ? ENT_DIR : S_ISREG(st.st_mode) ? ENT_FILE : ENT_OTHER;
}

typedef struct fid_slot {
	dev_t dev;
	ino_t ino;
	int used;
} fid_slot;

/* A set of (device, inode) pairs: open addressing, power-of-two size. */
typedef struct fidset {
	fid_slot *v;
	size_t n, cap;
} fidset;

static size_t
fid_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)ino;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

/* Adds (dev, ino); returns 1 when it was not there yet. */
static int
fidset_add(fidset *s, dev_t dev, ino_t ino)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		fid_slot *nv = xcalloc(nc, sizeof *nv);
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i].used)
				continue;
			size_t j = fid_hash(s->v[i].dev, s->v[i].ino) & (nc - 1);
			while (nv[j].used)
				j = (j + 1) & (nc - 1);
			nv[j] = s->v[i];
		}
		free(s->v);
		s->v = nv;
		s->cap = nc;
	}
	size_t j = fid_hash(dev, ino) & (s->cap - 1);
	while (s->v[j].used) {
		if (s->v[j].dev == dev && s->v[j].ino == ino)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->v[j].dev = dev;
	s->v[j].ino = ino;
	s->v[j].used = 1;
	s->n++;
	return 1;
}

/* ---- the walk ------------------------------------------------------------------------------ */

/* Where a source's capture sits, for the role decision after the walk. */
typedef struct role_hint {
	char *name;   /* the directory directly above the capture (not the root, not a number) */
	char *dir;    /* its path */
	char *parent; /* the path of the directory above that */
	int step;     /* that directory's number when it is all digits (verl <step>), else -1 */
} role_hint;

typedef struct walk {
	tl_sourcelist found; /* everything recognised, before the rank filter */
	role_hint *hints;    /* parallel to found.v */
	size_t nhints, caphints;
	fidset dirs;  /* directories entered: symlink loops and second links end here */
	fidset files; /* data files listed: one file reached through two links is listed once */
	/* names[d], paths[d]: the directory being walked at depth d (borrowed from the walk) */
	const char *names[DISCOVER_MAX_DEPTH + 1];
	const char *paths[DISCOVER_MAX_DEPTH + 1];
	int too_deep;
} walk;

/* Lists one data file. cap_depth is the depth of the capture (the …_ascend_pt or PROF_
 * directory, or a loose file itself) below the root, -1 when it is not below the root.
 * Returns 1 when listed, 0 when it was listed already (reached twice through links), -1 when it
 * cannot be opened (warned). */
static int
walk_add(walk *w, tl_source_kind kind, const char *path, const char *dir, int rank,
    const char *from, int64_t capture_ns, int cap_depth)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		msg_warn(path, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		msg_warn(path, "not a regular file; skipped");
		close(fd);
		return -1;
	}
	close(fd);
	if (!fidset_add(&w->files, st.st_dev, st.st_ino))
		return 0;
	tl_source s;
	memset(&s, 0, sizeof s);
	s.capture_from = capture_ns != 0 ? TL_CAPTURE_NAME : TL_CAPTURE_FILE_TIME;
	if (capture_ns == 0)
		capture_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

	s.rank = rank >= 0 ? rank : -1;
	s.kind = kind;
	s.path = xstrdup(path);
	s.dir = xstrdup(dir);
	s.capture_ns = capture_ns;
	s.role = NULL;
	s.role_step = -1;
	s.rank_from = rank >= 0 ? from : RF_UNKNOWN;
	s.dev = (uint64_t)st.st_dev;
	s.ino = (uint64_t)st.st_ino;
	s.size = (int64_t)st.st_size;
	s.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

	role_hint h = {NULL, NULL, NULL, -1};
	if (cap_depth >= 2 && cap_depth - 1 <= DISCOVER_MAX_DEPTH &&
	    !str_digits(w->names[cap_depth - 1])) {
		h.name = xstrdup(w->names[cap_depth - 1]);
		h.dir = xstrdup(w->paths[cap_depth - 1]);
		h.parent = xstrdup(w->paths[cap_depth - 2]);
		const char *sn = w->names[cap_depth - 2];
		size_t sl = strlen(sn);
		if (sl > 0 && sl <= 9 && str_digits(sn))
			h.step = digits_num(sn, (int)sl);
	}
	VEC_PUSH(w->found.v, w->found.n, w->found.cap, s);
	VEC_PUSH(w->hints, w->nhints, w->caphints, h);
	return 1;
}

/* A torch_npu / MindSpore capture directory and its rank evidence, read when first needed. */
typedef struct capture {
	const char *dir;
	int depth; /* below the root, -1 when above it */
	int64_t stamp;
	int rank_known;
	int rank;
	const char *rank_from;
} capture;

static void
capture_init(capture *c, const char *dir, int depth)
{
	c->dir = dir;
	c->depth = depth;
	c->stamp = capture_stamp(path_base(dir));
	c->rank_known = 0;
	c->rank = -1;
	c->rank_from = RF_UNKNOWN;
}

/* The rank after the file name's: profiler_info_{r}.json in the capture directory, else its
 * rank_id. */
static int
capture_rank(capture *c, const char **from)
{
	if (!c->rank_known) {
		c->rank_known = 1;
		dirlist dl;
		if (dirlist_read(c->dir, &dl) != 0) {
			msg_warn(c->dir, "cannot read directory: %s", strerror(errno));
			*from = c->rank_from;
			return c->rank;
		}
		for (size_t i = 0; i < dl.n && c->rank < 0; i++) {
			int r;
			if (name_rank_match(dl.v[i].name, "profiler_info", ".json", &r) && r >= 0) {
				c->rank = r;
				c->rank_from = RF_INFO_NAME;
			}
		}
		for (size_t i = 0; i < dl.n && c->rank < 0; i++) {
			const char *n = dl.v[i].name;
			if (!str_starts(n, "profiler_info") || !str_ends(n, ".json"))
				continue;
			char *p = path_join(c->dir, n);
			int r = json_file_rank(p, "rank_id");
			free(p);
			if (r >= 0) {
				c->rank = r;
				c->rank_from = RF_INFO_RANK;
			}
		}
		dirlist_free(&dl);
	}
	*from = c->rank_from;
	return c->rank;
}

static int is_capture_name(const char *name);

/* The rank of a trace_view.json, which holds none itself (a DB has RANK_DEVICE_MAP, which the
 * loader reads): profiler_info in its capture directory, else the capture directory's name
 * (rank3_ascend_pt, job_rank_3_x), else the same of the *_ascend_pt directory it sits in (a
 * few levels up: a copy moved into a folder of its own), else -1 (tl info then says where it
 * looked). */
static int
trace_view_rank(capture *c, const char **from)
{
	int r = capture_rank(c, from);
	if (r < 0 && (r = name_rank_pattern(path_base(c->dir))) >= 0)
		*from = RF_DIR_NAME;
	char *d = path_dir(c->dir);
	for (int up = 0; r < 0 && up < 3 && strcmp(d, path_base(d)) != 0; up++) {
		if (is_capture_name(path_base(d))) {
			capture pc;
			capture_init(&pc, d, -1);
			r = capture_rank(&pc, from);
			if (r < 0 && (r = name_rank_pattern(path_base(d))) >= 0)
				*from = RF_DIR_NAME;
			break;
		}
		char *next = path_dir(d);
		free(d);
		d = next;
	}
	free(d);
	return r;
}

/* msprof captures: rank_id of PROF/device_{id}/info.json.{id}. -1 when absent, or when the
 * devices disagree (then the loader decides, and the user is told). */
static int
prof_device_rank(const char *prof, const dirlist *dl)
{
	int rank = -1, other = -1;
	for (size_t i = 0; i < dl->n; i++) {
		const char *d;
		if (!name_digits(dl->v[i].name, "device_", "", &d))
			continue;
		char *dpath = path_join(prof, dl->v[i].name);
		dirlist in;
		if (entry_type(dpath, dl->v[i].type) != ENT_DIR) {
			free(dpath);
			continue;
		}
		if (dirlist_read(dpath, &in) != 0) {
			msg_warn(dpath, "cannot read directory: %s", strerror(errno));
			free(dpath);
			continue;
		}
		for (size_t j = 0; j < in.n; j++) {
			if (!name_digits(in.v[j].name, "info.json.", "", &d))
				continue;
			char *f = path_join(dpath, in.v[j].name);
			int r = json_file_rank(f, "rank_id");
			free(f);
			if (r < 0)
				continue;
			if (rank < 0)
				rank = r;
			else if (r != rank)
				other = r;
		}
		dirlist_free(&in);
		free(dpath);
	}
	if (other >= 0) {
		msg_warn(prof, "devices of ranks %d and %d in one PROF directory; rank undecided",
		    rank, other);
		return -1;
	}
	return rank;
}

/* The newest msprof_{ts}.db in dl (msprof: "newest name wins"), or NULL. */
static const char *
prof_newest_db(const dirlist *dl)
{
	const char *best = NULL, *bd = NULL;
	size_t bn = 0;
	for (size_t i = 0; i < dl->n; i++) {
		const char *d;
		size_t n = name_digits(dl->v[i].name, "msprof_", ".db", &d);
		if (n && (best == NULL || digits_cmp(d, n, bd, bn) > 0)) {
			best = dl->v[i].name;
			bd = d;
			bn = n;
		}
	}
	return best;
}

/* The timeline of a PROF_ directory: its newest msprof DB, else the newest msprof JSON export
 * (all slices of it). c is the torch_npu capture it sits in, or NULL for a standalone msprof run.
 * Returns the number of data files recognised. */
static int
prof_scan(walk *w, const char *prof, int depth, capture *c)
{
	dirlist dl, mpo;
	if (dirlist_read(prof, &dl) != 0) {
		msg_warn(prof, "cannot read directory: %s", strerror(errno));
		return 0;
	}
	memset(&mpo, 0, sizeof mpo);
	char *mpo_path = path_join(prof, MPO_NAME);
	const char *db = prof_newest_db(&dl);
	int have_mpo = 0;
	if (db == NULL) {
		have_mpo = dirlist_read(mpo_path, &mpo) == 0;
		if (!have_mpo && errno != ENOENT && errno != ENOTDIR)
			msg_warn(mpo_path, "cannot read directory: %s", strerror(errno));
	}

	/* torch_npu looks in the PROF root, then in mindstudio_profiler_output */
	char **files = NULL;
	size_t nfiles = 0, capfiles = 0;
	tl_source_kind kind = TL_SRC_MSPROF_DB;
	if (db != NULL) {
		VEC_PUSH(files, nfiles, capfiles, path_join(prof, db));
	} else if (have_mpo && (db = prof_newest_db(&mpo)) != NULL) {
		VEC_PUSH(files, nfiles, capfiles, path_join(mpo_path, db));
	} else if (have_mpo) {
		const char *best = NULL;
		size_t bn = 0;
		for (size_t i = 0; i < mpo.n; i++) {
			const char *ts;
			size_t n = msprof_json_ts(mpo.v[i].name, &ts);
			if (n && (best == NULL || digits_cmp(ts, n, best, bn) > 0)) {
				best = ts;
				bn = n;
			}
		}
		for (size_t i = 0; best != NULL && i < mpo.n; i++) {
			const char *ts, *n = mpo.v[i].name;
			size_t tn = msprof_json_ts(n, &ts);
			if (tn && digits_cmp(ts, tn, best, bn) == 0)
				VEC_PUSH(files, nfiles, capfiles, path_join(mpo_path, n));
		}
		kind = TL_SRC_TRACE_VIEW;
	}

	if (nfiles > 0) {
		const char *from = RF_UNKNOWN;
		int rank = c ? capture_rank(c, &from) : -1;
		if (rank < 0) {
			rank = prof_device_rank(prof, &dl);
			from = RF_DEVICE_INFO;
		}
		int64_t stamp = capture_stamp(path_base(prof));
		if (stamp == 0 && c != NULL)
			stamp = c->stamp;
		for (size_t i = 0; i < nfiles; i++)
			walk_add(w, kind, files[i], c ? c->dir : prof, rank, from, stamp,
			    c ? c->depth : depth);
	} else if (c == NULL) {
		msg_warn(prof, "no msprof_*.db or msprof_*.json in this PROF directory; "
			       "export it first (msprof --export=on --output=DIR)");
	}
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(mpo_path);
	dirlist_free(&mpo);
	dirlist_free(&dl);
	return (int)nfiles;
}

/* Preference among the files of one ASCEND_PROFILER_OUTPUT: one capture = one source, and the DB
 * holds everything trace_view.json has. -1: not a timeline. */
static int
output_pref(const char *name, tl_source_kind *kind, int *rank)
{
	switch (name_classify(name, rank)) {
	case NK_TORCH_DB:
		*kind = TL_SRC_TORCH_DB;
		return *rank >= 0 ? 0 : 1;
	case NK_MS_DB:
		*kind = TL_SRC_MINDSPORE_DB;
		return *rank >= 0 ? 2 : 3;
	case NK_TRACE_VIEW:
		*kind = TL_SRC_TRACE_VIEW;
		return 4;
	default:
		return -1;
	}
}

/* Lists the timeline of one ASCEND_PROFILER_OUTPUT: the best file that opens. Returns 1 when
 * it holds one (listed, or unreadable and warned), 0 when it holds none. */
static int
output_scan(walk *w, capture *c, const char *apo, const dirlist *dl)
{
	int ndb = 0, db_rank = -1, recognised = 0;
	for (size_t i = 0; i < dl->n; i++) {
		tl_source_kind kind;
		int rank, pref = output_pref(dl->v[i].name, &kind, &rank);
		if (pref >= 0 && kind != TL_SRC_TRACE_VIEW) {
			ndb++;
			/* the DB's number also names the rank of a trace_view.json fallback */
			if (db_rank < 0)
				db_rank = rank;
		}
	}
	for (int pref = 0; pref <= 4; pref++) {
		for (size_t i = 0; i < dl->n; i++) {
			tl_source_kind kind;
			int rank;
			if (output_pref(dl->v[i].name, &kind, &rank) != pref)
				continue;
			const char *from = RF_FILE_NAME;
			if (rank < 0)
				rank = capture_rank(c, &from);
			if (rank < 0 && db_rank >= 0) {
				rank = db_rank;
				from = RF_FILE_NAME;
			}
			if (rank < 0 && kind == TL_SRC_TRACE_VIEW)
				rank = trace_view_rank(c, &from);
			char *p = path_join(apo, dl->v[i].name);
			int r = walk_add(w, kind, p, c->dir, rank, from, c->stamp, c->depth);
			free(p);
			recognised = 1;
			if (r < 0)
				continue; /* cannot open (warned): try the next best */
			if (r > 0 && ndb > 1 && kind != TL_SRC_TRACE_VIEW)
				msg_warn(apo, "%d profiler DBs in one capture; using %s", ndb,
				    dl->v[i].name);
			return 1;
		}
	}
	return recognised;
}

/* A torch_npu / MindSpore capture (…_ascend_pt, …_ascend_ms, or any directory holding
 * ASCEND_PROFILER_OUTPUT). apo: its output directory, NULL for cap/ASCEND_PROFILER_OUTPUT. */
static void
capture_scan(walk *w, const char *cap, const char *apo, int depth)
{
	capture c;
	capture_init(&c, cap, depth);
	char *apo_own = apo ? NULL : path_join(cap, APO_NAME);
	if (apo == NULL)
		apo = apo_own;

	int found = 0;
	dirlist dl;
	if (dirlist_read(apo, &dl) == 0) {
		found = output_scan(w, &c, apo, &dl);
		dirlist_free(&dl);
	} else if (errno != ENOENT && errno != ENOTDIR) {
		msg_warn(apo, "cannot read directory: %s", strerror(errno));
		found = 1;
	}
	free(apo_own);
	if (found)
		return;

	/* not parsed into ASCEND_PROFILER_OUTPUT: the raw CANN PROF_ directories may hold a DB */
	if (dirlist_read(cap, &dl) != 0) {
		msg_warn(cap, "cannot read directory: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < dl.n; i++) {
		if (!str_starts(dl.v[i].name, "PROF_"))
			continue;
		char *p = path_join(cap, dl.v[i].name);
		if (entry_type(p, dl.v[i].type) == ENT_DIR)
			found += prof_scan(w, p, depth + 1, &c);
		free(p);
	}
	dirlist_free(&dl);
	if (found == 0)
		msg_warn(cap, "profiler capture without a timeline (no profiler DB or "
			      "trace_view.json in " APO_NAME "); was it parsed?");
}

/* A data file met in an ordinary directory: it is its own capture, so a role is the name of
 * the directory it sits in. */
static void
file_scan(walk *w, const char *dir, const char *name, const char *path, int depth)
{
	int rank;
	name_kind nk = name_classify(name, &rank);
	int cap_depth = depth + 1;
	const char *from = RF_FILE_NAME;
	capture c;
	json_peek pk;

	switch (nk) {
	case NK_NONE:
		return;
	case NK_TORCH_DB:
	case NK_MS_DB:
	case NK_TRACE_VIEW:
		/* collected loose, perhaps with its profiler_info next to it */
		capture_init(&c, dir, depth);
		if (rank < 0)
			rank = nk == NK_TRACE_VIEW ? trace_view_rank(&c, &from)
						   : capture_rank(&c, &from);
		walk_add(w,
		    nk == NK_TORCH_DB ? TL_SRC_TORCH_DB
		    : nk == NK_MS_DB  ? TL_SRC_MINDSPORE_DB
				      : TL_SRC_TRACE_VIEW,
		    path, dir, rank, from, 0, cap_depth);
		return;
	case NK_MSPROF_DB:
		walk_add(w, TL_SRC_MSPROF_DB, path, dir, -1, RF_UNKNOWN, 0, cap_depth);
		return;
	case NK_MSMONITOR_DB: {
		int64_t stamp = 0;
		msmonitor_match(name, &rank, &stamp);
		walk_add(w, TL_SRC_MSPROF_DB, path, dir, rank, from, stamp, cap_depth);
		return;
	}
	case NK_MSPROF_JSON:
		if (json_peek_file(path, &pk) == 0 && pk.trace)
			walk_add(w, TL_SRC_TRACE_VIEW, path, dir, -1, RF_UNKNOWN, 0, cap_depth);
		return;
	case NK_JSON:
		if (json_peek_file(path, &pk) != 0 || !pk.trace)
			return;
		if (pk.ascend) { /* a trace_view.json by another name */
			capture_init(&c, dir, depth);
			rank = name_rank_pattern(name);
			if (rank < 0)
				rank = trace_view_rank(&c, &from);
			walk_add(w, TL_SRC_TRACE_VIEW, path, dir, rank, from, 0, cap_depth);
			return;
		}
		if (pk.rank >= 0) {
			rank = pk.rank;
			from = RF_DISTRIBUTED;
		} else {
			rank = name_rank_pattern(name);
		}
		walk_add(w, TL_SRC_KINETO, path, dir, rank, from, 0, cap_depth);
		return;
	}
}

static int
is_capture_name(const char *name)
{
	return str_ends(name, "_ascend_pt") || str_ends(name, "_ascend_ms");
}

static void
walk_dir(walk *w, const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		msg_warn(path, "cannot open: %s", strerror(errno));
		return;
	}
	if (!fidset_add(&w->dirs, st.st_dev, st.st_ino))
		return; /* been here: a symlink loop, or a second link to the same directory */

	const char *name = w->names[depth];
	if (str_starts(name, "PROF_")) {
		prof_scan(w, path, depth, NULL);
		return;
	}
	if (is_capture_name(name)) {
		capture_scan(w, path, NULL, depth);
		return;
	}
	dirlist dl;
	if (dirlist_read(path, &dl) != 0) {
		msg_warn(path, "cannot read directory: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < dl.n; i++) {
		if (strcmp(dl.v[i].name, APO_NAME) == 0) {
			char *p = path_join(path, APO_NAME);
			int isdir = entry_type(p, dl.v[i].type) == ENT_DIR;
			free(p);
			if (isdir) {
				capture_scan(w, path, NULL, depth);
				dirlist_free(&dl);
				return;
			}
		}
	}
	for (size_t i = 0; i < dl.n; i++) {
		const char *n = dl.v[i].name;
		char *child = path_join(path, n);
		switch (entry_type(child, dl.v[i].type)) {
		case ENT_DIR:
			/* hidden directories (.git, .cache, …) never hold a profile */
			if (n[0] == '.')
				break;
			if (depth + 1 > DISCOVER_MAX_DEPTH) {
				w->too_deep = 1;
				break;
			}
			w->names[depth + 1] = n;
			w->paths[depth + 1] = child;
			walk_dir(w, child, depth + 1);
			w->names[depth + 1] = w->paths[depth + 1] = NULL;
			break;
		case ENT_FILE:
			file_scan(w, path, n, child, depth);
			break;
		case ENT_BROKEN: {
			int r;
			if (name_classify(n, &r) != NK_NONE)
				msg_warn(child, "cannot open: %s", strerror(errno));
			break;
		}
		default:
			break;
		}
		free(child);
	}
	dirlist_free(&dl);
}

/* path names one file. Returns -1 (message printed) when it is not a profile we can read. */
static int
discover_file(walk *w, const char *path)
{
	char buf[1024];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		msg_error("%s: cannot open: %s", text_sanitize(path, buf, sizeof buf, 1),
		    strerror(errno));
		return -1;
	}
	close(fd);
	char *real = realpath(path, NULL);
	if (real == NULL) {
		msg_error("%s: %s", text_sanitize(path, buf, sizeof buf, 1), strerror(errno));
		return -1;
	}
	const char *name = path_base(path);
	char *fdir = path_dir(real);
	char *up = path_dir(fdir);
	int rank, ok = 1;
	const char *from = RF_FILE_NAME;
	capture c;
	json_peek pk;
	name_kind nk = name_classify(name, &rank);
	if (nk == NK_NONE || nk == NK_JSON) {
		/* a symlink with a name of its own: the target's name may say more */
		name_kind rk = name_classify(path_base(real), &rank);
		if (rk != NK_NONE)
			nk = rk;
		if (rk != NK_NONE && rk != NK_JSON)
			name = path_base(real);
	}

	switch (nk) {
	case NK_TORCH_DB:
	case NK_MS_DB:
	case NK_TRACE_VIEW: {
		/* …_ascend_pt/ASCEND_PROFILER_OUTPUT/file: the capture is two levels up */
		const char *cap = strcmp(path_base(fdir), APO_NAME) == 0 ? up : fdir;
		capture_init(&c, cap, -1);
		if (rank < 0)
			rank = nk == NK_TRACE_VIEW ? trace_view_rank(&c, &from)
						   : capture_rank(&c, &from);
		walk_add(w,
		    nk == NK_TORCH_DB ? TL_SRC_TORCH_DB
		    : nk == NK_MS_DB  ? TL_SRC_MINDSPORE_DB
				      : TL_SRC_TRACE_VIEW,
		    path, cap, rank, from, c.stamp, -1);
		break;
	}
	case NK_MSPROF_DB:
	case NK_MSPROF_JSON: {
		/* PROF_x/msprof_*.db or PROF_x/mindstudio_profiler_output/msprof_* */
		const char *prof = NULL;
		if (str_starts(path_base(fdir), "PROF_"))
			prof = fdir;
		else if (!strcmp(path_base(fdir), MPO_NAME) && str_starts(path_base(up), "PROF_"))
			prof = up;
		if (nk == NK_MSPROF_JSON && (json_peek_file(path, &pk) != 0 || !pk.trace)) {
			ok = 0;
			break;
		}
		rank = -1;
		from = RF_UNKNOWN;
		int64_t stamp = 0;
		if (prof != NULL) {
			char *pdir = path_dir(prof);
			capture_init(&c, pdir, -1);
			if (is_capture_name(path_base(pdir)))
				rank = capture_rank(&c, &from);
			dirlist dl;
			if (rank < 0 && dirlist_read(prof, &dl) == 0) {
				rank = prof_device_rank(prof, &dl);
				from = RF_DEVICE_INFO;
				dirlist_free(&dl);
			}
			stamp = capture_stamp(path_base(prof));
			free(pdir);
		}
		walk_add(w, nk == NK_MSPROF_DB ? TL_SRC_MSPROF_DB : TL_SRC_TRACE_VIEW, path,
		    prof ? prof : fdir, rank, from, stamp, -1);
		break;
	}
	case NK_MSMONITOR_DB: {
		int64_t stamp = 0;
		msmonitor_match(name, &rank, &stamp);
		walk_add(w, TL_SRC_MSPROF_DB, path, fdir, rank, from, stamp, -1);
		break;
	}
	case NK_JSON:
		if (json_peek_file(path, &pk) != 0 || !pk.trace) {
			ok = 0;
			break;
		}
		if (pk.ascend) { /* a trace_view.json by another name */
			const char *cap = strcmp(path_base(fdir), APO_NAME) == 0 ? up : fdir;
			capture_init(&c, cap, -1);
			rank = name_rank_pattern(name);
			if (rank < 0)
				rank = trace_view_rank(&c, &from);
			walk_add(w, TL_SRC_TRACE_VIEW, path, cap, rank, from, c.stamp, -1);
			break;
		}
		if (pk.rank >= 0) {
			rank = pk.rank;
			from = RF_DISTRIBUTED;
		} else {
			rank = name_rank_pattern(name);
			if (rank < 0)
				rank = name_rank_pattern(path_base(real));
		}
		walk_add(w, TL_SRC_KINETO, path, fdir, rank, from, 0, -1);
		break;
	case NK_NONE:
		if (str_ends(name, ".db") && strcmp(name, "analysis.db") != 0 &&
		    strcmp(name, "communication_analyzer.db") != 0 &&
		    strcmp(name, "cluster_analysis.db") != 0) {
			/* a renamed unified DB: the loader reads its RANK_DEVICE_MAP */
			walk_add(w, TL_SRC_MSPROF_DB, path, fdir, -1, RF_UNKNOWN, 0, -1);
		} else {
			ok = 0;
		}
		break;
	}
	if (!ok)
		msg_error("%s: neither a profiler DB (ascend_pytorch_profiler_*.db, msprof_*.db) "
			  "nor a Chrome/Kineto trace JSON",
		    text_sanitize(path, buf, sizeof buf, 1));
	free(up);
	free(fdir);
	free(real);
	return ok ? 0 : -1;
}

/* ---- after the walk: roles, filter, order -------------------------------------------------- */

static int
role_known(const char *name)
{
	for (size_t i = 0; i < sizeof known_roles / sizeof *known_roles; i++)
		if (strcmp(name, known_roles[i]) == 0)
			return 1;
	return 0;
}

typedef struct hint_ref {
	const role_hint *h;
	tl_source *s;
} hint_ref;

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

/* ---- capture time from profiler_info ------------------------------------------------------ */

/* Epoch ns that a profile could have been written at (1990 .. 2100): anything else is not a
 * wall-clock time. */
#define CAPTURE_NS_MIN INT64_C(631152000000000000)
#define CAPTURE_NS_MAX INT64_C(4102444800000000000)

/* end_info.collectionTimeEnd of a profiler_info JSON text (ns since the epoch, wall clock,
 * written when the profiler stopped), or 0. The digits are read from the text itself: the
 * value needs 61 bits, more than a double (cJSON's number) keeps. */
static int64_t
info_collection_end(const char *buf, size_t len)
{
	cJSON *doc = cJSON_ParseWithLength(buf, len);
	if (doc == NULL)
		return 0;
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "end_info");
	const cJSON *v = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "collectionTimeEnd")
	                                   : NULL;
	int64_t ns = 0;
	if (cJSON_IsString(v) && v->valuestring && str_digits(v->valuestring) &&
	    strlen(v->valuestring) <= 19) {
		ns = strtoll(v->valuestring, NULL, 10);
	} else if (cJSON_IsNumber(v) && v->valuedouble > 0) {
		ns = (int64_t)v->valuedouble;
		/* the exact digits: the key's only number in the end_info object */
		const char *k = strstr(buf, "\"collectionTimeEnd\"");
		if (k != NULL) {
			const char *p = k + strlen("\"collectionTimeEnd\"");
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')
				p++;
			char *q;
			errno = 0;
			long long x = strtoll(p, &q, 10);
			if (q > p && errno == 0 && (*q == ',' || *q == '}' || isspace((unsigned char)*q)))
				ns = x;
		}
	}
	cJSON_Delete(doc);
	return ns >= CAPTURE_NS_MIN && ns <= CAPTURE_NS_MAX ? ns : 0;
}

/* The capture time that dir's profiler_info*.json gives (the first by name that has one), 0
 * when none does. Unreadable files were named when the rank was looked for. */
static int64_t
dir_collection_end(const char *dir)
{
	dirlist dl;
	if (dirlist_read(dir, &dl) != 0)
		return 0;
	int64_t ns = 0;
	for (size_t i = 0; i < dl.n && ns == 0; i++) {
		const char *n = dl.v[i].name;
		if (!str_starts(n, "profiler_info") || !str_ends(n, ".json"))
			continue;
		char *p = path_join(dir, n);
		size_t len;
		char *buf = file_read(p, DISCOVER_META_MAX, &len);
		free(p);
		if (buf != NULL)
			ns = info_collection_end(buf, len);
		free(buf);
	}
	dirlist_free(&dl);
	return ns;
}

/* Capture times from the profiler's own record where there is one (each capture directory
 * read once: its sources are next to each other in the walk's list). */
static void
capture_times_from_info(tl_sourcelist *l)
{
	const char *last_dir = NULL;
	int64_t last = 0;
	for (size_t i = 0; i < l->n; i++) {
		tl_source *s = &l->v[i];
		if (last_dir == NULL || strcmp(last_dir, s->dir) != 0) {
			last_dir = s->dir;
			last = dir_collection_end(s->dir);
		}
		if (last != 0) {
			s->capture_ns = last;
			s->capture_from = TL_CAPTURE_PROFILER_INFO;
		}
	}
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
		snprintf(unk, sizeof unk,
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
		const char *rname = path_base(real ? real : root);
		if (strcmp(rname, APO_NAME) == 0 && real != NULL) {
			/* pointed at the output directory itself: its parent is the capture */
			char *cap = path_dir(real);
			capture_scan(&w, cap, root, -1);
			free(cap);
		} else {
			w.names[0] = rname;
			w.paths[0] = root;
			walk_dir(&w, root, 0);
		}
		if (w.too_deep)
			msg_warn(root, "directories more than %d levels down were not searched",
			    DISCOVER_MAX_DEPTH);
	} else if (S_ISREG(st.st_mode)) {
		rc = discover_file(&w, root);
	} else {
		msg_error("%s: not a directory or a regular file",
		    text_sanitize(path, buf, sizeof buf, 1));
		rc = -1;
	}
	if (rc != 0)
		goto done;

	roles_decide(&w);
	capture_times_from_info(&w.found);
	int all = ranks == NULL || ranks->all;
	size_t unknown_dropped = 0;
	for (size_t i = 0; i < w.found.n; i++) {
		tl_source *s = &w.found.v[i];
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
	if (!all)
		ranks_warn_missing(root, ranks, out, unknown_dropped);

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

