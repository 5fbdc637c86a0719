/* Keys, their names and keymaps (keymaps/NAME.keys, tl-keymap(5)). A key is an int: a Unicode
 * code point (control characters included), a curses KEY_* code offset by TLK_FN, a
 * TLK_META-flagged key (Alt/Meta, ESC prefix), or one of the mouse wheel codes. */
#ifndef TL_KEYMAP_H
#define TL_KEYMAP_H
#include <stddef.h>
#include <stdio.h>

#include "util/confpath.h"

#define TLK_FN(k) (0x110000 + (k))
#define TLK_META 0x400000
#define TLK_WHEEL_UP TLK_FN(0x10001)
#define TLK_WHEEL_DOWN TLK_FN(0x10002)
#define TLK_ENTER 13
#define TLK_ESC 27
#define TLK_BACKSPACE 127
#define TLK_TAB 9

/* Parses "a", "<C-x>", "<M-f>", "<Up>", "<PgDn>", "<F1>", "<Space>", "<WheelUp>" ... Returns 0. */
int key_parse(const char *name, int *key);
/* The name key_parse reads back. */
const char *key_to_name(int key, char *buf, size_t len);
/* Folds the variants terminals send for one key (\n and KEY_ENTER -> Enter, ^H -> Backspace). */
int key_normalize(int key);

typedef struct tl_binding {
	int key, action;
} tl_binding;

typedef struct tl_keymap {
	char name[64];
	tl_binding *v;
	size_t n, cap;
} tl_keymap;

/* Applies "bind KEY ACTION" / "unbind KEY" lines over km. Returns TL_CONF_OK, or
 * TL_CONF_BAD_LINE with "origin:LINE: problem" in err (the other lines still apply). */
tl_conf_status keymap_parse(tl_keymap *, const char *text, const char *origin, char *err,
                            size_t errlen);
/* The built-in default keymap, then NAME on top of it (a path, $XDG_CONFIG_HOME/tl/NAME.keys,
 * or a built-in keymap); NAME NULL: the user's default.keys when there is one. */
/* Returns TL_CONF_OK; TL_CONF_BAD_LINE with a message when a line is bad (the rest applies);
 * TL_CONF_UNREADABLE when NAME cannot be found or read. */
tl_conf_status keymap_load(tl_keymap *, const char *name, char *err, size_t errlen);
void keymap_free(tl_keymap *);
int keymap_action(const tl_keymap *, int key); /* ACT_NONE when unbound */
/* Keys bound to an action, in binding order; returns how many (up to max). */
size_t keymap_keys(const tl_keymap *, int action, int *keys, size_t max);
/* "a, <Left>" for an action (empty when unbound). */
char *keymap_keys_text(const tl_keymap *, int action, char *buf, size_t len);
/* The first key of an action, or ":name" when no key runs it: for a panel's own hints. */
char *keymap_key_hint(const tl_keymap *, int action, char *buf, size_t len);
/* Text for roff (man pages): a leading . or ' made literal, backslashes and hyphens escaped;
 * the key list's and the command list's. */
void keymap_roff_text(FILE *, const char *);
/* Writes the action table with its keys: format 0 plain text, 1 the man page section (roff),
 * 2 a Markdown table (docs/viewer.md). */
void keymap_write_list(const tl_keymap *, FILE *, int format);

#endif
