/* Stage-rule files ($XDG_CONFIG_HOME/tl/stages, src/analysis/stages.default): the rules, then
 * the input's lines classified by them. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/stages.h"

FUZZ_ENTRY(stages)
{
	fuzz_setup();
	char *s = fuzz_cstr(data, size);
	tl_stage_rules *r = stage_rules_from_text(s, "fuzz.stages");
	size_t n = stage_rules_count(r);
	for (size_t i = 0; i < n; i++)
		if (stage_rules_find(r, stage_rules_name(r, (int)i)) != (int)i)
			abort();
	/* every line of the input is also a range name */
	for (char *p = s, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int st = stage_rules_classify(r, p, len);
		if (st != TL_STAGE_NONE && st != TL_STAGE_IGNORED && (st < 0 || (size_t)st >= n))
			abort();
		stage_rules_is_decode(r, p, len);
		stage_rules_pp(r, p, len);
	}
	stage_rules_free(r);
	free(s);
	return 0;
}
