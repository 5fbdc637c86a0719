#include "config.h"
#include "ui/common.h"
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
