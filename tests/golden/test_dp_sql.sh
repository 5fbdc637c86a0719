#!/bin/sh
# tl summary's dp entries against plain SQL over the profile's own tables (the sqlite3 shell,
# not tl): dp_analysis' queries -- step_process ranges that carry a stream (eventType start/end,
# a connectionId) and step_process marks (dp_analysis asks for eventType 'marker'; torch_npu's
# mstx.mark writes 'marker_ex', so both) -- per rank, their count, the
# out_tokens of the marks' JSON, and one rollout's throughput from the range times inside it.
. "$(dirname "$0")/../lib.sh"
if ! command -v sqlite3 >/dev/null || ! command -v python3 >/dev/null; then
	skip "sqlite3 or python3 missing"
	exit 0
fi
"$TLGEN" rl "$t_tmp/dp" --ranks 4 --steps 2 --seed 9 --decode dp \
	> "$t_tmp/gen.log" 2>&1 || { cat "$t_tmp/gen.log"; not_ok "generate"; exit 1; }
"$TL_BIN" summary "$t_tmp/dp" --json --series > "$t_tmp/s.json" 2> "$t_tmp/err" ||
	{ not_ok "tl summary --json --series"; exit 1; }
check "no warning on well-formed marks" test ! -s "$t_tmp/err"
"$TL_BIN" summary "$t_tmp/dp" --series > /dev/null 2> "$t_tmp/err2"
rc=$?
check "--series without --json: a usage error (status 1, one line)" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '--series goes with --json' '$t_tmp/err2'"

# per rank: "rank steps tokens" over the whole capture, from SQL and from tl
: > "$t_tmp/sql.txt"
for db in "$t_tmp"/dp/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db; do
	r=${db##*_}
	r=${r%.db}
	sqlite3 -readonly "$db" "
	  WITH d AS (SELECT id FROM STRING_IDS WHERE value = 'step_process'),
	       t AS (SELECT id, name FROM ENUM_MSTX_EVENT_TYPE)
	  SELECT $r,
	    (SELECT COUNT(*) FROM MSTX_EVENTS m JOIN t ON t.id = m.eventType
	      WHERE t.name = 'start/end' AND m.domainId IN d AND m.connectionId != 4294967295),
	    (SELECT SUM(json_extract(s.value, '\$.out_tokens')) FROM MSTX_EVENTS m
	      JOIN t ON t.id = m.eventType JOIN STRING_IDS s ON s.id = m.message
	      WHERE t.name IN ('marker', 'marker_ex') AND m.domainId IN d);" | tr '|' ' ' >> "$t_tmp/sql.txt"
done
python3 - "$t_tmp/s.json" > "$t_tmp/tl.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acc = {}
for e in d["dp"]:
    a = acc.setdefault(e["rank"], [0, 0])
    a[0] += e["decode_steps"]
    a[1] += e["out_tokens"]
for r in sorted(acc):
    print(r, acc[r][0], acc[r][1])
PY
sort -n "$t_tmp/sql.txt" > "$t_tmp/sql.sorted"
check "steps and out_tokens per rank equal dp_analysis' SQL over the DB" \
	cmp -s "$t_tmp/sql.sorted" "$t_tmp/tl.txt"
[ -n "$VERBOSE" ] && paste "$t_tmp/sql.sorted" "$t_tmp/tl.txt"

# rank 0, rollout of step 2: the step ranges inside the generate_sequences range, by SQL
db=$(ls "$t_tmp"/dp/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db)
sqlite3 -readonly "$db" "
  WITH d AS (SELECT id FROM STRING_IDS WHERE value = 'step_process'),
       g AS (SELECT m.startNs s, m.endNs e FROM MSTX_EVENTS m JOIN STRING_IDS n ON n.id = m.message
             WHERE n.value = 'generate_sequences' ORDER BY m.startNs LIMIT 1 OFFSET 1),
       st AS (SELECT m.startNs s, m.endNs e FROM MSTX_EVENTS m, g
              WHERE m.domainId IN d AND m.eventType = 2 AND m.startNs >= g.s AND m.endNs <= g.e),
       mk AS (SELECT json_extract(v.value, '\$.out_tokens') tok FROM MSTX_EVENTS m
              JOIN STRING_IDS v ON v.id = m.message, g
              WHERE m.domainId IN d AND m.eventType IN (0, 3) AND m.startNs >= g.s AND m.startNs <= g.e)
  SELECT printf('%.3f', (SELECT SUM(tok) FROM mk) * 1.0 / ((SELECT MAX(e) FROM st) - (SELECT MIN(s) FROM st)) * 1e9);" \
	> "$t_tmp/thr.sql"
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
print('%.3f' % [e for e in d['dp'] if e['rank']==0 and e['step']==2][0]['throughput_tokens_per_s'])" \
	"$t_tmp/s.json" > "$t_tmp/thr.tl"
check "rank 0's throughput in rollout 2 equals SQL's tokens / (last end - first start)" \
	cmp -s "$t_tmp/thr.sql" "$t_tmp/thr.tl"
[ -n "$VERBOSE" ] && cat "$t_tmp/thr.sql" "$t_tmp/thr.tl"

# the same capture as torch_npu's trace_view.json (the DBs removed): the same dp entries
"$TLGEN" rl "$t_tmp/dpj" --ranks 4 --steps 2 --seed 9 --decode dp --json \
	> "$t_tmp/gen.log" 2>&1 || { cat "$t_tmp/gen.log"; not_ok "generate"; exit 1; }
find "$t_tmp/dpj" -name '*.db' -exec rm -f {} +
"$TL_BIN" summary "$t_tmp/dpj" --json --series > "$t_tmp/sj.json" 2> "$t_tmp/errj"
check "from trace_view.json: the same dp entries, series included, as from the DBs" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['dp']
b = json.load(open(sys.argv[2]))['dp']
sys.exit(0 if a == b and len(a) == 8 else 1)" "$t_tmp/s.json" "$t_tmp/sj.json"
check "... and no warning" test ! -s "$t_tmp/errj"

"$TLGEN" rl "$t_tmp/bad" --ranks 4 --steps 2 --seed 9 --decode dp --dp-bad \
	> "$t_tmp/gen.log" 2>&1 || { cat "$t_tmp/gen.log"; not_ok "generate"; exit 1; }
"$TL_BIN" summary "$t_tmp/bad" --json > "$t_tmp/b.json" 2> "$t_tmp/err"
check "malformed marks: one line for rank 1, naming how many" \
	grep -q '^tl: rank 1: 2 of [0-9]* step_process marks are not JSON' "$t_tmp/err"
check "a missing mark: one line for rank 2 with both counts" \
	grep -Eq '^tl: rank 2: ([0-9]+) step_process step ranges but [0-9]+ marks' "$t_tmp/err"
check "... and no other line" test "$(wc -l < "$t_tmp/err")" -eq 2
check "their stats are null in the JSON, their steps still count" python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
bad=[e for e in d['dp'] if e['rank'] in (1,2)]
ok=all(e['out_tokens'] is None and e['throughput_tokens_per_s'] is None and e['decode_steps']>0 for e in bad)
sys.exit(0 if ok and len(bad)==4 else 1)" "$t_tmp/b.json"

# the viewer makes the decode steps after its first frame, its warnings held while the screen
# is up: the same two lines, once each, after the screen (the dump is on stdout)
printf ':quit\n' > "$t_tmp/quit.keys"
"$TL_BIN" view "$t_tmp/bad" --script "$t_tmp/quit.keys" --size 100x30 --no-cache \
	> "$t_tmp/screen.txt" 2> "$t_tmp/verr"
check "view: the two mark lines on stderr, once each" sh -c "
	grep -c '^tl: rank 1: 2 of [0-9]* step_process marks are not JSON' '$t_tmp/verr' | grep -qx 1 &&
	grep -Ec '^tl: rank 2: ([0-9]+) step_process step ranges but [0-9]+ marks' '$t_tmp/verr' |
		grep -qx 1"
check "... and no other line" test "$(wc -l < "$t_tmp/verr")" -eq 2
t_done
