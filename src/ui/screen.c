#include "config.h"
#include "ui/screen.h"
#include "ui/theme.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

void
screen_resize(tl_screen *s, int w, int h)
{
	if (w < 1)
		w = 1;
	if (h < 1)
		h = 1;
	if (w != s->w || h != s->h) {
		s->cell = xreallocarray(s->cell, (size_t)w * (size_t)h, sizeof *s->cell);
		s->w = w;
		s->h = h;
	}
	screen_clear(s, SLOT_NORMAL);
}

void
screen_free(tl_screen *s)
{
	free(s->cell);
	s->cell = NULL;
	s->w = s->h = 0;
}

void
screen_clear(tl_screen *s, uint8_t slot)
{
	for (int i = 0; i < s->w * s->h; i++)
		s->cell[i] = (scr_cell){' ', slot, 0};
}

/* The last gate before the terminal: whatever a view puts, no control character (C0, DEL,
 * C1: the bytes escape sequences are made of) and nothing that is not a character reaches
 * curses. Views sanitize profile text (ui_clean) before this; this is the guarantee. */
static uint32_t
safe_cp(const tl_screen *s, uint32_t ch)
{
	if (ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0) || ch > 0x10ffff ||
	    (ch >= 0xd800 && ch <= 0xdfff))
		return s->utf8 ? 0xfffd : '?';
	if (!s->utf8 && ch >= 0x80)
		return '?';
	return ch;
}

void
screen_put(tl_screen *s, int x, int y, uint32_t ch, uint8_t slot, uint8_t flags)
{
	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return;
	ch = safe_cp(s, ch);
	scr_cell *c = &s->cell[y * s->w + x];
	/* never leave half of a wide character behind */
	if (c->ch == SCR_WIDE_TAIL && x > 0)
		c[-1].ch = ' ';
	if (x + 1 < s->w && c[1].ch == SCR_WIDE_TAIL)
		c[1].ch = ' ';
	c->ch = ch;
	c->slot = slot;
	c->flags = flags;
}

void
screen_fill(tl_screen *s, int x, int y, int n, uint32_t ch, uint8_t slot)
{
	for (int i = 0; i < n; i++)
		screen_put(s, x + i, y, ch, slot, 0);
}

static int
cp_width(const tl_screen *s, unsigned cp)
{
	if (!s->utf8)
		return 1;
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w; /* combining marks (0) are dropped below; unprintable: U+FFFD */
}

int
screen_text_width(const tl_screen *s, const char *p)
{
	int w = 0;
	size_t n = strlen(p);
	while (n > 0) {
		unsigned cp;
		int k = text_utf8_decode(p, n, &cp);
		p += k;
		n -= (size_t)k;
		w += cp_width(s, cp);
	}
	return w;
}

int
screen_text(tl_screen *s, int x, int y, int maxw, const char *p, uint8_t slot)
{
	if (maxw <= 0)
		return 0;
	int total = screen_text_width(s, p);
	int cut = total > maxw; /* leave one column for the ellipsis */
	int limit = cut ? maxw - 1 : maxw, used = 0;
	size_t n = strlen(p);
	while (n > 0) {
		unsigned cp;
		int k = text_utf8_decode(p, n, &cp);
		p += k;
		n -= (size_t)k;
		if (!s->utf8 && cp >= 0x80)
			cp = '?';
		else if (s->utf8 && wcwidth((wchar_t)cp) < 0)
			cp = 0xfffd; /* not printable here (a control, unassigned...) */
		int w = cp_width(s, cp);
		if (w == 0)
			continue;
		if (used + w > limit)
			break;
		screen_put(s, x + used, y, cp, slot, 0);
		if (w == 2 && x + used + 1 < s->w && x + used + 1 >= 0) {
			scr_cell *c = &s->cell[y * s->w + x + used + 1];
			if (y >= 0 && y < s->h)
				*c = (scr_cell){SCR_WIDE_TAIL, slot, 0};
		}
		used += w;
	}
	if (cut) {
		while (used < maxw - 1) /* a wide character did not fit */
			screen_put(s, x + used++, y, ' ', slot, 0);
		screen_put(s, x + used++, y, s->utf8 ? 0x2026 : '~', slot, 0);
	}
	return used;
}

int
screen_printf(tl_screen *s, int x, int y, int maxw, uint8_t slot, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return screen_text(s, x, y, maxw, buf, slot);
}

static void
put_utf8(FILE *f, uint32_t cp)
{
	char b[4];
	fwrite(b, 1, (size_t)text_utf8_encode(cp, b), f);
}

void
screen_dump_text(const tl_screen *s, FILE *f)
{
	for (int y = 0; y < s->h; y++) {
		for (int x = 0; x < s->w; x++) {
			uint32_t ch = s->cell[y * s->w + x].ch;
			if (ch != SCR_WIDE_TAIL)
				put_utf8(f, ch);
		}
		fputc('\n', f);
	}
}

void
screen_dump_attrs(const tl_screen *s, FILE *f)
{
	for (int y = 0; y < s->h; y++) {
		for (int x = 0; x < s->w; x++)
			fputc(theme_slot_char(s->cell[y * s->w + x].slot), f);
		fputc('\n', f);
	}
}
