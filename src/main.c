/* tl: a terminal timeline viewer for distributed AI-training profiles. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <curses.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <sqlite3.h>

#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "profile/discover.h"
#include "query/diff.h"
#include "query/query.h"
#include "report/report.h"
#include "report/triage.h"
#include "sql/sql.h"
#include "ui/ui.h"
#include "util/files.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/phases.h"
#include "util/rankspec.h"
#include "util/timefmt.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "tl_revision.h" /* TL_REVISION, written at build time by tools/git-revision */

typedef struct cli {
	const char *path;
	const char *path_b;  /* diff: the second profile, NULL with --vs */
	const char *compare; /* view --compare B */
	int vs_rank; /* diff --vs N: compare the --rank rank with rank N; -1 when not given */
	int64_t steps_a, steps_b; /* diff --steps A:B; -1 when not given */
	tl_rankset ranks;
	int have_ranks;
	int json;
	int series;        /* summary --json --series */
	int csv;           /* query --csv */
	const char *sql;   /* query: the statement, or .tables / .schema [TABLE] */
	tl_export_opts ex; /* export: -o, --from/--to, --step, --format */
	int have_from, have_to;
	int no_view;
	tl_query_opts query; /* summary, view: the query session's options (--pp) */
	/* view */
	const char *theme, *keymap, *script, *stats;
	int cols, rows;
	size_t finding; /* --finding N: open on finding N (1-based); 0: not given */
	int man;
	/* the model cache */
	int no_cache, clear;
	const char *cache_dir;
	const char *trust; /* --trust-cache OWNER[,OWNER...]; NULL: not given */
	int argc;          /* the command line, for a stored result's key */
	/* triage: --top N, --fail-on DURATION|PERCENT (exit 3), --set NAME=VALUE thresholds */
	size_t top;
	int64_t fail_ns;
	double fail_share;
	tl_find_opts find;
	/* critical --what-if, each as given (the scales point into their own copies) */
	cp_scale whatif[16];
	char whatif_buf[16][256];
	size_t nwhatif;
	char whatif_text[512];
	char **argv;
	/* the hosts' clocks: --clock raw keeps each host's; --clock-offset HOST=NS (repeatable) */
	int clock_raw;
	tl_clock_fix *clock_fix;
	size_t nclock_fix, clock_cap;
} cli;

static int64_t start_mono_ns; /* for the viewer's time to first frame */

/* Long-only options: getopt values above 255, and the commands that take each. */
enum {
	OPT_COMPARE = 256,
	OPT_TRUST,
	OPT_CLOCK,
	OPT_CLOCK_OFFSET,
	OPT_TOP,
	OPT_FAIL_ON,
	OPT_SET,
	OPT_WHATIF,
	OPT_FROM,
	OPT_TO,
	OPT_STEP,
	OPT_FORMAT,
	OPT_FINDING
};
static const struct {
	int opt;
	const char *commands; /* separated by spaces */
} long_only[] = {
    {OPT_COMPARE, "view demo"}, /* demo: the options of view */
    {OPT_TRUST, "summary diff view index cache demo query triage critical export"},
    {OPT_CLOCK, "info summary diff view demo query triage critical export"},
    {OPT_CLOCK_OFFSET, "info summary diff view demo query triage critical export"},
    {OPT_TOP, "triage"},
    {OPT_FAIL_ON, "triage"},
    {OPT_SET, "triage"},
    {OPT_WHATIF, "critical"},
    {OPT_FROM, "export"},
    {OPT_TO, "export"},
    {OPT_STEP, "export"},
    {OPT_FORMAT, "export"},
    {OPT_FINDING, "view demo"},
};

typedef struct command {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(cli *);
	int needs_path;
	const char *opts; /* the options it takes: their getopt values (see longopts) */
} command;

/* The options of the viewer, which `tl demo` opens too: --rank, --pp, --theme, --keymap,
 * --script, --size and --stats (per-frame figures for `make bench`). */
#define VIEW_OPTS "rPTKSZXNC"

static int cmd_info(cli *);
static int cmd_summary(cli *);
static int cmd_diff(cli *);
static int cmd_demo(cli *);
static int cmd_view(cli *);
static int cmd_keys(cli *);
static int cmd_index(cli *);
static int cmd_cache(cli *);
static int cmd_query(cli *);
static int cmd_triage(cli *);
static int cmd_critical(cli *);
static int cmd_export(cli *);

static const command commands[] = {
    {"demo", "tl demo [--no-view] [the options of view]",
     "generate an 8-rank GRPO job (once) and view it", cmd_demo, 0, "n" VIEW_OPTS},
    {"view",
     "tl view PATH [--compare B] [--rank SPEC] [--theme NAME] [--keymap NAME]\n"
     "          [--pp N] [--finding N] [--script FILE [--size CxR]] [--stats FILE]\n"
     "          [--no-cache] [--cache-dir DIR] [--trust-cache OWNERS]\n"
     "          [--clock raw|align] [--clock-offset HOST=NS]",
     "the timeline viewer, lanes per rank (? in it: the keys)", cmd_view, 1, VIEW_OPTS},
    {"summary",
     "tl summary PATH [--rank SPEC] [--json [--series]] [--pp N] [--no-cache]\n"
     "          [--cache-dir DIR] [--trust-cache OWNERS] [--clock raw|align]\n"
     "          [--clock-offset HOST=NS]",
     "per rank and step: overlap, RL stages, comm, critical path", cmd_summary, 1, "rjPNCs"},
    {"triage",
     "tl triage PATH [--rank SPEC] [--json] [--top N]\n"
     "          [--fail-on DURATION|PERCENT] [--set NAME=VALUE] [--pp N] [--no-cache]\n"
     "          [--cache-dir DIR] [--trust-cache OWNERS] [--clock raw|align]\n"
     "          [--clock-offset HOST=NS]",
     "what is wrong: findings ranked by the time each costs", cmd_triage, 1, "rjPNC"},
    {"critical",
     "tl critical PATH [--rank SPEC] [--json] [--what-if SPEC]... [--pp N]\n"
     "          [--no-cache] [--cache-dir DIR] [--trust-cache OWNERS]\n"
     "          [--clock raw|align] [--clock-offset HOST=NS]",
     "each step's critical path across ranks: blame, what-ifs", cmd_critical, 1, "rjPNC"},
    {"diff",
     "tl diff A B [--rank SPEC] [--steps A:B] [--json] [--pp N] [--no-cache]\n"
     "          [--cache-dir DIR] [--trust-cache OWNERS] [--clock raw|align]\n"
     "          [--clock-offset HOST=NS]; tl diff A --rank N --vs M\n"
     "          [the options above]",
     "what changed from A to B (or rank N to M), largest first", cmd_diff, 1, "rjPvANC"},
    {"info", "tl info PATH [--rank SPEC] [--clock raw|align] [--clock-offset HOST=NS]",
     "the ranks and files under PATH, when captured; hosts' clocks", cmd_info, 1, "r"},
    {"query",
     "tl query PATH SQL [--rank SPEC] [--csv | --json] [--no-cache]\n"
     "          [--cache-dir DIR] [--trust-cache OWNERS] [--clock raw|align]\n"
     "          [--clock-offset HOST=NS]; tl query PATH .tables | .schema [TABLE]",
     "SQL over the profile: slices, steps, stages, ops, ...", cmd_query, 1, "rjQNC"},
    {"export",
     "tl export PATH -o OUT [--rank SPEC] [--from T --to T | --step N]\n"
     "          [--format chrome|csv] [--no-cache] [--cache-dir DIR]\n"
     "          [--trust-cache OWNERS] [--clock raw|align] [--clock-offset HOST=NS]",
     "a window as Chrome traces (for Perfetto, Insight) or CSV", cmd_export, 1, "roNC"},
    {"index", "tl index PATH [--rank SPEC] [--cache-dir DIR] [--trust-cache OWNERS]",
     "read PATH into the model cache without viewing it", cmd_index, 1, "rC"},
    {"cache", "tl cache [--clear] [--cache-dir DIR] [--trust-cache OWNERS]",
     "where the model cache is, its size; --clear empties yours", cmd_cache, 0, "LC"},
    {"keys", "tl keys [--keymap NAME] [--man|--markdown]",
     "the viewer's actions and :-commands with their keys", cmd_keys, 0, "KMD"},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* The options' help, each with the getopt value that names it (see longopts): `tl help
 * COMMAND` prints those the command takes. The tuning variables (TL_*) are in the man page. */
static const struct {
	int opt;
	const char *text;
} option_help[] = {
    {'r', "  --rank SPEC   only these ranks: 0-7, 0,2,4, 0-3,8-11\n"},
    {'j', "  --json        machine-readable output (query: an array of objects)\n"},
    {'Q', "  --csv         CSV with a header row (RFC 4180)\n"},
    {'s', "  --series      (with --json) each rollout's engine steps in \"dp\": times,\n"
          "                requests, KV-cache use and tokens per step\n"},
    {'A', "  --steps A:B   pair A's step A with B's step B (and the steps after them);\n"
          "                default: the n-th profiled step of A with the n-th of B\n"},
    {'v', "  --vs M        with --rank N and one PATH: compare rank N against rank M\n"},
    {OPT_COMPARE,
     "  --compare B   run B's lanes under PATH's for each rank, aligned on the step\n"
     "                at the cursor, a delta lane per stage and tl diff's changes (%)\n"},
    {'T', "  --theme NAME  viewer colours: default, light, mono, or your own\n"
          "                ($XDG_CONFIG_HOME/tl/NAME.theme)\n"},
    {'K', "  --keymap NAME viewer keys: default, vim, emacs, or your own\n"
          "                ($XDG_CONFIG_HOME/tl/NAME.keys)\n"},
    {'S', "  --script FILE drive the viewer from FILE: a key name or :-command per line\n"},
    {'Z', "  --size CxR    with --script: no terminal, a COLSxROWS screen (e.g. 120x40)\n"},
    {OPT_FINDING, "  --finding N   open on tl triage's finding N: its place on the timeline,\n"
                  "                its evidence on the message line (! lists them all)\n"},
    {'X', "  --stats FILE  write per-frame CPU time, terminal bytes and minor faults\n"
          "                to FILE, and what the background populate did\n"},
    {'n', "  --no-view     print the summary instead of opening the viewer\n"},
    {'N', "  --no-cache    neither read nor write the model cache; the viewer writes its\n"
          "                ranks to unnamed files in the cache directory and maps them\n"
          "                back, to keep them out of memory\n"},
    {'C', "  --cache-dir DIR\n"
          "                the model cache's directory (default $XDG_CACHE_HOME/tl/models,\n"
          "                else ~/.cache/tl/models); a shared one serves several hosts\n"},
    {OPT_TRUST, "  --trust-cache OWNER[,OWNER...]\n"
                "                read the cache files of these owners too: user or group names,\n"
                "                uids, @GROUP or @GID (its members); by default only your own\n"
                "                and root's are read (else TL_CACHE_TRUST, else a trust-cache\n"
                "                line in $XDG_CONFIG_HOME/tl/config); others' are skipped, one\n"
                "                line saying how many and whose\n"},
    {'L', "  --clear       remove your own cache files and their stamps\n"},
    {OPT_TOP, "  --top N       only the first N findings\n"},
    {OPT_FAIL_ON, "  --fail-on X   exit 3 when a finding costs at least X: 5ms, or 2% of the\n"
                  "                step time\n"},
    {OPT_SET, "  --set N=V     a rule's threshold, e.g. stall_ms=2 (man tl: FINDINGS)\n"},
    {'o', "  --output OUT, -o OUT\n"
          "                chrome: a directory (new, or empty) that gets one Chrome trace\n"
          "                per rank, rank{r}.trace.json; csv: a new file, or - for stdout;\n"
          "                tl never overwrites a file and never writes inside the input\n"},
    {OPT_STEP, "  --step N      the slices of ProfilerStep N (the step column of tl query's\n"
               "                slices)\n"},
    {OPT_FROM, "  --from T      with --to: the slices that meet [T, T'), ns on the profile's\n"
               "                clock (start_ns)\n"},
    {OPT_TO, "  --to T        the end of the window that --from starts\n"},
    {OPT_FORMAT, "  --format F    chrome (default): Ascend trace_view.json naming, which tl\n"
                 "                reads back to the same overlap numbers; csv: the slices\n"
                 "                table's rows, with a header\n"},
    {OPT_WHATIF, "  --what-if SPEC\n"
                 "                scale durations and predict each step's time on the same\n"
                 "                graph: 'MatMul*=-20%', 'rank:3=-10%', 'rank:3:NAME=+5%'\n"
                 "                (NAME a kernel or op name, shell wildcards); may be repeated\n"},
    {OPT_CLOCK, "  --clock raw   keep each host's clock; by default (align) every rank is moved\n"
                "                onto the clock of the host of the lowest rank, estimated from\n"
                "                the collectives and P2P pairs the hosts share (man tl: CLOCKS)\n"},
    {OPT_CLOCK_OFFSET, "  --clock-offset HOST=NS\n"
                       "                (repeatable) HOST's clock is NS ns ahead of the reference\n"
                       "                host's: set by hand instead of estimated\n"},
    {'P', "  --pp N        N pipeline stages in rank order, when the profile names none\n"
          "                (distributed_args) and P2P partners do not tell; it also lets\n"
          "                forward/backward operator pairs make PP blocks\n"},
    {'M', "  --man         the list as man page source (roff)\n"},
    {'D', "  --markdown    the list as a Markdown table\n"},
};

static int command_takes(const command *cmd, int ch);

/* "tl summary PATH" of "tl summary PATH [--rank SPEC] ...": the usage up to its first option. */
static int
usage_head(const char *u)
{
	int n = 0;
	while (u[n] && u[n] != '\n' && u[n] != ';' && !(u[n] == ' ' && u[n + 1] == '['))
		n++;
	return n;
}

/* `tl --help`, `tl help`: short, a line per command; each command's options are in `tl help
 * COMMAND`, everything (keys, JSON fields, tuning variables) in man tl. */
static void
usage(FILE *f)
{
	fprintf(f, "tl: a terminal timeline viewer for distributed AI-training profiles\n\n"
	           "usage: tl COMMAND [PATH] [options]\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-17.*s %s\n", usage_head(commands[i].usage), commands[i].usage,
		        commands[i].help);
	fprintf(f, "  %-17s %s\n", "tl help [COMMAND]",
	        "this help, or a command's usage and options");
	fprintf(
	    f,
	    "\n  -h, --help       this help (tl COMMAND --help: the command's)\n"
	    "  -V, --version    print the version, the git revision and how tl was linked\n"
	    "\nStart with `tl demo` (a generated 8-rank job), or `tl view PATH` on a profile\n"
	    "directory; in the viewer, ? lists the keys. Everything, with the TL_* tuning\n"
	    "variables: man tl.\n"
	    "Exit status: 0 ok, 1 usage or I/O error, 2 nothing could be loaded (or not\n"
	    "enough memory for the ranks asked for), 3 tl triage --fail-on's bar was reached.\n");
}

/* `tl help COMMAND`, `tl COMMAND --help`: its usage, what it does, the options it takes. */
static void
command_help(FILE *f, const command *cmd)
{
	fprintf(f, "usage: %s\n%s\n\noptions:\n", cmd->usage, cmd->help);
	for (size_t i = 0; i < sizeof option_help / sizeof *option_help; i++)
		if (command_takes(cmd, option_help[i].opt))
			fputs(option_help[i].text, f);
	fputs("  -h, --help    this help\n", f);
	if (strcmp(cmd->name, "demo") == 0)
		fputs("\nThe demo is written to $XDG_CACHE_HOME/tl/demo-v3 (~/.cache/tl/demo-v3) "
		      "once.\n",
		      f);
	if (cmd->needs_path)
		fputs(
		    "\nPATH is a profile directory (walked up to 10 levels deep) or a single "
		    "file: a\n"
		    ".db (torch_npu, MindSpore, msprof's msprof_*.db, CANN 7.0's report_*.db), a\n"
		    "trace_view.json (any version, any name), a Kineto or legacy PyTorch trace\n"
		    "(a *.json.gz is read compressed, at most TL_GZIP_MAX=SIZE inflated, default\n"
		    "4G); older layouts too: msprof's per-iteration export (CANN <= 7:\n"
		    "PROF_*/device_N/timeline/msprof_N_MODEL_ITER.json, a rank per device) and\n"
		    "MindSpore 1.x timelines (ascend_timeline_display_RANK.json with its\n"
		    "step_trace_raw_RANK_detail_time.csv). A trace without device work (CPU-only)\n"
		    "is summarised as such: its gloo/c10d collectives are the communication, and\n"
		    "stage rules find its record_function ranges. Inputs are read-only to tl, and\n"
		    "untrusted: crafted files are refused, names are printed escaped. Ranks that\n"
		    "need more memory than is free are refused before loading.\n",
		    f);
	if (command_takes(cmd, 'C'))
		fputs("\nEach rank read is kept in the model cache, keyed by its files' identity "
		      "(path,\n"
		      "inode, size, modification time): the next open of unchanged files reads it\n"
		      "instead (least recently used first out above its bound); tl summary also "
		      "stores\n"
		      "its output there and prints it again for the same command over unchanged "
		      "files.\n"
		      "The viewer populates the mapped cache files in the background after its "
		      "first\n"
		      "frame.\n",
		      f);
	fputs("\nThe tuning variables (TL_*) and everything else: man tl.\n", f);
}

/* The model cache a command reads and writes: NULL with --no-cache, except for the viewer
 * (spill), which then writes its ranks to files of its own (cache_open_spill) unless TL_SPILL=0. */
static tl_cache *
cli_cache(const cli *c, tl_cache *store, int spill)
{
	if (c->no_cache)
		return spill && cache_open_spill(store, c->cache_dir) ? store : NULL;
	cache_open(store, c->cache_dir);
	/* no directory (neither XDG_CACHE_HOME nor HOME): no cache, silently; the static
	 * build's `env -i` runs print the bytes the dynamic build does (tests/release) */
	return store;
}

/* Loads path with c's options; tables: the TL_TABLE_* the command's queries will read (gathered
 * in the load's own pass instead of read again); cache: the model cache the caller opened,
 * CACHE_NONE for none, NULL to open c's for this load; lean: the command reads no slice's row
 * id but the communication and step lanes' (tl_load_opts.lean). */
#define CACHE_NONE ((tl_cache *)-1)
static int
load_path_run(const cli *c, const char *path, tl_trace *tr, unsigned tables, tl_cache *cache,
              int lean)
{
	tl_cache own;
	tl_load_opts o = {.ranks = c->have_ranks ? &c->ranks : NULL,
	                  .cache = cache == CACHE_NONE ? NULL
	                           : cache != NULL     ? cache
	                                               : cli_cache(c, &own, 0),
	                  .release_pages = c->query.release_pages,
	                  .tables = tables,
	                  .lean = lean,
	                  .clock_raw = c->clock_raw,
	                  .clock_fix = c->clock_fix,
	                  .nclock_fix = c->nclock_fix};
	int rc = load_trace(path, &o, tr);
	if (cache == NULL && o.cache != NULL)
		cache_close(o.cache);
	return rc;
}

static int
load_opts_run(cli *c, tl_trace *tr, unsigned tables)
{
	return load_path_run(c, c->path, tr, tables, NULL, 0);
}

static int
cmp_rec(const void *a, const void *b)
{
	const tl_cache_rec *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
cmd_index(cli *c)
{
	tl_cache cache;
	cache_open(&cache, c->cache_dir);
	if (cache.dir == NULL) {
		msg_error(
		    "no cache directory: neither XDG_CACHE_HOME nor HOME is set (--cache-dir DIR)");
		cache_close(&cache);
		return 1;
	}
	tl_trace tr;
	/* nothing reads a rank once it is written: its file's pages given back */
	tl_load_opts o = {
	    .ranks = c->have_ranks ? &c->ranks : NULL, .cache = &cache, .release_pages = 1};
	int rc = load_trace(c->path, &o, &tr);
	if (cache.nrecs > 1)
		qsort(cache.recs, cache.nrecs, sizeof *cache.recs, cmp_rec);
	uint64_t bytes = 0, slices = 0;
	size_t unwritten = 0;
	for (size_t i = 0; i < cache.nrecs; i++) {
		const tl_cache_rec *x = &cache.recs[i];
		if (x->status == TL_CACHE_UNWRITTEN) {
			printf("rank %d: not written (%llu slices)\n", x->rank,
			       (unsigned long long)x->slices);
			unwritten++;
			continue;
		}
		printf("rank %d: %s %s (%llu slices, %llu bytes)\n", x->rank,
		       x->status == TL_CACHE_HIT ? "already cached in" : "wrote", x->file,
		       (unsigned long long)x->slices, (unsigned long long)x->bytes);
		bytes += x->bytes;
		slices += x->slices;
	}
	printf("%zu ranks in %s: %llu slices, %llu bytes\n", cache.nrecs - unwritten,
	       cache.dir ? cache.dir : "(no cache directory)", (unsigned long long)slices,
	       (unsigned long long)bytes);
	if (rc == 0 && unwritten > 0)
		rc = 1;
	trace_free(&tr);
	cache_close(&cache);
	return rc;
}

static int
cmd_cache(cli *c)
{
	tl_cache cache;
	cache_open(&cache, c->cache_dir);
	int rc = 0;
	if (c->clear) {
		long results, others, n = cache_clear(&cache, &results, &others);
		if (n < 0) {
			msg_error("%s: cannot read the cache directory: %s", cache.dir,
			          strerror(errno));
			rc = 1;
		} else {
			printf("removed %ld cache files and %ld stored results from %s\n", n,
			       results, cache.dir);
			if (others > 0)
				printf("left %ld files of other users (never removed)\n", others);
		}
	} else {
		cache_report(&cache, stdout);
	}
	cache_close(&cache);
	return rc;
}

static int
cmd_info(cli *c)
{
	tl_sourcelist sl = {0};
	if (discover(c->path, c->have_ranks ? &c->ranks : NULL, &sl) != 0)
		return 1;
	load_capture_times(&sl);
	report_info(stdout, &sl);
	int *run_of = xcalloc(sl.n ? sl.n : 1, sizeof *run_of);
	int nruns = discover_runs(&sl, run_of);
	if (nruns > 1) { /* what view, summary and diff refuse to merge (exit 2) */
		printf("\n%d runs, not one job (view, summary and diff take the path of one):\n",
		       nruns);
		for (int r = 0; r < nruns; r++) {
			char line[1024], safe[1024];
			discover_run_describe(&sl, run_of, r, line, sizeof line);
			printf("  %s\n", text_sanitize(line, safe, sizeof safe, 1));
		}
	}
	free(run_of);
	int rc = sl.n == 0 ? 2 : 0;
	if (sl.n == 0)
		msg_error("%s: no profile data found", c->path);
	/* several hosts: their clocks, as every other command aligns them (this loads the
	 * ranks, from the model cache when it holds them) */
	if (rc == 0 && !c->clock_raw && load_sources_multi_host(&sl)) {
		tl_trace tr;
		if (load_opts_run(c, &tr, 0) == 0)
			report_clock_text(stdout, &tr);
		trace_free(&tr);
	}
	sourcelist_free(&sl);
	return rc;
}

/* Where a report keeps what it computed with the stored results: the model cache and the key
 * of the command line without the command and its output options (so that tl summary, text or
 * JSON, and tl critical share one critical path); cc NULL: nothing is kept. */
typedef struct stored_part {
	tl_cache *cc;
	const cli *c;
} stored_part;

/* What a report command prints of a loaded profile, to out; returns its exit status (0, or
 * tl triage's 3 when --fail-on's bar is reached). */
typedef int (*report_fn)(const cli *c, tl_query *q, FILE *out, const stored_part *sp);

/* Whether argument i of a command line only says how the output looks or what it adds (the
 * words left out of a shared part's key), and how many words it takes. */
static int
output_word(char *const *argv, int argc, int i)
{
	static const char *const one[] = {"--json", "--series"};
	static const char *const two[] = {"--what-if", "--output", "-o"};
	for (size_t k = 0; k < sizeof one / sizeof *one; k++)
		if (strcmp(argv[i], one[k]) == 0)
			return 1;
	for (size_t k = 0; k < sizeof two / sizeof *two; k++) {
		size_t l = strlen(two[k]);
		if (strcmp(argv[i], two[k]) == 0)
			return i + 1 < argc ? 2 : 1;
		if (strncmp(argv[i], two[k], l) == 0 && argv[i][l] == '=')
			return 1;
	}
	return 0;
}

/* The key the critical path of q is kept under with the stored results (NULL: no cache). */
static uint8_t *
critical_key(const stored_part *sp, size_t *klen)
{
	if (sp == NULL || sp->cc == NULL)
		return NULL;
	const cli *c = sp->c;
	char **w = xcalloc((size_t)c->argc + 1, sizeof *w);
	int n = 0;
	static char tag[] = "(critical path)"; /* no command's word */
	w[n++] = tag;
	for (int i = 1; i < c->argc;) { /* argv[0] is the command */
		int k = output_word(c->argv, c->argc, i);
		if (k == 0)
			w[n++] = c->argv[i++];
		else
			i += k;
	}
	uint8_t *key = cache_result_key_path(c->path, c->have_ranks ? &c->ranks : NULL,
	                                     c->query.rules_path, n, w, klen);
	free(w);
	return key;
}

/* cache_part_get's taker of a kept path: decoded into ctx (a tl_cp_result). */
static const char *
critical_take(const uint8_t *p, size_t n, void *ctx)
{
	return tlq_critical_decode(p, n, ctx);
}

/* The path kept under key into out: 1, or 0 (out empty). */
static int
critical_stored(const stored_part *sp, const uint8_t *key, size_t klen, tl_cp_result *out)
{
	memset(out, 0, sizeof *out);
	if (key != NULL && cache_part_get(sp->cc, key, klen, critical_take, out))
		return 1;
	memset(out, 0, sizeof *out); /* (a decode stopped by SIGBUS leaves what it had) */
	return 0;
}

/* Keeps a computed path under key when every rank was kept. */
static void
critical_keep(const stored_part *sp, const uint8_t *key, size_t klen, const tl_cp_result *cp)
{
	if (key == NULL || !cache_all_kept(sp->cc))
		return;
	size_t n = 0;
	uint8_t *b = tlq_critical_encode(cp, &n);
	if (b != NULL)
		cache_part_put(sp->cc, key, klen, b, n);
	free(b);
}

/* The critical path of q without what-ifs: the one kept with the stored results for the same
 * inputs and load options, or computed (and kept when every rank was). out: tlq_critical's. */
static void
critical_path_of(const stored_part *sp, tl_query *q, tl_cp_result *out)
{
	size_t klen = 0;
	uint8_t *key = critical_key(sp, &klen);
	if (!critical_stored(sp, key, klen, out)) {
		tlq_critical(q, NULL, 0, out);
		critical_keep(sp, key, klen, out);
	}
	free(key);
}

/* Loads the profile into tr (empty when nothing was loaded) and prints report's output, or,
 * for the same command line over unchanged inputs, its stored result: the command's
 * messages and output are kept in the model cache and printed again as they were. TL_STATS
 * (make bench) measures the load and TL_CACHE_RESULTS=0 the model cache, so neither reads
 * nor stores one. The exit status. */
static int
run_stored(cli *c, unsigned tables, report_fn report, tl_trace *tr)
{
	trace_init(tr);
	tl_cache cache, *cc = cli_cache(c, &cache, 0);
	const char *use = getenv("TL_CACHE_RESULTS");
	size_t klen = 0;
	uint8_t *key = NULL;
	if (cc != NULL && cc->dir != NULL && getenv("TL_STATS") == NULL &&
	    (use == NULL || strcmp(use, "0") != 0))
		key = cache_result_key_path(c->path, c->have_ranks ? &c->ranks : NULL,
		                            c->query.rules_path, c->argc, c->argv, &klen);
	tl_result res = {0};
	if (key != NULL && cache_result_get(cc, key, klen, &res)) {
		fwrite(res.err, 1, res.nerr, stderr);
		fwrite(res.out, 1, res.nout, stdout);
		int status = res.status;
		cache_result_free(&res);
		free(key);
		cache_close(cc);
		return status;
	}
	FILE *out = stdout, *err = NULL;
	if (key != NULL) {
		out = open_memstream(&res.out, &res.nout);
		err = open_memstream(&res.err, &res.nerr);
		msg_tee(err);
	}
	int rc = load_path_run(c, c->path, tr, tables, cc != NULL ? cc : CACHE_NONE, 1);
	if (rc == 0) {
		/* TL_PHASES: the report is made in memory, then written, to time each apart */
		char *buf = NULL;
		size_t nbuf = 0;
		FILE *mem = phases_on() && out == stdout ? open_memstream(&buf, &nbuf) : NULL;
		tl_phase_mark pm;
		phase_begin(&pm, 1);
		tl_query *q = tlq_open(tr, &c->query);
		/* the parts are kept under TL_STATS and TL_CACHE_RESULTS=0 too: as the hosts'
		 * clock estimate, the critical path belongs to the model (its key: the inputs
		 * and load options), not to a command's output (a measured warm summary reads
		 * the path it would print, as a user's would) */
		stored_part sp = {cc != NULL && cc->dir != NULL ? cc : NULL, c};
		rc = report(c, q, mem != NULL ? mem : out, &sp);
		tlq_close(q);
		if (mem != NULL)
			fclose(mem);
		phase_end(&pm, TL_PHASE_ANALYSES, 1);
		if (mem != NULL) {
			phase_begin(&pm, 1);
			fwrite(buf, 1, nbuf, out);
			fflush(out);
			phase_end(&pm, TL_PHASE_OUTPUT, 1);
			free(buf);
		}
	}
	if (key != NULL) {
		msg_tee(NULL);
		fclose(out);
		fclose(err);
		fwrite(res.out, 1, res.nout, stdout);
		res.status = rc;
		if (cache_all_kept(cc))
			cache_result_put(cc, key, klen, &res);
		cache_result_free(&res);
		free(key);
	}
	if (cc != NULL)
		cache_close(cc);
	phases_print(stderr);
	return rc;
}

static double summary_critical_ms = -1, summary_critical_cpu_ms = -1;

/* The critical path of tl summary and tl triage: the stored one, or computed beside the
 * command's other analyses (tlq_critical_start), waited for when the findings need it
 * (path_wait). */
typedef struct path_beside {
	const stored_part *sp;
	uint8_t *key;
	size_t klen;
	tlq_cp_job *job; /* NULL: cp is there */
	tl_cp_result cp;
} path_beside;

static const tl_cp_result *
path_wait(void *arg)
{
	path_beside *s = arg;
	if (s->job != NULL) {
		int64_t wall, cpu;
		tlq_critical_join(s->job, &s->cp, &wall, &cpu);
		s->job = NULL;
		/* the path's own time, for `make bench` (cmd_summary's stats line) */
		summary_critical_ms = (double)wall / 1e6;
		summary_critical_cpu_ms = (double)cpu / 1e6;
		critical_keep(s->sp, s->key, s->klen, &s->cp);
	}
	return &s->cp;
}

/* The stored path into s->cp (returned), or its job started (NULL: path_wait gives it).
 * nlong: the command prints no segment but the nlong longest of each step (SIZE_MAX: all):
 * a path that is not kept (no model cache) keeps no more (tlq_critical_start's lean). */
static const tl_cp_result *
path_begin(path_beside *s, const stored_part *sp, tl_query *q, size_t nlong)
{
	memset(s, 0, sizeof *s);
	s->sp = sp;
	s->key = critical_key(sp, &s->klen);
	struct timespec c0, c1;
	int64_t t0 = timefmt_mono_ns();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	if (critical_stored(sp, s->key, s->klen, &s->cp)) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		summary_critical_ms = (double)(timefmt_mono_ns() - t0) / 1e6;
		summary_critical_cpu_ms =
		    (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
		return &s->cp;
	}
	s->job = tlq_critical_start(q, s->key == NULL && nlong != SIZE_MAX, nlong);
	return NULL;
}

static void
path_end(path_beside *s)
{
	path_wait(s); /* (the findings waited for it already) */
	tlq_critical_free(&s->cp);
	free(s->key);
}

static int
summary_report(const cli *c, tl_query *q, FILE *out, const stored_part *sp)
{
	path_beside s;
	report_opts ro = {.series = c->series};
	/* the text prints each step's longest segments, --json every one */
	ro.cp = path_begin(&s, sp, q, c->json ? SIZE_MAX : REPORT_SUMMARY_SEGMENTS);
	if (ro.cp == NULL) {
		ro.cp_wait = path_wait;
		ro.cp_ctx = &s;
	}
	if (c->json)
		report_summary_json_opts(out, q, &ro);
	else
		report_summary_text_opts(out, q, &ro);
	path_end(&s);
	return 0;
}

/* A command that loads every rank, reports and exits (summary, triage, critical, diff). Each
 * analysis of each rank touches the pages of its mapped cache file it reads: given back as it
 * is done (release_pages, query.h), they would otherwise add up to every file. And its heap:
 * every block of 128 KiB or more is a mapping of its own. glibc's threshold otherwise
 * rises to the largest mapping freed (up to 32 MiB), and from then on a lane's slices, an
 * operator group's durations and the loaders' scratch grow inside the arena, where what one rank
 * frees leaves holes the next rank's arrays do not fit: 8 ranks x 1M tasks peaked at 412 MB,
 * 357 with the fixed threshold, for 2% more CPU. A mapping grows by mremap, untouched slack
 * costs nothing, and one freed goes back to the system at once. */
static void
batch_setup(cli *c)
{
	c->query.release_pages = 1;
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

static int
cmd_summary(cli *c)
{
	batch_setup(c);
	if (c->series && !c->json) { /* the text summary has no series to add them to */
		fprintf(stderr, "tl: --series goes with --json\n");
		return 1;
	}
	tl_trace tr;
	/* the summary's findings read the operators, the launches and the communication ops
	 * (--json also the counters); the operators of the whole capture only, no task's start,
	 * and for the text (its aicpu_op finding) each operator's count and total only: not the
	 * 8 bytes a compute task the durations take (62 MB of 8 ranks x 1M tasks) */
	unsigned tables = TL_TABLE_ALL & ~TL_TABLE_OP_STARTS;
	if (!c->json)
		tables |= TL_TABLE_OP_TOTALS;
	int rc = run_stored(c, tables, summary_report, &tr);
	if (getenv("TL_STATS") != NULL) { /* figures for `make bench` */
		size_t nslices = 0, bytes = trace_slice_bytes(&tr, &nslices);
		uint64_t rows = 0;
		for (size_t i = 0; i < tr.nranks; i++)
			rows += tr.ranks[i]->rows;
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		int64_t fcpu = 0, fns = tlq_findings_ns(&fcpu);
		fprintf(
		    stderr,
		    "stats: ranks=%zu slices=%zu slice_bytes=%zu rows=%llu maxrss_kb=%ld "
		    "critical_ms=%.1f critical_cpu_ms=%.1f "
		    "clock_ns=%llu clock_cpu_ns=%llu clock_kept=%llu findings_ns=%lld "
		    "findings_cpu_ns=%lld cache_checked=%llu cache_stamped=%llu "
		    "source_opens=%llu page_rows=%llu\n",
		    tr.nranks, nslices, bytes, (unsigned long long)rows, ru.ru_maxrss,
		    summary_critical_ms, summary_critical_cpu_ms,
		    (unsigned long long)load_clock_ns(), (unsigned long long)load_clock_cpu_ns(),
		    (unsigned long long)load_clock_kept(), (long long)fns, (long long)fcpu,
		    (unsigned long long)cache_checked_opens(),
		    (unsigned long long)cache_stamped_opens(),
		    (unsigned long long)load_source_opens(), (unsigned long long)load_page_rows());
	}
	trace_free(&tr);
	return rc;
}

/* tl export: the window's slices through the slices table (src/sql/sql_export.c). */
static int
cmd_export(cli *c)
{
	if (c->ex.out == NULL) {
		fprintf(stderr, "tl: export needs -o OUT\n");
		return 1;
	}
	if (c->have_from != c->have_to || (c->have_from && c->ex.has_step)) {
		fprintf(stderr, "tl: export takes --from T --to T together, or --step N\n");
		return 1;
	}
	if (c->have_from && c->ex.to <= c->ex.from) {
		fprintf(stderr, "tl: export: --to must be after --from\n");
		return 1;
	}
	c->ex.has_window = c->have_from;
	c->ex.input = c->path;
	tl_export *e = export_prepare(&c->ex);
	if (e == NULL)
		return 1;
	tl_trace tr;
	int rc = load_path_run(c, c->path, &tr, export_tables_needed(e), NULL, 0);
	if (rc == 0) {
		tl_query *tq = tlq_open(&tr, &c->query);
		rc = export_run(e, tq);
		export_free(e); /* its statements' tables read the session */
		tlq_close(tq);
	} else {
		export_free(e);
	}
	trace_free(&tr);
	return rc;
}

/* tl query: the statement is compiled first (a wrong one costs no load, and its tables say
 * what the load gathers), then run over the loaded profile (src/sql/). */
static int
cmd_query(cli *c)
{
	if (c->csv && c->json) {
		fprintf(stderr, "tl: query takes --csv or --json, not both\n");
		return 1;
	}
	const char *q = c->sql;
	while (*q == ' ' || *q == '\t' || *q == '\n')
		q++;
	if (strncmp(q, ".tables", 7) == 0 && q[7 + strspn(q + 7, " \t\n;")] == '\0')
		return sql_list_tables(stdout);
	if (strncmp(q, ".schema", 7) == 0 && (q[7] == '\0' || q[7] == ' ' || q[7] == '\t')) {
		char name[64];
		if (sscanf(q + 7, " %63[A-Za-z_]", name) != 1)
			return sql_schema(stdout, NULL);
		return sql_schema(stdout, name);
	}
	if (*q == '.') {
		fprintf(stderr, "tl: query: unknown command %.40s (.tables, .schema [TABLE])\n", q);
		return 1;
	}
	tl_sql *s = sql_prepare(c->sql);
	if (s == NULL)
		return 1;
	tl_trace tr;
	int rc = load_path_run(c, c->path, &tr, sql_tables_needed(s), NULL, 0);
	if (rc == 0) {
		tl_query *tq = tlq_open(&tr, &c->query);
		rc = sql_run(s, tq, stdout,
		             c->csv    ? TL_SQL_CSV
		             : c->json ? TL_SQL_JSON
		                       : TL_SQL_TABLE);
		sql_free(s);
		tlq_close(tq);
	} else {
		sql_free(s);
	}
	trace_free(&tr);
	return rc;
}

/* tl triage's options: --top N, --fail-on DURATION|PERCENT, --set NAME=VALUE. */
static int
triage_option(cli *c, int ch, const char *arg)
{
	char *end;
	if (ch == OPT_TOP) {
		long n = strtol(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || n < 1) {
			fprintf(stderr, "tl: --top takes a number of findings, 1 or more\n");
			return 1;
		}
		c->top = (size_t)n;
	} else if (ch == OPT_FAIL_ON) {
		size_t l = strlen(arg);
		double p = l > 1 && arg[l - 1] == '%' ? strtod(arg, &end) : -1;
		if (p >= 0 && end == arg + l - 1) {
			c->fail_share = p / 100.0;
		} else if (timefmt_parse(arg, 1000000, &c->fail_ns) != 0 || c->fail_ns <= 0) {
			fprintf(stderr,
			        "tl: --fail-on takes a duration (5ms, 0.5s) or a share of the "
			        "step time (2%%)\n");
			return 1;
		}
	} else {
		const char *eq = strchr(arg, '=');
		char name[64];
		double v = eq ? strtod(eq + 1, &end) : 0;
		int k = -1;
		if (eq && (size_t)(eq - arg) < sizeof name) {
			memcpy(name, arg, (size_t)(eq - arg));
			name[eq - arg] = '\0';
			k = tlq_find_setting(name);
		}
		if (k < 0 || eq[1] == '\0' || *end != '\0' || !(v > 0)) {
			fprintf(stderr, "tl: --set takes NAME=VALUE, VALUE above 0, NAME one of:");
			for (int i = 0; i < TL_FIND__COUNT; i++)
				fprintf(stderr, " %s", tlq_find_rules()[i].setting);
			fprintf(stderr, "\n");
			return 1;
		}
		c->find.threshold[k] = v;
	}
	return 0;
}

static int
triage_report(const cli *c, tl_query *q, FILE *out, const stored_part *sp)
{
	tl_finding *v = NULL;
	path_beside s; /* each finding says whether it is on the critical path */
	tl_find_opts fo = c->find;
	fo.cp = path_begin(&s, sp, q, SIZE_MAX);
	if (fo.cp == NULL) { /* the rules run beside it */
		fo.cp_wait = path_wait;
		fo.cp_ctx = &s;
	}
	int64_t t0 = tlq_findings_ns(NULL);
	size_t n = tlq_findings(q, &fo, &v);
	if (getenv("TL_STATS") != NULL) /* make bench: the engine's own time (not the wait) */
		fprintf(stderr, "stats: findings_s=%.3f\n",
		        (double)(tlq_findings_ns(NULL) - t0) / 1e9);
	if (c->json)
		report_triage_json(out, q, v, n, c->top);
	else
		report_triage_text(out, q, v, n, c->path, c->top);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if ((c->fail_ns > 0 && v[i].recoverable_ns >= c->fail_ns) ||
		    (c->fail_share > 0 && v[i].share >= c->fail_share))
			rc = 3;
	free(v);
	path_end(&s);
	return rc;
}

/* tl triage: the findings of the profile, ranked; exit 3 when --fail-on's bar is reached. As
 * tl summary, the same command over unchanged inputs prints its stored result (and exits as it
 * did) without computing them again; the key holds the command line, so another --set,
 * --top or --fail-on is another result. */
static int
cmd_triage(cli *c)
{
	batch_setup(c);
	tl_trace tr;
	int rc = run_stored(c, TL_TABLE_ALL & ~TL_TABLE_OP_STARTS, triage_report, &tr);
	trace_free(&tr);
	return rc;
}

static int
critical_report(const cli *c, tl_query *q, FILE *out, const stored_part *sp)
{
	tl_cp_result r;
	struct timespec c0, c1;
	int64_t t0 = timefmt_mono_ns();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	if (c->nwhatif > 0) /* the what-if needs the graph */
		tlq_critical(q, c->whatif, c->nwhatif, &r);
	else
		critical_path_of(sp, q, &r);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	if (getenv("TL_STATS") != NULL) /* the analysis alone, for `make bench` */
		fprintf(stderr, "stats: critical_ms=%.1f critical_cpu_ms=%.1f steps=%zu\n",
		        (double)(timefmt_mono_ns() - t0) / 1e6,
		        (double)(c1.tv_sec - c0.tv_sec) * 1e3 +
		            (double)(c1.tv_nsec - c0.tv_nsec) / 1e6,
		        r.n);
	if (c->json)
		report_critical_json(out, q, &r, c->nwhatif ? c->whatif_text : NULL);
	else
		report_critical_text(out, q, &r, c->nwhatif ? c->whatif_text : NULL);
	tlq_critical_free(&r);
	return 0;
}

/* tl critical: every step's critical path (and what the what-ifs predict); as tl summary, the
 * same command over unchanged inputs prints its stored result (the key holds the command line,
 * so each --what-if has its own) */
static int
cmd_critical(cli *c)
{
	batch_setup(c);
	tl_trace tr;
	int rc = run_stored(c, 0, critical_report, &tr);
	trace_free(&tr);
	return rc;
}

/* tl diff: both profiles loaded, each gathered through the queries of tl summary, then joined
 * by rank, aligned step and name. */
#define DIFF_TABLES (TL_TABLE_OPS | TL_TABLE_COMM) /* what tlq_diff_gather reads */

/* One side of tl diff A B: its profile loaded and its measurements gathered. */
typedef struct diff_job {
	const cli *c;
	const char *path;
	const tl_diff_side_opts *o;
	tl_trace tr;
	tl_diff_side s; /* when rc is 0 */
	int rc;
} diff_job;

static void
diff_side(void *arg, size_t i)
{
	diff_job *j = (diff_job *)arg + i;
	/* the tables the diff compares, and the findings'; of the operators, their counts and
	 * totals */
	j->rc = load_path_run(j->c, j->path, &j->tr,
	                      (TL_TABLE_ALL & ~TL_TABLE_OP_STARTS) | TL_TABLE_OP_TOTALS, NULL, 1);
	if (j->rc != 0)
		return;
	tl_query *q = tlq_open(&j->tr, &j->c->query);
	tlq_diff_gather(q, j->o, &j->s);
	tlq_diff_gather_findings(q, j->o, &j->s);
	tlq_close(q);
}

static int
cmd_diff(cli *c)
{
	batch_setup(c);
	tl_diff_side_opts oa = {.only_rank = -1, .as_rank = -1, .step_first = c->steps_a};
	tl_diff_side_opts ob = {.only_rank = -1, .as_rank = -1, .step_first = c->steps_b};
	tl_trace ta;
	int rc;
	if (c->vs_rank >= 0) {
		if (!c->have_ranks || c->ranks.all || c->ranks.n != 1) {
			fprintf(stderr, "tl: --vs M needs --rank N, one rank\n");
			return 1;
		}
		int n = c->ranks.ranks[0];
		oa.only_rank = oa.as_rank = n;
		ob.only_rank = c->vs_rank;
		ob.as_rank = n;
		tl_rankset both = {0};
		char spec[32], err[128];
		snprintf(spec, sizeof spec, "%d,%d", n, c->vs_rank);
		if (rankspec_parse(spec, &both, err, sizeof err) != 0) {
			fprintf(stderr, "tl: %s\n", err);
			return 1;
		}
		tl_rankset asked = c->ranks;
		c->ranks = both; /* load the two ranks, through the cache like any load */
		rc = load_opts_run(c, &ta, DIFF_TABLES);
		c->ranks = asked;
		rankset_free(&both);
		if (rc != 0) {
			trace_free(&ta);
			return rc;
		}
		tl_diff_side a, b;
		tl_query *q = tlq_open(&ta, &c->query);
		tlq_diff_gather(q, &oa, &a);
		tlq_diff_gather(q, &ob, &b);
		tlq_close(q);
		if (a.nranks == 0 || b.nranks == 0) {
			msg_error("%s: rank %d is not in the profile", c->path,
			          a.nranks == 0 ? n : c->vs_rank);
			rc = 2;
		} else {
			char la[64], lb[64];
			snprintf(la, sizeof la, "rank %d", n);
			snprintf(lb, sizeof lb, "rank %d (filed under rank %d)", c->vs_rank, n);
			if (c->json)
				report_diff_json(stdout, &a, &b);
			else
				report_diff_text(stdout, &a, &b, la, lb);
		}
		tlq_diff_side_free(&a);
		tlq_diff_side_free(&b);
		trace_free(&ta);
		return rc;
	}
	/* the two sides at once, each loaded and gathered on its own thread (each load runs its
	 * ranks on a pool of its own; the two share the cores) */
	diff_job j[2] = {{.c = c, .path = c->path, .o = &oa},
	                 {.c = c, .path = c->path_b, .o = &ob}};
	parallel_for(2, 2, diff_side, j);
	rc = j[0].rc != 0 ? j[0].rc : j[1].rc; /* A's failure first, as when loaded in turn */
	if (rc == 0) {
		tlq_diff_pair_single(&j[0].s, &j[1].s); /* two traces of one rank each pair */
		if (c->json)
			report_diff_json(stdout, &j[0].s, &j[1].s);
		else
			report_diff_text(stdout, &j[0].s, &j[1].s, c->path, c->path_b);
	}
	for (int i = 0; i < 2; i++) {
		if (j[i].rc == 0)
			tlq_diff_side_free(&j[i].s);
		trace_free(&j[i].tr);
	}
	return rc;
}

/* The viewer's :query runner: tl query's statement over the session (src/sql/), its rows
 * handed over as the viewer's (the same fields: the pointers move). */
static int
view_sql(const tl_query *q, const char *sql, size_t max_rows, tl_ui_rows *out, char *err,
         size_t errlen)
{
	tl_sql_rows r;
	int rc = sql_collect(q, sql, max_rows, &r, err, errlen);
	*out = (tl_ui_rows){r.ncols, r.names, r.nrows, r.cells, r.truncated};
	return rc;
}

static int
view_trace(cli *c, tl_trace *tr, tl_trace *trb, tl_load_bg *bg)
{
	tl_ui_opts o = {.theme = c->theme,
	                .keymap = c->keymap,
	                .script = c->script,
	                .cols = c->cols,
	                .rows = c->rows,
	                .stats_file = c->stats,
	                .start_mono_ns = start_mono_ns,
	                .path = c->path,
	                .compare_path = c->compare,
	                .sql = view_sql,
	                .finding = c->finding};
	tl_query_opts qo = c->query;
	qo.lanes = 1; /* the viewer draws the overlap and stage lanes */
	tl_query *q = tlq_open(tr, &qo);
	if (c->finding > 0) { /* tl triage's numbers (its default thresholds) */
		tl_finding *v = NULL;
		size_t n = tlq_findings(q, NULL, &v);
		free(v);
		if (c->finding > n) {
			char p[256];
			msg_error("--finding %zu: %s has %zu finding%s (tl triage %s lists them)",
			          c->finding, text_sanitize(c->path, p, sizeof p, 0), n,
			          n == 1 ? "" : "s", p);
			tlq_close(q);
			return 1;
		}
	}
	tl_query *qb = trb ? tlq_open(trb, &qo) : NULL; /* B's lanes are drawn the same way */
	o.compare = qb;
	int rc;
	if (bg != NULL) {
		tlq_attach_load(q, bg);
		rc = ui_main(q, &o);
		/* the loaders' warnings were kept for now, the terminal being back */
		int lrc = load_bg_finish(bg, 1); /* quit while loading: stop the rest */
		if (rc == 0 && lrc != 0)
			rc = lrc;
	} else {
		rc = ui_main(q, &o);
	}
	if (qb)
		tlq_close(qb);
	tlq_close(q);
	return rc;
}

/* tl view's ranks on the loader's threads: the first frame comes at once and the lanes fill in
 * as ranks finish (query.h). Not with --compare (B aligns on A's whole load), and in script
 * mode only with the test hook TL_TEST_LOAD_DELAY_MS (scripts and goldens see the full load). */
static int
view_progressive(const cli *c)
{
	/* --finding: the findings are of the whole load */
	return c->compare == NULL && c->finding == 0 &&
	       (c->script == NULL || getenv("TL_TEST_LOAD_DELAY_MS") != NULL);
}

static void
prepare_rank(tl_rank *r, void *ctx)
{
	(void)ctx;
	tlq_prepare_rank(r);
}

static int
cmd_view(cli *c)
{
	if (c->script == NULL && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		msg_error("view needs a terminal (or --script FILE --size COLSxROWS)");
		return 1;
	}
	if (c->cols > 0 && c->script == NULL) {
		msg_error("--size goes with --script");
		return 1;
	}
	tl_trace tr;
	tl_cache cache;
	tl_load_opts o = {.ranks = c->have_ranks ? &c->ranks : NULL,
	                  .quiet_progress = c->script != NULL,
	                  .view = 1,
	                  .cache = cli_cache(c, &cache, 1),
	                  .clock_raw = c->clock_raw,
	                  .clock_fix = c->clock_fix,
	                  .nclock_fix = c->nclock_fix};
	/* ranks of several hosts are moved onto one clock once all are in (load_clock): the
	 * viewer then loads them whole instead of as each finishes */
	if (view_progressive(c) && (c->clock_raw || !load_path_multi_host(c->path, o.ranks))) {
		o.defer_warnings = 1;
		o.prepare = prepare_rank;
		tl_load_bg *bg;
		int rc = load_trace_start(c->path, &o, &tr, &bg);
		if (rc == 0)
			rc = view_trace(c, &tr, NULL, bg);
		if (o.cache != NULL)
			cache_close(o.cache);
		trace_free(&tr);
		return rc;
	}
	int rc = load_trace(c->path, &o, &tr);
	tl_trace trb;
	int have_b = 0;
	if (rc == 0 && c->compare) { /* B through the same loaders, ranks and cache */
		rc = load_trace(c->compare, &o, &trb);
		have_b = 1;
	}
	if (o.cache != NULL)
		cache_close(o.cache);
	if (rc == 0)
		rc = view_trace(c, &tr, have_b ? &trb : NULL, NULL);
	if (have_b)
		trace_free(&trb);
	trace_free(&tr);
	return rc;
}

static int
cmd_keys(cli *c)
{
	return ui_keys(stdout, c->keymap, c->man);
}

/* The demo profile's directory in the cache directory (as the model cache finds it: an
 * absolute XDG_CACHE_HOME, else HOME's .cache), NULL when there is none. Never a shared
 * directory such as /tmp/.cache: anyone could have put a profile of theirs there. */
static char *
demo_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg == '/')
		return xasprintf("%s/tl/demo-v3", xdg);
	const char *home = getenv("HOME");
	if (home == NULL || *home == '\0')
		return NULL;
	return xasprintf("%s/.cache/tl/demo-v3", home);
}

/* Without a cache directory: a private temporary directory (mkdtemp's 0700) that the demo
 * removes when done, and no model cache. NULL when it cannot be made. */
static char *
demo_tmp_dir(char **base)
{
	const char *t = getenv("TMPDIR");
	*base = xasprintf("%s/tl-demo-XXXXXX", t != NULL && *t == '/' ? t : "/tmp");
	if (mkdtemp(*base) == NULL) {
		msg_error("cannot create a temporary directory for the demo profile (%s): %s",
		          *base, strerror(errno));
		free(*base);
		*base = NULL;
		return NULL;
	}
	return xasprintf("%s/demo", *base);
}

static int
cmd_demo(cli *c)
{
	char *dir = demo_dir(), *tmp_base = NULL;
	if (dir == NULL) {
		msg_warn(NULL, "neither XDG_CACHE_HOME nor HOME is set: the demo profile goes to a "
		               "temporary directory, removed when tl ends, and no model cache is "
		               "kept");
		if ((dir = demo_tmp_dir(&tmp_base)) == NULL)
			return 1;
		c->no_cache = 1; /* said above */
	}
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
		/* everything a panel shows: operators with their call stacks before each launch,
		 * memory records with a known peak, an AI CPU operator, a two-stage pipeline in
		 * actor_update (P), a slow link (rank 5's to rank 6: x, the findings) */
		o.host_ops = o.with_stack = o.memory_records = o.aicpu = 1;
		o.rl_pp = 2;
		o.slow_link = 5;
		if (util_mkdir_p(parent, 0755) != 0 || gen_profile(&o, tmp, NULL) != 0) {
			msg_error("cannot write the demo profile under %s", parent);
			rc = 1;
		} else {
			FILE *f;
			util_rm_tree(dir); /* a stale, partial demo from an interrupted run */
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
		/* the viewer, unless asked not to or there is no terminal to show it on */
		if (c->no_view ||
		    (c->script == NULL && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))))
			rc = cmd_summary(c);
		else
			rc = cmd_view(c);
	}
	if (tmp_base != NULL) {
		util_rm_tree(tmp_base);
		free(tmp_base);
	}
	free(stamp);
	free(dir);
	return rc;
}

#ifdef TL_STATIC_BINARY
extern const char tl_terminfo_fallbacks[]; /* src/static/terminfo_fallbacks.sh */
#endif

/* The libraries' own version calls: in the dynamic build they name the versions loaded at run
 * time, in the static build the ones linked in. */
static void
version(void)
{
	char pcre2[64] = "";
	pcre2_config(PCRE2_CONFIG_VERSION, pcre2);
	printf("tl %s\nrevision %s\n", PACKAGE_VERSION, TL_REVISION);
#ifdef TL_STATIC_BINARY
	printf("static %s build: needs no shared library; built-in terminfo for %s\n", TL_HOST_CPU,
	       tl_terminfo_fallbacks);
#else
	printf("dynamic %s build\n", TL_HOST_CPU);
#endif
	printf("%s, SQLite %s, PCRE2 %s, cJSON %s, zlib %s\n", curses_version(),
	       sqlite3_libversion(), pcre2, cJSON_Version(), zlibVersion());
}

/* Whose cache files the command reads besides the user's own: --trust-cache, else
 * TL_CACHE_TRUST, else the config file's trust-cache lines. A name that is no user or group
 * is a usage error (the config file's: one line, the others apply). */
static int
trust_setup(const cli *c)
{
	const char *env = getenv("TL_CACHE_TRUST");
	const char *spec = c->trust, *from = "--trust-cache";
	char *conf = NULL, err[256];
	if (spec == NULL && env != NULL) {
		spec = env;
		from = "TL_CACHE_TRUST";
	}
	if (spec == NULL) {
		conf = cache_trust_config();
		spec = conf;
		from = "the config file's trust-cache";
	}
	int rc = 0;
	if (spec != NULL && cache_trust_set(spec, err, sizeof err) != 0) {
		if (conf != NULL) {
			msg_warn(NULL, "%s: %s; the others are trusted", from, err);
		} else {
			fprintf(stderr, "tl: %s: %s\n", from, err);
			rc = 1;
		}
	}
	free(conf);
	return rc;
}

/* Whether cmd takes the option of getopt value ch. */
static int
command_takes(const command *cmd, int ch)
{
	if (ch < 256)
		return strchr(cmd->opts, ch) != NULL;
	size_t n = strlen(cmd->name);
	for (size_t i = 0; i < sizeof long_only / sizeof *long_only; i++)
		for (const char *p = long_only[i].opt == ch ? long_only[i].commands : "";
		     (p = strstr(p, cmd->name)) != NULL; p += n)
			if ((p == long_only[i].commands || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
				return 1;
	return 0;
}

/* Every option of every command, for getopt_long (command_takes says which a command takes). */
static const struct option longopts[] = {
    {"rank", required_argument, NULL, 'r'},
    {"pp", required_argument, NULL, 'P'},
    {"json", no_argument, NULL, 'j'},
    {"vs", required_argument, NULL, 'v'},
    {"steps", required_argument, NULL, 'A'},
    {"no-view", no_argument, NULL, 'n'},
    {"theme", required_argument, NULL, 'T'},
    {"keymap", required_argument, NULL, 'K'},
    {"script", required_argument, NULL, 'S'},
    {"size", required_argument, NULL, 'Z'},
    {"stats", required_argument, NULL, 'X'},
    {"man", no_argument, NULL, 'M'},
    {"markdown", no_argument, NULL, 'D'},
    {"no-cache", no_argument, NULL, 'N'},
    {"cache-dir", required_argument, NULL, 'C'},
    {"clear", no_argument, NULL, 'L'},
    {"series", no_argument, NULL, 's'},
    {"csv", no_argument, NULL, 'Q'},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"trust-cache", required_argument, NULL, OPT_TRUST},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET},
    {"top", required_argument, NULL, OPT_TOP},
    {"finding", required_argument, NULL, OPT_FINDING},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"set", required_argument, NULL, OPT_SET},
    {"what-if", required_argument, NULL, OPT_WHATIF},
    {"output", required_argument, NULL, 'o'},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"step", required_argument, NULL, OPT_STEP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Each option's parser returns -1 to go on, else main's exit status: 1 after a usage error
 * (said), 0 after --help or --version. */

/* The options that take a number: --pp, --vs, --steps, --finding, --size. */
static int
opt_number(cli *c, int ch)
{
	switch (ch) {
	case 'P': { /* --pp N: PP stages by rank order, for the PP view and summary */
		char *end;
		long n = strtol(optarg, &end, 10);
		if (*optarg == '\0' || *end != '\0' || n < 1 || n > 4096) {
			fprintf(stderr, "tl: --pp takes a number of pipeline stages, 1 to 4096\n");
			return 1;
		}
		c->query.pp = (int)n;
		break;
	}
	case 'v': {
		char *end;
		long n = strtol(optarg, &end, 10);
		if (*optarg == '\0' || *end != '\0' || n < 0 || n > INT32_MAX) {
			fprintf(stderr, "tl: --vs takes a rank number\n");
			return 1;
		}
		c->vs_rank = (int)n;
		break;
	}
	case 'A': {
		long long x, y;
		char tail;
		if (sscanf(optarg, "%lld:%lld%c", &x, &y, &tail) != 2 || x < 0 || y < 0) {
			fprintf(stderr, "tl: --steps takes A:B, two STEP_TIME ids (e.g. 3:7)\n");
			return 1;
		}
		c->steps_a = x;
		c->steps_b = y;
		break;
	}
	case OPT_FINDING: {
		char *end;
		long n = strtol(optarg, &end, 10);
		if (*optarg == '\0' || *end != '\0' || n < 1) {
			fprintf(stderr, "tl: --finding takes a finding's number, 1 or more "
			                "(tl triage PATH lists them)\n");
			return 1;
		}
		c->finding = (size_t)n;
		break;
	}
	case 'Z': {
		char x;
		if (sscanf(optarg, "%d%c%d", &c->cols, &x, &c->rows) != 3 ||
		    (x != 'x' && x != 'X') || c->cols < 1 || c->rows < 1 || c->cols > 1000 ||
		    c->rows > 1000) {
			fprintf(stderr, "tl: --size takes COLSxROWS, e.g. 120x40\n");
			return 1;
		}
		break;
	}
	}
	return -1;
}

/* The options whose value is parsed into a list or a window: --rank, triage's, --what-if,
 * tl export's, the clock's. li: the option's index in longopts. */
static int
opt_value(cli *c, int ch, int li)
{
	char err[256];
	switch (ch) {
	case 'r':
		if (c->have_ranks)
			rankset_free(&c->ranks);
		if (rankspec_parse(optarg, &c->ranks, err, sizeof err) != 0) {
			fprintf(stderr, "tl: %s\n", err);
			return 1;
		}
		c->have_ranks = 1;
		break;
	case OPT_TOP:
	case OPT_FAIL_ON:
	case OPT_SET:
		if (triage_option(c, ch, optarg) != 0)
			return 1;
		break;
	case OPT_WHATIF: {
		if (c->nwhatif == sizeof c->whatif / sizeof *c->whatif) {
			fprintf(stderr, "tl: at most 16 --what-if\n");
			return 1;
		}
		size_t used = strlen(c->whatif_text);
		snprintf(c->whatif_text + used, sizeof c->whatif_text - used, "%s%s",
		         used ? " " : "", optarg);
		char *copy = c->whatif_buf[c->nwhatif]; /* the scale points into it */
		if (strlen(optarg) >= sizeof c->whatif_buf[0]) {
			fprintf(stderr, "tl: --what-if: too long\n");
			return 1;
		}
		strcpy(copy, optarg);
		if (tlq_cp_parse_scale(copy, &c->whatif[c->nwhatif], err, sizeof err) != 0) {
			fprintf(stderr, "tl: --what-if %s\n", err);
			return 1;
		}
		c->nwhatif++;
		break;
	}
	case 'o':
		c->ex.out = optarg;
		break;
	case OPT_FROM:
	case OPT_TO:
	case OPT_STEP: {
		char *end;
		errno = 0;
		long long v = strtoll(optarg, &end, 10);
		if (*optarg == '\0' || *end != '\0' || errno != 0) {
			fprintf(stderr, "tl: --%s takes an integer (%s)\n", longopts[li].name,
			        ch == OPT_STEP ? "a ProfilerStep id" : "ns on the profile's clock");
			return 1;
		}
		if (ch == OPT_FROM) {
			c->ex.from = v;
			c->have_from = 1;
		} else if (ch == OPT_TO) {
			c->ex.to = v;
			c->have_to = 1;
		} else {
			c->ex.step = v;
			c->ex.has_step = 1;
		}
		break;
	}
	case OPT_FORMAT:
		if (strcmp(optarg, "chrome") == 0) {
			c->ex.format = TL_EXPORT_CHROME;
		} else if (strcmp(optarg, "csv") == 0) {
			c->ex.format = TL_EXPORT_CSV;
		} else {
			fprintf(stderr, "tl: --format takes chrome or csv\n");
			return 1;
		}
		break;
	case OPT_CLOCK: /* --clock raw|align */
		if (strcmp(optarg, "raw") != 0 && strcmp(optarg, "align") != 0) {
			fprintf(stderr, "tl: --clock takes raw (each host's own clock) or align "
			                "(the default)\n");
			return 1;
		}
		c->clock_raw = strcmp(optarg, "raw") == 0;
		break;
	case OPT_CLOCK_OFFSET: { /* --clock-offset HOST=NS */
		const char *eq = strrchr(optarg, '=');
		char *end;
		long long ns = eq != NULL ? strtoll(eq + 1, &end, 10) : 0;
		if (eq == NULL || eq == optarg || eq[1] == '\0' || *end != '\0' ||
		    ns < -INT64_C(86400000000000) || ns > INT64_C(86400000000000)) {
			fprintf(stderr, "tl: --clock-offset takes HOST=NS: how many ns HOST's "
			                "clock is ahead of the reference host's (within a day)\n");
			return 1;
		}
		tl_clock_fix x = {.host = xstrndup(optarg, (size_t)(eq - optarg)), .off = ns};
		VEC_PUSH(c->clock_fix, c->nclock_fix, c->clock_cap, x);
		break;
	}
	}
	return -1;
}

/* One option of command cmd (NULL before a command is named). */
static int
parse_option(cli *c, const command *cmd, int ch, int li)
{
	switch (ch) {
	case 'P':
	case 'v':
	case 'A':
	case OPT_FINDING:
	case 'Z':
		return opt_number(c, ch);
	case 'r':
	case OPT_TOP:
	case OPT_FAIL_ON:
	case OPT_SET:
	case OPT_WHATIF:
	case 'o':
	case OPT_FROM:
	case OPT_TO:
	case OPT_STEP:
	case OPT_FORMAT:
	case OPT_CLOCK:
	case OPT_CLOCK_OFFSET:
		return opt_value(c, ch, li);
	case 'j':
		c->json = 1;
		break;
	case 's':
		c->series = 1;
		break;
	case 'Q':
		c->csv = 1;
		break;
	case 'n':
		c->no_view = 1;
		break;
	case OPT_COMPARE:
		c->compare = optarg;
		break;
	case OPT_TRUST:
		c->trust = optarg;
		break;
	case 'T':
		c->theme = optarg;
		break;
	case 'K':
		c->keymap = optarg;
		break;
	case 'S':
		c->script = optarg;
		break;
	case 'X':
		c->stats = optarg;
		break;
	case 'M':
		c->man = 1;
		break;
	case 'N':
		c->no_cache = 1;
		break;
	case 'C':
		c->cache_dir = optarg;
		break;
	case 'L':
		c->clear = 1;
		break;
	case 'D':
		c->man = 2;
		break;
	case 'h': /* every command takes --help: its own usage and options */
		if (cmd)
			command_help(stdout, cmd);
		else
			usage(stdout);
		return 0;
	case 'V':
		version();
		return 0;
	default:
		usage(stderr);
		return 1;
	}
	return -1;
}

/* tl help [COMMAND]: the usage, or one command's. */
static int
help_command(int argc, char **argv)
{
	if (argc == 2 || (argc == 3 && strcmp(argv[2], "help") == 0)) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; argc == 3 && i < NCOMMANDS; i++)
		if (strcmp(argv[2], commands[i].name) == 0) {
			command_help(stdout, &commands[i]);
			return 0;
		}
	if (argc == 3)
		fprintf(stderr, "tl: unknown command '%s'\n", argv[2]);
	else
		fprintf(stderr, "tl: help takes one COMMAND\n");
	usage(stderr);
	return 1;
}

/* The operands after the options: the PATH, tl diff's second PATH, tl query's SQL; nothing
 * more. Returns 0, or 1 after saying what is wrong. */
static int
operands(cli *c, const command *cmd, int argc, char **argv)
{
	if (cmd->needs_path) {
		if (optind >= argc) {
			fprintf(stderr, "tl: %s needs a PATH\nusage: %s\n", cmd->name, cmd->usage);
			return 1;
		}
		c->path = argv[optind++];
		if (cmd->run == cmd_diff && c->vs_rank < 0) {
			if (optind >= argc) {
				fprintf(stderr,
				        "tl: diff needs two profiles, or one with --rank N --vs M\n"
				        "usage: %s\n",
				        cmd->usage);
				return 1;
			}
			c->path_b = argv[optind++];
		}
		if (cmd->run == cmd_query) {
			if (optind >= argc) {
				fprintf(stderr, "tl: query needs SQL after the PATH\nusage: %s\n",
				        cmd->usage);
				return 1;
			}
			c->sql = argv[optind++];
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tl: unexpected argument '%s'\nusage: %s\n", argv[optind],
		        cmd->usage);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	start_mono_ns = timefmt_mono_ns();
	setlocale(LC_ALL, "");      /* the viewer draws UTF-8 when the locale says so */
	setlocale(LC_NUMERIC, "C"); /* numbers in reports always use a decimal point */
	/* Debian's SQLite keeps memory statistics under one global lock that serialises the
	 * parallel rank loaders; tl does not use them. Must precede sqlite3_initialize(). */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* a file size limit makes the model cache's write fail (EFBIG: no cache, one warning)
	 * rather than end tl */
	signal(SIGXFSZ, SIG_IGN);
	cli c;
	memset(&c, 0, sizeof c);
	c.argc = argc - 1; /* without the program's own name: any path to tl keys alike */
	c.argv = argv + 1;
	c.vs_rank = -1;
	c.steps_a = c.steps_b = -1;
	const command *cmd = NULL;
	if (argc >= 2 && strcmp(argv[1], "help") == 0) /* tl help [COMMAND] */
		return help_command(argc, argv);
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
	int ch, li;
	while ((li = -1, ch = getopt_long(argc, argv, "hVo:", longopts, &li)) != -1) {
		/* each command takes its own options only: others are a usage error, not ignored */
		if (cmd && li >= 0 && ch != 'h' && ch != 'V' && !command_takes(cmd, ch)) {
			fprintf(stderr, "tl: %s does not take --%s\nusage: %s\n", cmd->name,
			        longopts[li].name, cmd->usage);
			return 1;
		}
		int st = parse_option(&c, cmd, ch, li);
		if (st >= 0)
			return st;
	}
	if (cmd == NULL) {
		usage(stderr);
		return 1;
	}
	if (operands(&c, cmd, argc, argv) != 0)
		return 1;
	if (command_takes(cmd, OPT_TRUST) && trust_setup(&c) != 0)
		return 1;
	int rc = cmd->run(&c);
	if (c.have_ranks)
		rankset_free(&c.ranks);
	for (size_t i = 0; i < c.nclock_fix; i++)
		free((char *)c.clock_fix[i].host);
	free(c.clock_fix);
	return rc;
}
