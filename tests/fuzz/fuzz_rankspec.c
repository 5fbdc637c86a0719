/* The --rank parser: "0-7", "0,2,4", "0-3,8-11". */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>

#include "util/rankspec.h"

FUZZ_ENTRY(rankspec)
{
	fuzz_setup();
	char *s = fuzz_cstr(data, size);
	tl_rankset rs;
	char err[256];
	if (rankspec_parse(s, &rs, err, sizeof err) == 0) {
		/* sorted and unique, every rank in range and found again */
		for (size_t i = 0; i < rs.n; i++) {
			if (rs.ranks[i] < 0 || rs.ranks[i] > TL_RANK_MAX ||
			    (i > 0 && rs.ranks[i - 1] >= rs.ranks[i]) ||
			    !rankset_has(&rs, rs.ranks[i]))
				abort();
		}
		rankset_free(&rs);
	}
	free(s);
	return 0;
}
