/* Theme files (tl-theme(5)), over the built-in default theme. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>

#include "ui/theme.h"

FUZZ_ENTRY(theme)
{
	fuzz_setup();
	char *s = fuzz_cstr(data, size);
	tl_theme t;
	char err[512];
	theme_load(&t, NULL, err, sizeof err);
	theme_parse(&t, s, "fuzz.theme", err, sizeof err);
	for (int i = 0; i < SLOT__COUNT; i++) {
		const theme_style *st = &t.slot[i];
		/* colours are 256-colour indexes or the terminal's default */
		if (st->fg < -1 || st->fg > 255 || st->bg < -1 || st->bg > 255 || st->fg8 < -1 ||
		    st->fg8 > 7 || st->bg8 < -1 || st->bg8 > 7)
			abort();
	}
	theme_stage_slot(s);
	free(s);
	return 0;
}
