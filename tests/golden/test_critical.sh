#!/bin/sh
# tl critical from the command line: its JSON read by a script of its own (the segments tile
# each step, blame sums to it), the same path from a DB and from its trace_view.json, the
# what-if's usage and its prediction on and off the path, and on the real level2 sample the
# collectives on the path checked against plain SQL over both ranks' COMMUNICATION_OP rows
# (the transfer starts at the later arrival, and the path came from the rank that arrived).
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null; then
	skip "python3 missing"
	t_done
	exit 0
fi
"$TLGEN" rl "$t_tmp/rl" --ranks 4 --steps 2 --seed 3 --tasks 6000 --json \
	> "$t_tmp/gen.log" 2>&1 || { cat "$t_tmp/gen.log"; not_ok "generate"; exit 1; }
"$TL_BIN" critical "$t_tmp/rl" --json --no-cache > "$t_tmp/db.json" 2> "$t_tmp/err" ||
	{ not_ok "tl critical --json"; exit 1; }
check "no warning" test ! -s "$t_tmp/err"

tiles() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {"compute", "communication", "memory", "host_launch", "idle", "waiting"}
ok = len(d["critical_path"]) > 0
for s in d["critical_path"]:
    g = s["segments"]
    ok = ok and g and g[0]["start_ns"] == s["start_ns"] and g[-1]["end_ns"] == s["end_ns"]
    ok = ok and all(a["end_ns"] == b["start_ns"] for a, b in zip(g, g[1:]))
    ok = ok and all(x["end_ns"] > x["start_ns"] and x["kind"] in kinds for x in g)
    ok = ok and sum(b["ns"] for b in s["blame"]) == s["end_ns"] - s["start_ns"]
    ok = ok and sum(x["end_ns"] - x["start_ns"] for x in g) == s["duration_ns"]
sys.exit(0 if ok else 1)
PY
}
check "DB: the segments tile each step and blame sums to it" tiles "$t_tmp/db.json"

# the same captures read from their trace_view.json only
for d in "$t_tmp"/rl/gen-r*; do
	b=$(basename "$d")
	mkdir -p "$t_tmp/json/$b/ASCEND_PROFILER_OUTPUT"
	ln -s "$d"/profiler_info_*.json "$t_tmp/json/$b/"
	ln -s "$d/ASCEND_PROFILER_OUTPUT/trace_view.json" "$t_tmp/json/$b/ASCEND_PROFILER_OUTPUT/"
done
"$TL_BIN" critical "$t_tmp/json" --json --no-cache > "$t_tmp/tv.json" 2>/dev/null
check "trace_view.json: the segments tile each step" tiles "$t_tmp/tv.json"
same() {
	python3 - "$t_tmp/db.json" "$t_tmp/tv.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["critical_path"] for p in sys.argv[1:3])
sys.exit(0 if len(a) == len(b) and all(
    x["duration_ns"] == y["duration_ns"] and x["blame"] == y["blame"] for x, y in zip(a, b))
    else 1)
PY
}
check "trace_view.json gives the DB's path and blame" same

# what-if: the longest compute on the path, everywhere and on a rank that computes nothing on it
python3 - "$t_tmp/db.json" > "$t_tmp/spec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["critical_path"][0]
on = {b["rank"] for b in s["blame"] if b["kind"] == "compute"}
off = min(r for r in range(4) if r not in on)
print(s["operators"][0]["name"], off)
PY
read -r op off < "$t_tmp/spec"
"$TL_BIN" critical "$t_tmp/rl" --json --no-cache --what-if "$op=-20%" > "$t_tmp/w1.json"
"$TL_BIN" critical "$t_tmp/rl" --json --no-cache --what-if "rank:$off:$op=-20%" > "$t_tmp/w2.json"
pred() {
	python3 - "$1" "$2" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["what_if"]["steps"]
shorter = all(x["predicted_ns"] < x["duration_ns"] for x in w)
same = all(x["predicted_ns"] == x["duration_ns"] for x in w)
sys.exit(0 if (shorter if sys.argv[2] == "shorter" else same) else 1)
PY
}
check "what-if $op=-20%: every step predicted shorter" pred "$t_tmp/w1.json" shorter
check "what-if rank:$off:$op=-20% (off the path): no change" pred "$t_tmp/w2.json" same
"$TL_BIN" critical "$t_tmp/rl" --what-if "$op=-20%" --no-cache > "$t_tmp/w.txt"
check "text: the what-if's predictions" grep -q "^what-if $op=-20%" "$t_tmp/w.txt"
"$TL_BIN" critical "$t_tmp/rl" --what-if "MatMul=20" > /dev/null 2> "$t_tmp/e"
rc=$?
check "a what-if without a percentage: status 1, one line" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l < '$t_tmp/e') -eq 1 ] && grep -q 'percentage' '$t_tmp/e'"
"$TL_BIN" summary "$t_tmp/rl" --what-if "x=-1%" > /dev/null 2>&1
check "summary does not take --what-if" test $? -eq 1

# stored results, as tl summary's: the same bytes again, one result per command line
"$TL_BIN" critical "$t_tmp/rl" --json --cache-dir "$t_tmp/cache" > "$t_tmp/c1.json" 2>/dev/null
"$TL_BIN" critical "$t_tmp/rl" --json --cache-dir "$t_tmp/cache" > "$t_tmp/c2.json" 2>/dev/null
"$TL_BIN" critical "$t_tmp/rl" --json --cache-dir "$t_tmp/cache" --what-if "$op=-20%" \
	> "$t_tmp/c3.json" 2>/dev/null
check "stored result: the same bytes as without the cache" \
	sh -c "cmp -s '$t_tmp/c1.json' '$t_tmp/db.json' && cmp -s '$t_tmp/c2.json' '$t_tmp/db.json' \
	&& cmp -s '$t_tmp/c3.json' '$t_tmp/w1.json'"
check "stored results: one per command line" \
	sh -c "'$TL_BIN' cache --clear --cache-dir '$t_tmp/cache' | grep -q 'and 2 stored results'"

# the real sample: two ranks of an all-reduce job
L2="$SAMPLES/ascend-db/level2"
if [ ! -d "$L2" ] || ! command -v sqlite3 >/dev/null; then
	skip "no samples ($L2) or no sqlite3"
	t_done
	exit $?
fi
"$TL_BIN" critical "$L2" --json --no-cache > "$t_tmp/l2.json" 2>/dev/null
check "level2: the segments tile the step" tiles "$t_tmp/l2.json"
: > "$t_tmp/ops.txt"
for r in 0 1; do
	sqlite3 -readonly "file:$L2/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db?immutable=1" \
		"SELECT $r, s.value, o.startNs, o.endNs FROM COMMUNICATION_OP o
		 JOIN STRING_IDS s ON s.id = o.opName;" | tr '|' ' ' >> "$t_tmp/ops.txt"
done
coll() {
	python3 - "$t_tmp/l2.json" "$t_tmp/ops.txt" <<'PY'
import json, sys
ops = {}
for line in open(sys.argv[2]):
    r, name, s, e = line.split()
    ops.setdefault(name, {})[int(r)] = (int(s), int(e))
d = json.load(open(sys.argv[1]))
n = 0
for st in d["critical_path"]:
    g = st["segments"]
    for k, x in enumerate(g):
        m = ops.get(x["name"])
        if x["kind"] != "communication" or m is None or len(m) != 2:
            continue
        last = max(m, key=lambda r: (m[r][0], -r))
        if x["end_ns"] != m[x["rank"]][1] or x["start_ns"] != m[last][0]:
            sys.exit(1)
        if last != x["rank"] and (k == 0 or g[k - 1]["rank"] != last):
            sys.exit(1)
        n += 1
sys.exit(0 if n > 0 else 1)
PY
}
check "level2: each all-reduce on the path from the later arrival (SQL)" coll
t_done
