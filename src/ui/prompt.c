#include "config.h"
#include "ui/commands.h"
#include "ui/common.h"
#include "ui/prompt.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_MAX 200

void
prompt_start(tl_ui *ui, char ch, const char *text)
{
	ui_prompt *p = &ui->prompt;
	p->active = 1;
	p->ch = ch;
	snprintf(p->buf, sizeof p->buf, "%s", text);
	p->len = strlen(p->buf);
	p->hpos = p->nhist;
	ui->msg[0] = '\0';
}

static void
history_add(ui_prompt *p, char ch, const char *text)
{
	if (*text == '\0')
		return;
	char *e = xasprintf("%c%s", ch, text);
	if (p->nhist && strcmp(p->hist[p->nhist - 1], e) == 0) {
		free(e);
		return;
	}
	if (p->nhist == HISTORY_MAX) {
		free(p->hist[0]);
		memmove(p->hist, p->hist + 1, (p->nhist - 1) * sizeof *p->hist);
		p->nhist--;
	}
	VEC_PUSH(p->hist, p->nhist, p->hcap, e);
}

static void
history_move(ui_prompt *p, int dir)
{
	size_t i = p->hpos;
	for (;;) {
		if (dir < 0) {
			if (i == 0)
				return;
			i--;
		} else {
			if (i >= p->nhist)
				return;
			i++;
			if (i == p->nhist) {
				p->hpos = i;
				p->buf[0] = '\0';
				p->len = 0;
				return;
			}
		}
		if (p->hist[i][0] == p->ch)
			break;
	}
	p->hpos = i;
	snprintf(p->buf, sizeof p->buf, "%s", p->hist[i] + 1);
	p->len = strlen(p->buf);
}

/* Tab at the ':' prompt: the one command or action name that starts with what was typed, or
 * the list of those that do and the line extended to what they have in common. */
static void
complete(tl_ui *ui)
{
	ui_prompt *p = &ui->prompt;
	if (p->ch != ':' || strchr(p->buf, ' '))
		return;
	const char *only = NULL;
	int n = 0;
	char list[400] = "";
	size_t off = 0, common = 0;
	for (int i = 0; i < ACT__COUNT + CMD__COUNT; i++) {
		const char *c =
		    i < ACT__COUNT ? action_table[i].name : command_table[i - ACT__COUNT].name;
		if (strncmp(c, p->buf, p->len) != 0)
			continue;
		if (only == NULL)
			common = strlen(c);
		else
			while (common > 0 && strncmp(only, c, common) != 0)
				common--;
		only = c;
		n++;
		if (off < sizeof list - 1)
			off += (size_t)snprintf(list + off, sizeof list - off, "%s ", c);
	}
	if (n == 1) {
		snprintf(p->buf, sizeof p->buf, "%s ", only);
		p->len = strlen(p->buf);
	} else if (n > 1) {
		if (common > p->len && common < sizeof p->buf) {
			memcpy(p->buf, only, common);
			p->buf[common] = '\0';
			p->len = common;
		}
		ui_message(ui, 0, "%s", list);
	}
}

int
prompt_key(tl_ui *ui, int key, char *line, size_t len)
{
	ui_prompt *p = &ui->prompt;
	switch (key) {
	case TLK_ENTER:
		snprintf(line, len, "%s", p->buf);
		p->active = 0;
		history_add(p, p->ch, line);
		return 1;
	case TLK_ESC:
	case 3: /* C-c */
	case 7: /* C-g */
		p->active = 0;
		return 0;
	case TLK_BACKSPACE:
		if (p->len == 0) {
			p->active = 0;
			return 0;
		}
		do
			p->len--;
		while (p->len > 0 && ((unsigned char)p->buf[p->len] & 0xC0) == 0x80);
		p->buf[p->len] = '\0';
		return 0;
	case 21: /* C-u */
		p->len = 0;
		p->buf[0] = '\0';
		return 0;
	case TLK_TAB:
		complete(ui);
		return 0;
	case TLK_FN(KEY_UP):
		history_move(p, -1);
		return 0;
	case TLK_FN(KEY_DOWN):
		history_move(p, 1);
		return 0;
	default:
		break;
	}
	if (key < 0x20 || key >= 0x110000 || key == 0x7f)
		return 0;
	char u[4];
	int n = text_utf8_encode((unsigned)key, u);
	if (p->len + (size_t)n + 1 >= sizeof p->buf)
		return 0;
	memcpy(p->buf + p->len, u, (size_t)n);
	p->len += (size_t)n;
	p->buf[p->len] = '\0';
	return 0;
}

void
prompt_free(ui_prompt *p)
{
	for (size_t i = 0; i < p->nhist; i++)
		free(p->hist[i]);
	free(p->hist);
	p->hist = NULL;
	p->nhist = p->hcap = 0;
}
