/* tl: a terminal timeline viewer for distributed AI-training profiles. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "load/load.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/rankspec.h"
#include "util/xalloc.h"

typedef struct cli {
	const char *path;
	tl_rankset ranks;
	int have_ranks;
	int json;
	int no_view;
} cli;

typedef struct command {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(cli *);
	int needs_path;
} command;

static int cmd_info(cli *);
static int cmd_summary(cli *);
static int cmd_demo(cli *);

static const command commands[] = {
	{"info", "tl info PATH [--rank SPEC]", "list the ranks and files found under PATH",
	    cmd_info, 1},
	{"summary", "tl summary PATH [--rank SPEC] [--json]",
	    "per-rank, per-step overlap breakdown (computing, communication, free, ...)",
	    cmd_summary, 1},
	{"demo", "tl demo [--no-view]",
	    "generate an 8-rank GRPO profile in the cache directory (once) and open it", cmd_demo,
	    0},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void
usage(FILE *f)
{
	fprintf(f, "usage:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-45s %s\n", commands[i].usage, commands[i].help);
	fprintf(f, "\noptions:\n"
		   "  --rank SPEC   only these ranks: 0-7, 0,2,4, 0-3,8-11\n"
		   "  --json        machine-readable output (summary)\n"
		   "  -h, --help    this help\n"
		   "  -V, --version print the version\n"
		   "\nPATH is a profile directory (walked up to 10 levels deep) or a single .db file.\n"
		   "Exit status: 0 ok, 1 usage or I/O error, 2 nothing could be loaded.\n");
}

static int
load_opts_run(cli *c, tl_trace *tr)
{
	tl_load_opts o = {.ranks = c->have_ranks ? &c->ranks : NULL};
	return load_trace(c->path, &o, tr);
}

static int
cmd_info(cli *c)
{
	tl_sourcelist sl = {0};
	if (discover(c->path, c->have_ranks ? &c->ranks : NULL, &sl) != 0)
		return 1;
	report_info(stdout, &sl);
	int rc = sl.n == 0 ? 2 : 0;
	if (sl.n == 0)
		msg_error("%s: no profile data found", c->path);
	sourcelist_free(&sl);
	return rc;
}

static int
cmd_summary(cli *c)
{
	tl_trace tr;
	int rc = load_opts_run(c, &tr);
	if (rc == 0) {
		if (c->json)
			report_summary_json(stdout, &tr);
		else
			report_summary_text(stdout, &tr);
	}
	if (getenv("TL_STATS") != NULL) { /* figures for `make bench` */
		size_t nslices = 0, bytes = trace_slice_bytes(&tr, &nslices);
		uint64_t rows = 0;
		for (size_t i = 0; i < tr.nranks; i++)
			rows += tr.ranks[i]->rows;
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "stats: ranks=%zu slices=%zu slice_bytes=%zu rows=%llu maxrss_kb=%ld\n",
		    tr.nranks, nslices, bytes, (unsigned long long)rows, ru.ru_maxrss);
	}
	trace_free(&tr);
	return rc;
}

static char *
demo_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/tl/demo-v1", xdg);
	const char *home = getenv("HOME");
	if (home == NULL || *home == '\0')
		home = "/tmp";
	return xasprintf("%s/.cache/tl/demo-v1", home);
}

static int
mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes a tree that tl itself generated (a stale, partial demo profile). */
static void
rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int
cmd_demo(cli *c)
{
	char *dir = demo_dir();
	char *stamp = xasprintf("%s/.complete", dir);
	struct stat st;
	int rc = 0;
	if (stat(stamp, &st) != 0) {
		char *tmp = xasprintf("%s.tmp.%ld", dir, (long)getpid());
		char *parent = xstrdup(dir);
		*strrchr(parent, '/') = '\0';
		fprintf(stderr, "tl: generating the demo profile in %s ...\n", dir);
		gen_opts o;
		gen_opts_default(&o);
		if (mkdir_p(parent) != 0 || gen_profile(&o, tmp, NULL) != 0) {
			msg_error("cannot write the demo profile under %s", parent);
			rc = 1;
		} else {
			FILE *f;
			rm_tree(dir); /* a stale, partial demo from an interrupted run */
			if (rename(tmp, dir) != 0 || (f = fopen(stamp, "w")) == NULL) {
				msg_error("cannot create %s: %s", dir, strerror(errno));
				rc = 1;
			} else {
				fclose(f);
			}
		}
		free(tmp);
		free(parent);
	}
	if (rc == 0) {
		c->path = dir;
		/* the TUI does not exist yet: show the summary of the demo */
		rc = cmd_summary(c);
	}
	free(stamp);
	free(dir);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"rank", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"no-view", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	cli c;
	memset(&c, 0, sizeof c);
	const command *cmd = NULL;
	if (argc >= 2 && argv[1][0] != '-') {
		for (size_t i = 0; i < NCOMMANDS; i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				cmd = &commands[i];
		if (cmd == NULL) {
			fprintf(stderr, "tl: unknown command '%s'\n", argv[1]);
			usage(stderr);
			return 1;
		}
		argc--;
		argv++;
	}
	int ch;
	char err[256];
	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (c.have_ranks)
				rankset_free(&c.ranks);
			if (rankspec_parse(optarg, &c.ranks, err, sizeof err) != 0) {
				fprintf(stderr, "tl: %s\n", err);
				return 1;
			}
			c.have_ranks = 1;
			break;
		case 'j':
			c.json = 1;
			break;
		case 'n':
			c.no_view = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (cmd == NULL) {
		usage(stderr);
		return 1;
	}
	if (cmd->needs_path) {
		if (optind >= argc) {
			fprintf(stderr, "tl: %s needs a PATH\nusage: %s\n", cmd->name, cmd->usage);
			return 1;
		}
		c.path = argv[optind++];
	}
	if (optind < argc) {
		fprintf(stderr, "tl: unexpected argument '%s'\nusage: %s\n", argv[optind], cmd->usage);
		return 1;
	}
	int rc = cmd->run(&c);
	if (c.have_ranks)
		rankset_free(&c.ranks);
	return rc;
}
