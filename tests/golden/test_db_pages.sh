#!/bin/sh
# The DB loader's page scans (ascend_db_scan.c, dbpage.c) read what SQLite reads: `tl summary`
# and `tl summary --json` print byte for byte the same with TL_DBPAGE=0 (every table stepped
# through SQLite) and without it, on the samples' DBs, on generated profiles (torch_npu's DB,
# msprof's export, CANN 7.0's report DB) and on copies of a generated DB rewritten the ways a
# file may differ from the profiler's own: other page sizes (deeper and shallower b-trees),
# reserved bytes at the end of each page, a covering index SQLite would scan instead of the
# table (read through SQLite), a column dropped and added back with a default (the old rows
# lack it: read through SQLite), rows deleted (free pages, sparse rowids), a vacuumed file.
# TL_STATS' page_rows says which way each was read.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" TL_CACHE_RESULTS=0

gen=$t_tmp/gen
mkdir -p "$gen"
profiles=""
if "$TLGEN" bench "$gen/a" --ranks 2 --tasks 3000 --steps 3 --slow 1 >/dev/null 2>&1 &&
	"$TLGEN" msprof "$gen/msprof" --overlap-table >/dev/null 2>&1 &&
	"$TLGEN" msprof "$gen/cann7" --cann7 >/dev/null 2>&1; then
	profiles="$gen/a $gen/msprof $gen/cann7"
else
	not_ok "generate the profiles"
fi
if [ -d "$SAMPLES" ]; then
	for d in ascend-db/level0 ascend-db/level2; do
		[ -d "$SAMPLES/$d" ] && profiles="$profiles $(cd "$SAMPLES/$d" && pwd -P)"
	done
else
	skip "samples absent: $SAMPLES (generated profiles only)"
fi

# page_rows of `tl summary` on profile $1, with the environment's TL_DBPAGE
page_rows() {
	TL_STATS=1 "$TL_BIN" summary --no-cache "$1" 2>&1 >/dev/null |
		sed -n 's/.*page_rows=\([0-9]*\).*/\1/p'
}

# same NAME PROFILE: both ways print the same, summary and --json
same() {
	for how in pages sqlite; do
		if [ $how = sqlite ]; then e=0; else e=1; fi
		TL_DBPAGE=$e "$TL_BIN" summary --no-cache "$2" >"$t_tmp/$how.txt" 2>&1
		echo "exit $?" >>"$t_tmp/$how.txt"
		TL_DBPAGE=$e "$TL_BIN" summary --json --no-cache "$2" >"$t_tmp/$how.json" 2>&1
		echo "exit $?" >>"$t_tmp/$how.json"
	done
	check "$1: the same summary from the pages as through SQLite" \
		cmp -s "$t_tmp/pages.txt" "$t_tmp/sqlite.txt"
	check "$1: the same --json from the pages as through SQLite" \
		cmp -s "$t_tmp/pages.json" "$t_tmp/sqlite.json"
}

n=0
for p in $profiles; do
	n=$((n + 1))
	same "profile $n ($(basename "$p"))" "$p"
	rows=$(TL_DBPAGE=1 page_rows "$p")
	check "profile $n: rows read from the pages (page_rows=$rows)" [ "${rows:-0}" -gt 0 ]
	rows=$(TL_DBPAGE=0 page_rows "$p")
	check "profile $n: none with TL_DBPAGE=0 (page_rows=$rows)" [ "${rows:-1}" -eq 0 ]
done

if ! command -v sqlite3 >/dev/null; then
	skip "the sqlite3 shell is not installed (tools/install-deps --test): no rewritten DBs"
	t_done
	exit
fi

# variant NAME SQL EXPECT [TABLE COLUMN]: a copy of generated rank 0 rewritten by SQL, read
# both ways; EXPECT is "pages" when the load's scan of TABLE (TASK; its statement the one
# naming COLUMN, taskId) must read the pages, "sqlite" when SQLite must read it (TL_TRACE_SQL
# says which)
base=$(find "$gen/a" -name '*.db' -path '*r0_*' | head -n 1)
variant() {
	d=$t_tmp/v-$1
	rm -rf "$d"
	mkdir -p "$d"
	cp -r "$(dirname "$(dirname "$base")")" "$d/"
	rm -rf "$d"/*/ASCEND_PROFILER_OUTPUT/analysis.db
	db=$(find "$d" -name '*.db' | head -n 1)
	if ! printf '%s\n' "$2" | sqlite3 "$db" >/dev/null 2>"$t_tmp/sqlerr"; then
		not_ok "$1: rewrite the DB ($(head -n 1 "$t_tmp/sqlerr"))"
		return
	fi
	same "$1" "$d"
	# the load's scan of table $4 (the statement naming column $5), followed by the comment
	# or not
	t=${4:-TASK}
	TL_TRACE_SQL=1 "$TL_BIN" summary --no-cache "$d" 2>&1 >/dev/null |
		awk -v t="$t" -v c="\"${5:-taskId}\"" \
			'index($0, "read from " t "'"'"'s pages") && index(prev, c) { n++ } { prev = $0 }
			 END { print n + 0 }' >"$t_tmp/npages"
	case $3 in
	pages) check "$1: $t read from the pages" [ "$(cat "$t_tmp/npages")" -gt 0 ] ;;
	sqlite) check "$1: $t read through SQLite" [ "$(cat "$t_tmp/npages")" -eq 0 ] ;;
	esac
}

if [ -n "$base" ]; then
	variant page512 'PRAGMA page_size = 512; VACUUM;' pages
	variant page65536 'PRAGMA page_size = 65536; VACUUM;' pages
	variant reserved '.filectrl reserve_bytes 32
VACUUM;' pages
	variant deleted 'DELETE FROM TASK WHERE rowid % 3 = 1; DELETE FROM COMPUTE_TASK_INFO WHERE rowid % 5 = 2;' pages
	variant covering 'CREATE INDEX cover ON TASK (startNs, endNs, deviceId, streamId, globalTaskId, taskType, contextId, taskId, connectionId);' sqlite
	variant default 'ALTER TABLE TASK DROP COLUMN taskId; ALTER TABLE TASK ADD COLUMN taskId INTEGER DEFAULT 7;' sqlite
	variant wal 'PRAGMA journal_mode = WAL; DELETE FROM TASK WHERE rowid % 7 = 0;' pages
	# CANN_API's connectionId is its INTEGER PRIMARY KEY, the rowid (read as the rowid); with
	# DESC it is no alias but a column with an index of SQLite's own
	variant alias 'DELETE FROM CANN_API WHERE connectionId % 4 = 1;' pages CANN_API connectionId
	variant desc 'CREATE TABLE C2 (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER,
connectionId INTEGER PRIMARY KEY DESC, name INTEGER);
INSERT INTO C2 SELECT startNs, endNs, type, globalTid, connectionId, name FROM CANN_API;
DROP TABLE CANN_API; ALTER TABLE C2 RENAME TO CANN_API;' sqlite CANN_API connectionId
else
	not_ok "find the generated rank 0's DB"
fi

t_done
