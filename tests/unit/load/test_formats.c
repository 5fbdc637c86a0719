/* The formats' one list (model/source.h, TL_FORMATS): every kind has its name, its loader and
 * capabilities that agree with what its loader reads; tl info's names stay the ones the man
 * page and older outputs show. */
#include "config.h"

#include "loading/loading.h"
#include "model/source.h"
#include "profile/discover_int.h"
#include "../test.h"

#include <stdio.h>
#include <unistd.h>

/* The names tl info printed before the list was a table (source.c's switch). */
static const struct {
	tl_source_kind kind;
	const char *name;
} names[] = {
    {TL_SRC_TORCH_DB, "torch_npu DB"},
    {TL_SRC_MSPROF_DB, "msprof DB"},
    {TL_SRC_MINDSPORE_DB, "MindSpore DB"},
    {TL_SRC_TRACE_VIEW, "trace_view.json"},
    {TL_SRC_KINETO, "Kineto JSON"},
    {TL_SRC_MSPROF_ITER, "msprof export, per-iteration JSON (CANN \xe2\x89\xa4 7)"},
    {TL_SRC_MS_TIMELINE, "MindSpore 1.x timeline"},
};

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* Discovery asks a row's probe: its glob on the file's name, then its magic bytes. */
static void
test_probes(void)
{
	char dir[] = "/tmp/tl_formats_XXXXXX", a[64], b[64], c[64];
	if (mkdtemp(dir) == NULL) {
		SKIP("no temporary directory");
		return;
	}
	snprintf(a, sizeof a, "%s/run_rank3.tlx", dir);
	snprintf(b, sizeof b, "%s/other.tlx", dir);
	snprintf(c, sizeof c, "%s/plain.tly", dir);
	write_file(a, "TLX1 data");
	write_file(b, "something else");
	write_file(c, "anything");
	const tl_format rows[] = {
	    {"none", 0, NULL, NULL},
	    {"tlx", 0, "*.tlx", "TLX1"},
	    {"tly", 0, "*.tly", NULL},
	    {"tlz", 0, "tlz_trace{r}.json", NULL},
	};
	int rank = 0;
	CHECK_EQ_I64(disc_probe(rows, 4, "run_rank3.tlx", a, &rank), 1, "the glob and the magic");
	CHECK_EQ_I64(rank, 3, "the rank of run_rank3");
	CHECK_EQ_I64(disc_probe(rows, 4, "run_rank3.tlx", NULL, &rank), 1, "the name alone");
	CHECK_EQ_I64(disc_probe(rows, 4, "other.tlx", b, &rank), -1, "the glob without the magic");
	CHECK_EQ_I64(disc_probe(rows, 4, "plain.tly", c, &rank), 2, "a glob without magic");
	CHECK_EQ_I64(rank, -1, "no rank in the name");
	CHECK_EQ_I64(disc_probe(rows, 4, ".hidden.tly", c, &rank), -1, "a leading dot is no match");
	CHECK_EQ_I64(disc_probe(rows, 1, "plain.tly", c, &rank), -1, "a row without a glob: none");
	CHECK_EQ_I64(disc_probe(rows, 4, "tlz_trace_12.json", c, &rank), 3, "PREFIX{r}SUFFIX");
	CHECK_EQ_I64(rank, 12, "its rank");
	CHECK_EQ_I64(disc_probe(rows, 4, "tlz_trace.json", c, &rank), 3, "{r} is optional");
	CHECK_EQ_I64(rank, -1, "then no rank");
	CHECK_EQ_I64(disc_probe(rows, 4, "tlz_trace_x.json", c, &rank), -1, "{r} is _ and digits");
	CHECK_EQ_I64(disc_probe(rows, 4, "tlz_trace7.json", c, &rank), -1, "{r} starts with _");
	/* the list's own probes: MindSpore 1.x's timeline is found by its name; the others by
	 * discovery's layouts, which no probe claims */
	CHECK_EQ_I64(disc_probe_kind("ascend_timeline_display_5.json", c, &rank),
	             TL_SRC_MS_TIMELINE, "ascend_timeline_display_5.json: MindSpore 1.x");
	CHECK_EQ_I64(rank, 5, "rank 5");
	CHECK_EQ_I64(disc_probe_kind("ascend_timeline_summary_5.json", c, &rank), -1,
	             "its summary is no timeline");
	CHECK_EQ_I64(disc_name_classify("ascend_timeline_display_5.json.gz", &rank), NK_NONE,
	             "nor a gzipped one (it never is: no .gz class takes it)");
	static const char *const files[] = {"ascend_pytorch_profiler_0.db", "msprof_1.db",
	                                    "trace_view.json", "run.pt.trace.json", "plain.tly"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		CHECK_EQ_I64(disc_probe_kind(files[i], c, &rank), -1, files[i]);
	unlink(a);
	unlink(b);
	unlink(c);
	rmdir(dir);
}

int
main(void)
{
	test_probes();
	CHECK_EQ_I64(sizeof names / sizeof *names, TL_SRC__COUNT, "every kind has a name here");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		CHECK_STR(source_kind_name(names[i].kind), names[i].name, "the kind's name");
	CHECK_STR(source_kind_name(TL_SRC__COUNT), "unknown", "no kind: unknown");
	CHECK(loader_for(TL_SRC__COUNT) == NULL, "no kind: no loader");
	CHECK(source_kind_caps(TL_SRC__COUNT) == 0, "no kind: no capability");
	for (int k = 0; k < TL_SRC__COUNT; k++) {
		const tl_loader *ld = loader_for((tl_source_kind)k);
		const char *nm = source_kind_name((tl_source_kind)k);
		CHECK(ld != NULL && ld->load != NULL && ld->estimate != NULL,
		      "%s: a loader with load and estimate", nm);
		for (int j = 0; j < k; j++)
			CHECK(strcmp(nm, source_kind_name((tl_source_kind)j)) != 0,
			      "%s: a name of its own (kind %d)", nm, j);
		/* what only a profiler DB holds (SESSION_TIME_INFO, HOST_INFO, connectionIds) */
		unsigned caps = source_kind_caps((tl_source_kind)k);
		int db = ld == &loader_ascend_db;
		CHECK(((caps & TL_FMT_ASCEND_DB) == TL_FMT_ASCEND_DB) == db &&
		          ((caps & TL_FMT_ASCEND_DB) == 0) == !db,
		      "%s: the DB capabilities exactly when the DB loader reads it", nm);
		CHECK(!(caps & TL_FMT_GPU) || !(caps & TL_FMT_HCCL_GROUPS),
		      "%s: a GPU trace has no HCCL groups", nm);
		tl_source s = {.kind = (tl_source_kind)k};
		CHECK(source_has(&s, caps) && source_has(&s, 0) &&
		          (caps == ~0u || !source_has(&s, ~caps)),
		      "%s: source_has answers from the row", nm);
	}
	return test_done();
}
