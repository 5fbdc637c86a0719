# The answers for a Kineto (PyTorch profiler) trace, computed here from the file alone with the
# definitions of the GPU trace analysers, and compared with `tl summary --json` (test_kineto.sh):
#
#  - a device event (categories kernel / gpu_memcpy / gpu_memset, 2021's Kernel / Memcpy /
#    Memset) belongs to the step holding its launch call: the cuda_runtime / cuda_driver /
#    Runtime event with the same args.correlation (HolisticTraceAnalysis' iteration of a
#    kernel, the TensorBoard plugin's steps); one whose call is not in the trace (launched
#    before the capture) belongs to no step;
#  - HTA's kernel types: a kernel whose name is NCCL's / RCCL's is communication, one named
#    Memcpy / Memset and the memcpy / memset categories are memory, the rest computation;
#  - computing, communication: the length of the union of the step's computation, of its
#    communication; overlapped: of their intersection; free (torch_npu's StepTraceTime, which
#    tl prints): (last busy end - first busy start) - |computation U communication|;
#  - memory: the union of the step's memory events; not overlapped: what of it the step's
#    computation and communication leave uncovered;
#  - the TensorBoard plugin's per-step "Kernel": the union of every kernel launched in it
#    (tb), and the plugin's own computation of its overview (tbplugin, below).
#
# usage: kineto_ref.py compare|tb|tbplugin|invariant|count TRACE TL_SUMMARY_JSON
# Prints one line per check: "PASS what" or "FAIL what", and "COUNT n" for the orphans.
import json
import sys
from decimal import Decimal, ROUND_HALF_UP


def ns(x):
    return int((Decimal(str(x)) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def union(iv):
    out = []
    for s, e in sorted(i for i in iv if i[1] > i[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def inter(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            t += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def is_comm(name):
    n = name.lower()
    return n.startswith(("nccl", "rccl", "hccl")) or "ncclkernel" in n or "nccldevkernel" in n


mode, trace_path, tl_path = sys.argv[1:4]
d = json.load(open(trace_path), parse_float=Decimal)
ev = d["traceEvents"] if isinstance(d, dict) else d
base = int(d.get("baseTimeNanoseconds", 0)) if isinstance(d, dict) else 0
tl = json.load(open(tl_path))

steps = []
for e in ev:
    if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#") \
            and e.get("cat") != "gpu_user_annotation":
        s = ns(e["ts"]) + base
        steps.append((s, s + ns(e["dur"]), int(e["name"][13:])))
steps.sort()
launch = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") \
            and "correlation" in e.get("args", {}):
        launch.setdefault(e["args"]["correlation"], ns(e["ts"]) + base)


def step_of(t):
    for s, e, i in steps:
        if s <= t <= e:
            return i
    return None


per = {}
orphans, orphan_ns = 0, 0
for e in ev:
    if e.get("ph") != "X":
        continue
    cat, name = e.get("cat"), e.get("name", "")
    if cat in ("kernel", "Kernel"):
        kind = "comm" if is_comm(name) else \
            "mem" if ("Memcpy" in name or "Memset" in name) else "comp"
    elif cat in ("gpu_memcpy", "gpu_memset", "Memcpy", "Memset"):
        kind = "mem"
    else:
        continue
    corr = e.get("args", {}).get("correlation")
    if corr in launch:
        st = step_of(launch[corr])
    else:
        st = None
        orphans += 1
        orphan_ns += ns(e["dur"])
    if not steps:
        st = "all"  # no steps: tl's one row holds every device event
    s = ns(e["ts"]) + base
    v = per.setdefault(st, {"comp": [], "comm": [], "mem": [], "kernel": []})
    v[kind].append((s, s + ns(e["dur"])))
    if cat in ("kernel", "Kernel"):
        v["kernel"].append((s, s + ns(e["dur"])))

ref = {}
for st, v in per.items():
    C, M, Y = union(v["comp"]), union(v["comm"]), union(v["mem"])
    CM = union(C + M)
    busy = C + M
    first = min((s for s, _ in busy), default=0)
    last = max((e for _, e in busy), default=0)
    every = C + M + Y
    ref[st] = {
        "computing_ns": length(C), "communication_ns": length(M),
        "overlapped_ns": inter(C, M),
        "communication_not_overlapped_ns": length(M) - inter(C, M),
        "free_ns": (last - first) - length(CM) if busy else 0,
        "memory_ns": length(Y), "memory_not_overlapped_ns": length(Y) - inter(Y, CM),
        "kernel": length(union(v["kernel"])),
        "window": (max(e for _, e in every) - min(s for s, _ in every)) if every else 0,
    }

rows = []
for r in tl["ranks"]:
    for s in r.get("steps", []):
        rows.append((r, s))


def report(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def tb_plugin_kernel():
    """The TensorBoard plugin's overview, its own way: a step's range moves to the device (from
    the end of the device work that ran before it, launched outside every step, or of the
    step before; to the end of its own device work, that of the calls wholly inside its host
    range), and its Kernel time is the merged kernels inside that range."""
    dev, calls = [], []
    for e in ev:
        if e.get("ph") != "X":
            continue
        s = ns(e["ts"]) + base
        corr = e.get("args", {}).get("correlation")
        if e.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset"):
            dev.append((s, s + ns(e["dur"]), corr, e.get("cat") in ("kernel", "Kernel")))
        elif e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") and corr is not None:
            calls.append((s, s + ns(e["dur"]), corr))
    by_corr = {}
    for x in dev:
        by_corr.setdefault(x[2], []).append(x)
    lo = [None] * len(steps)
    hi = [None] * len(steps)
    matched = set()
    for cs, ce, corr in calls:
        for k, (s, e, _) in enumerate(steps):
            if s <= cs and ce <= e:
                for x in by_corr.get(corr, []):
                    matched.add(id(x))
                    lo[k] = x[0] if lo[k] is None else min(lo[k], x[0])
                    hi[k] = x[1] if hi[k] is None else max(hi[k], x[1])
                break
    prev = steps[0][0]
    if lo[0] is not None:
        for x in dev:
            if id(x) not in matched and x[1] < lo[0]:
                prev = max(prev, x[1])
    kern = union([(x[0], x[1]) for x in dev if x[3]])
    out = {}
    for k, (s, e, i) in enumerate(steps):
        a = max(prev, s)
        b = max(e, hi[k]) if hi[k] is not None else max(e, a)
        out[i] = sum(max(0, min(b, y) - max(a, x)) for x, y in kern)
        prev = b
    return out


if mode == "tbplugin":
    tb = tb_plugin_kernel()
    for r, s in rows:
        report(s["computing_ns"] == tb.get(s["step"]),
               "step %s: the TensorBoard plugin's overview Kernel %s ns, tl's computing %s ns"
               % (s["step"], tb.get(s["step"]), s["computing_ns"]))
    sys.exit(0)
if mode == "count":
    print("COUNT %d %.3f" % (orphans, orphan_ns / 1e6))
    sys.exit(0)
if mode in ("compare", "tb"):
    want = [i for _, _, i in steps] or [-1]  # no steps: one row for the whole capture
    got = [-1 if s["step"] is None else s["step"] for _, s in rows]
    report(got == want, "the steps are the trace's ProfilerStep ranges (%s, tl %s)" % (want, got))
for r, s in rows:
    key = s["step"] if steps else "all"
    x = ref.get(key)
    if x is None:
        report(s.get("computing_ns", 0) == 0, "step %s: no device work launched in it" % key)
        continue
    if mode == "compare":
        for f in ("computing_ns", "communication_ns", "overlapped_ns",
                  "communication_not_overlapped_ns", "free_ns", "memory_ns",
                  "memory_not_overlapped_ns"):
            report(s.get(f) == x[f], "step %s %s: tl %s, by definition %s" % (key, f, s.get(f), x[f]))
        for h in tl.get("host", []):
            if h.get("step") == s["step"] and "idle_ns" in h:
                report(h["idle_ns"] == x["free_ns"], "step %s host launches' idle %s = free %s"
                       % (key, h["idle_ns"], x["free_ns"]))
    elif mode == "tb":
        got = s["computing_ns"] + s["communication_not_overlapped_ns"]
        report(got == x["kernel"], "step %s: TensorBoard's Kernel %d ns, tl's computing + "
               "exposed communication %d ns" % (key, x["kernel"], got))
    elif mode == "invariant":
        if not r.get("device_activity", True):
            continue
        w = x["window"]
        for f in ("computing_ns", "communication_not_overlapped_ns", "free_ns",
                  "memory_not_overlapped_ns"):
            v = s.get(f)
            report(v is not None and 0 <= v <= w,
                   "step %s %s %s within the device window [0, %d]" % (key, f, v, w))
        tot = s["computing_ns"] + s["communication_not_overlapped_ns"] + s["free_ns"]
        report(tot <= w, "step %s computing + exposed communication + free %d <= window %d"
               % (key, tot, w))
