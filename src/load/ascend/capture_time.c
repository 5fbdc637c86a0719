/* Capture times from the profile DBs themselves: SESSION_TIME_INFO (CANN 7.0:
 * TARGET_INFO_SESSION_TIME), the collection window the profiler recorded (startTimeNs,
 * endTimeNs, epoch ns). Discovery cannot open
 * DBs (that is this layer's, with its defences against hostile files), so `tl info` refines the
 * times discovery found (profiler_info, a name's stamp, the file's time) here. */
#include "config.h"
#include "load/load.h"
#include "load/ascend/profdb.h"

#include <sqlite3.h>

/* Epoch ns a profile could have been written at (1990 .. 2100). */
#define SESSION_NS_MIN INT64_C(631152000000000000)
#define SESSION_NS_MAX INT64_C(4102444800000000000)

/* SESSION_TIME_INFO endTimeNs of a profile DB (epoch ns: when the collection stopped), 0 when
 * it has none or cannot be opened. */
static int64_t
ascend_db_session_end(const char *path)
{
	tl_profdb p;
	char err[400];
	if (profdb_open(&p, path, err, sizeof err) != 0)
		return 0; /* loading it says what is wrong with it */
	int64_t ns = 0;
	sqlite3_stmt *st = NULL;
	/* endTimeNs: when the collection stopped, as profiler_info's collectionTimeEnd */
	if (profdb_has(&p, "SESSION_TIME_INFO") &&
	    profdb_prepare(&p, "SELECT endTimeNs FROM SESSION_TIME_INFO", &st) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		int64_t v = sqlite3_column_int64(st, 0);
		if (v >= SESSION_NS_MIN && v <= SESSION_NS_MAX)
			ns = v;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* CANN 7.0's report DB: TARGET_INFO_SESSION_TIME, beside the baseTimeNs its TASK times
	 * count from (its endTimeNs taken as epoch ns, else as counted from that base) */
	if (ns == 0 && profdb_has(&p, "TARGET_INFO_SESSION_TIME") &&
	    profdb_prepare(&p, "SELECT endTimeNs, baseTimeNs FROM TARGET_INFO_SESSION_TIME", &st) ==
	        SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		int64_t v = sqlite3_column_int64(st, 0);
		int64_t b =
		    sqlite3_column_type(st, 1) == SQLITE_INTEGER ? sqlite3_column_int64(st, 1) : 0;
		if (v >= SESSION_NS_MIN && v <= SESSION_NS_MAX)
			ns = v;
		else if (v >= 0 && v < SESSION_NS_MAX && b >= 0 && b < SESSION_NS_MAX &&
		         v + b >= SESSION_NS_MIN && v + b <= SESSION_NS_MAX)
			ns = v + b;
	}
	sqlite3_finalize(st);
	profdb_close(&p);
	return ns;
}

void
load_capture_times(tl_sourcelist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		tl_source *s = &l->v[i];
		if (!source_has(s, TL_FMT_SESSION_TIME))
			continue;
		int64_t ns = ascend_db_session_end(s->path);
		if (ns != 0) {
			s->capture_ns = ns;
			s->capture_from = TL_CAPTURE_SESSION;
		}
	}
	sourcelist_sort(l);
}
