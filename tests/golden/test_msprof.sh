#!/bin/sh
# msprof DBs as msprof writes them, each number against plain SQL over the
# DB's own tables (the sqlite3 shell, not tl):
# - msprof's own export DB (no META_DATA) loads without a complaint, its overlap equal to the
#   union of its TASK and COMMUNICATION_OP intervals;
# - with MindStudio Insight's OVERLAP_ANALYSIS table, tl's computing, communication, not
#   overlapped and free are that table's (its Free spans the device's tasks), cached or not;
# - CANN 7.0's report_{device}.db (TEXT times in float notation after baseTimeNs, correlationId
#   keys, no COMMUNICATION_OP) is a profile for tl info and tl summary, file and directory alike,
#   its numbers those of SQL that reads the times' digits exactly;
# - tl diff of two such traces without a rank pairs them: its computing is each summary's.
. "$(dirname "$0")/../lib.sh"
if ! command -v sqlite3 >/dev/null || ! command -v python3 >/dev/null; then
	skip "sqlite3 or python3 missing"
	exit 0
fi
gen() { "$TLGEN" msprof "$@" > "$t_tmp/gen.log" 2>&1 || { cat "$t_tmp/gen.log"; not_ok "tlgen msprof $*"; exit 1; }; }
gen "$t_tmp/plain" --seed 3
gen "$t_tmp/oa" --seed 3 --overlap-table
gen "$t_tmp/c7" --seed 5 --cann7 --device 2
gen "$t_tmp/slow" --seed 3 --compute 1260
plain=$t_tmp/plain/msprof_20240101000000.db
oa=$t_tmp/oa/msprof_20240101000000.db
c7=$t_tmp/c7/report_2.db
slow=$t_tmp/slow/msprof_20240101000000.db
cache=$t_tmp/cache

# computing communication exposed free of `tl summary --json` (one rank, one row)
tl_overlap() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["ranks"][0]["steps"][0]
print(s["computing_ns"], s["communication_ns"], s["communication_not_overlapped_ns"], s["free_ns"])'
}

# The union length of the intervals (s, e) that the SELECT in $2 gives, in plain SQL: a new
# island starts where an interval starts after every earlier one ended.
union_sql() {
	echo "WITH iv(s, e) AS ($1),
	  o AS (SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING
	                                  AND 1 PRECEDING) AS pe FROM iv),
	  g AS (SELECT s, e, sum(CASE WHEN pe IS NULL OR s > pe THEN 1 ELSE 0 END)
	                      OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp FROM o)
	SELECT coalesce(sum(me - ms), 0) FROM (SELECT min(s) ms, max(e) me FROM g GROUP BY grp)"
}

# computing communication exposed free from a compute and a communication interval SELECT:
# exposed = |comp U comm| - |comp|, free = (last busy end - first busy start) - |comp U comm|
overlap_sql() {
	db=$1 comp=$2 comm=$3
	c=$(sqlite3 -readonly "$db" "$(union_sql "$comp")")
	m=$(sqlite3 -readonly "$db" "$(union_sql "$comm")")
	u=$(sqlite3 -readonly "$db" "$(union_sql "$comp UNION ALL $comm")")
	span=$(sqlite3 -readonly "$db" "WITH iv(s, e) AS ($comp UNION ALL $comm) SELECT max(e) - min(s) FROM iv")
	echo "$c $m $((u - c)) $((span - u))"
}

# ---- msprof's own export DB, without META_DATA -------------------------------------------------
"$TL_BIN" summary --no-cache --json "$plain" > "$t_tmp/plain.json" 2> "$t_tmp/plain.err"
check "an msprof export DB without META_DATA loads without a complaint" \
	sh -c "test ! -s '$t_tmp/plain.err' && ! sqlite3 -readonly '$plain' 'SELECT 1 FROM META_DATA' 2>/dev/null"
[ -s "$t_tmp/plain.err" ] && cat "$t_tmp/plain.err"
want=$(overlap_sql "$plain" \
	"SELECT t.startNs, t.endNs FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId" \
	"SELECT startNs, endNs FROM COMMUNICATION_OP")
got=$(tl_overlap < "$t_tmp/plain.json")
check "msprof DB: computing, communication, not overlapped, free equal SQL over TASK and COMMUNICATION_OP ($got / $want)" \
	test "$got" = "$want"

# ---- the same DB with Insight's OVERLAP_ANALYSIS -----------------------------------------------
table() {
	sqlite3 -readonly "$oa" "SELECT
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 0),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 1),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 2),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 3)" | tr '|' ' '
}
want=$(table)
"$TL_BIN" summary --no-cache --json "$oa" > "$t_tmp/oa.json" 2> "$t_tmp/oa.err"
got=$(tl_overlap < "$t_tmp/oa.json")
check "OVERLAP_ANALYSIS: tl's computing, communication, not overlapped and free are the table's ($got / $want)" \
	test "$got" = "$want"
check "OVERLAP_ANALYSIS: loads without a complaint" test ! -s "$t_tmp/oa.err"
# the table's Free spans the device's tasks: more than the busy time's gaps (tl's own)
free_own=$(tl_overlap < "$t_tmp/plain.json" | cut -d' ' -f4)
free_oa=$(echo "$want" | cut -d' ' -f4)
lead_trail=$(sqlite3 -readonly "$oa" "
  WITH b AS (SELECT min(s) bs, max(e) be FROM (
               SELECT t.startNs s, t.endNs e FROM TASK t JOIN COMPUTE_TASK_INFO c
                 ON c.globalTaskId = t.globalTaskId
               UNION ALL SELECT startNs, endNs FROM COMMUNICATION_OP)),
       v AS (SELECT min(t.startNs) vs, max(t.endNs) ve FROM TASK t JOIN STRING_IDS si ON si.id = t.taskType
             WHERE si.value NOT IN ('PROFILING_ENABLE', 'PROFILING_DISABLE', 'FFTS_PLUS',
               'KERNEL_AICORE', 'KERNEL_AIVEC', 'KERNEL_MIX_AIC', 'KERNEL_MIX_AIV'))
  SELECT max(bs - vs, 0) + max(ve - be, 0) FROM b, v")
check "OVERLAP_ANALYSIS: its free is the busy gaps' plus the idle before and after ($free_oa = $free_own + $lead_trail)" \
	test "$free_oa" -eq $((free_own + lead_trail)) -a "$lead_trail" -gt 0
for pass in write read; do
	"$TL_BIN" summary --cache-dir "$cache" --json "$oa" > "$t_tmp/oa_$pass.json" 2>/dev/null
	got=$(tl_overlap < "$t_tmp/oa_$pass.json")
	check "OVERLAP_ANALYSIS through the model cache ($pass): the table's numbers" test "$got" = "$want"
done

# a rank of two captures, one with the table: the table answers for its capture only, so tl
# computes the rank's overlap itself and says why
for n in 1 2; do
	mkdir -p "$t_tmp/two/PROF_00000${n}_2024010112000${n}000_ABC/device_0"
	echo '{"rank_id": 0}' > "$t_tmp/two/PROF_00000${n}_2024010112000${n}000_ABC/device_0/info.json.0"
done
cp "$oa" "$t_tmp/two/PROF_000001_20240101120001000_ABC/"
cp "$slow" "$t_tmp/two/PROF_000002_20240101120002000_ABC/"
"$TL_BIN" summary --no-cache --json "$t_tmp/two" > "$t_tmp/two.json" 2> "$t_tmp/two.err"
check "a rank of two captures, one with OVERLAP_ANALYSIS: not used, one line says so" \
	sh -c "[ \$(wc -l < '$t_tmp/two.err') -eq 1 ] && grep -q 'OVERLAP_ANALYSIS not used: the rank has other captures' '$t_tmp/two.err' &&
	       ! grep -q overlap_table '$t_tmp/two.json'"

# with steps: each step's row is its own work (as without the table), the capture's the table's
gen "$t_tmp/oas" --seed 3 --overlap-table --steps 3
gen "$t_tmp/ps" --seed 3 --steps 3
oas=$t_tmp/oas/msprof_20240101000000.db
want=$(sqlite3 -readonly "$oas" "SELECT
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 0),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 1),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 2),
	  (SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type = 3)" | tr '|' ' ')
"$TL_BIN" summary --no-cache --json "$oas" > "$t_tmp/oas.json" 2>/dev/null
got=$(python3 -c '
import json, sys
t = json.load(sys.stdin)["ranks"][0]["overlap_table"]
print(t["computing_ns"], t["communication_ns"], t["communication_not_overlapped_ns"], t["free_ns"])' < "$t_tmp/oas.json")
check "OVERLAP_ANALYSIS with 3 steps: overlap_table is the table's ($got / $want)" test "$got" = "$want"
"$TL_BIN" summary --no-cache "$oas" 2>/dev/null | sed -n '3,5p' > "$t_tmp/oas.steps"
"$TL_BIN" summary --no-cache "$t_tmp/ps" 2>/dev/null | sed -n '3,5p' > "$t_tmp/ps.steps"
check "OVERLAP_ANALYSIS with 3 steps: each step's row is its work's, as without the table" \
	sh -c "test \$(wc -l < '$t_tmp/oas.steps') -eq 3 && cmp -s '$t_tmp/oas.steps' '$t_tmp/ps.steps'"
free_ms=$(echo "$want" | awk '{ printf "%d.%06d", $4 / 1000000, $4 % 1000000 }')
check "OVERLAP_ANALYSIS with 3 steps: the text's capture row has the table's free ($free_ms ms)" \
	sh -c "'$TL_BIN' summary --no-cache '$oas' 2>/dev/null | grep -q '^ *?  capture .* $free_ms  *-\$'"

# msprof's own table (2026): its types are ENUM_OVERLAY_ANALYSIS_TYPE's names
gen "$t_tmp/oam" --seed 3 --overlap-table-msprof
oam=$t_tmp/oam/msprof_20240101000000.db
want=$(sqlite3 -readonly "$oam" "SELECT group_concat(t, ' ') FROM (SELECT coalesce(
	  (SELECT sum(o.endNs - o.startNs) FROM OVERLAP_ANALYSIS o JOIN ENUM_OVERLAY_ANALYSIS_TYPE e
	    ON e.id = o.type WHERE e.name = k.name), 0) t
	  FROM (SELECT 1 i, 'COMPUTE' name UNION ALL SELECT 2, 'COMMUNICATION'
	        UNION ALL SELECT 3, 'COMM_NOT_OVERLAP_COMP' UNION ALL SELECT 4, 'FREE') k ORDER BY k.i)")
"$TL_BIN" summary --no-cache --json "$oam" > "$t_tmp/oam.json" 2> "$t_tmp/oam.err"
got=$(tl_overlap < "$t_tmp/oam.json")
check "msprof's OVERLAP_ANALYSIS and ENUM_OVERLAY_ANALYSIS_TYPE: tl's numbers are the table's ($got / $want)" \
	sh -c "test '$got' = '$want' && test ! -s '$t_tmp/oam.err'"

# a real DB (the samples' level2 rank 1, copied) as Insight leaves it: the table made here by
# Insight's algorithm (analyses.md 2b), independently of tl; tl's capture row is the table's, and
# its step row stays torch_npu's StepTraceTime (analysis.db)
real=$SAMPLES/ascend-db/level2/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT
if [ -f "$real/ascend_pytorch_profiler_1.db" ]; then
	mkdir -p "$t_tmp/real" && cp "$real/ascend_pytorch_profiler_1.db" "$t_tmp/real/"
	python3 - "$t_tmp/real/ascend_pytorch_profiler_1.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def merged(v):
    out = []
    for s, e in sorted(v):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out
rows = []
for (d,) in db.execute("SELECT DISTINCT deviceId FROM TASK").fetchall():
    comp = merged(db.execute("SELECT startNs, endNs FROM TASK main JOIN COMPUTE_TASK_INFO info "
        "ON info.globalTaskId = main.globalTaskId WHERE deviceId = ? AND startNs != endNs", (d,)))
    comm = merged(db.execute("SELECT op.startNs, op.endNs FROM COMMUNICATION_OP op JOIN TASK task "
        "ON task.connectionId = op.connectionId WHERE task.deviceId = ? GROUP BY opId", (d,)))
    busy = merged(comp + comm)
    vs, ve = db.execute("SELECT min(main.startNs), max(main.endNs) FROM TASK main JOIN STRING_IDS si "
        "ON main.taskType = si.id WHERE si.value NOT IN ('PROFILING_ENABLE', 'PROFILING_DISABLE', "
        "'FFTS_PLUS', 'KERNEL_AICORE', 'KERNEL_AIVEC', 'KERNEL_MIX_AIC', 'KERNEL_MIX_AIV') "
        "AND deviceId = ?", (d,)).fetchone()
    rows += [(d, s, e, 0) for s, e in comp] + [(d, s, e, 1) for s, e in comm]
    for s, e in comm:
        cur = s
        for cs, ce in comp:
            if ce <= cur or cs >= e:
                continue
            if cs > cur:
                rows.append((d, cur, cs, 2))
            cur = max(cur, ce)
        if cur < e:
            rows.append((d, cur, e, 2))
    free = [(busy[i - 1][1], busy[i][0]) for i in range(1, len(busy))]
    if vs < busy[0][0]:
        free.append((vs, busy[0][0]))
    if ve > busy[-1][1]:
        free.append((busy[-1][1], ve))
    rows += [(d, s, e, 3) for s, e in free]
db.execute("CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, "
           "startNs integer, endNs integer, type integer)")
db.executemany("INSERT INTO OVERLAP_ANALYSIS (deviceId, startNs, endNs, type) VALUES (?,?,?,?)", rows)
db.commit()
PY
	rdb=$t_tmp/real/ascend_pytorch_profiler_1.db
	want=$(sqlite3 -readonly "$rdb" "SELECT
	  (SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 0),
	  (SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 1),
	  (SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 2),
	  (SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 3)" | tr '|' ' ')
	"$TL_BIN" summary --no-cache --json "$rdb" > "$t_tmp/real.json" 2>/dev/null
	got=$(python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
t = r["overlap_table"]
print(t["computing_ns"], t["communication_ns"], t["communication_not_overlapped_ns"], t["free_ns"])' < "$t_tmp/real.json")
	check "a real DB with Insight's table: overlap_table is the table's ($got / $want)" test "$got" = "$want"
	st=$(sqlite3 -readonly "$real/analysis.db" "SELECT CAST(round(free * 1000) AS INTEGER) FROM StepTraceTime")
	sf=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["ranks"][0]["steps"][0]["free_ns"])' < "$t_tmp/real.json")
	check "a real DB with Insight's table: its step's free is still StepTraceTime's ($sf ns, analysis.db $st ns)" \
		test "$sf" = "$st"
else
	skip "samples absent: $real"
	skip "samples absent: $real"
fi

# ---- CANN 7.0's report DB ------------------------------------------------------------------------
# TASK's TEXT times to ns in SQL from their digits: the file writes 15 significant digits and
# (here) an exponent of 17, so the digits without the point, times 1000, plus baseTimeNs
check "CANN 7.0: every TASK time is a 15-digit float text with exponent 17" \
	test "$(sqlite3 -readonly "$c7" "SELECT count(*) FROM TASK WHERE start NOT GLOB '[1-9].[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]e+17' OR end NOT GLOB '[1-9].*e+17'")" = 0
ns() { echo "(CAST(replace(substr($1, 1, 16), '.', '') AS INTEGER) * 1000 + (SELECT baseTimeNs FROM TARGET_INFO_SESSION_TIME))"; }
want=$(overlap_sql "$c7" \
	"SELECT $(ns t.start), $(ns t.end) FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.correlationId = t.correlationId" \
	"SELECT min($(ns t.start)), max($(ns t.end)) FROM TASK t JOIN COMMUNICATION_TASK_INFO i ON i.correlationId = t.correlationId GROUP BY i.opId")
"$TL_BIN" summary --no-cache --json "$t_tmp/c7" > "$t_tmp/c7.json" 2> "$t_tmp/c7.err"
check "CANN 7.0: the directory of a report DB is a profile, read without a complaint" \
	sh -c "test -s '$t_tmp/c7.json' && test ! -s '$t_tmp/c7.err'"
[ -s "$t_tmp/c7.err" ] && cat "$t_tmp/c7.err"
got=$(tl_overlap < "$t_tmp/c7.json")
check "CANN 7.0: computing, communication, not overlapped, free equal SQL over TASK's exact times ($got / $want)" \
	test "$got" = "$want"
"$TL_BIN" summary --no-cache --json "$c7" > "$t_tmp/c7f.json" 2>/dev/null
check "CANN 7.0: the file alone gives the same numbers" test "$(tl_overlap < "$t_tmp/c7f.json")" = "$want"
"$TL_BIN" info "$t_tmp/c7" > "$t_tmp/c7.info" 2>&1
check "CANN 7.0: tl info lists the report DB as an msprof DB" grep -q "msprof DB.*report_2.db" "$t_tmp/c7.info"
end=$(sqlite3 -readonly "$c7" "SELECT strftime('%Y-%m-%d %H:%M:%S', endTimeNs / 1000000000, 'unixepoch', 'localtime') FROM TARGET_INFO_SESSION_TIME")
check "CANN 7.0: tl info's capture time is TARGET_INFO_SESSION_TIME's end ($end)" \
	sh -c "grep 'report_2.db' '$t_tmp/c7.info' | grep -q '$end' && ! grep -q 'file time' '$t_tmp/c7.info'"
prof=$t_tmp/cap/PROF_000001_20240101120000000_ABCDEF
mkdir -p "$prof/device_2" && cp "$c7" "$prof/device_2/" &&
	echo '{"rank_id": 5, "devices": "2"}' > "$prof/device_2/info.json.2"
"$TL_BIN" summary --no-cache --json "$t_tmp/cap" > "$t_tmp/cap.json" 2>/dev/null
capc=$(tl_overlap < "$t_tmp/cap.json" | cut -d' ' -f1)
check "CANN 7.0: a PROF_ directory's device_N/report_N.db is found, its rank from info.json.N" \
	sh -c "grep -q '\"rank\":5,' '$t_tmp/cap.json' && test '$capc' = '$(echo "$want" | cut -d' ' -f1)'"
# damaged: no usable base, a time that is no number; said, one line each, the rest loads
mkdir -p "$t_tmp/c7bad" && cp "$c7" "$t_tmp/c7bad/" &&
	sqlite3 "$t_tmp/c7bad/report_2.db" "UPDATE TARGET_INFO_SESSION_TIME SET baseTimeNs = 'zz';
	  UPDATE TASK SET start = '1.2.3e+17' WHERE correlationId = 3"
"$TL_BIN" summary --no-cache "$t_tmp/c7bad" > "$t_tmp/c7bad.out" 2> "$t_tmp/c7bad.err"
check "CANN 7.0 damaged: no base and a bad time are said in one line each, the rest loads" \
	sh -c "[ \$(wc -l < '$t_tmp/c7bad.err') -eq 2 ] && grep -q 'baseTimeNs' '$t_tmp/c7bad.err' &&
	       grep -q 'TASK: 1 rows with a start.*not an integer skipped' '$t_tmp/c7bad.err' &&
	       grep -q '^ *?  *all ' '$t_tmp/c7bad.out'"
c0=$(echo "$want" | cut -d' ' -f1)
check "CANN 7.0: its kernels are compute (computing > 0)" test "$c0" -gt 0

# ---- tl diff of two traces without a rank --------------------------------------------------------
"$TL_BIN" summary --no-cache --json "$slow" > "$t_tmp/slow.json" 2>/dev/null
ca=$(tl_overlap < "$t_tmp/plain.json" | cut -d' ' -f1)
cb=$(tl_overlap < "$t_tmp/slow.json" | cut -d' ' -f1)
"$TL_BIN" diff --no-cache --json "$plain" "$slow" > "$t_tmp/diff.json" 2>/dev/null
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["changes"] if c["kind"] == "overlap" and c["name"] == "computing" and c["rank"] is None]
print(*((c[0]["a_ns"], c[0]["b_ns"]) if c else ("none",)))' "$t_tmp/diff.json")
check "tl diff of two single traces without a rank: computing A and B are the two summaries' ($got / $ca $cb)" \
	test "$got" = "$ca $cb" -a "$ca" != "$cb"
"$TL_BIN" diff --no-cache "$plain" "$slow" > "$t_tmp/diff.txt" 2>/dev/null
check "tl diff text: the verdict names computing and the two traces are paired (1 rank each)" \
	sh -c "head -1 '$t_tmp/diff.txt' | grep -q '^computing +' &&
	       grep -q '(1 ranks, 0 steps)' '$t_tmp/diff.txt' &&
	       grep -q 'one trace each, without a rank number' '$t_tmp/diff.txt'"
t_done
