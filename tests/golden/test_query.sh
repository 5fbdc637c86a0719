#!/bin/sh
# tl query: every table against an answer tl did not compute where there is one (plain SQL over
# the raw DBs with the sqlite3 shell, the generator's ground truth, torch_npu's own
# StepTraceTime in the samples' analysis.db), and against `tl summary --json` (the same numbers,
# which a user compares) on DB, trace_view.json and Kineto inputs; the refusals of untrusted SQL,
# each one line and exit 1; the output formats; and that pushing `rank =` and a time window
# down changes no answer.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"
if ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
	skip "python3 or the sqlite3 shell is not installed (tools/install-deps --test)"
	t_done
	exit
fi
P=$t_tmp/rl
"$TLGEN" rl "$P" --ranks 2 --tasks 2000 --json --truth "$t_tmp/truth" >/dev/null 2>&1
check "tlgen rl writes a profile" [ -d "$P" ]
# the same capture as trace_view.json alone
cp -r "$P" "$t_tmp/json"
find "$t_tmp/json" -name '*.db' -exec rm {} +

# compare.py KIND SUMMARY_JSON QUERY_JSON: the query's rows equal the summary's section, field by
# field, in the same order. Prints what differs.
cat >"$t_tmp/compare.py" <<'EOF'
import json, sys
kind, got = sys.argv[1], json.load(open(sys.argv[3]))
summ = json.load(open(sys.argv[2])) if not kind.startswith("truth") else None
want = []
if kind == "steps":
    rename = {"communication_transmit_stage_ns": "transmit_ns",
              "communication_wait_stage_ns": "wait_ns"}
    for r in summ["ranks"]:
        for s in r["steps"]:
            row = {"rank": r["rank"]}
            for k, v in s.items():
                row[rename.get(k, k)] = v
            row["device_activity"] = 1 if r["device_activity"] else 0
            want.append(row)
elif kind == "truth":  # the generator's per-step numbers (one JSON object per line)
    want = []
    for line in open(sys.argv[2]):  # the lines of whole objects (the others are fragments)
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if "steps" in o:
            for s in o["steps"]:
                want.append(dict(rank=o["rank"], **s))
elif kind == "truth-stages":  # the generator's stage instances (fragments: a stage's line, then
    # its numbers' line)
    last = None
    for line in open(sys.argv[2]):
        line = line.strip().rstrip(",")
        try:
            o = json.loads(line + "}")
        except ValueError:
            continue
        if "stage" in o:
            last = {k: o[k] for k in ("rank", "stage", "step", "start_ns", "end_ns",
                                      "duration_ns", "busy_ns")}
            want.append(last)
        elif last is not None and "decode_steps" in o:
            last["decode_steps"] = o["decode_steps"]
    key = lambda r: (r["rank"], r["start_ns"], r["stage"])
    want.sort(key=key)
    got.sort(key=key)
elif kind == "stages":
    for s in summ["stages"]:
        want.append({k: s[k] for k in ("rank", "stage", "step", "start_ns", "end_ns",
                     "duration_ns", "busy_ns", "lag_ns", "range", "host_start_ns",
                     "host_end_ns")})
        want[-1]["device_times"] = 1 if s["device_times"] else 0
        want[-1]["from_role"] = 1 if s["from_role"] else 0
elif kind == "bubbles":
    for b in summ["bubbles"]:
        want.append({k: b[k] for k in ("rank", "start_ns", "end_ns", "duration_ns", "stage",
                     "step", "reason", "detail")})
bad = 0
if len(want) != len(got):
    print("# %s: %d rows, want %d" % (kind, len(got), len(want)))
    bad = 1
for w, g in zip(want, got):
    for k, v in w.items():
        if g.get(k, "missing") != v:
            print("# %s: rank %s: %s = %r, want %r" % (kind, w.get("rank"), k, g.get(k, "missing"), v))
            bad = 1
            break
sys.exit(bad or len(want) == 0)
EOF

# against tl summary --json, on the DBs and on trace_view.json alone
for input in db json; do
	case $input in
	db) path=$P ;;
	json) path=$t_tmp/json ;;
	esac
	"$TL_BIN" summary "$path" --json --no-cache >"$t_tmp/sum.json" 2>/dev/null
	"$TL_BIN" query "$path" "SELECT * FROM steps" --json >"$t_tmp/steps.json" 2>"$t_tmp/err"
	rc=$?
	check_all "$input: steps exits 0 and says nothing" \
		'[ $rc -eq 0 ] && [ ! -s "$t_tmp/err" ]'
	check "$input: steps = tl summary --json's steps, every field" \
		python3 "$t_tmp/compare.py" steps "$t_tmp/sum.json" "$t_tmp/steps.json"
	"$TL_BIN" query "$path" "SELECT * FROM stages" --json >"$t_tmp/stages.json"
	check "$input: stages = tl summary --json's stages" \
		python3 "$t_tmp/compare.py" stages "$t_tmp/sum.json" "$t_tmp/stages.json"
	"$TL_BIN" query "$path" "SELECT * FROM bubbles" --json >"$t_tmp/bubbles.json"
	check "$input: bubbles = tl summary --json's bubbles" \
		python3 "$t_tmp/compare.py" bubbles "$t_tmp/sum.json" "$t_tmp/bubbles.json"
	# the generator's ground truth: the six StepTraceTime numbers of every step
	"$TL_BIN" query "$path" "SELECT rank, step, computing_ns, communication_ns, overlapped_ns,
		communication_not_overlapped_ns, free_ns, preparing_ns FROM steps" --json \
		>"$t_tmp/six.json"
	check "$input: steps = the generator's truth" \
		python3 "$t_tmp/compare.py" truth "$t_tmp/truth" "$t_tmp/six.json"
	check "$input: stages = the generator's stage instances (times, busy, decode steps)" \
		python3 "$t_tmp/compare.py" truth-stages "$t_tmp/truth" "$t_tmp/stages.json"
done

# against plain SQL over each rank's DB
for r in 0 1; do
	db=$(ls "$P"/*-r${r}_*/ASCEND_PROFILER_OUTPUT/*.db)
	want=$(sqlite3 -readonly "$db" "SELECT count(*) FROM TASK JOIN COMPUTE_TASK_INFO USING (globalTaskId)")
	got=$("$TL_BIN" query "$P" "SELECT count(*) FROM ops WHERE rank = $r" --csv | sed -n 2p | tr -d '\r')
	check "rank $r: ops rows = compute tasks in TASK ($got, want $want)" [ "$got" = "$want" ]
	got=$("$TL_BIN" query "$P" "SELECT count(*) FROM slices WHERE rank = $r AND kind = 'compute'" --csv | sed -n 2p | tr -d '\r')
	check "rank $r: compute slices = compute tasks ($got, want $want)" [ "$got" = "$want" ]
	want=$(sqlite3 -readonly "$db" "SELECT group_concat(d, ',') FROM (SELECT dur AS d FROM
		(SELECT t.endNs - t.startNs AS dur FROM TASK t JOIN COMPUTE_TASK_INFO USING (globalTaskId)) ORDER BY d)")
	got=$("$TL_BIN" query "$P" "SELECT group_concat(d, ',') FROM (SELECT dur_ns AS d FROM ops WHERE rank = $r ORDER BY d)" --csv | sed -n 2p | tr -d '\r"')
	check_all "rank $r: ops durations = TASK's" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
	want=$(sqlite3 -readonly "$db" "SELECT group_concat(startNs || ':' || endNs, ',') FROM (SELECT startNs, endNs FROM COMMUNICATION_OP ORDER BY startNs, endNs)")
	got=$("$TL_BIN" query "$P" "SELECT group_concat(start_ns || ':' || end_ns, ',') FROM (SELECT start_ns, end_ns FROM comm_ops WHERE rank = $r ORDER BY start_ns, end_ns)" --csv | sed -n 2p | tr -d '\r"')
	check_all "rank $r: comm_ops times = COMMUNICATION_OP's" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
	want=$(sqlite3 -readonly "$db" "SELECT group_concat(id || ':' || startNs || ':' || endNs, ',') FROM (SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs)")
	got=$("$TL_BIN" query "$P" "SELECT group_concat(step || ':' || start_ns || ':' || end_ns, ',') FROM (SELECT * FROM steps WHERE rank = $r ORDER BY start_ns)" --csv | sed -n 2p | tr -d '\r"')
	check_all "rank $r: steps' ranges = STEP_TIME's" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
done
# links: per (source, destination) pair, the bytes and time of the op's transfer sub-tasks (the
# Notify ones move nothing; a transfer without destination is the source's own), by plain SQL
links_sql="SELECT group_concat(x, ',') FROM (SELECT srcRank || ':' || d || ':' || sum(size) || ':' ||
	sum(e - s) AS x FROM (SELECT srcRank, CASE WHEN dstRank = 4294967295 THEN srcRank ELSE dstRank
	END AS d, c.size, t.startNs AS s, t.endNs AS e FROM COMMUNICATION_TASK_INFO c JOIN STRING_IDS n
	ON n.id = c.taskType JOIN TASK t USING (globalTaskId) WHERE n.value NOT LIKE 'Notify%')
	GROUP BY srcRank, d ORDER BY srcRank, d)"
links_tl() { # PATH RANK
	"$TL_BIN" query "$1" --rank "$2" "SELECT group_concat(x, ',') FROM (SELECT src_rank || ':' ||
		dst_rank || ':' || sum(bytes) || ':' || sum(time_ns) AS x FROM links WHERE rank = $2
		GROUP BY src_rank, dst_rank ORDER BY src_rank, dst_rank)" --csv | sed -n 2p | tr -d '\r"'
}
for r in 0 1; do
	db=$(ls "$P"/*-r${r}_*/ASCEND_PROFILER_OUTPUT/*.db)
	want=$(sqlite3 -readonly "$db" "$links_sql")
	got=$(links_tl "$P" $r)
	check_all "rank $r: links' bytes and time per rank pair = the transfer tasks', plain SQL ($got)" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
done
# the slices' step: a kernel's is the step its launch (CANN_API) ran in, by plain SQL; the
# fixture has a kernel launched in one step that runs in the next
for pr in "$P:0" "$P:1"; do
	path=${pr%:*}
	r=${pr##*:}
	db=$(ls "$path"/*-r${r}_*/ASCEND_PROFILER_OUTPUT/*.db)
	want=$(sqlite3 -readonly "$db" "SELECT group_concat(s || ':' || n, ',') FROM (SELECT s.id AS s,
		count(*) AS n FROM TASK t JOIN COMPUTE_TASK_INFO USING (globalTaskId) JOIN CANN_API a
		USING (connectionId) JOIN STEP_TIME s ON a.startNs >= s.startNs AND a.startNs < s.endNs
		GROUP BY s.id ORDER BY s.id)")
	got=$("$TL_BIN" query "$path" "SELECT group_concat(step || ':' || n, ',') FROM (SELECT step,
		count(*) AS n FROM slices WHERE rank = $r AND kind = 'compute' GROUP BY step ORDER BY step)" --csv | sed -n 2p | tr -d '\r"')
	check_all "rank $r: compute slices per step = kernels per launch step, plain SQL ($got)" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
done
# the slices' stage: the innermost stage instance whose host range holds the slice's start,
# found here from the stages table by a plain walk
"$TL_BIN" query "$P" "SELECT rank, start_ns, stage FROM slices WHERE kind IN ('compute', 'comm', 'mstx')" --json >"$t_tmp/ss.json"
"$TL_BIN" query "$P" "SELECT rank, stage, host_start_ns, host_end_ns FROM stages" --json >"$t_tmp/st.json"
check "slices' stage = the innermost stage holding the start, from the stages table" python3 -c '
import json, sys
sl, st = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
named = 0
for s in sl:
    holding = [x for x in st if x["rank"] == s["rank"] and x["host_start_ns"] <= s["start_ns"] <= x["host_end_ns"]]
    # nested instances: the innermost starts last (and, of equal starts, ends first)
    holding.sort(key=lambda x: (x["host_start_ns"], -x["host_end_ns"]))
    want = holding[-1]["stage"] if holding else None
    if len(holding) > 1 and holding[-1]["host_start_ns"] == holding[-2]["host_start_ns"] and holding[-1]["host_end_ns"] == holding[-2]["host_end_ns"]:
        continue  # two instances of one range: either
    assert s["stage"] == want, (s, holding)
    named += want is not None
assert named > 100, named
' "$t_tmp/ss.json" "$t_tmp/st.json"

# the JSON input holds the same communication ops
a=$("$TL_BIN" query "$P" "SELECT rank, count(*), sum(elapse_ns) FROM comm_ops GROUP BY rank" --csv)
b=$("$TL_BIN" query "$t_tmp/json" "SELECT rank, count(*), sum(elapse_ns) FROM comm_ops GROUP BY rank" --csv)
check "comm_ops of trace_view.json = of the DBs" [ "$a" = "$b" ]

# the committed real-schema fixture: steps = plain SQL (tests/golden/fixture/overlap.sql)
FX=$TL_SRCDIR/tests/golden/fixture
for r in 0 1; do
	d=$t_tmp/fx/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d"
	sqlite3 "$d/ascend_pytorch_profiler_$r.db" <"$FX/rank$r.sql"
done
for r in 0 1; do
	want=$(sqlite3 -readonly "$t_tmp/fx/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db" <"$FX/overlap.sql")
	got=$("$TL_BIN" query "$t_tmp/fx" "SELECT '\"steps\":[' || group_concat(printf('{\"step\":%d,\"computing_ns\":%d,\"communication_ns\":%d,\"overlapped_ns\":%d,\"communication_not_overlapped_ns\":%d,\"free_ns\":%d,\"preparing_ns\":%d}', step, computing_ns, communication_ns, overlapped_ns, communication_not_overlapped_ns, free_ns, preparing_ns), ',') || ']' AS j FROM (SELECT * FROM steps WHERE rank = $r ORDER BY step)" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["j"])')
	check_all "fixture rank $r: steps = overlap.sql's plain SQL" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
done
db=$t_tmp/fx/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db
want=$(sqlite3 -readonly "$db" "SELECT group_concat(s || ':' || n, ',') FROM (SELECT s.id AS s,
	count(*) AS n FROM TASK t JOIN COMPUTE_TASK_INFO USING (globalTaskId) JOIN CANN_API a
	USING (connectionId) JOIN STEP_TIME s ON a.startNs >= s.startNs AND a.startNs < s.endNs
	GROUP BY s.id ORDER BY s.id)")
got=$("$TL_BIN" query "$t_tmp/fx" "SELECT group_concat(step || ':' || n, ',') FROM (SELECT step,
	count(*) AS n FROM slices WHERE rank = 0 AND kind = 'compute' AND step IS NOT NULL
	GROUP BY step ORDER BY step)" --csv | sed -n 2p | tr -d '\r"')
check_all "fixture rank 0: compute slices per step = kernels per launch step ($got)" \
	'[ -n "$want" ] && [ "$got" = "$want" ]'

# the real samples: steps = torch_npu's own StepTraceTime; comm_ops = COMMUNICATION_OP
if [ -d "$SAMPLES/ascend-db" ]; then
	for level in level0 level2; do
		for r in 0 1; do
			dir=$SAMPLES/ascend-db/$level/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT
			want=$(sqlite3 -readonly "$dir/analysis.db" "SELECT group_concat(printf('%d:%d:%d:%d:%d:%d:%d', step, round(computing*1000), round(communication*1000), round(overlapped*1000), round(communication_not_overlapped*1000), round(free*1000), round(preparing*1000)), ',') FROM StepTraceTime")
			got=$("$TL_BIN" query "$SAMPLES/ascend-db/$level" --rank "$r" "SELECT group_concat(printf('%d:%d:%d:%d:%d:%d:%d', step, computing_ns, communication_ns, overlapped_ns, communication_not_overlapped_ns, free_ns, preparing_ns), ',') FROM steps" --csv | sed -n 2p | tr -d '\r"')
			check_all "$level rank $r: steps = StepTraceTime ($got)" \
				'[ -n "$want" ] && [ "$got" = "$want" ]'
			want=$(sqlite3 -readonly "$dir/ascend_pytorch_profiler_$r.db" "SELECT count(*) || ':' || sum(endNs - startNs) FROM COMMUNICATION_OP")
			got=$("$TL_BIN" query "$SAMPLES/ascend-db/$level" --rank "$r" "SELECT count(*) || ':' || sum(elapse_ns) FROM comm_ops" --csv | sed -n 2p | tr -d '\r"')
			check "$level rank $r: comm_ops = COMMUNICATION_OP ($got)" [ "$got" = "$want" ]
		done
	done
	for r in 0 1; do
		want=$(sqlite3 -readonly "$SAMPLES/ascend-db/level2/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db" "$links_sql")
		got=$(links_tl "$SAMPLES/ascend-db/level2" $r)
		check_all "level2 rank $r: links per rank pair = the transfer tasks', plain SQL" \
			'[ -n "$want" ] && [ "$got" = "$want" ]'
	done
	# level2's analysis.db has torch_npu's own communication analysis (ms, to a fraction of a ns)
	dir=$SAMPLES/ascend-db/level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT
	sqlite3 -readonly -csv "$dir/analysis.db" "SELECT hccl_op_name, elapse_time * 1e6,
		transit_time * 1e6, wait_time * 1e6, synchronization_time * 1e6, idle_time * 1e6
		FROM CommAnalyzerTime ORDER BY hccl_op_name" >"$t_tmp/cat.csv"
	"$TL_BIN" query "$SAMPLES/ascend-db/level2" --rank 0 "SELECT op_name, elapse_ns, transit_ns,
		wait_ns, sync_ns, idle_ns FROM comm_ops ORDER BY op_name" --csv >"$t_tmp/ops.csv"
	check "level2 rank 0: comm_ops' times = CommAnalyzerTime's, to 2 ns (its ms are binary fractions)" python3 -c '
import csv, sys
want = list(csv.reader(open(sys.argv[1])))
got = list(csv.reader(open(sys.argv[2])))[1:]
assert len(want) == len(got) > 0, (len(want), len(got))
for w, g in zip(want, got):
    assert w[0] == g[0], (w, g)
    for a, b in zip(w[1:], g[1:]):
        assert abs(float(a) - int(b)) <= 2, (w, g)
' "$t_tmp/cat.csv" "$t_tmp/ops.csv"
else
	skip "$SAMPLES is absent: not checked against the real samples' StepTraceTime"
fi

# counters: every sample of the DB's memory and frequency tables
"$TLGEN" rl "$t_tmp/mem" --ranks 2 --tasks 500 --memory >/dev/null 2>&1
db=$(ls "$t_tmp"/mem/*-r1_*/ASCEND_PROFILER_OUTPUT/*.db)
for pair in "allocated:MEMORY_RECORD:totalAllocated" "reserved:MEMORY_RECORD:totalReserved" \
	"HBM:NPU_MEM:hbm" "freq:AICORE_FREQ:freq"; do
	what=${pair%%:*}
	tab=${pair#*:}
	col=${tab#*:}
	tab=${tab%%:*}
	want=$(sqlite3 -readonly "$db" "SELECT count(*) || ',' || sum($col) FROM $tab")
	got=$("$TL_BIN" query "$t_tmp/mem" "SELECT count(*) || ',' || sum(value) FROM counters
		WHERE rank = 1 AND name LIKE '% $what'" --csv | sed -n 2p | tr -d '\r"')
	check "counters '% $what' = $tab.$col, every sample ($got)" [ "$got" = "$want" ]
done
# Kineto: the device events per kind and step, counted from the file by a script of its own
# (a kernel's step holds its launch: the runtime call of the same correlation; NCCL's kernels are
# the communication, memcpy and memset events the memory), on generated traces (2021's and
# today's categories, launches before the capture) and the samples with device work
cat >"$t_tmp/kineto_count.py" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
X = [e for e in ev if e.get("ph") == "X"]
steps = [(int(e["name"].split("#")[1]), e["ts"], e["ts"] + e["dur"]) for e in X
         if e.get("name", "").startswith("ProfilerStep#")]
launch = {e["args"]["correlation"]: e["ts"] for e in X
          if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime")
          and "correlation" in e.get("args", {})}
kinds = {"kernel": "compute", "Kernel": "compute", "gpu_memcpy": "memcpy",
         "gpu_memset": "memcpy", "Memcpy": "memcpy", "Memset": "memcpy"}
n = collections.Counter()
for e in X:
    k = kinds.get(e.get("cat"))
    if k is None:
        continue
    if k == "compute" and "nccl" in e["name"].lower():
        k = "comm"
    t = launch.get(e.get("args", {}).get("correlation"))
    s = [i for i, a, b in steps if t is not None and a <= t <= b]
    n[(k, s[0] if s else None)] += 1
rows = sorted(n.items(), key=lambda x: (x[0][0], -1 if x[0][1] is None else x[0][1]))
for (k, s), c in rows:
    print("%s,%s,%d" % (k, "" if s is None else s, c))
EOF
"$TLGEN" kineto "$t_tmp/k24.json" --comm --precapture 5 --after 4 >/dev/null 2>&1
"$TLGEN" kineto "$t_tmp/k21.json" --version 2021 --comm >/dev/null 2>&1
for k in "$t_tmp/k24.json" "$t_tmp/k21.json" "$SAMPLES/kineto/trace_filter__sampled_rank-0.json" \
	"$SAMPLES/kineto/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json"; do
	if [ ! -f "$k" ]; then
		skip "$k is absent"
		continue
	fi
	want=$(python3 "$t_tmp/kineto_count.py" "$k")
	got=$("$TL_BIN" query "$k" "SELECT kind, step, count(*) FROM slices WHERE kind IN ('compute',
		'comm', 'memcpy') GROUP BY kind, step ORDER BY kind, step" --csv | sed 1d | tr -d '\r')
	check_all "kineto $(basename "$k"): device events per kind and step = the file's, by launch ($(echo $got | tr ' ' ';'))" \
		'[ -n "$want" ] && [ "$got" = "$want" ]'
done
# Kineto: the same numbers as tl summary --json
K=$SAMPLES/kineto/trace_filter__sampled_rank-0.json
if [ -f "$K" ]; then
	"$TL_BIN" summary "$K" --json --no-cache >"$t_tmp/ksum.json" 2>/dev/null
	"$TL_BIN" query "$K" "SELECT * FROM steps" --json >"$t_tmp/ksteps.json" 2>/dev/null
	check "kineto: steps = tl summary --json's steps" \
		python3 "$t_tmp/compare.py" steps "$t_tmp/ksum.json" "$t_tmp/ksteps.json"
	n=$("$TL_BIN" query "$K" "SELECT count(*) FROM slices WHERE kind = 'compute'" --csv 2>/dev/null | sed -n 2p | tr -d '\r')
	check "kineto: the kernels are slices ($n)" [ "${n:-0}" -gt 0 ]
else
	skip "$K is absent: Kineto not checked"
fi

# the refusals: one line on stderr, nothing on stdout, exit 1
refuse() {
	"$TL_BIN" query "$P" "$2" >"$t_tmp/out" 2>"$t_tmp/err"
	rc=$?
	lines=$(wc -l <"$t_tmp/err")
	if [ $rc -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -s "$t_tmp/out" ] && grep -q "$3" "$t_tmp/err"; then
		ok "refused: $1 ($(cat "$t_tmp/err"))"
	else
		echo "# rc=$rc stderr: $(cat "$t_tmp/err")"
		not_ok "refused: $1"
	fi
}
refuse "ATTACH" "ATTACH DATABASE '$t_tmp/x.db' AS x" "ATTACH"
refuse "a write" "INSERT INTO slices (rank) VALUES (1)" "not allowed"
refuse "a delete" "DELETE FROM steps" "may not be modified"
refuse "load_extension" "SELECT load_extension('$t_tmp/x.so')" "load_extension"
refuse "a temporary table" "CREATE TEMP TABLE t AS SELECT * FROM steps" "not allowed"
refuse "a PRAGMA" "PRAGMA writable_schema = 1" "PRAGMA"
refuse "the schema table" "SELECT * FROM sqlite_master" "not one of tl's"
refuse "two statements" "SELECT 1; SELECT 2" "one statement"
refuse "a syntax error" "SELEC 1" "syntax error"
refuse "an unknown column" "SELECT nonsense FROM steps" "no such column"
refuse "a query that never ends" \
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" \
	"work budget"
check "nothing was written by the refused statements" [ ! -e "$t_tmp/x.db" ]
TL_QUERY_MAX_ROWS=10 "$TL_BIN" query "$P" "SELECT * FROM slices" --csv >"$t_tmp/out" 2>"$t_tmp/err"
rc=$?
check_all "the row limit stops a query with one line and exit 1" \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$t_tmp/err")" -eq 1 ] && grep -q "row limit" "$t_tmp/err"'

# the formats: CSV (RFC 4180) and JSON hold the same rows; quoting
"$TL_BIN" query "$P" "SELECT rank, name, start_ns, dur_ns, stage FROM slices WHERE rank = 1 LIMIT 500" --csv >"$t_tmp/a.csv"
"$TL_BIN" query "$P" "SELECT rank, name, start_ns, dur_ns, stage FROM slices WHERE rank = 1 LIMIT 500" --json >"$t_tmp/a.json"
check "CSV and JSON hold the same 500 rows" python3 -c '
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
js = json.load(open(sys.argv[2]))
assert rows[0] == ["rank", "name", "start_ns", "dur_ns", "stage"], rows[0]
assert len(rows) == 501 and len(js) == 500
for r, j in zip(rows[1:], js):
    assert [int(r[0]), r[1], int(r[2]), int(r[3]), r[4] or None] == [j[k] for k in rows[0]], (r, j)
' "$t_tmp/a.csv" "$t_tmp/a.json"
check "CSV quotes a comma and doubles a quote, CRLF ends a row" \
	[ "$("$TL_BIN" query "$P" "SELECT 'a,\"b\"' AS x, NULL AS y, 1.5 AS z" --csv)" = "$(printf 'x,y,z\r\n"a,""b""",,1.5\r')" ]
check "an empty result is an empty JSON array" \
	[ "$("$TL_BIN" query "$P" "SELECT * FROM steps WHERE rank = 99" --json)" = "[]" ]
"$TL_BIN" query "$P" "SELECT rank, step, free_ns FROM steps" >"$t_tmp/table"
check_all "the table: a header, a rule, one line per row and the count" \
	'[ "$(sed -n 1p "$t_tmp/table")" = "rank  step  free_ns" ] && [ "$(tail -n 1 "$t_tmp/table")" = "(4 rows)" ]'

# pushing rank = and a time window down changes no answer: the same filters written so that
# SQLite cannot hand them to the table (rank + 0, start_ns + 0) give the same rows
t0=$("$TL_BIN" query "$P" "SELECT min(start_ns) + (max(end_ns) - min(start_ns)) / 3 FROM slices" --csv | sed -n 2p | tr -d '\r')
t1=$("$TL_BIN" query "$P" "SELECT min(start_ns) + (max(end_ns) - min(start_ns)) / 2 FROM slices" --csv | sed -n 2p | tr -d '\r')
t2=$("$TL_BIN" query "$P" "SELECT end_ns FROM slices WHERE rank = 1 AND kind = 'compute' LIMIT 1 OFFSET 100" --csv | sed -n 2p | tr -d '\r')
for w in "rank = 1" "start_ns >= $t0 AND start_ns < $t1" "end_ns > $t0 AND end_ns <= $t1" \
	"rank = 0 AND start_ns > $t0 AND end_ns < $t1" "start_ns = $t0 OR rank = 1" "end_ns = $t2" "start_ns <= $t2 AND end_ns >= $t2"; do
	w0=$(echo "$w" | sed 's/rank/rank + 0/g; s/start_ns/start_ns + 0/g; s/end_ns/end_ns + 0/g')
	a=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns), sum(rank) FROM slices WHERE $w" --csv)
	b=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns), sum(rank) FROM slices WHERE $w0" --csv)
	check "pushed down: $w ($(echo "$a" | sed -n 2p | tr -d '\r'))" [ "$a" = "$b" ]
done
for k in compute host step nosuch; do
	a=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns) FROM slices WHERE kind = '$k'" --csv --no-cache)
	b=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns) FROM slices WHERE kind || '' = '$k'" --csv --no-cache)
	check "pushed down: kind = '$k' ($(echo "$a" | sed -n 2p | tr -d '\r'))" [ "$a" = "$b" ]
done
# a scan of the compute lanes while another, over every lane, reads the host lanes in (which
# reorders the rank's lanes) still sees each compute slice once
a=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns), sum((SELECT count(*) FROM slices s
	WHERE s.rank = c.rank AND s.start_ns = c.start_ns AND s.kind || '' = c.kind AND s.name = c.name)) AS n
	FROM slices c WHERE c.kind = 'compute'" --csv --no-cache | sed -n 2p | tr -d '\r')
b=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns) FROM slices WHERE kind = 'compute'" --csv --no-cache | sed -n 2p | tr -d '\r')
check "a scan outlives the host lanes read in under it ($a)" [ "$a" = "$b,${b%%,*}" ]
# step = N, pushed down on slices and ops, answers as step + 0 = N (which the tables cannot see)
# and reads fewer rows where the step does not hold every row (TL_STATS counts the rows the
# tables hand to SQLite): on the DBs, on
# trace_view.json alone, on the fixture (a kernel launched in one step runs in the next) and on
# the samples; with the other pushed-down conditions, and in a join over every step
stepped() { # WHAT PATH TABLE WHERE: one check
	"$TL_BIN" query "$2" "SELECT count(*), sum(dur_ns), sum(rank), min(start_ns) FROM $3 WHERE $4" --csv --no-cache >"$t_tmp/a" 2>/dev/null
	w0=$(echo "$4" | sed 's/step =/step + 0 =/')
	"$TL_BIN" query "$2" "SELECT count(*), sum(dur_ns), sum(rank), min(start_ns) FROM $3 WHERE $w0" --csv --no-cache >"$t_tmp/b" 2>/dev/null
	ra=$(TL_STATS=1 "$TL_BIN" query "$2" "SELECT count(*) FROM $3 WHERE $4" --csv 2>&1 >/dev/null | sed -n 's/^stats: query_rows_read=//p')
	rb=$(TL_STATS=1 "$TL_BIN" query "$2" "SELECT count(*) FROM $3 WHERE $w0" --csv 2>&1 >/dev/null | sed -n 's/^stats: query_rows_read=//p')
	n=$(sed -n 2p "$t_tmp/a" | cut -d, -f1)
	check_all "$1: $3 WHERE $4 = unpushed ($n rows; rows read $ra, unpushed $rb)" \
		'[ -s "$t_tmp/a" ] && cmp -s "$t_tmp/a" "$t_tmp/b" && [ "${ra:-x}" -le "${rb:-0}" ] &&
		{ [ "$ra" -lt "$rb" ] || [ "$n" -eq "$rb" ]; }'
}
for s in $("$TL_BIN" query "$P" "SELECT DISTINCT step FROM steps WHERE step >= 0" --csv | sed 1d | tr -d '\r'); do
	stepped "db" "$P" slices "step = $s"
	stepped "json" "$t_tmp/json" slices "step = $s"
	stepped "db" "$P" ops "step = $s"
done
stepped "db" "$P" slices "step = $s AND rank = 1 AND kind = 'compute'"
stepped "db" "$P" slices "step = $s AND start_ns >= $t0"
stepped "db" "$P" slices "step = 424242 OR rank = 0"
stepped "fixture" "$t_tmp/fx" slices "step = 7"
stepped "fixture" "$t_tmp/fx" slices "step = 8"
if [ -d "$SAMPLES/ascend-db" ]; then
	stepped "level2" "$SAMPLES/ascend-db/level2" slices "step = 50"
	stepped "level2" "$SAMPLES/ascend-db/level2" ops "step = 50"
fi
if [ -f "$SAMPLES/kineto/trace_filter__sampled_rank-0.json" ]; then
	stepped "kineto" "$SAMPLES/kineto/trace_filter__sampled_rank-0.json" slices "step = 552"
fi
j="SELECT s.rank, s.step, count(*), sum(l.dur_ns) FROM steps s JOIN slices l ON l.rank = s.rank AND l.step = s.step GROUP BY 1, 2"
a=$("$TL_BIN" query "$P" "$j" --csv)
b=$("$TL_BIN" query "$P" "$(echo "$j" | sed 's/l.step = s.step/l.step + 0 = s.step/')" --csv)
check_all "a join of steps and slices on the step: the same rows pushed down or not" \
	'[ -n "$a" ] && [ "$a" = "$b" ]'

a=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns) FROM ops WHERE rank = 1" --csv)
b=$("$TL_BIN" query "$P" "SELECT count(*), sum(dur_ns) FROM ops WHERE rank + 0 = 1" --csv)
check "pushed down: ops rank = 1" [ "$a" = "$b" ]
check "rank = 7 of a 2-rank profile is empty" \
	[ "$("$TL_BIN" query "$P" "SELECT count(*) FROM slices WHERE rank = 7" --csv | sed -n 2p | tr -d '\r')" = 0 ]

# warm (the model cache, written by the runs above) and cold (--no-cache) answer alike
q="SELECT kind, count(*), sum(dur_ns), count(DISTINCT stage), sum(step) FROM slices GROUP BY kind"
check "cached and --no-cache answers are the same" \
	[ "$("$TL_BIN" query "$P" "$q" --csv)" = "$("$TL_BIN" query "$P" "$q" --csv --no-cache)" ]

# a damaged rank: one line naming its file, the other ranks answer; --rank reads only its own
cp -r "$P" "$t_tmp/bad"
find "$t_tmp/bad" -name trace_view.json -exec rm {} +
db=$(ls "$t_tmp"/bad/*-r1_*/ASCEND_PROFILER_OUTPUT/*.db)
head -c 5000 "$db" >"$t_tmp/cut" && cat "$t_tmp/cut" >"$db"
got=$("$TL_BIN" query "$t_tmp/bad" "SELECT group_concat(rank) FROM (SELECT DISTINCT rank FROM steps)" --csv --no-cache 2>"$t_tmp/err" | sed -n 2p | tr -d '\r"')
check_all "a damaged rank: one line naming its file, rank 0 answers ($got)" \
	'[ "$got" = 0 ] && [ "$(wc -l <"$t_tmp/err")" -eq 1 ] && grep -q "ascend_pytorch_profiler_1.db" "$t_tmp/err"'
got=$("$TL_BIN" query "$t_tmp/bad" --rank 0 "SELECT count(*) FROM slices WHERE rank = 0" --csv --no-cache 2>"$t_tmp/err" | sed -n 2p | tr -d '\r')
want=$("$TL_BIN" query "$P" "SELECT count(*) FROM slices WHERE rank = 0" --csv | sed -n 2p | tr -d '\r')
check_all "--rank 0 reads rank 0 only: no word of the damaged rank, the same slices ($got)" \
	'[ "$got" = "$want" ] && [ ! -s "$t_tmp/err" ]'

# .tables and .schema
n=$("$TL_BIN" query "$P" .tables | grep -c '^[a-z_]* *(')
check ".tables lists the nine tables ($n)" [ "$n" -eq 9 ]
check ".schema steps lists free_ns with its meaning" sh -c "'$TL_BIN' query '$P' '.schema steps' | grep -q '^  free_ns .*idle'"
"$TL_BIN" query "$P" ".schema nosuch" >/dev/null 2>"$t_tmp/err"
rc=$?
check_all ".schema of an unknown table: one line, exit 1" \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$t_tmp/err")" -eq 1 ]'
t_done
