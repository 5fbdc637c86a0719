#include "config.h"
#include "ui/actions.h"
#include "ui/keymap.h"
#include "ui/theme.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ACTION_INFO_(e, n, f, s, h) {n, f, s, h},
const tl_action_info action_table[ACT__COUNT] = {TL_ACTIONS(ACTION_INFO_)};
#undef ACTION_INFO_

int
action_by_name(const char *name)
{
	for (int i = 0; i < ACT__COUNT; i++)
		if (strcmp(action_table[i].name, name) == 0)
			return i;
	return ACT_NONE;
}

static const struct {
	const char *name;
	int key;
} named_keys[] = {
    {"Space", ' '},
    {"Enter", TLK_ENTER},
    {"Tab", TLK_TAB},
    {"S-Tab", TLK_FN(KEY_BTAB)},
    {"Esc", TLK_ESC},
    {"Backspace", TLK_BACKSPACE},
    {"Up", TLK_FN(KEY_UP)},
    {"Down", TLK_FN(KEY_DOWN)},
    {"Left", TLK_FN(KEY_LEFT)},
    {"Right", TLK_FN(KEY_RIGHT)},
    {"S-Left", TLK_FN(KEY_SLEFT)},
    {"S-Right", TLK_FN(KEY_SRIGHT)},
    {"S-Up", TLK_FN(KEY_SR)},
    {"S-Down", TLK_FN(KEY_SF)},
    {"PgUp", TLK_FN(KEY_PPAGE)},
    {"PgDn", TLK_FN(KEY_NPAGE)},
    {"Home", TLK_FN(KEY_HOME)},
    {"End", TLK_FN(KEY_END)},
    {"Insert", TLK_FN(KEY_IC)},
    {"Delete", TLK_FN(KEY_DC)},
    {"WheelUp", TLK_WHEEL_UP},
    {"WheelDown", TLK_WHEEL_DOWN},
    {"lt", '<'},
    {"gt", '>'},
    {"Hash", '#'},
    {"C-Space", 0},
};
#define NNAMED (sizeof named_keys / sizeof *named_keys)

int
key_normalize(int k)
{
	switch (k) {
	case '\n':
	case TLK_FN(KEY_ENTER):
		return TLK_ENTER;
	case 8:
	case TLK_FN(KEY_BACKSPACE):
		return TLK_BACKSPACE;
	default:
		return k;
	}
}

int
key_parse(const char *s, int *key)
{
	size_t len = strlen(s);
	if (len == 0)
		return -1;
	if (s[0] != '<' || len < 3 || s[len - 1] != '>') {
		unsigned cp;
		int k = text_utf8_decode(s, len, &cp);
		if ((size_t)k != len || cp < 0x20 || cp == 0x7f || cp == 0xFFFD)
			return -1;
		*key = (int)cp;
		return 0;
	}
	char in[64];
	if (len - 2 >= sizeof in)
		return -1;
	memcpy(in, s + 1, len - 2);
	in[len - 2] = '\0';
	for (size_t i = 0; i < NNAMED; i++)
		if (strcasecmp(in, named_keys[i].name) == 0) {
			*key = named_keys[i].key;
			return 0;
		}
	if ((in[0] == 'F' || in[0] == 'f') && isdigit((unsigned char)in[1])) {
		int n = atoi(in + 1);
		if (n >= 1 && n <= 24) {
			*key = TLK_FN(KEY_F(n));
			return 0;
		}
		return -1;
	}
	if ((in[0] == 'C' || in[0] == 'c') && in[1] == '-' && in[2] && !in[3]) {
		int c = tolower((unsigned char)in[2]);
		if (c >= 'a' && c <= 'z') {
			*key = c & 0x1f;
			return 0;
		}
		if (c == '@' || c == ' ') {
			*key = 0;
			return 0;
		}
		return -1;
	}
	if ((in[0] == 'M' || in[0] == 'm' || in[0] == 'A' || in[0] == 'a') && in[1] == '-' &&
	    in[2]) {
		int inner;
		char sub[64];
		if (in[3] == '\0' || (unsigned char)in[2] >= 0x80) {
			snprintf(sub, sizeof sub, "%s", in + 2);
		} else {
			snprintf(sub, sizeof sub, "<%s>", in + 2);
		}
		if (key_parse(sub, &inner) != 0 || (inner & TLK_META))
			return -1;
		*key = inner | TLK_META;
		return 0;
	}
	return -1;
}

const char *
key_to_name(int k, char *buf, size_t len)
{
	if (k & TLK_META) {
		char inner[48];
		key_to_name(k & ~TLK_META, inner, sizeof inner);
		if (inner[0] == '<' && inner[1] != '\0')
			snprintf(buf, len, "<M-%.*s>", (int)strlen(inner) - 2, inner + 1);
		else
			snprintf(buf, len, "<M-%s>", inner);
		return buf;
	}
	for (size_t i = 0; i < NNAMED; i++)
		if (named_keys[i].key == k && strcmp(named_keys[i].name, "lt") != 0 &&
		    strcmp(named_keys[i].name, "gt") != 0 &&
		    strcmp(named_keys[i].name, "Hash") != 0) {
			snprintf(buf, len, "<%s>", named_keys[i].name);
			return buf;
		}
	for (int n = 1; n <= 24; n++)
		if (k == TLK_FN(KEY_F(n))) {
			snprintf(buf, len, "<F%d>", n);
			return buf;
		}
	if (k >= 1 && k <= 26) {
		snprintf(buf, len, "<C-%c>", 'a' + k - 1);
		return buf;
	}
	if (k >= 0x20 && k < 0x110000 && k != 0x7f) {
		char u[5];
		u[text_utf8_encode((unsigned)k, u)] = '\0';
		snprintf(buf, len, "%s", u);
		return buf;
	}
	snprintf(buf, len, "<0x%x>", (unsigned)k);
	return buf;
}

/* ---- keymaps ------------------------------------------------------------------------------- */

static void
keymap_unbind(tl_keymap *km, int key)
{
	size_t w = 0;
	for (size_t i = 0; i < km->n; i++)
		if (km->v[i].key != key)
			km->v[w++] = km->v[i];
	km->n = w;
}

static void
keymap_bind(tl_keymap *km, int key, int action)
{
	keymap_unbind(km, key);
	tl_binding b = {key, action};
	VEC_PUSH(km->v, km->n, km->cap, b);
}

tl_conf_status
keymap_parse(tl_keymap *km, const char *text, const char *origin, char *err, size_t errlen)
{
	tl_conf_status rc = TL_CONF_OK;
	int lineno = 0;
	const char *p = text;
	char *line;
	while ((line = config_next_line(&p)) != NULL) {
		lineno++;
		char *tok[4];
		int n = config_words(line, tok, 4, " \t\r"); /* '#' as a key is <Hash> */
		char problem[160] = "";
		int key;
		if (n == 0) {
		} else if (strcmp(tok[0], "bind") == 0) {
			int a;
			if (n != 3)
				snprintf(problem, sizeof problem, "usage: bind KEY ACTION");
			else if (key_parse(tok[1], &key) != 0)
				snprintf(problem, sizeof problem, "unknown key '%.60s'", tok[1]);
			else if ((a = action_by_name(tok[2])) == ACT_NONE)
				snprintf(problem, sizeof problem, "unknown action '%.60s'", tok[2]);
			else
				keymap_bind(km, key, a);
		} else if (strcmp(tok[0], "unbind") == 0) {
			if (n != 2)
				snprintf(problem, sizeof problem, "usage: unbind KEY");
			else if (key_parse(tok[1], &key) != 0)
				snprintf(problem, sizeof problem, "unknown key '%.60s'", tok[1]);
			else
				keymap_unbind(km, key);
		} else {
			snprintf(problem, sizeof problem,
			         "unknown command '%.60s' (bind or unbind)", tok[0]);
		}
		if (problem[0] && rc == TL_CONF_OK) {
			snprintf(err, errlen, "%s:%d: %s", origin, lineno, problem);
			rc = TL_CONF_BAD_LINE;
		}
		free(line);
	}
	return rc;
}

tl_conf_status
keymap_load(tl_keymap *km, const char *name, char *err, size_t errlen)
{
	memset(km, 0, sizeof *km);
	const char *def = builtin_file("default", "keys");
	if (def)
		keymap_parse(km, def, "default.keys", err, errlen);
	snprintf(km->name, sizeof km->name, "default");
	char origin[512];
	char *text = NULL;
	if (name == NULL) {
		text = config_user_default("keys", origin, sizeof origin);
		if (text == NULL)
			return TL_CONF_OK;
	} else if (strcmp(name, "default") == 0 && builtin_file("default", "keys")) {
		/* the built-in default; a user's own default.keys still applies (the call starts
		 * afresh: what this one bound is freed, not dropped) */
		keymap_free(km);
		return keymap_load(km, NULL, err, errlen);
	} else {
		text = config_file_read(name, "keys", origin, sizeof origin);
		if (text == NULL) {
			snprintf(err, errlen, "%s", origin);
			return TL_CONF_UNREADABLE;
		}
	}
	tl_conf_status rc = keymap_parse(km, text, origin, err, errlen);
	free(text);
	snprintf(km->name, sizeof km->name, "%s", name ? name : "default");
	return rc;
}

void
keymap_free(tl_keymap *km)
{
	free(km->v);
	memset(km, 0, sizeof *km);
}

int
keymap_action(const tl_keymap *km, int key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->v[i].key == key)
			return km->v[i].action;
	return ACT_NONE;
}

size_t
keymap_keys(const tl_keymap *km, int action, int *keys, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < km->n && n < max; i++)
		if (km->v[i].action == action)
			keys[n++] = km->v[i].key;
	return n;
}

char *
keymap_key_hint(const tl_keymap *km, int action, char *buf, size_t len)
{
	keymap_keys_text(km, action, buf, len);
	char *sp = strchr(buf, ' ');
	if (sp)
		*sp = '\0';
	if (buf[0] == '\0')
		snprintf(buf, len, ":%s", action_table[action].name);
	return buf;
}

char *
keymap_keys_text(const tl_keymap *km, int action, char *buf, size_t len)
{
	int keys[16];
	size_t n = keymap_keys(km, action, keys, 16);
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && off + 1 < len; i++) {
		char kn[48];
		int w = snprintf(buf + off, len - off, "%s%s", i ? " " : "",
		                 key_to_name(keys[i], kn, sizeof kn));
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

void
keymap_roff_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void
keymap_write_list(const tl_keymap *km, FILE *f, int roff)
{
	const char *section = NULL;
	if (roff == 2)
		fputs("| keys | action | what it does |\n|---|---|---|\n", f);
	for (int a = 0; a < ACT__COUNT; a++) {
		const tl_action_info *ai = &action_table[a];
		char keys[256];
		keymap_keys_text(km, a, keys, sizeof keys);
		if (section == NULL || strcmp(section, ai->section) != 0) {
			section = ai->section;
			if (roff == 1)
				fprintf(f, ".SS %s\n", section);
			else if (roff == 2)
				fprintf(f, "| **%s** | | |\n", section);
			else
				fprintf(f, "%s%s\n", a ? "\n" : "", section);
		}
		if (roff == 2) {
			if (keys[0] == '\0') { /* a command only */
				fprintf(f, "| (unbound) | `%s` | %s |\n", ai->name, ai->help);
				continue;
			}
			fputs("| `", f);
			for (const char *k = keys; *k; k++)
				fputs(*k == ' ' ? "` `" : *k == '|' ? "\\|" : (char[2]){*k, 0}, f);
			fprintf(f, "` | `%s` | %s |\n", ai->name, ai->help);
		} else if (roff) {
			fputs(".TP\n.B ", f);
			keymap_roff_text(f, keys[0] ? keys : "(unbound)");
			fputs("\n", f);
			fputs("\\fB", f);
			keymap_roff_text(f, ai->name);
			fputs("\\fR: ", f);
			keymap_roff_text(f, ai->help);
			fputs(".\n", f);
		} else {
			fprintf(f, "  %-22s %-20s %s\n", keys, ai->name, ai->help);
		}
	}
}
