/* The :-commands' table (TL_COMMANDS, ui/commands.h) as data: names, aliases, arguments and help,
 * which the prompt's completion and the help screen read, and the command list of tl(1) and
 * docs/viewer.md. The handlers are commands.c's; this file calls nothing of the views, so the
 * prompt and the help screen depend on it without depending on every view a command reaches. */
#include "config.h"
#include "ui/commands.h"
#include "ui/keymap.h"

#include <stdio.h>
#include <string.h>

#define COMMAND_INFO_(n, a, fl, g, f, h) {n, a, fl, g, h},
const tl_command_info command_table[CMD__COUNT] = {TL_COMMANDS(COMMAND_INFO_)};
#undef COMMAND_INFO_

/* Whether word is one of the space-separated names of list. */
static int
in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && strncmp(p, word, n) == 0)
			return 1;
		p += k;
		while (*p == ' ')
			p++;
	}
	return 0;
}

int
command_find(const char *name)
{
	for (int i = 0; i < CMD__COUNT; i++)
		if (strcmp(name, command_table[i].name) == 0 ||
		    in_list(command_table[i].alias, name))
			return i;
	return -1;
}

char *
command_aliases(const tl_command_info *c, const char *pre, const char *post, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->alias == NULL)
		return buf;
	size_t off = (size_t)snprintf(buf, len, "%s", pre);
	for (const char *p = c->alias; *p && off < len;) {
		size_t k = strcspn(p, " ");
		off += (size_t)snprintf(buf + off, len - off, "%s:%.*s", p == c->alias ? "" : ", ",
		                        (int)k, p);
		p += k;
		while (*p == ' ')
			p++;
	}
	if (off < len)
		snprintf(buf + off, len - off, "%s", post);
	return buf;
}

/* ---- the list in tl(1) and docs/viewer.md ------------------------------------------------ */

void
commands_write_list(FILE *f, int format)
{
	if (format == 1)
		fputs(".SH COMMANDS\nCommands are typed after\n.BR : ;\nUp and Down recall earlier "
		      "commands and searches, Tab completes names.\n",
		      f);
	else if (format == 2)
		fputs("| **:-commands** | | |\n", f);
	else
		fputs("\n:-commands\n", f);
	for (int i = 0; i < CMD__COUNT + 1; i++) {
		/* the last row: every action is a command too */
		const tl_command_info any = {"ACTION", NULL, 0, "",
		                             "Run any action by its name, e.g. :fit-all"};
		const tl_command_info *c = i < CMD__COUNT ? &command_table[i] : &any;
		char also[64], usage[96];
		command_aliases(c, " (also ", ")", also, sizeof also);
		snprintf(usage, sizeof usage, ":%s%s%s", c->name, *c->args ? " " : "", c->args);
		if (format == 1) {
			fputs(".TP\n.B ", f);
			keymap_roff_text(f, usage);
			fputs("\n", f);
			keymap_roff_text(f, c->help);
			keymap_roff_text(f, also);
			fputs(".\n", f);
		} else if (format == 2) {
			fputs("| | `", f);
			for (const char *k = usage; *k; k++)
				fputs(*k == '|' ? "\\|" : (char[2]){*k, 0}, f);
			fputs("` | ", f);
			for (const char *k = c->help; *k; k++)
				fputs(*k == '|' ? "\\|" : (char[2]){*k, 0}, f);
			fprintf(f, "%s |\n", also);
		} else {
			fprintf(f, "  %-22s %s%s\n", usage, c->help, also);
		}
	}
}
