/* The findings' rule table (query/findings.c) against man tl's FINDINGS: every rule has its
 * entry, ".B KIND \fR(SETTING, DEFAULT)\fP", with the table's setting and default threshold, the
 * section has no entry the table lacks, and every setting is found by its name. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/findings.h"
#include "../test.h"

/* man/tl.1's FINDINGS section (malloc'd), NULL when the page cannot be read */
static char *
findings_section(void)
{
	const char *src = getenv("TL_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/man/tl.1", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), line[1024];
	int in = 0;
	buf[0] = '\0';
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, ".SH ", 4) == 0)
			in = strcmp(line, ".SH FINDINGS\n") == 0;
		if (!in)
			continue;
		size_t l = strlen(line);
		if (n + l + 1 > cap)
			buf = realloc(buf, cap *= 2);
		memcpy(buf + n, line, l + 1);
		n += l;
	}
	fclose(f);
	return buf;
}

int
main(void)
{
	char *man = findings_section();
	CHECK(man != NULL && man[0] != '\0', "man/tl.1 has a FINDINGS section");
	if (man == NULL)
		return test_done();
	const tl_find_rule *r = tlq_find_rules();
	for (int i = 0; i < TL_FIND__COUNT; i++) {
		char head[160];
		snprintf(head, sizeof head, "\n.B %s \\fR(%s, ", r[i].kind, r[i].setting);
		const char *p = strstr(man, head);
		CHECK(p != NULL, "man tl FINDINGS has the entry of %s with its setting %s",
		      r[i].kind, r[i].setting);
		if (p != NULL) {
			char *end;
			double v = strtod(p + strlen(head), &end);
			CHECK(v == r[i].threshold && strncmp(end, ")\\fP\n", 5) == 0,
			      "... and its default %g is the table's %g", v, r[i].threshold);
		}
		CHECK(tlq_find_setting(r[i].setting) == i, "the setting %s is found by its name",
		      r[i].setting);
		CHECK(r[i].definition != NULL && strlen(r[i].definition) > 40 && r[i].unit != NULL,
		      "the table defines %s and names its unit", r[i].kind);
	}
	/* no entry in the page that the table lacks */
	int entries = 0;
	for (const char *p = man; (p = strstr(p, "\n.B ")) != NULL; p++) {
		const char *sp = strchr(p + 4, ' ');
		if (sp == NULL || strncmp(sp, " \\fR(", 5) != 0)
			continue;
		entries++;
		char kind[64];
		size_t l = (size_t)(sp - (p + 4));
		snprintf(kind, sizeof kind, "%.*s", (int)(l < 63 ? l : 63), p + 4);
		int known = 0;
		for (int i = 0; i < TL_FIND__COUNT; i++)
			known |= strcmp(r[i].kind, kind) == 0;
		CHECK(known, "the page's rule %s is in the table", kind);
	}
	CHECK(entries == TL_FIND__COUNT, "the page has %d rules, the table %d", entries,
	      TL_FIND__COUNT);
	CHECK(tlq_find_setting("no_such_setting") == -1, "an unknown setting is -1");
	free(man);
	return test_done();
}
