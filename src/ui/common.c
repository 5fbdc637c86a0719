#include "config.h"
#include "ui/common.h"
#include "ui/actions.h"
#include "util/text.h"
#include "util/timefmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
ui_message(tl_ui *ui, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
	va_end(ap);
	ui->msg_err = error;
}

char *
ui_time(const tl_ui *ui, int64_t t, char *buf, size_t len)
{
	if (ui->abstime) {
		char full[64];
		timefmt_epoch(t, full, sizeof full);
		snprintf(buf, len, "%s", full + 11); /* hh:mm:ss.nnnnnnnnn */
		return buf;
	}
	char d[40];
	timefmt_dur(t - ui->origin, d, sizeof d);
	snprintf(buf, len, "%s", d);
	/* "12.5 ms" -> "12.5ms": the status line is short of room */
	char *sp = strchr(buf, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
	return buf;
}

char *
ui_clean(const tl_ui *ui, const char *s, char *buf, size_t len)
{
	return text_sanitize(s ? s : "", buf, len, ui->utf8);
}

int
ui_list_move(size_t *sel, size_t n, int page, int action)
{
	size_t pg = page > 0 ? (size_t)page : 1;
	switch (action) {
	case ACT_LANE_DOWN:
		if (*sel + 1 < n)
			(*sel)++;
		return 1;
	case ACT_LANE_UP:
		if (*sel > 0)
			(*sel)--;
		return 1;
	case ACT_PAGE_DOWN:
		if (n)
			*sel = *sel + pg < n ? *sel + pg : n - 1;
		return 1;
	case ACT_PAGE_UP:
		*sel = *sel > pg ? *sel - pg : 0;
		return 1;
	case ACT_FIRST_LANE:
		*sel = 0;
		return 1;
	case ACT_LAST_LANE:
		if (n)
			*sel = n - 1;
		return 1;
	}
	return 0;
}

void
ui_list_scroll(size_t *sel, size_t *top, size_t n, int rows)
{
	if (n == 0 || rows < 1)
		return;
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < *top)
		*top = *sel;
	if (*sel >= *top + (size_t)rows)
		*top = *sel - (size_t)rows + 1;
}

/* ---- a column's density (the timeline's and --compare's lanes) ---- */

static const uint32_t eighths[9] = {' ',    0x2581, 0x2582, 0x2583, 0x2584,
                                    0x2585, 0x2586, 0x2587, 0x2588};
static const char ascii_density[5] = {' ', '.', ':', '+', '#'};

uint32_t
timeline_density_glyph(const tl_ui *ui, int64_t busy, int64_t w)
{
	if (ui->utf8) {
		int e = (int)((busy * 8 + w / 2) / w);
		if (e < 1)
			e = 1;
		if (e > 8)
			e = 8;
		return eighths[e];
	}
	int e = (int)((busy * 4 + w / 2) / w);
	if (e < 1)
		e = 1;
	if (e > 4)
		e = 4;
	return (uint32_t)ascii_density[e];
}

void
ui_rows_text(uint64_t n, char *buf, size_t len)
{
	if (n < 10000)
		snprintf(buf, len, "%llu rows", (unsigned long long)n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1fk rows", (double)n / 1e3);
	else
		snprintf(buf, len, "%.2fM rows", (double)n / 1e6);
}

int
ui_wrap_starts(const tl_screen *s, const char *text, int w, int maxlines, size_t *start)
{
	size_t n = strlen(text), at = 0;
	int lines = 0;
	while (at < n && lines < maxlines) {
		start[lines++] = at;
		if (screen_text_width(s, text + at) <= w || lines == maxlines)
			break;
		/* the longest prefix that fits, then back to its last space */
		size_t k = at, space = 0;
		int used = 0;
		while (k < n) {
			unsigned cp;
			int step = text_utf8_decode(text + k, n - k, &cp);
			char one[8];
			memcpy(one, text + k, (size_t)step);
			one[step] = '\0';
			int cw = screen_text_width(s, one);
			if (used + cw > w)
				break;
			if (cp == ' ')
				space = k;
			used += cw;
			k += (size_t)step;
		}
		at = space > at ? space + 1 : k > at ? k : at + 1;
	}
	start[lines] = n;
	return lines;
}

int
ui_wrap_text(tl_ui *ui, int x, int y, int w, int maxlines, uint8_t slot, const char *text)
{
	size_t start[17];
	if (maxlines > 16)
		maxlines = 16;
	int n = ui_wrap_starts(&ui->scr, text, w, maxlines, start);
	char line[1024];
	for (int i = 0; i < n; i++) {
		size_t len = (i + 1 < n ? start[i + 1] : strlen(text)) - start[i];
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, text + start[i], len);
		line[len] = '\0';
		if (i + 1 < n && len > 0 && line[len - 1] == ' ')
			line[len - 1] = '\0';
		screen_text(&ui->scr, x, y + i, w, line, slot);
	}
	return n;
}
