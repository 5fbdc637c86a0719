#include "config.h"
#include "ui/theme.h"
#include "util/confpath.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_NAME_(e, n, c) n,
static const char *const slot_names[SLOT__COUNT] = {TL_SLOTS(SLOT_NAME_)};
#undef SLOT_NAME_
#define SLOT_CHAR_(e, n, c) c,
static const char slot_chars[SLOT__COUNT] = {TL_SLOTS(SLOT_CHAR_)};
#undef SLOT_CHAR_

const char *
theme_slot_name(int slot)
{
	return slot >= 0 && slot < SLOT__COUNT ? slot_names[slot] : "?";
}

/* The slot of a name, or -1 when unknown. */
static int
theme_slot_by_name(const char *name)
{
	for (int i = 0; i < SLOT__COUNT; i++)
		if (strcmp(slot_names[i], name) == 0)
			return i;
	return -1;
}

char
theme_slot_char(int slot)
{
	return slot >= 0 && slot < SLOT__COUNT ? slot_chars[slot] : '?';
}

int
theme_stage_slot(const char *stage)
{
	char buf[96];
	snprintf(buf, sizeof buf, "stage.%s", stage);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	int s = theme_slot_by_name(buf);
	return s >= 0 ? s : SLOT_STAGE;
}

/* ---- parsing ------------------------------------------------------------------------------- */

static const char *const color_names[] = {"black", "red",     "green", "yellow",
                                          "blue",  "magenta", "cyan",  "white"};

/* The basic colour closest to a 256-colour index. */
static int
color_to8(int c)
{
	if (c < 0)
		return c;
	if (c < 8)
		return c;
	if (c < 16)
		return c - 8;
	if (c >= 232)
		return c >= 244 ? 7 : 0;
	c -= 16;
	int r = c / 36, g = (c / 6) % 6, b = c % 6;
	return (r >= 3 ? 1 : 0) | (g >= 3 ? 2 : 0) | (b >= 3 ? 4 : 0);
}

static int
parse_one_color(const char *s, int *out)
{
	if (strcmp(s, "default") == 0) {
		*out = THEME_DEFAULT_COLOR;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		if (strcmp(s, color_names[i]) == 0) {
			*out = i;
			return 0;
		}
		if (strncmp(s, "bright", 6) == 0) {
			const char *b = s + 6;
			if (*b == '-')
				b++;
			if (strcmp(b, color_names[i]) == 0) {
				*out = i + 8;
				return 0;
			}
		}
	}
	if (strncmp(s, "color", 5) == 0)
		s += 5;
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end != '\0' || v < 0 || v > 255 || errno)
		return -1;
	*out = (int)v;
	return 0;
}

/* "N", "name", or "N/name" (256-colour value / 8-colour fallback) */
static int
parse_color(const char *s, int16_t *c256, int16_t *c8)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s", s);
	char *slash = strchr(buf, '/');
	int a, b;
	if (slash) {
		*slash = '\0';
		if (parse_one_color(buf, &a) != 0 || parse_one_color(slash + 1, &b) != 0)
			return -1;
		if (b > 7)
			b = color_to8(b);
	} else {
		if (parse_one_color(buf, &a) != 0)
			return -1;
		b = color_to8(a);
	}
	*c256 = (int16_t)a;
	*c8 = (int16_t)b;
	return 0;
}

static int
parse_attr(const char *s, uint16_t *attr)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} attrs[] = {
	    {"bold", THEME_BOLD}, {"reverse", THEME_REVERSE}, {"underline", THEME_UNDERLINE},
	    {"dim", THEME_DIM},   {"italic", THEME_ITALIC},   {"blink", THEME_BLINK},
	    {"normal", 0}};
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		if (strcmp(s, attrs[i].name) == 0) {
			*attr |= attrs[i].bit;
			return 0;
		}
	return -1;
}

#define MAXTOK 12

tl_conf_status
theme_parse(tl_theme *t, const char *text, const char *origin, char *err, size_t errlen)
{
	tl_conf_status rc = TL_CONF_OK;
	int lineno = 0;
	const char *p = text;
	char *line;
	while ((line = config_next_line(&p)) != NULL) {
		lineno++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[l - 1] = '\0';
		char *tok[MAXTOK];
		int n = config_words(line, tok, MAXTOK, " \t");
		const char *problem = NULL;
		char pbuf[160];
		if (n == 0) {
			free(line);
			continue;
		}
		int slot = n >= 2 ? theme_slot_by_name(tok[1]) : -1;
		if (strcmp(tok[0], "color") == 0) {
			theme_style st = t->slot[slot < 0 ? 0 : slot];
			if (n < 4)
				problem = "usage: color SLOT FG BG [ATTRIBUTE...]";
			else if (slot < 0)
				snprintf(pbuf, sizeof pbuf, "unknown slot '%.60s'", tok[1]),
				    problem = pbuf;
			else if (parse_color(tok[2], &st.fg, &st.fg8) != 0)
				snprintf(pbuf, sizeof pbuf, "bad colour '%.60s'", tok[2]),
				    problem = pbuf;
			else if (parse_color(tok[3], &st.bg, &st.bg8) != 0)
				snprintf(pbuf, sizeof pbuf, "bad colour '%.60s'", tok[3]),
				    problem = pbuf;
			else {
				st.attr = 0;
				for (int i = 4; i < n && !problem; i++)
					if (parse_attr(tok[i], &st.attr) != 0)
						snprintf(pbuf, sizeof pbuf, "bad attribute '%.60s'",
						         tok[i]),
						    problem = pbuf;
				if (!problem) {
					st.has_color = 1;
					t->slot[slot] = st;
				}
			}
		} else if (strcmp(tok[0], "mono") == 0) {
			uint16_t a = 0;
			if (n < 3)
				problem = "usage: mono SLOT ATTRIBUTE...";
			else if (slot < 0)
				snprintf(pbuf, sizeof pbuf, "unknown slot '%.60s'", tok[1]),
				    problem = pbuf;
			for (int i = 2; i < n && !problem; i++)
				if (parse_attr(tok[i], &a) != 0)
					snprintf(pbuf, sizeof pbuf, "bad attribute '%.60s'",
					         tok[i]),
					    problem = pbuf;
			if (!problem) {
				t->slot[slot].mono = a;
				t->slot[slot].has_mono = 1;
			}
		} else {
			snprintf(pbuf, sizeof pbuf, "unknown command '%.60s' (color or mono)",
			         tok[0]);
			problem = pbuf;
		}
		if (problem && rc == TL_CONF_OK) {
			snprintf(err, errlen, "%s:%d: %s", origin, lineno, problem);
			rc = TL_CONF_BAD_LINE;
		}
		free(line);
	}
	return rc;
}

/* Slots the default theme leaves out take their parent's style (stage.rollout -> stage ->
 * normal). */
static void
theme_inherit(tl_theme *t)
{
	for (int i = 1; i < SLOT__COUNT; i++) {
		const char *dot = strrchr(slot_names[i], '.');
		int parent = SLOT_NORMAL;
		if (dot) {
			char buf[64];
			snprintf(buf, sizeof buf, "%.*s", (int)(dot - slot_names[i]),
			         slot_names[i]);
			int p = theme_slot_by_name(buf);
			if (p >= 0)
				parent = p;
		}
		theme_style *s = &t->slot[i];
		const theme_style *from = &t->slot[parent];
		if (!s->has_color) {
			s->fg = from->fg;
			s->bg = from->bg;
			s->fg8 = from->fg8;
			s->bg8 = from->bg8;
			s->attr = from->attr;
		}
		if (!s->has_mono)
			s->mono = from->mono;
	}
}

char *
config_user_default(const char *ext, char *origin, size_t originlen)
{
	char *file = xasprintf("default.%s", ext), *path = config_path(file), *text = NULL;
	free(file);
	if (path == NULL)
		return NULL;
	FILE *f = fopen(path, "r");
	if (f) {
		fclose(f);
		text = config_file_read(path, ext, origin, originlen);
	}
	free(path);
	return text;
}

char *
config_file_read(const char *name, const char *ext, char *origin, size_t originlen)
{
	char *path = NULL;
	if (strchr(name, '/') != NULL) {
		path = xstrdup(name);
	} else {
		char *file = xasprintf("%s.%s", name, ext);
		path = config_path(file);
		free(file);
	}
	if (path) {
		FILE *f = fopen(path, "r");
		if (f) {
			char *buf = NULL;
			size_t n = 0, cap = 0;
			char chunk[4096];
			size_t k;
			while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && n < (1u << 20)) {
				VEC_RESERVE(buf, cap, n + k + 1);
				memcpy(buf + n, chunk, k);
				n += k;
			}
			fclose(f);
			VEC_RESERVE(buf, cap, n + 1);
			buf[n] = '\0';
			snprintf(origin, originlen, "%s", path);
			free(path);
			return buf;
		}
		if (strchr(name, '/') != NULL) {
			snprintf(origin, originlen, "%s: %s", path, strerror(errno));
			free(path);
			return NULL;
		}
		free(path);
	}
	const char *b = builtin_file(name, ext);
	if (b) {
		snprintf(origin, originlen, "%s.%s (built in)", name, ext);
		return xstrdup(b);
	}
	snprintf(origin, originlen, "no %s '%s'", strcmp(ext, "theme") == 0 ? "theme" : "keymap",
	         name);
	return NULL;
}

tl_conf_status
theme_load(tl_theme *t, const char *name, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	tl_theme base;
	memset(&base, 0, sizeof base);
	const char *def = builtin_file("default", "theme");
	if (def)
		theme_parse(&base, def, "default.theme", err, errlen);
	theme_inherit(&base);
	*t = base;
	snprintf(t->name, sizeof t->name, "default");
	int user_default = name == NULL;
	if (name == NULL)
		name = "default";
	char origin[512];
	char *text = NULL;
	if (user_default) {
		/* only a user's own default.theme; the built-in one is loaded already */
		text = config_user_default("theme", origin, sizeof origin);
		if (text == NULL)
			return TL_CONF_OK;
	} else {
		text = config_file_read(name, "theme", origin, sizeof origin);
		if (text == NULL) {
			snprintf(err, errlen, "%s", origin);
			return TL_CONF_UNREADABLE;
		}
	}
	tl_theme over = base;
	for (int i = 0; i < SLOT__COUNT; i++)
		over.slot[i].has_color = over.slot[i].has_mono = 0;
	tl_conf_status rc = theme_parse(&over, text, origin, err, errlen);
	free(text);
	/* what the file leaves out stays as the default theme has it */
	for (int i = 0; i < SLOT__COUNT; i++) {
		over.slot[i].has_color = over.slot[i].has_mono = 1;
	}
	*t = over;
	snprintf(t->name, sizeof t->name, "%s", name);
	return rc;
}
