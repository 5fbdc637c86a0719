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
# the path itself is kept with them (one more result, shared by tl summary and tl critical,
# text or JSON): the next command reads it, computes no path and stores none, with the bytes
# it prints without the cache
"$TL_BIN" summary "$t_tmp/rl" --json --no-cache > "$t_tmp/s0.json" 2>/dev/null
"$TL_BIN" summary "$t_tmp/rl" --no-cache > "$t_tmp/s0.txt" 2>/dev/null
"$TL_BIN" critical "$t_tmp/rl" --no-cache > "$t_tmp/k0.txt" 2>/dev/null
# (a file's inode: a result stored again is a new file renamed into place; a read touches it)
stat -c '%n %i' "$t_tmp/cache"/*.tlr > "$t_tmp/kept"
"$TL_BIN" summary "$t_tmp/rl" --json --cache-dir "$t_tmp/cache" > "$t_tmp/s1.json" 2>/dev/null
"$TL_BIN" summary "$t_tmp/rl" --cache-dir "$t_tmp/cache" > "$t_tmp/s1.txt" 2>/dev/null
"$TL_BIN" critical "$t_tmp/rl" --cache-dir "$t_tmp/cache" > "$t_tmp/k1.txt" 2>/dev/null
"$TL_BIN" summary "$t_tmp/rl" --json --cache-dir "$t_tmp/cache" > "$t_tmp/s2.json" 2>/dev/null
check "the kept path: summary (text, JSON) and critical text, cold and warm, byte for byte" \
	sh -c "cmp -s '$t_tmp/s0.json' '$t_tmp/s1.json' && cmp -s '$t_tmp/s0.json' '$t_tmp/s2.json' \
	&& cmp -s '$t_tmp/s0.txt' '$t_tmp/s1.txt' && cmp -s '$t_tmp/k0.txt' '$t_tmp/k1.txt' \
	&& grep -q '\"critical_path\":\\[{' '$t_tmp/s1.json'"
check "... read, not computed again: the results stored before are the same files" \
	sh -c "stat -c '%n %i' '$t_tmp/cache'/*.tlr | grep -cxF -f '$t_tmp/kept' | grep -qx 3"
check "stored results: one per command line and the path" \
	sh -c "'$TL_BIN' cache --clear --cache-dir '$t_tmp/cache' | grep -q 'and 6 stored results'"

# tl summary's critical_path: tl critical's steps, checked against the generator's truth (every
# collective on the path from the rank that arrived last, the longest rollout, a delayed
# arrival's stall), blame summing to each step; the text section says the JSON's numbers
"$TLGEN" rl "$t_tmp/sum" --ranks 4 --steps 2 --seed 11 --tasks 4000 --truth "$t_tmp/sum.truth" \
	--truth-comm "$t_tmp/sum.comm" >/dev/null 2>&1 || not_ok "generate the summary's profile"
"$TLGEN" rl "$t_tmp/stall" --ranks 4 --steps 2 --seed 11 --tasks 4000 --delay-coll 4 \
	--delay-ns 5000000 --truth-comm "$t_tmp/stall.comm" >/dev/null 2>&1 || not_ok "generate the stall"
for p in sum stall; do
	"$TL_BIN" summary "$t_tmp/$p" --json --no-cache >"$t_tmp/$p.sum.json" 2>/dev/null
	"$TL_BIN" summary "$t_tmp/$p" --no-cache >"$t_tmp/$p.sum.txt" 2>/dev/null
	"$TL_BIN" critical "$t_tmp/$p" --json --no-cache >"$t_tmp/$p.crit.json" 2>/dev/null
done
check "summary --json: the segments tile each step and blame sums to it" tiles "$t_tmp/sum.sum.json"
sumtruth() {
	python3 - "$t_tmp/$1.sum.json" "$t_tmp/$1.crit.json" "$t_tmp/$1.comm" "$2" "$t_tmp/sum.truth" <<'PY'
import json, sys
path = json.load(open(sys.argv[1]))["critical_path"]
what = sys.argv[4]
if what == "same":  # tl critical's steps, byte for byte the same objects
    sys.exit(0 if path == json.load(open(sys.argv[2]))["critical_path"] else 1)
comm = [json.loads(l) for l in open(sys.argv[3])]
if what == "arrival":  # every collective on the path: its transfer from the last arrival
    n = 0
    for s in path:
        g = s["segments"]
        for k, x in enumerate(g):
            if x["kind"] != "communication":
                continue
            t = [c for c in comm if c["rank"] == x["rank"] and c["end_ns"] == x["end_ns"]]
            if not t:
                continue
            t = t[0]
            if x["start_ns"] != max(t["start_ns"], t["last_arrival_ns"]):
                sys.exit(1)
            if k == 0 or g[k - 1]["rank"] != t["last_rank"]:
                sys.exit(1)
            n += 1
    print("# %d collectives on the path" % n)
    sys.exit(0 if n >= len(path) else 1)
if what == "rollout":  # the path is on the rank whose rollout ended last, at its end
    st = [json.loads(l.rstrip().rstrip(",") + "}") for l in open(sys.argv[5])
          if '"stage":"rollout"' in l]
    for s in path:
        ro = [x for x in st if x["step"] == s["step"]]
        last = max(ro, key=lambda x: x["end_ns"])
        t = last["end_ns"] - 1
        g = [x for x in s["segments"] if x["start_ns"] <= t < x["end_ns"]]
        if not ro or len(g) != 1 or g[0]["rank"] != last["rank"]:
            sys.exit(1)
    sys.exit(0)
if what == "stall":  # the late rank idles >= the 5 ms delay before it arrives at collective 4
    t = [c for c in comm if c["op"] == 4][0]
    late = sum(x["end_ns"] - x["start_ns"] for s in path for x in s["segments"]
               if x["rank"] == t["last_rank"] and x["kind"] in ("idle", "host_launch")
               and x["end_ns"] <= t["last_arrival_ns"]
               and x["start_ns"] >= t["last_arrival_ns"] - 7000000)
    print("# rank %d waits %d ns on the path before collective 4" % (t["last_rank"], late))
    sys.exit(0 if late >= 5000000 else 1)
sys.exit(2)
PY
}
check "summary --json: the critical path is tl critical's" sumtruth sum same
check "summary --json: through the last arrival at every collective on it (truth)" sumtruth sum arrival
check "summary --json: through the longest rollout of each step (truth)" sumtruth sum rollout
check "summary --json: through the delayed rank's stall (truth)" sumtruth stall stall
check "summary --json, delayed: through the last arrivals (truth)" sumtruth stall arrival
# the text: per step its line, and each blame row's total the JSON's for that rank, in ms
sumtext() {
	python3 - "$t_tmp/sum.sum.json" "$t_tmp/sum.sum.txt" <<'PY'
import json, re, sys
path = json.load(open(sys.argv[1]))["critical_path"]
txt = open(sys.argv[2]).read().split("\nCritical path per step")
if len(txt) != 2:
    sys.exit(1)
blocks = re.split(r"\n(?=critical path of step )", txt[1])[1:]
if len(blocks) != len(path):
    sys.exit(1)
for s, b in zip(path, blocks):
    n = s["end_ns"] - s["start_ns"]
    if not b.startswith("critical path of step %d: %d.%03d ms" % (s["step"], n // 10**6, n % 10**6 // 1000)):
        sys.exit(1)
    per = {}
    for x in s["blame"]:
        per[x["rank"]] = per.get(x["rank"], 0) + x["ns"]
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r"^  (\d+) .* (\d+\.\d+) +\d+\.\d%$", b, re.M)}
    want = {r: "%d.%03d" % (v // 10**6, v % 10**6 // 1000) for r, v in per.items()}
    if rows != want or len(re.findall(r"^    rank ", b, re.M)) != min(5, len(s["segments"])):
        print("#", rows, want)
        sys.exit(1)
sys.exit(0)
PY
}
check "summary text: per step the blame table (the JSON's totals) and 5 longest segments" sumtext

# the findings say whether they are on the path: a stall in rank 0's first rollout, short (rank
# 3, 30% slower, still has the longest rollout: off the path) and long (rank 0's rollout is now
# the longest: on it), by the generator's truth; a finding without a span says null
onpath() {
	python3 - "$t_tmp/f$1.json" "$t_tmp/f$1.truth" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
truth = [l for l in open(sys.argv[2])]
stall = [json.loads(l)["stall"] for l in truth if l.startswith('{"stall"')][0]
ro = [json.loads(l.rstrip().rstrip(",") + "}") for l in truth if '"stage":"rollout","step":1,' in l]
want = max(ro, key=lambda x: x["end_ns"])["rank"] == stall["rank"]
ok = False
for f in d["findings"]:
    v = f["on_critical_path"]
    if f["start_ns"] >= f["end_ns"] and v is not None:
        sys.exit(1)
    if v is not None and not f["evidence"].endswith("; on the critical path" if v else
                                                    "; not on the critical path"):
        sys.exit(1)
    if f["kind"] == "stall" and f["rank"] == stall["rank"] and f["start_ns"] == stall["start_ns"]:
        ok = v is want
        print("# the stall: on_critical_path %s, the truth's longest rollout %s" % (v, want))
sys.exit(0 if ok else 1)
PY
}
for ns in 2000000 60000000; do
	"$TLGEN" rl "$t_tmp/f$ns" --ranks 4 --steps 2 --tasks 3000 --stall-rank 0 --stall-ns $ns \
		--truth "$t_tmp/f$ns.truth" >/dev/null 2>&1 || not_ok "generate the stall of $ns ns"
	"$TL_BIN" triage "$t_tmp/f$ns" --json --no-cache >"$t_tmp/f$ns.json" 2>/dev/null
	check "triage: a $ns ns stall in rank 0's rollout is on the path as the truth says" onpath $ns
done
"$TL_BIN" summary "$t_tmp/f60000000" --json --no-cache >"$t_tmp/fs.json" 2>/dev/null
check "summary --json: its findings say it too" \
	grep -q '"kind":"stall".*"on_critical_path":true' "$t_tmp/fs.json"

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
