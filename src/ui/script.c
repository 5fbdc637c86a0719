#include "config.h"
#include "ui/keymap.h"
#include "ui/script.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
script_open(tl_script *s, const char *path)
{
	memset(s, 0, sizeof *s);
	s->f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (s->f == NULL) {
		fprintf(stderr, "tl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	s->path = xstrdup(path);
	return 0;
}

void
script_close(tl_script *s)
{
	if (s->f && s->f != stdin)
		fclose(s->f);
	free(s->path);
	memset(s, 0, sizeof *s);
}

int
script_next(tl_script *s, script_step *st)
{
	char line[1024];
	while (s->f && fgets(line, sizeof line, s->f)) {
		s->lineno++;
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		st->is_cmd = 0;
		st->nkeys = 0;
		if (line[0] == ':' && n > 1) {
			st->is_cmd = 1;
			snprintf(st->text, sizeof st->text, "%s", line + 1);
			return 1;
		}
		if (line[0] == '/' &&
		    n > 1) { /* a search, as if typed after / and ended by Enter */
			st->is_cmd = 1;
			snprintf(st->text, sizeof st->text, "search %s", line + 1);
			return 1;
		}
		int k;
		if (key_parse(line, &k) == 0) {
			st->keys[st->nkeys++] = k;
			return 1;
		}
		if (line[0] == '<' && line[n - 1] == '>') {
			msg_error("%s:%d: unknown key '%s'", s->path, s->lineno, line);
			s->errors++;
			continue;
		}
		/* text: typed key by key */
		const char *p = line;
		size_t left = n;
		while (left && st->nkeys < SCRIPT_MAXKEYS) {
			unsigned cp;
			int len = text_utf8_decode(p, left, &cp);
			st->keys[st->nkeys++] = (int)cp;
			p += len;
			left -= (size_t)len;
		}
		snprintf(st->text, sizeof st->text, "%s", line);
		return 1;
	}
	return 0;
}
