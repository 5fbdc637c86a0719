#!/bin/sh
# The older Ascend layouts (tlgen older): msprof's per-iteration export of CANN 6.x-7.0 and a
# MindSpore 1.x timeline. Every number is checked against the files' own answers, read here by a
# small script of the test's own: each msprof_*.json's Overlap Analysis lanes and Step Trace
# iteration, the ranks in each device's info.json, the step trace CSV beside the timeline.
. "${TL_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

g=$t_tmp/g
if ! "$TLGEN" older "$g" >/dev/null 2>&1; then
	not_ok "tlgen older writes the older layouts"
	t_done
	exit 1
fi
ms=$g/msprof
dev6=$(ls -d "$ms"/PROF_*/device_6)

# ---- discovery: one rank per device, from info.json; the duplicates skipped, said once ----------
"$TL_BIN" info "$ms" >"$t_tmp/info" 2>"$t_tmp/info.err"
check "tl info on a per-iteration export succeeds" [ $? -eq 0 ]
check "tl info lists one line per rank" [ "$(grep -c 'msprof export, per-iteration JSON (CANN ≤ 7)' "$t_tmp/info")" -eq 2 ]
check "tl info gives each rank's iterations and model ids" \
	[ "$(grep -c '(12 iterations: model 0 1-2; model 2 1-10)$' "$t_tmp/info")" -eq 2 ]
python3 - "$ms" "$t_tmp/info" <<'EOF' >"$t_tmp/ranks" 2>&1
import glob, json, os, re, sys
ms, info = sys.argv[1], sys.argv[2]
want = {}
for f in glob.glob(os.path.join(ms, "PROF_*", "device_*", "info.json.*")):
    want[os.path.basename(os.path.dirname(f))] = json.load(open(f))["rank_id"]
got = {}
for line in open(info):
    m = re.match(r"(\S+)\s.*/(device_\d+)/timeline ", line)
    if m:
        got[m.group(2)] = int(m.group(1))
print("ok" if got == want and len(want) == 2 else "info.json %s, tl %s" % (want, got))
EOF
check "the ranks are info.json's rank_id, not the device ids ($(cat "$t_tmp/ranks"))" \
	[ "$(cat "$t_tmp/ranks")" = ok ]
check "the skipped duplicates are said in one line" \
	[ "$(grep -c '72 task_time_\*, hccl_\* and step_trace_\* files of per-iteration msprof exports skipped' "$t_tmp/info.err")" -eq 1 ]
check "nothing else is said" [ "$(wc -l <"$t_tmp/info.err")" -eq 1 ]
check "no 'export it first' for an exported directory" \
	sh -c "! grep -q 'export it first' '$t_tmp/info.err'"

# ---- numbers per iteration against each file's own Overlap Analysis and Step Trace -------------
"$TL_BIN" summary --json --no-cache "$ms" >"$t_tmp/sum.json" 2>"$t_tmp/sum.err"
check "tl summary on the export succeeds" [ $? -eq 0 ]
cat >"$t_tmp/oracle.py" <<'EOF'
# Per rank and step, what the export's own files say: the union of each Overlap Analysis lane,
# and the Step Trace's Iteration Time; the rank from info.json, the step id as tl documents it
# (two models on a device: model * 1000000 + iteration).
import decimal, glob, json, os, re, sys
ms, summary = sys.argv[1], sys.argv[2]
def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)
def union(iv):
    iv.sort()
    tot, cs, ce = 0, None, None
    for s, e in iv:
        if ce is None or s > ce:
            if ce is not None:
                tot += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return tot + (ce - cs if ce is not None else 0)
want = {}
for dev in glob.glob(os.path.join(ms, "PROF_*", "device_*")):
    info = glob.glob(os.path.join(dev, "info.json.*"))[0]
    rank = json.load(open(info))["rank_id"]
    files = glob.glob(os.path.join(dev, "timeline", "msprof_*_*_*.json"))
    models = {re.match(r"msprof_\d+_(\d+)_\d+\.json", os.path.basename(f)).group(1) for f in files}
    for f in files:
        ev = json.load(open(f))
        procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
        threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
        lanes = {}
        step = None
        for e in ev:
            if e.get("ph") != "X":
                continue
            p, t = procs.get(e["pid"]), threads.get((e["pid"], e["tid"]), "")
            if p == "Overlap Analysis":
                lanes.setdefault(t, []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
            elif p == "Ascend Hardware" and t.startswith("Step Trace(Model ID:"):
                model = int(t[len("Step Trace(Model ID:"):-1])
                it = e["args"]["Iteration ID"]
                step = (model * 1000000 + it if len(models) > 1 else it, e["args"]["Iteration Time(ns)"])
        sid, length = step
        want[(rank, sid)] = {
            "computing_ns": union(lanes.get("Computing", [])),
            "communication_ns": union(lanes.get("Communication", [])),
            "communication_not_overlapped_ns": union(lanes.get("Communication(Not Overlapped)", [])),
            "free_ns": union(lanes.get("Free", [])),
            "step_ns": length,
        }
got = {}
for r in json.load(open(summary))["ranks"]:
    for s in r["steps"]:
        got[(r["rank"], s["step"])] = {k: s[k] for k in ("computing_ns", "communication_ns",
              "communication_not_overlapped_ns", "free_ns", "step_ns")}
bad = [k for k in want if got.get(k) != want[k]] + [k for k in got if k not in want]
print("%d steps" % len(want) if not bad and len(want) == 24 else
      "differ at %s: file %s, tl %s" % (bad[0], want.get(bad[0]), got.get(bad[0])))
EOF
python3 "$t_tmp/oracle.py" "$ms" "$t_tmp/sum.json" >"$t_tmp/oracle" 2>&1
check "every iteration's computing, communication, exposed, free and length are the file's own ($(cat "$t_tmp/oracle"))" \
	[ "$(cat "$t_tmp/oracle")" = "24 steps" ]
"$TL_BIN" summary --no-cache "$ms" >"$t_tmp/sum.txt" 2>/dev/null
check "the Step Trace marker is not a device task (no bubble names an iteration)" \
	sh -c "! grep -q 'Iteration' '$t_tmp/sum.txt'"
python3 -c '
import json, sys
want = [1, 2] + [2000000 + i for i in range(1, 11)]
ok = all([s["step"] for s in r["steps"]] == want for r in json.load(open(sys.argv[1]))["ranks"])
print("ok" if ok else "no")' "$t_tmp/sum.json" >"$t_tmp/models" 2>&1
check "two models' iterations stay apart (model 0's as 1, 2; model 2's as 2000001..2000010)" \
	[ "$(cat "$t_tmp/models")" = ok ]
printf ':goto 20ms\nj\n.\n<Enter>\n:dump %s\n' "$t_tmp/detail.txt" >"$t_tmp/detail.script"
XDG_CONFIG_HOME=$t_tmp/cfg XDG_STATE_HOME=$t_tmp/state TZ=UTC LC_ALL=C.UTF-8 \
	"$TL_BIN" view "$ms" --no-cache --script "$t_tmp/detail.script" --size 140x60 2>/dev/null
check "the viewer's step detail names the iteration and shows its FP Start and BP End" \
	sh -c "grep -q '^ slice  *Model 2 Iteration 3 ' '$t_tmp/detail.txt' &&
		grep -q '^ FP Start  *57' '$t_tmp/detail.txt' && grep -q '^ BP End  *57' '$t_tmp/detail.txt' && grep -q '^ step  *Model 2 Iteration 3 ' '$t_tmp/detail.txt'"

# ---- one device folder, its timeline directory, one file ---------------------------------------
"$TL_BIN" info "$dev6" >"$t_tmp/dev" 2>/dev/null
check "a device folder is its rank, not a row per file" \
	[ "$(grep -c '^0  *msprof export' "$t_tmp/dev")" -eq 1 -a "$(grep -c '^?' "$t_tmp/dev")" -eq 0 ]
"$TL_BIN" info "$dev6/timeline" >"$t_tmp/tdir" 2>/dev/null
check "its timeline directory too" [ "$(grep -c '^0  *msprof export' "$t_tmp/tdir")" -eq 1 ]
f=$(ls "$dev6"/timeline/msprof_6_2_5.json)
"$TL_BIN" summary --json --no-cache "$f" >"$t_tmp/one.json" 2>/dev/null
python3 - "$t_tmp/one.json" "$t_tmp/sum.json" <<'EOF' >"$t_tmp/one" 2>&1
import json, sys
one = json.load(open(sys.argv[1]))["ranks"]
full = {(r["rank"], s["step"]): s for r in json.load(open(sys.argv[2]))["ranks"] for s in r["steps"]}
ok = len(one) == 1 and one[0]["rank"] == 0 and [s["step"] for s in one[0]["steps"]] == [2000005]
ok = ok and one[0]["steps"][0]["computing_ns"] == full[(0, 2000005)]["computing_ns"]
print("ok" if ok else json.dumps(one)[:300])
EOF
check "one iteration file alone is that rank's iteration" [ "$(cat "$t_tmp/one")" = ok ]

# ---- MindSpore 1.x: the timeline's rank from its name, the steps from the step trace CSV --------
m=$g/mindspore
"$TL_BIN" info "$m" >"$t_tmp/msinfo" 2>&1
check "a MindSpore 1.x timeline is one rank per file, the rank from its name" \
	[ "$(grep -c '^[01]  *MindSpore 1.x timeline .*ascend_timeline_display_[01].json$' "$t_tmp/msinfo")" -eq 2 ]
"$TL_BIN" summary --json --no-cache "$m" >"$t_tmp/ms.json" 2>"$t_tmp/ms.err"
check "tl summary reads it without a word" [ $? -eq 0 -a ! -s "$t_tmp/ms.err" ]
python3 - "$m" "$t_tmp/ms.json" <<'EOF2' >"$t_tmp/msoracle" 2>&1
# The steps of step_trace_raw_{r}_detail_time.csv (10 ns ticks; MindSpore's ts 0 is step 1's FP
# start, its first operator), the operators of the timeline in each: typed ones compute, the
# AllReduce ones communication.
import csv, decimal, json, os, sys
m, summary = sys.argv[1], sys.argv[2]
def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)
def union(iv):
    iv = sorted(iv)
    tot, cs, ce = 0, None, None
    for s, e in iv:
        if ce is None or s > ce:
            if ce is not None:
                tot += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return tot + (ce - cs if ce is not None else 0)
def minus(a, b):
    out = []
    for s, e in a:
        for bs, be in sorted(b):
            if be <= s or bs >= e:
                continue
            if bs > s:
                out.append((s, bs))
            s = max(s, be)
        if s < e:
            out.append((s, e))
    return out
got = {(r["rank"], s["step"]): s for r in json.load(open(summary))["ranks"] for s in r["steps"]}
n = 0
bad = []
for rank in (0, 1):
    ev = json.load(open(os.path.join(m, "ascend_timeline_display_%d.json" % rank)))
    rows = list(csv.DictReader(open(os.path.join(m, "step_trace_raw_%d_detail_time.csv" % rank))))
    base = int(rows[0]["fp_point"])
    for row in rows:
        s, e = (int(row["start_point"]) - base) * 10, (int(row["end_point"]) - base) * 10
        ops = [(ns(x["ts"]), ns(x["ts"]) + ns(x["dur"]), "type" in x.get("args", {}), x["name"])
               for x in ev if x.get("ph") == "X" and s <= ns(x["ts"]) < e]
        comp = [(a, b) for a, b, typed, name in ops if typed]
        comm = [(a, b) for a, b, typed, name in ops if name.startswith("AllReduce")]
        want = {"computing_ns": union(comp), "communication_ns": union(comm),
                "communication_not_overlapped_ns": union(minus(comm, comp)), "step_ns": e - s}
        have = got.get((rank, int(row["step_num"])), {})
        if any(have.get(k) != v for k, v in want.items()):
            bad.append((rank, row["step_num"], want, have))
        n += 1
print("%d steps" % n if not bad and n == 8 and len(got) == 8 else "differ: %s" % (bad[:1],))
EOF2
check "each MindSpore step's computing, communication, exposed and length are the CSV's and the timeline's ($(cat "$t_tmp/msoracle"))" \
	[ "$(cat "$t_tmp/msoracle")" = "8 steps" ]
mkdir "$t_tmp/nocsv" "$t_tmp/noops"
cp "$m/ascend_timeline_display_0.json" "$t_tmp/nocsv/"
"$TL_BIN" summary --no-cache "$t_tmp/nocsv" >/dev/null 2>"$t_tmp/nocsv.err"
check "without its step trace CSV: read, without steps, said in one line" \
	[ $? -eq 0 -a "$(grep -c 'MindSpore 1.x timeline without its step trace' "$t_tmp/nocsv.err")" -eq 1 -a "$(wc -l <"$t_tmp/nocsv.err")" -eq 1 ]
echo '[{"name":"1","ph":"X","tid":"Steps","pid":0,"ts":0,"dur":5},{"name":"Default","ph":"X","tid":"Scope Name","pid":0,"ts":1,"dur":2}]' \
	>"$t_tmp/noops/ascend_timeline_display_2.json"
"$TL_BIN" summary --no-cache "$t_tmp/noops" >"$t_tmp/noops.out" 2>"$t_tmp/noops.err"
check "a MindSpore 1.x timeline without device operators is refused in a line naming the format, never zeros" \
	[ $? -ne 0 -a "$(grep -c 'MindSpore 1.x timeline (ascend_timeline_display) without device operators' "$t_tmp/noops.err")" -eq 1 -a ! -s "$t_tmp/noops.out" ]

# ---- MindSpore 2.x: *_ascend_ms/ASCEND_PROFILER_OUTPUT/ascend_mindspore_profiler_{r}.db ---------
# the generated torch_npu capture moved into MindSpore's names: the same numbers, the rank from
# the DB's file name (no profiler_info beside it)
if "$TLGEN" screens "$t_tmp/pt" >/dev/null 2>&1; then
	for r in 0 1; do
		d=$t_tmp/ms2/worker_$r-100_20250109071747110_ascend_ms/ASCEND_PROFILER_OUTPUT
		mkdir -p "$d"
		cp "$t_tmp"/pt/gen-r${r}_*_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db \
			"$d/ascend_mindspore_profiler_$r.db"
	done
	"$TL_BIN" info "$t_tmp/ms2" >"$t_tmp/ms2.info" 2>&1
	check "MindSpore 2.x DBs are ranks 0 and 1 by their file names" \
		[ "$(grep -c '^[01]  *MindSpore DB .*ascend_mindspore_profiler_[01].db$' "$t_tmp/ms2.info")" -eq 2 ]
	"$TL_BIN" summary --json --no-cache "$t_tmp/pt" >"$t_tmp/pt.json" 2>/dev/null
	"$TL_BIN" summary --json --no-cache "$t_tmp/ms2" >"$t_tmp/ms2.json" 2>/dev/null
	python3 -c '
import json, sys
a, b = (json.load(open(f))["ranks"] for f in sys.argv[1:3])
print("ok" if a == b and len(a) == 2 and a[0]["steps"] else "differ")' "$t_tmp/pt.json" "$t_tmp/ms2.json" >"$t_tmp/ms2.cmp" 2>&1
	check "a MindSpore 2.x capture gives the same steps and numbers as the torch_npu one it holds" \
		[ "$(cat "$t_tmp/ms2.cmp")" = ok ]
else
	not_ok "tlgen screens writes the torch_npu capture"
fi

t_done
