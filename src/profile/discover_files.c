/* Discovery's look into files: small metadata files (profiler_info, info.json), the start of a
 * JSON file (what kind of trace, which rank), and the capture time from profiler_info. */
#include "config.h"
#include "profile/discover_int.h"
#include "profile/discover.h"
#include "util/gzin.h"
#include "util/json_lex.h"
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
		return disc_digits_rank(it->valuestring, strlen(it->valuestring));
	return -1;
}

/* The top-level `key` of a small JSON file as a rank, or -1 (with a warning when the file cannot
 * be read or parsed; a missing or -1 key is normal). */
int
disc_json_file_rank(const char *path, const char *key)
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

/* The lexer's offsets as pointers into [p, end): NULL when the buffer ends inside the value
 * (a peek reads only the start of the file). */
static const char *
json_ws(const char *p, const char *end)
{
	const unsigned char *b = (const unsigned char *)p;
	return p + json_skip_ws(b, (size_t)(end - p), 0);
}

/* p at '"': returns the byte after the closing quote, NULL when the buffer ends first. */
static const char *
json_skip_string(const char *p, const char *end)
{
	int bad = -1;
	size_t off,
	    i = json_scan_string((const unsigned char *)p, (size_t)(end - p), 1, &bad, &off);
	return i == SIZE_MAX ? NULL : p + i;
}

/* Returns the byte after the value at p, NULL when the buffer ends inside it. */
static const char *
json_skip_value(const char *p, const char *end)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t n = (size_t)(end - p), off, i;
	int bad = -1;
	if (n == 0)
		return NULL;
	if (*p == '"')
		return json_skip_string(p, end);
	if (*p == '{' || *p == '[')
		i = json_skip_nested(b, n, 0, 0, &bad, &off);
	else if ((i = json_skip_scalar(b, n, 0)) == n)
		i = SIZE_MAX; /* the number may go on past the buffer */
	return i == SIZE_MAX ? NULL : p + i;
}

static int
json_key_is(const char *k, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(k, want, n) == 0;
}

/* the trace's host, as the JSON loader takes it (not empty, under 256 bytes) */
static void
peek_host(json_peek *pk, const cJSON *h)
{
	if (cJSON_IsString(h) && h->valuestring != NULL && h->valuestring[0] != '\0' &&
	    strlen(h->valuestring) < sizeof pk->host)
		memcpy(pk->host, h->valuestring, strlen(h->valuestring) + 1);
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
			if (di != NULL && pk->host[0] == '\0')
				peek_host(pk, cJSON_GetObjectItemCaseSensitive(di, "hostname"));
			cJSON_Delete(di);
		}
		if (pk != NULL && json_key_is(k, kn, "hostname") && *v == '"') {
			cJSON *h = cJSON_ParseWithLength(v, (size_t)(q - v));
			pk->host[0] = '\0';
			peek_host(pk, h);
			cJSON_Delete(h);
		}
		p = json_ws(q, end);
		if (p >= end || *p != ',')
			return 0;
		p++;
	}
}

/* Looks at the first DISCOVER_PEEK bytes of path. Returns -1 (warned) when it cannot be read. */
int
disc_json_peek_file(const char *path, json_peek *pk)
{
	pk->trace = 0;
	pk->rank = -1;
	pk->ascend = 0;
	pk->host[0] = '\0';
	json_tables_init();
	size_t n;
	char *buf = file_read(path, DISCOVER_PEEK, &n);
	if (buf == NULL) {
		msg_warn(path, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (gzin_magic((const unsigned char *)buf, n)) {
		/* a .json.gz: the start of what it inflates to (to its first damage) */
		free(buf);
		buf = xmalloc(DISCOVER_PEEK + 1);
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ssize_t k =
		    fd >= 0 ? gzin_pread(fd, 0, (unsigned char *)buf, DISCOVER_PEEK, gzin_limit())
		            : -1;
		if (fd >= 0)
			close(fd);
		if (k <= 0) {
			msg_warn(path, "not readable gzip data (damaged at its start?)");
			free(buf);
			return -1;
		}
		n = (size_t)k;
		buf[n] = '\0';
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
		pk->ascend =
		    pk->trace && (memmem(p, (size_t)(end - p), "\"ts\": \"", 7) != NULL ||
		                  memmem(p, (size_t)(end - p), "\"ts\":\"", 6) != NULL ||
		                  memmem(p, (size_t)(end - p), "\"Ascend Hardware\"", 17) != NULL ||
		                  memmem(p, (size_t)(end - p), "\"Overlap Analysis\"", 18) != NULL);
	} else if (p < end && *p == '{') {
		json_members(p, end, pk, NULL);
	}
	free(buf);
	return 0;
}

char *
discover_json_host(const char *path)
{
	json_peek pk;
	if (disc_json_peek_file(path, &pk) != 0 || pk.host[0] == '\0')
		return NULL;
	return xstrdup(pk.host);
}

/* ---- capture time from profiler_info ------------------------------------------------------ */

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
	const cJSON *v =
	    cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "collectionTimeEnd") : NULL;
	int64_t ns = 0;
	if (cJSON_IsString(v) && v->valuestring && disc_str_digits(v->valuestring) &&
	    strlen(v->valuestring) <= 19) {
		ns = strtoll(v->valuestring, NULL, 10);
	} else if (cJSON_IsNumber(v) && v->valuedouble > 0 &&
	           v->valuedouble <= (double)CAPTURE_NS_MAX) {
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
			if (q > p && errno == 0 &&
			    (*q == ',' || *q == '}' || isspace((unsigned char)*q)))
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
	if (disc_dirlist_read(dir, &dl) != 0)
		return 0;
	int64_t ns = 0;
	for (size_t i = 0; i < dl.n && ns == 0; i++) {
		const char *n = dl.v[i].name;
		if (!disc_str_starts(n, "profiler_info") || !disc_str_ends(n, ".json"))
			continue;
		char *p = disc_path_join(dir, n);
		size_t len;
		char *buf = file_read(p, DISCOVER_META_MAX, &len);
		free(p);
		if (buf != NULL)
			ns = info_collection_end(buf, len);
		free(buf);
	}
	disc_dirlist_free(&dl);
	return ns;
}

/* Capture times from the profiler's own record where there is one (each capture directory
 * read once: its sources are next to each other in the walk's list). */
void
disc_capture_times_from_info(tl_sourcelist *l)
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

/* Whether the file at path starts with the bytes of magic. */
static int
starts_with(const char *path, const char *magic)
{
	size_t n = strlen(magic);
	char buf[64];
	if (n > sizeof buf)
		return 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, buf, n);
	close(fd);
	return got == (ssize_t)n && memcmp(buf, magic, n) == 0;
}

int
disc_probe(const tl_format *rows, size_t n, const char *name, const char *path, int *rank)
{
	for (size_t k = 0; k < n; k++) {
		if (rows[k].glob == NULL || !disc_probe_name(rows[k].glob, name, rank))
			continue;
		if (rows[k].magic == NULL || path == NULL || starts_with(path, rows[k].magic))
			return (int)k;
	}
	return -1;
}

int
disc_probe_kind(const char *name, const char *path, int *rank)
{
	return disc_probe(source_format((tl_source_kind)0), TL_SRC__COUNT, name, path, rank);
}
