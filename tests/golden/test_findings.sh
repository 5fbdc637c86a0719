#!/bin/sh
# tl triage's findings on generated profiles with problems injected by the generator, each checked
# against an answer tl did not compute: the generator's truth (--truth: the stall it made, the
# stage ranges it laid out, the PP bubble ratios) and plain SQL over the profile's own tables (the
# collectives' arrivals), through a small script of its own. Each injected problem must be found
# at its place with its recoverable time within 5%, ranked by it, with no double counting; a
# profile without injected problems (tlgen --clean) must have no finding above 1% of the step
# time. Also --json, --top, --fail-on and --set.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"

if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is needed to check the findings"
	t_done
fi

gen() { # NAME tlgen-options...
	name=$1
	shift
	if ! "$TLGEN" rl "$t_tmp/$name" "$@" --truth "$t_tmp/$name.truth" >/dev/null; then
		not_ok "$name: tlgen rl $* failed"
		return 1
	fi
	"$TL_BIN" triage "$t_tmp/$name" --json >"$t_tmp/$name.json" 2>"$t_tmp/$name.err"
	check "$name: tl triage --json exits 0" [ $? -eq 0 ]
	check "$name: no warnings" [ ! -s "$t_tmp/$name.err" ]
}

# the checker: CASE PROFILE-DIR TRUTH FINDINGS-JSON; prints TAP lines without numbers ("ok - ..")
cat >"$t_tmp/check.py" <<'EOF'
import glob, json, os, sqlite3, statistics, sys

case, prof, truth_path, fj = sys.argv[1:5]
F = json.load(open(fj))["findings"]
truth = []
for line in open(truth_path):
    line = line.strip().rstrip(",")
    # the truth is fragments: complete the object cut at its first nested member
    for cut in (line, line + "}", line + "]}"):
        try:
            truth.append(json.loads(cut))
            break
        except ValueError:
            pass

def ok(cond, what):
    print(("ok - " if cond else "not ok - ") + what)

def near(got, want, what, tol=0.05):
    good = want > 0 and abs(got - want) <= tol * want
    ok(good, "%s: %d ns, truth %d ns (within %d%%)" % (what, got, want, tol * 100))

def find(kind, **kw):
    for i, f in enumerate(F):
        if f["kind"] == kind and all(f.get(k) == v for k, v in kw.items()):
            return i, f
    return None, None

ok(all(F[i]["recoverable_ns"] >= F[i + 1]["recoverable_ns"] for i in range(len(F) - 1)),
   "findings are ranked by recoverable_ns")

def stage_excess(stage):
    """the truth's stage ranges: per step, the last-ending rank's duration minus the median
    duration; returns {rank: summed excess} over the steps where it is >= 5% of the median"""
    rows = [t for t in truth if t.get("stage") == stage and "start_ns" in t]
    out = {}
    for step in sorted({r["step"] for r in rows}):
        rs = [r for r in rows if r["step"] == step]
        med = statistics.median([r["end_ns"] - r["start_ns"] for r in rs])
        # the latest end; on a tie the latest start (tl_imb_stats.slowest)
        slow = max(rs, key=lambda r: (r["end_ns"], r["start_ns"], -r["rank"]))
        ex = slow["end_ns"] - slow["start_ns"] - med
        if ex >= 0.05 * med:
            out[slow["rank"]] = out.get(slow["rank"], 0) + ex
    return out

def arrivals():
    """per rank, its collectives' starts in order, from COMMUNICATION_OP (plain SQL)"""
    arr = {}
    for db in glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db")):
        r = int(os.path.basename(os.path.dirname(os.path.dirname(db))).split("_")[0][5:])
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        arr[r] = [s for (s,) in c.execute("SELECT startNs FROM COMMUNICATION_OP ORDER BY startNs")]
    return arr

def stall_truth():
    s = [t["stall"] for t in truth if "stall" in t]
    return s[0] if s else None

if case == "clean":
    big = [f for f in F if f["share"] > 0.01]
    ok(not big, "no finding above 1%% of the step time (%s)" %
       ", ".join("%s %.2f%%" % (f["kind"], 100 * f["share"]) for f in big))

if case in ("stall", "both"):
    st = stall_truth()
    i, f = find("stall", rank=st["rank"], step=st["step"])
    ok(f is not None, "the stall of rank %d in step %d is found" % (st["rank"], st["step"]))
    if f:
        ok(f["stage"] == "rollout", "its stage is rollout")
        ok(f["start_ns"] == st["start_ns"] and f["end_ns"] == st["end_ns"],
           "its place is the injected gap")
        near(f["recoverable_ns"], st["end_ns"] - st["start_ns"], "its recoverable time")
        # alone it makes its rank the last at the next collective; with the slow rank 3,
        # rank 3 is later still
        said = "arrive last at the next collective" in f["evidence"]
        ok(said == (case == "stall"),
           "its evidence says whether it made the rank last at the next collective")
    # not counted again: no straggler or stage imbalance of that rank above 1%
    again = [g for g in F if g["kind"] in ("straggler", "stage_imbalance", "host_bound")
             and g["rank"] == st["rank"] and g["share"] > 0.01]
    ok(not again, "the stall is not counted again as its rank's straggling or imbalance")

if case in ("slow", "both"):
    ex = stage_excess("rollout")
    want = ex.get(3, 0)
    i, f = find("stage_imbalance", rank=3, stage="rollout")
    ok(f is not None, "the rollout imbalance of the slow rank 3 is found")
    if f:
        near(f["recoverable_ns"], want, "rollout imbalance")
    # straggler: over the collectives where rank 3 is last, its arrival minus the median
    # arrival, less the rollout excess counted as the imbalance (and the stall, counted there)
    arr = arrivals()
    n = min(len(v) for v in arr.values())
    late, last = 0, 0
    for k in range(n):
        a = {r: v[k] for r, v in arr.items()}
        if max(a.values()) == a[3] and sorted(a.values())[-2] < a[3]:
            last += 1
            late += a[3] - statistics.median(a.values())
    ok(last >= n / 2, "rank 3 is last at %d of %d collectives (SQL)" % (last, n))
    i2, g = find("straggler", rank=3)
    ok(g is not None, "rank 3 is found a straggler")
    if g:
        near(g["recoverable_ns"], late - want, "straggler, less its rollout excess")
        ok("compute-bound" in g["evidence"], "classified compute-bound")
        if f:
            ok((i2 < i) == (late - want > want), "the straggler and the imbalance ranked by time")

if case == "between":
    # STEP_TIME of every rank (plain SQL): the gaps between consecutive steps, mean over ranks
    gaps, caps = [], []
    for db in glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db")):
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        st = list(c.execute("SELECT startNs, endNs FROM STEP_TIME ORDER BY startNs"))
        gaps.append(sum(max(0, st[i][0] - st[i - 1][1]) for i in range(1, len(st))))
        caps.append(st[-1][1] - st[0][0])
    i, f = find("between_steps")
    ok(f is not None and i == 0, "the time between steps is found, first")
    if f:
        near(f["recoverable_ns"], sum(gaps) // len(gaps), "time between steps")
        ok(abs(f["share"] - sum(gaps) / sum(caps)) < 0.001, "its share of the capture")

if case == "packets":
    # COMMUNICATION_TASK_INFO and TASK of every rank (plain SQL): bytes and time of the
    # transfers (the HCCL task types that move data) under 16 MB and of the others
    sb = lb = st = lt = 0
    nr = 0
    for db in glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db")):
        nr += 1
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        for size, d in c.execute("SELECT i.size, t.endNs - t.startNs FROM COMMUNICATION_TASK_INFO i"
                                 " JOIN TASK t ON t.globalTaskId = i.globalTaskId"
                                 " JOIN STRING_IDS n ON n.id = i.taskType"
                                 " WHERE i.size > 0 AND i.srcRank != i.dstRank AND n.value IN"
                                 " ('Memcpy', 'Reduce_Inline', 'Reduce_TBE', 'RDMASend')"):
            if size < 16 << 20:
                sb += size; st += d
            else:
                lb += size; lt += d
    i, f = find("small_packets", transport="SDMA")
    ok(f is not None, "small SDMA packets are found (%.0f%% of the volume)" % (100 * sb / (sb + lb)))
    if f:
        got = float(f["evidence"].split("%")[0])
        ok(abs(got - 100 * sb / (sb + lb)) < 1, "their share of the volume: %.0f%%" % got)
        near(f["recoverable_ns"], int((st - sb * lt / lb) / nr), "their time beyond the large ones' bandwidth")

if case == "freq":
    # AICORE_FREQ and STEP_TIME of every rank (plain SQL): per step, the time under the rank's
    # highest frequency and the compute lost, (1 - f / nominal) of it, where it is > 5%
    for db in sorted(glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db"))):
        r = int(os.path.basename(os.path.dirname(os.path.dirname(db))).split("_")[0][5:])
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        fq = list(c.execute("SELECT timestampNs, freq FROM AICORE_FREQ ORDER BY timestampNs"))
        steps = list(c.execute("SELECT startNs, endNs FROM STEP_TIME ORDER BY startNs"))
        nom = max(f for _, f in fq)
        want = 0
        for s0, s1 in steps:
            under = lost = 0
            for k, (t, f) in enumerate(fq):
                a, b = max(t, s0), min(fq[k + 1][0] if k + 1 < len(fq) else s1, s1)
                if b > a and f < nom:
                    under += b - a
                    lost += int((b - a) * (1 - f / nom))
            if under > 0.05 * (s1 - s0):
                want += lost
        i, f = find("frequency_drop", rank=r)
        if want == 0:
            ok(f is None, "rank %d: no frequency drop" % r)
        else:
            ok(f is not None, "rank %d's frequency drop is found" % r)
            if f:
                near(f["recoverable_ns"], want, "rank %d's compute lost to the clock" % r)

if case == "link":
    # every rank's transfers (plain SQL): bytes and time per (source, destination), the median
    # bandwidth, and the links under 0.7 of it
    links = {}
    for db in glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db")):
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        for src, dst, size, d in c.execute(
                "SELECT i.srcRank, i.dstRank, i.size, t.endNs - t.startNs"
                " FROM COMMUNICATION_TASK_INFO i JOIN TASK t ON t.globalTaskId = i.globalTaskId"
                " JOIN STRING_IDS n ON n.id = i.taskType"
                " WHERE i.srcRank != i.dstRank AND n.value IN ('Memcpy', 'Reduce_Inline')"):
            b, t = links.get((src, dst), (0, 0))
            links[(src, dst)] = (b + size, t + d)
    bw = sorted(b / t for b, t in links.values())
    med = statistics.median(bw)
    slow = {k: v for k, v in links.items() if v[0] / v[1] < 0.7 * med}
    ok(list(slow) == [(2, 3)], "SQL: the one slow link is 2 -> 3 (%s)" % list(slow))
    for (src, dst), (b, t) in slow.items():
        i, f = find("slow_link", src_rank=src, dst_rank=dst)
        ok(f is not None and i == 0, "the slow link %d -> %d is found, first" % (src, dst))
        if f:
            near(f["recoverable_ns"], int(t - b / med), "its time beyond the median bandwidth")
    ok(len([f for f in F if f["kind"] == "slow_link"]) == len(slow), "no other slow link")

if case in ("aicpu", "cpuhost"):
    # the AI CPU operators: the truth's device time per rank, and the profile's own TASK rows
    # of COMPUTE_TASK_INFO's AI_CPU tasks (plain SQL) say the same
    rows = [t["aicpu"] for t in truth if "aicpu" in t]
    dbs = glob.glob(os.path.join(prof, "*", "ASCEND_PROFILER_OUTPUT", "*.db"))
    sql = 0
    for db in dbs:
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        sql += c.execute("SELECT coalesce(sum(t.endNs - t.startNs), 0) FROM TASK t"
                         " JOIN COMPUTE_TASK_INFO i ON i.globalTaskId = t.globalTaskId"
                         " JOIN STRING_IDS s ON s.id = i.taskType"
                         " JOIN STRING_IDS k ON k.id = t.taskType"
                         " WHERE s.value = 'AI_CPU' AND k.value = 'KERNEL_AICPU'").fetchone()[0]
    want = sum(r["total_ns"] for r in rows) / len(dbs)
    ok(rows and sql == sum(r["total_ns"] for r in rows),
       "the AI_CPU tasks in TASK (KERNEL_AICPU) are the truth's (%d ns, SQL %d ns)"
       % (sum(r["total_ns"] for r in rows), sql))
    i, f = find("aicpu_op", op="ArgMaxV2")
    ok(f is not None, "the AI CPU operator ArgMaxV2 is found")
    if f:
        near(f["recoverable_ns"], int(want), "its device time per rank")
    ok(len([g for g in F if g["kind"] == "aicpu_op"]) == 1, "no other AI CPU operator")

if case in ("host", "cpuhost", "hoststage", "hostevery"):
    # host-bound: per step and stage, each rank's idle in gaps under 1 ms before the host began
    # the launch that ended it (the truth, from the generator's plan: a gap between two stages
    # is no stage's), beyond the median rank's; summed over the steps per rank and stage
    rows = [t["host_idle"] for t in truth if "host_idle" in t]
    want = {}
    for key in sorted({(r["step"], r["stage"] or "") for r in rows}):
        rs = [r for r in rows if (r["step"], r["stage"] or "") == key]
        med = statistics.median([r["ns"] for r in rs])
        for r in rs:
            if r["ns"] > med:
                k = (r["rank"], r["stage"])
                want[k] = want.get(k, 0) + r["ns"] - med
    late, lstage = max(want, key=want.get)
    inj = "rollout" # where the generator's late launches after a gap are (its decode runs)
    ok(late == 2 and lstage == inj,
       "the truth's most host-bound rank and stage are the late ones (%d, %s)" % (late, lstage))
    i, f = find("host_bound", rank=late, stage=lstage)
    ok(f is not None, "rank %d's host-bound idle in %s is found" % (late, lstage))
    if f:
        near(f["recoverable_ns"], int(want[(late, lstage)]),
             "its idle beyond the median rank's in %s" % lstage)
    # every other one is under the threshold (1% of the steps), or its excess is the truth's
    for g in F:
        if g["kind"] == "host_bound" and (g["rank"], g["stage"]) != (late, lstage):
            near(g["recoverable_ns"], int(want.get((g["rank"], g["stage"]), 0)),
                 "rank %d's idle beyond the median rank's in %s" % (g["rank"], g["stage"]))
    if case == "hostevery":
        # with the threshold near 0, every rank and stage with an excess in the truth is one
        # finding (the gaps between stages: stage null), and no other
        got = {(g["rank"], g["stage"]) for g in F if g["kind"] == "host_bound"}
        ok(got == {k for k, v in want.items() if v > 0},
           "a host_bound finding for each rank and stage with an excess in the truth (%d, "
           "truth %d)" % (len(got), len([v for v in want.values() if v > 0])))
    if case == "hoststage":
        # injected in one stage: no other stage of the late rank is above 1% of its steps
        big = [g for g in F if g["kind"] == "host_bound" and g["stage"] != lstage and
               g["share"] > 0.01]
        ok(not big, "no host_bound finding of another stage above 1%% (%s)" %
           ", ".join("rank %d %s %.2f%%" % (g["rank"], g["stage"], 100 * g["share"])
                     for g in big))

if case == "cpuhost":
    ia, fa = find("aicpu_op")
    ih, fh = find("host_bound", rank=2)
    ok(fa is not None and fh is not None and ia < ih,
       "ranked by the truth: the AI CPU operator (%s) before the host-bound rank (%s)"
       % (ia, ih))

if case == "sample":
    # a real torch_npu profile (level2): against torch_npu's own analysis.db and plain SQL
    dbs = sorted(glob.glob(os.path.join(prof, "rank*_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                                        "ascend_pytorch_profiler_*.db")))
    # exposed_communication: StepTraceTime's communication not overlapped less CommAnalyzerTime's
    # synchronization (the group's other ranks are not in the sample), mean over the ranks
    tot = 0
    for db in dbs:
        a = sqlite3.connect("file:%s?mode=ro&immutable=1" % os.path.join(os.path.dirname(db),
                            "analysis.db"), uri=True)
        cno = a.execute("SELECT sum(communication_not_overlapped) FROM StepTraceTime").fetchone()[0]
        sync = a.execute("SELECT sum(synchronization_time) FROM CommAnalyzerTime"
                         " WHERE hccl_op_name NOT LIKE 'Total%'").fetchone()[0]
        tot += cno * 1e3 - sync * 1e6  # StepTraceTime in us, CommAnalyzerTime in ms
    i, f = find("exposed_communication")
    ok(f is not None, "the exposed communication is found")
    if f:
        near(f["recoverable_ns"], int(tot / len(dbs)), "exposed communication "
             "(StepTraceTime less CommAnalyzerTime's synchronization)", 0.01)
    # small_packets: CommAnalyzerBandwidth's packet rows, bytes under 16 MB of all
    sb = tb = 0
    for db in dbs:
        a = sqlite3.connect("file:%s?mode=ro&immutable=1" % os.path.join(os.path.dirname(db),
                            "analysis.db"), uri=True)
        for size, cnt in a.execute("SELECT package_size, count FROM CommAnalyzerBandwidth"
                                   " WHERE hccl_op_name NOT LIKE 'Total%' AND package_size"
                                   " IS NOT NULL AND transport_type != 'SDMA'"):
            tb += size * cnt
            if size * 1e6 < 16 << 20:
                sb += size * cnt
    i, f = find("small_packets", transport="SDMA")
    ok(f is not None, "small packets are found")
    if f:
        got = float(f["evidence"].split("%")[0])
        ok(abs(got - 100 * sb / tb) < 1, "%.0f%% of the volume under 16 MB, "
           "CommAnalyzerBandwidth says %.1f%%" % (got, 100 * sb / tb))
    # stalls: every device gap of 1 ms or more (TASK of COMPUTE_TASK_INFO and COMMUNICATION_OP,
    # plain SQL) inside the step, each a stall finding at its place
    want = set()
    for db in dbs:
        r = int(db.rsplit("_", 1)[1].split(".")[0])
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        iv = sorted(list(c.execute("SELECT startNs, endNs FROM TASK WHERE globalTaskId IN"
                                   " (SELECT globalTaskId FROM COMPUTE_TASK_INFO)")) +
                    list(c.execute("SELECT startNs, endNs FROM COMMUNICATION_OP")))
        s0, s1 = c.execute("SELECT min(startNs), max(endNs) FROM STEP_TIME").fetchone()
        end = None
        for a, b in iv:
            if end is not None and a - end >= 1000000 and s0 <= end and a <= s1:
                want.add((r, end, a))
            end = b if end is None else max(end, b)
    got = {(f["rank"], f["start_ns"], f["end_ns"]) for f in F if f["kind"] == "stall"}
    ok(got == want, "the stalls are exactly the device gaps of 1 ms or more (%d, SQL %d)"
       % (len(got), len(want)))

def sql_host_idle(prof):
    """per rank (directory rankN_): the device idle of the gaps under 1 ms of compute (TASK in
    COMPUTE_TASK_INFO) U COMMUNICATION_OP before the CANN_API call launching the first TASK
    starting at or after the gap's end had begun (plain SQL; one step: no stage)"""
    import bisect
    out = {}
    for db in glob.glob(os.path.join(prof, "rank*_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                                     "ascend_pytorch_profiler_*.db")):
        r = int(os.path.basename(os.path.dirname(os.path.dirname(db))).split("_")[0][4:])
        c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
        iv = c.execute("SELECT t.startNs, t.endNs FROM TASK t JOIN COMPUTE_TASK_INFO i"
                       " ON i.globalTaskId = t.globalTaskId").fetchall()
        iv += c.execute("SELECT startNs, endNs FROM COMMUNICATION_OP").fetchall()
        la = sorted(c.execute("SELECT t.startNs, a.startNs FROM TASK t JOIN CANN_API a"
                              " ON a.connectionId = t.connectionId").fetchall())
        dev = [x[0] for x in la]
        end, tot = None, 0
        for s, e in sorted(iv):
            if end is not None and s > end and s - end < 1000000:
                i = bisect.bisect_left(dev, s)
                if i < len(la) and la[i][1] > end:
                    tot += min(la[i][1], s) - end
            if end is None or e > end:
                end = e
        out[r] = tot
    return out

if case in ("sample", "samplehost"):
    # host_bound on a real profile: each rank's idle beyond the median rank's, from plain SQL
    hv = sql_host_idle(prof)
    med = statistics.median(hv.values())
    want = {r: v - med for r, v in hv.items() if v > med}
    got = {g["rank"]: g for g in F if g["kind"] == "host_bound"}
    if case == "sample":
        ok(not got, "no host_bound finding at the default threshold (%s)" %
           ", ".join("rank %d %.2f%%" % (r, 100 * g["share"]) for r, g in got.items()))
    else:
        ok(set(got) == set(want), "host_bound at a threshold near 0: the ranks over the median "
           "in SQL (%s, SQL %s)" % (sorted(got), sorted(want)))
        for r, g in got.items():
            ok(g["stage"] is None, "rank %d's: no stage" % r)
            if r in want:
                near(g["recoverable_ns"], int(want[r]), "rank %d's host-bound idle beyond the "
                     "median rank's (SQL)" % r, 0.01)

if case == "pp":
    c = sqlite3.connect("file:%s?mode=ro&immutable=1" % glob.glob(
        os.path.join(prof, "*r0_*", "ASCEND_PROFILER_OUTPUT", "*.db"))[0], uri=True)
    steps = list(c.execute("SELECT startNs, endNs FROM STEP_TIME ORDER BY startNs"))
    blocks = [t for t in truth if "kind" in t and "microbatch" in t]
    ratios = [t for t in truth if "pp_stage" in t]
    p = max(t["pp_stage"] for t in ratios) + 1
    m = 8
    ideal = (p - 1) / (m + p - 1)
    for stage in range(p):
        want = 0
        for k, (s0, s1) in enumerate(steps):
            bs = [b for b in blocks if s0 <= b["start_ns"] < s1]
            span = max(b["end_ns"] for b in bs) - min(b["start_ns"] for b in bs)
            ratio = ratios[k * p + stage]["bubble_ratio"]
            if ratio - ideal >= 0.02:
                want += (ratio - ideal) * span
        i, f = find("pipeline_bubble", pp_stage=stage)
        if want == 0:
            ok(f is None, "PP stage %d: no bubble beyond the ideal" % stage)
            continue
        ok(f is not None, "PP stage %d's bubble beyond the ideal is found" % stage)
        if f:
            near(f["recoverable_ns"], int(want), "PP stage %d's excess bubble" % stage)
            # its share, as every finding's: over the step time of the rank it names (that
            # rank's STEP_TIME rows of the steps counted), not over the pipeline's span
            rc = sqlite3.connect("file:%s?mode=ro&immutable=1" % glob.glob(os.path.join(
                prof, "*r%d_*" % f["rank"], "ASCEND_PROFILER_OUTPUT", "*.db"))[0], uri=True)
            rsteps = list(rc.execute("SELECT startNs, endNs FROM STEP_TIME ORDER BY startNs"))
            denom = sum(e - s for k, (s, e) in enumerate(rsteps)
                        if ratios[k * p + stage]["bubble_ratio"] - ideal >= 0.02)
            ok(denom > 0 and abs(f["share"] - f["recoverable_ns"] / denom) <= 1e-4,
               "PP stage %d's share %.6f is its excess over rank %d's step time (%.6f)"
               % (stage, f["share"], f["rank"], f["recoverable_ns"] / denom if denom else 0))
EOF

run_check() { # CASE NAME
	python3 "$t_tmp/check.py" "$1" "$t_tmp/$2" "$t_tmp/$2.truth" "$t_tmp/$2.json" >"$t_tmp/$2.tap" 2>&1 ||
		not_ok "$2: the checker failed: $(tail -1 "$t_tmp/$2.tap")"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$2: ${line#ok - }" ;;
		"not ok - "*) not_ok "$2: ${line#not ok - }" ;;
		esac
	done <"$t_tmp/$2.tap"
}

gen clean --slow -1 --clean && run_check clean clean
gen stall --slow -1 --clean --stall-rank 1 --stall-ns 3000000 && run_check stall stall
gen slow --clean --slow 3 && run_check slow slow
gen both --clean --slow 3 --stall-rank 1 --stall-ns 6000000 && run_check both both
gen pp --pp 4 --clean && run_check pp pp
gen between --slow -1 --clean --between-ns 20000000 && run_check between between
gen packets --slow -1 && run_check packets packets
gen freq --slow -1 --clean --memory && run_check freq freq
gen link --slow -1 --clean --slow-link 2 && run_check link link
gen aicpu --slow -1 --clean --aicpu --aicpu-ns 60000 && run_check aicpu aicpu
gen host --slow -1 --clean --host-late 2 && run_check host host
gen cpuhost --slow -1 --clean --aicpu --aicpu-ns 60000 --host-late 2 --host-late-ns 45000 &&
	run_check cpuhost cpuhost
# host lateness in one stage of one rank: found at that rank and stage
gen hoststage --slow -1 --clean --host-late 2 --host-late-stage 0 --host-late-ns 49000 &&
	run_check hoststage hoststage
# every rank's and stage's excess (the late rank in every stage: also the gaps between them),
# down to the clean profile's small ones
"$TL_BIN" triage "$t_tmp/host" --set host_bound_min=0.000001 --json >"$t_tmp/hostevery.json" &&
	cp "$t_tmp/host.truth" "$t_tmp/hostevery.truth" && run_check hostevery hostevery

# memory_peak: with the HBM capacity given, a peak (NPU_MEM's, plain SQL) at 90% of it or more
peak=$(python3 -c "
import glob, sqlite3, sys
print(max(sqlite3.connect('file:%s?mode=ro&immutable=1' % d, uri=True).execute(
    'SELECT max(hbm) FROM NPU_MEM').fetchone()[0] for d in glob.glob(sys.argv[1] + '/*/*/*.db')))
" "$t_tmp/freq")
gib_at=$(python3 -c "print($peak / 0.95 / 2**30)")   # the peak is 95% of it
gib_over=$(python3 -c "print($peak / 0.85 / 2**30)") # 85%
TL_HBM_CAPACITY_GIB=$gib_at "$TL_BIN" triage "$t_tmp/freq" --json >"$t_tmp/out" 2>"$t_tmp/err"
n=$(python3 -c "import json, sys; print(sum(f['kind'] == 'memory_peak' for f in json.load(open(sys.argv[1]))['findings']))" "$t_tmp/out")
check "memory_peak: a peak at 95% of the capacity is found on every rank ($n)" [ "$n" -eq 4 ]
check "... and says 95%" grep -q 'HBM peaked at [0-9.]* GiB, 95% of' "$t_tmp/out"
TL_HBM_CAPACITY_GIB=$gib_over "$TL_BIN" triage "$t_tmp/freq" --json >"$t_tmp/out" 2>&1
check "memory_peak: at 85% of the capacity it is not" sh -c "! grep -q memory_peak '$t_tmp/out'"
"$TL_BIN" triage "$t_tmp/freq" --json >"$t_tmp/out" 2>&1
check "memory_peak: without a capacity, none" sh -c "! grep -q memory_peak '$t_tmp/out'"

# a real profile, against torch_npu's own analysis.db and plain SQL
if [ -d "$SAMPLES/ascend-db/level2" ]; then
	"$TL_BIN" triage "$SAMPLES/ascend-db/level2" --json >"$t_tmp/sample.json" 2>"$t_tmp/sample.err"
	check "sample level2: tl triage --json exits 0" [ $? -eq 0 ]
	: >"$t_tmp/sample.truth"
	ln -s "$SAMPLES/ascend-db/level2" "$t_tmp/sample"
	run_check sample sample
	for lv in level0 level2; do
		"$TL_BIN" triage "$SAMPLES/ascend-db/$lv" --set host_bound_min=0.000001 --json \
			>"$t_tmp/host$lv.json" 2>/dev/null
		: >"$t_tmp/host$lv.truth"
		ln -s "$SAMPLES/ascend-db/$lv" "$t_tmp/host$lv"
		run_check samplehost "host$lv"
	done
	# each evidence is one sentence people read: a name cut to fit (a Kineto memcpy's
	# "Memcpy DtoD (Device -> Device)" inside the stall's own parentheses) leaves no "(" open
	for d in ascend-db/level0 ascend-db/level2 ascend-text kineto; do
		[ -e "$SAMPLES/$d" ] || continue
		"$TL_BIN" triage "$SAMPLES/$d" --json --no-cache 2>/dev/null >"$t_tmp/ev.json"
		bad=$(python3 -c "
import json, sys
n = 0
for f in json.load(open(sys.argv[1]))['findings']:
    e, depth = f['evidence'], 0
    for ch in e:
        depth += {'(': 1, ')': -1}.get(ch, 0)
        if depth < 0:
            break
    n += depth != 0
print(n)" "$t_tmp/ev.json")
		check "sample $d: every finding's evidence closes its parentheses ($bad do not)" [ "$bad" = 0 ]
	done
else
	skip "samples absent ($SAMPLES): the level2 findings not checked"
fi

# the command line
"$TL_BIN" triage "$t_tmp/clean" >"$t_tmp/out" 2>&1
check "clean: exit 0, says there is nothing" grep -q "no findings" "$t_tmp/out"
"$TL_BIN" triage "$t_tmp/slow" --fail-on 5ms >/dev/null 2>&1
check "--fail-on 5ms exits 3 when a finding costs more" [ $? -eq 3 ]
"$TL_BIN" triage "$t_tmp/slow" --fail-on 1s >/dev/null 2>&1
check "--fail-on 1s exits 0 when none does" [ $? -eq 0 ]
"$TL_BIN" triage "$t_tmp/slow" --fail-on 5% >/dev/null 2>&1
check "--fail-on 5% exits 3 (the straggler's share is above it)" [ $? -eq 3 ]
"$TL_BIN" triage "$t_tmp/slow" --fail-on 50% >/dev/null 2>&1
check "--fail-on 50% exits 0" [ $? -eq 0 ]
"$TL_BIN" triage "$t_tmp/slow" --top 1 >"$t_tmp/out" 2>&1
check "--top 1 prints one finding and says how many more" \
	sh -c "grep -c '^[0-9]*\. ' '$t_tmp/out' | grep -qx 1 && grep -q 'more: --top' '$t_tmp/out'"
"$TL_BIN" triage "$t_tmp/stall" --set stall_ms=5 --json >"$t_tmp/out" 2>&1
check "--set stall_ms=5: the 3.5 ms stall is not one" sh -c "! grep -q '\"stall\"' '$t_tmp/out'"
"$TL_BIN" triage "$t_tmp/stall" --set nosuch=1 >"$t_tmp/out" 2>&1
check "--set with an unknown name is a usage error naming the settings" \
	sh -c "[ $? -eq 1 ] && grep -q stall_ms '$t_tmp/out'"
"$TL_BIN" triage "$t_tmp/stall" --fail-on soon >/dev/null 2>&1
check "--fail-on with neither a duration nor a percentage is a usage error" [ $? -eq 1 ]
# the viewer's findings panel: ! and :findings list tl triage's findings in its order; Enter
# shows the first one's place (its rank and time) with the evidence on the message line (a long
# message wraps onto up to three rows)
first=$("$TL_BIN" triage "$t_tmp/slow" | sed -n 's/^1\. //p')
for open in '!' ':findings'; do
	printf '%s\n:dump %s\n' "$open" "$t_tmp/panel.txt" >"$t_tmp/script"
	"$TL_BIN" view "$t_tmp/slow" --script "$t_tmp/script" --size 160x30 2>"$t_tmp/err"
	check "viewer: $open opens the findings panel, tl triage's first finding first" \
		sh -c "head -1 '$t_tmp/panel.txt' | grep -q '^ Findings:' && grep -q '▸   1 .*$first' '$t_tmp/panel.txt'"
done
printf '!\n<Enter>\n:dump %s\n' "$t_tmp/panel.txt" >"$t_tmp/script"
"$TL_BIN" view "$t_tmp/slow" --script "$t_tmp/script" --size 160x30 2>"$t_tmp/err"
check "viewer: Enter shows the place: rank 3, the evidence on the message line" \
	sh -c "tail -3 '$t_tmp/panel.txt' | grep -q '^rank 3 arrived last' && grep -q '| rank 3 ' '$t_tmp/panel.txt'"
# tl view --finding N opens on finding N as Enter shows it: the cursor at its start and its end in
# sight (tl triage's "at A .. B ms"), its rank's lane, its evidence (tl triage --json's) on the
# message line; tl triage names the command; N out of range is one line and exit 1
"$TL_BIN" triage "$t_tmp/slow" --json >"$t_tmp/slow.json"
"$TL_BIN" triage "$t_tmp/slow" >"$t_tmp/slow.txt"
n=$(grep -c '"index":' "$t_tmp/slow.json")
check "tl triage names tl view PATH --finding N for each of its $n findings" \
	[ "$(grep -c -- "ms from the profile start: tl view $t_tmp/slow --finding [0-9]*\$" "$t_tmp/slow.txt")" -eq "$n" ]
printf ':dump %s\n' "$t_tmp/fv.txt" >"$t_tmp/script"
for i in $(seq 1 "$n"); do
	rm -f "$t_tmp/fv.txt"
	"$TL_BIN" view "$t_tmp/slow" --finding "$i" --script "$t_tmp/script" --size 120x30 2>"$t_tmp/err"
	check "tl view --finding $i: exit 0, no warnings" sh -c "[ $? -eq 0 ] && [ ! -s '$t_tmp/err' ]"
	check "... its rank, start, range and evidence are tl triage's finding $i" \
		python3 - "$i" "$t_tmp/slow.json" "$t_tmp/slow.txt" "$t_tmp/fv.txt" <<'EOF2'
import json, re, sys
i = int(sys.argv[1])
f = json.load(open(sys.argv[2]))["findings"][i - 1]
txt = open(sys.argv[3]).read()
m = re.search(r"^%d\. .*\n.*\n   at ([0-9.]+) \.\. ([0-9.]+) ms from the profile start: tl view .* --finding %d$" % (i, i), txt, re.M)
a, b = float(m.group(1)), float(m.group(2))
lines = open(sys.argv[4]).read().split("\n")
if lines[-1] == "":
    lines.pop()
st = [l for l in lines if " cursor " in l and "| rank " in l][-1]
lo, hi = [float(x) for x in re.findall(r"(-?[0-9.]+)ms", st)[:2]]
cur = float(re.search(r"cursor (-?[0-9.]+)ms", st).group(1))
rank = int(re.search(r"\| rank ([0-9]+)", st).group(1))
msg = " ".join(" ".join(l.split()) for l in lines[lines.index(st) + 1:])
good = rank == f["rank"] and abs(cur - a) < 0.0015 and lo <= a and hi >= b and msg == " ".join(f["evidence"].split())
if not good:
    print("rank %d cursor %.3f view %.3f..%.3f msg %r; want %d %.3f..%.3f %r" % (rank, cur, lo, hi, msg, f["rank"], a, b, f["evidence"]), file=sys.stderr)
sys.exit(0 if good else 1)
EOF2
done
"$TL_BIN" view "$t_tmp/slow" --finding $((n + 1)) --script "$t_tmp/script" --size 120x30 >"$t_tmp/out" 2>&1
check "tl view --finding $((n + 1)) (out of range): exit 1, one line saying how many there are" \
	sh -c "[ $? -eq 1 ] && [ \$(wc -l <'$t_tmp/out') -eq 1 ] && grep -q -- '--finding $((n + 1)): .* has $n findings' '$t_tmp/out'"
"$TL_BIN" view "$t_tmp/slow" --finding 0 --script "$t_tmp/script" --size 120x30 >"$t_tmp/out" 2>&1
check "tl view --finding 0: exit 1, one line" sh -c "[ $? -eq 1 ] && [ \$(wc -l <'$t_tmp/out') -eq 1 ]"

# tl diff: the findings of one run and not the other, and the change of each, matched by kind
# and place; against the generator's truth of each side (the stall it made, the AI CPU ops)
gen grow --slow -1 --clean --stall-rank 1 --stall-ns 6000000 --aicpu --aicpu-ns 60000
cat >"$t_tmp/diffcheck.py" <<'EOF2'
import json, sys
a_truth, b_truth, dj, dt = sys.argv[1:5]
def truth(p):
    out = {}
    for line in open(p):
        try:
            t = json.loads(line)
        except ValueError:
            continue
        if "stall" in t:
            out["stall"] = t["stall"]["end_ns"] - t["stall"]["start_ns"]
        if "aicpu" in t:
            out.setdefault("aicpu", []).append(t["aicpu"]["total_ns"])
    if "aicpu" in out:
        out["aicpu"] = sum(out["aicpu"]) / len(out["aicpu"])
    return out
A, B = truth(a_truth), truth(b_truth)
F = json.load(open(dj))["findings"]
text = open(dt).read()
def ok(c, what):
    print(("ok - " if c else "not ok - ") + what)
def near(got, want, what):
    if want is None or got is None:
        ok(got is None and want is None, "%s: %s, truth %s" % (what, got, want))
    else:
        ok(abs(got - want) <= 0.05 * want, "%s: %d ns, truth %d ns (within 5%%)" % (what, got, want))
st = [f for f in F if f["kind"] == "stall" and f["rank"] == 1 and f["stage"] == "rollout"]
ok(len(st) == 1, "one stall place: rank 1, rollout")
if st:
    near(st[0]["a_ns"], A.get("stall"), "the stall in A")
    near(st[0]["b_ns"], B.get("stall"), "the stall in B")
    ok(st[0]["delta_ns"] == (st[0]["b_ns"] or 0) - (st[0]["a_ns"] or 0), "its delta is B - A")
ai = [f for f in F if f["kind"] == "aicpu_op" and f["op"] == "ArgMaxV2"]
ok(len(ai) == 1, "one AI CPU operator place: ArgMaxV2")
if ai:
    near(ai[0]["a_ns"], A.get("aicpu"), "the AI CPU time per rank in A")
    near(ai[0]["b_ns"], B.get("aicpu"), "the AI CPU time per rank in B")
d = [abs(f["delta_ns"]) for f in F]
ok(d == sorted(d, reverse=True), "the places are ranked by |delta|")
ok(not [f for f in F if f["kind"] not in ("stall", "aicpu_op") and abs(f["delta_ns"]) > 500000],
   "no other place changed by more than 0.5 ms")
# the text section: the same rows, in the same order, the absent side "-" and new/gone said
rows = []
sec = text.split("\nFindings that changed")[1].split("\n\n")[0].split("\n")[2:]
for f in F:
    if f["delta_ns"] == 0:
        continue
    a = "-" if f["a_ns"] is None else "%.3f" % (f["a_ns"] / 1e6)
    b = "-" if f["b_ns"] is None else "%.3f" % (f["b_ns"] / 1e6)
    tail = " new" if f["a_ns"] is None else " gone" if f["b_ns"] is None else ""
    rows.append(" ".join([f["kind"], f["place"], a, b, "%+.3f" % (f["delta_ns"] / 1e6)]) + tail)
got = [" ".join(l.split()) for l in sec if l.strip()]
ok(got == rows[:10], "the text lists them as --json, largest change first (%s)" % got)
EOF2
diff_case() { # NAME A B
	"$TL_BIN" diff "$t_tmp/$2" "$t_tmp/$3" --json >"$t_tmp/$1.dj" 2>"$t_tmp/$1.derr"
	check "diff $1: --json exits 0, no warnings" sh -c "[ $? -eq 0 ] && [ ! -s '$t_tmp/$1.derr' ]"
	"$TL_BIN" diff "$t_tmp/$2" "$t_tmp/$3" >"$t_tmp/$1.dt" 2>/dev/null
	python3 "$t_tmp/diffcheck.py" "$t_tmp/$2.truth" "$t_tmp/$3.truth" "$t_tmp/$1.dj" "$t_tmp/$1.dt" \
		>"$t_tmp/$1.dtap" 2>&1 || not_ok "diff $1: the checker failed: $(tail -1 "$t_tmp/$1.dtap")"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "diff $1: ${line#ok - }" ;;
		"not ok - "*) not_ok "diff $1: ${line#not ok - }" ;;
		esac
	done <"$t_tmp/$1.dtap"
}
diff_case grows stall grow  # the stall grows 3 -> 6 ms, the AI CPU operator is new
diff_case shrinks grow stall # the reverse: shrinks, gone
diff_case appears aicpu grow # the stall is new (the AI CPU operator unchanged)
check "diff grows: the text says the AI CPU operator is new, first" \
	sh -c "grep -A3 '^Findings that changed' '$t_tmp/grows.dt' | sed -n 3p | grep -q '^aicpu_op .*ArgMaxV2.* new\$'"
check "diff shrinks: ... and gone the other way" \
	sh -c "grep -A3 '^Findings that changed' '$t_tmp/shrinks.dt' | sed -n 3p | grep -q '^aicpu_op .*ArgMaxV2.* gone\$'"
"$TL_BIN" diff "$t_tmp/grow" "$t_tmp/grow" --json >"$t_tmp/self.dj"
"$TL_BIN" diff "$t_tmp/grow" "$t_tmp/grow" >"$t_tmp/self.dt"
check "diff of a profile with itself: every finding in both, no change; the text says none" \
	sh -c "python3 -c 'import json,sys; F = json.load(open(sys.argv[1]))[\"findings\"]; sys.exit(not (F and all(f[\"delta_ns\"] == 0 and f[\"a_ns\"] == f[\"b_ns\"] for f in F)))' '$t_tmp/self.dj' && grep -q '^(none: [0-9]* in both, unchanged)' '$t_tmp/self.dt'"

# kept with the stored results: tl triage over unchanged inputs prints (and exits with) what it
# stored, byte for byte its output without the cache, without opening a rank's model file;
# another --set or TL_HBM_CAPACITY_GIB is another result, with the new answer
CD2="$t_tmp/rescache"
tri() { "$TL_BIN" triage "$t_tmp/stall" --cache-dir "$CD2" "$@"; }
tri --no-cache >"$t_tmp/r.none" 2>&1
tri >"$t_tmp/r.cold" 2>&1
tri >"$t_tmp/r.warm" 2>&1
check "triage: warm (stored) equals cold equals no cache, byte for byte" \
	sh -c "[ -s '$t_tmp/r.none' ] && cmp -s '$t_tmp/r.none' '$t_tmp/r.cold' && cmp -s '$t_tmp/r.none' '$t_tmp/r.warm'"
check "triage: its result and the critical path it read are stored beside the rank models" \
	[ "$(find "$CD2" -name '*.tlr' | wc -l)" -eq 2 ]
tri --json >"$t_tmp/r.jcold"
tri --json >"$t_tmp/r.jwarm"
tri --json --no-cache >"$t_tmp/r.jnone"
check "triage --json: warm equals cold equals no cache" \
	sh -c "cmp -s '$t_tmp/r.jnone' '$t_tmp/r.jcold' && cmp -s '$t_tmp/r.jnone' '$t_tmp/r.jwarm'"
"$TL_BIN" summary "$t_tmp/stall" --cache-dir "$CD2" >"$t_tmp/s.cold" 2>&1
"$TL_BIN" summary "$t_tmp/stall" --cache-dir "$CD2" >"$t_tmp/s.warm" 2>&1
check "summary (its verdict): warm equals cold, the verdict names the stall" \
	sh -c "cmp -s '$t_tmp/s.cold' '$t_tmp/s.warm' && sed -n 2p '$t_tmp/s.warm' | grep -q '^  1\. stall: rank 1'"
if strace -f -o /dev/null true 2>/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=open,openat \
		-o "$t_tmp/trace" "$TL_BIN" triage "$t_tmp/stall" --cache-dir "$CD2" >/dev/null 2>&1
	check "triage warm opens no rank model and reads its stored result" \
		sh -c "! grep -v ENOENT '$t_tmp/trace' | grep -q '\.tlc\"' && grep -v ENOENT '$t_tmp/trace' | grep -q '\.tlr\"'"
else
	skip "no strace: cannot see which files a stored result opens"
fi
tri --set stall_ms=5 >"$t_tmp/r.set5" 2>&1
tri --set stall_ms=5 --no-cache >"$t_tmp/r.set5none" 2>&1
check "triage --set stall_ms=5 after the default's stored result: the new answer (no stall)" \
	sh -c "cmp -s '$t_tmp/r.set5' '$t_tmp/r.set5none' && ! cmp -s '$t_tmp/r.set5' '$t_tmp/r.warm' && ! grep -q '^1\. stall' '$t_tmp/r.set5' && grep -q '^1\. stall' '$t_tmp/r.warm'"
tri --set stall_ms=2 >"$t_tmp/r.set2" 2>&1
check "... and --set stall_ms=2 is another: the 3 ms stall again" grep -q '^1\. stall: rank 1' "$t_tmp/r.set2"
tri >"$t_tmp/r.back" 2>&1
check "... and the default's stored result is unchanged" cmp -s "$t_tmp/r.back" "$t_tmp/r.none"
tri --fail-on 2ms >/dev/null 2>&1
rc1=$?
tri --fail-on 2ms >/dev/null 2>&1
rc2=$?
check "triage --fail-on: the stored result exits as the run that stored it ($rc1, $rc2)" \
	sh -c "[ $rc1 -eq 3 ] && [ $rc2 -eq 3 ]"
"$TL_BIN" triage "$t_tmp/freq" --cache-dir "$CD2" >"$t_tmp/r.freq" 2>&1
TL_HBM_CAPACITY_GIB=0.000001 "$TL_BIN" triage "$t_tmp/freq" --cache-dir "$CD2" >"$t_tmp/r.hbm" 2>&1
check "TL_HBM_CAPACITY_GIB is in the key: with a capacity, memory_peak, not the stored result" \
	sh -c "! grep -q memory_peak '$t_tmp/r.freq' && grep -q memory_peak '$t_tmp/r.hbm'"

# tl keys lists the findings panel's key and its action (also :findings, as any action)
"$TL_BIN" keys >"$t_tmp/keys"
check "tl keys lists ! findings with what it shows" \
	grep -q '^  !  *findings  *Show the findings of tl triage' "$t_tmp/keys"
check "... and that any action runs as :ACTION (:findings)" grep -q '^  :ACTION ' "$t_tmp/keys"

# every rule and its setting in man tl's FINDINGS
sed -n '/^\.SH FINDINGS/,/^\.SH /p' "$TL_SRCDIR/man/tl.1" >"$t_tmp/man"
"$TL_BIN" triage "$t_tmp/stall" --set nosuch=1 2>&1 | sed 's/.*one of://' | tr ' ' '\n' |
	grep . >"$t_tmp/settings"
check "the settings are listed (12)" [ "$(wc -l <"$t_tmp/settings")" -eq 12 ]
while read -r s; do
	check "man tl FINDINGS names the setting $s" grep -q "($s, " "$t_tmp/man"
done <"$t_tmp/settings"
# A rank whose events are an hour later than the others' (its clock, or a capture of another
# run): it "arrives" after every other rank has left each collective, which no wait explains;
# the straggler rule must not count that hour (it reported +32399998 ms, a share of 3.8e7 %)
"$TLGEN" screens "$t_tmp/late" --ranks 3 --tasks 1500 --late 2 3600 >/dev/null 2>&1
"$TL_BIN" triage "$t_tmp/late" --json --no-cache >"$t_tmp/out" 2>"$t_tmp/err"
check "a rank an hour late: tl triage exits 0" [ $? -eq 0 ]
check "... and no straggler from collectives the others had left" \
	sh -c "! grep -q '\"kind\":\"straggler\"' '$t_tmp/out'"
check "... and no finding costs more than its steps" python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))['findings']
sys.exit(any(x['share'] is not None and x['share'] > 1 for x in f))" "$t_tmp/out"

for k in stall stage_imbalance straggler slow_link aicpu_op exposed_communication between_steps \
	pipeline_bubble small_packets host_bound frequency_drop memory_peak; do
	check "man tl FINDINGS defines $k" grep -q "^\.B $k " "$t_tmp/man"
done
t_done
