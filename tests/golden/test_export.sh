#!/bin/sh
# tl export: the round trip (tl summary of the export = tl summary of the window, every overlap
# number of every step the window holds whole) on DB, trace_view.json and Kineto inputs, the
# real-schema fixture (a kernel launched in one step that runs in the next: the export's launch
# flow keeps its step) and the real samples; every file loads in Python's json and holds the
# process naming it promises; --format csv = `tl query ... --csv` of the slices; the refusals
# (a file that exists, a directory that is not empty, a path inside the input) leave the input
# as it was; and the peak RSS does not grow with the window.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"
if ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
	skip "python3 or the sqlite3 shell is not installed (tools/install-deps --test)"
	t_done
	exit
fi
P=$t_tmp/gen
"$TLGEN" bench "$P" --ranks 2 --tasks 3000 --steps 3 --json >/dev/null 2>&1
check "tlgen writes a profile" [ -d "$P" ]
# the same capture as trace_view.json alone
cp -r "$P" "$t_tmp/json"
find "$t_tmp/json" -name '*.db' -exec rm {} +
# the committed real-schema fixture
FX=$TL_SRCDIR/tests/golden/fixture
for r in 0 1; do
	d=$t_tmp/fx/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d"
	sqlite3 "$d/ascend_pytorch_profiler_$r.db" <"$FX/rank$r.sql"
done

# same.py WANT_JSON GOT_JSON [STEP...]: the overlap numbers of every rank and step of WANT (or
# of the steps named) are GOT's, and GOT has no step WANT lacks. Prints what differs.
cat >"$t_tmp/same.py" <<'EOF'
import json, sys
want, got = (json.load(open(f)) for f in sys.argv[1:3])
only = {int(s) for s in sys.argv[3:]}
keys = ("computing_ns", "communication_ns", "overlapped_ns", "communication_not_overlapped_ns",
        "free_ns", "preparing_ns")
def rows(summ, keep):
    out = {}
    for r in summ["ranks"]:
        for s in r.get("steps", []):
            if keep(s.get("step")):
                out[(r["rank"], s.get("step"))] = tuple(s.get(k) for k in keys)
    return out
w = rows(want, lambda s: not only or s in only)
g = rows(got, lambda s: not only or s in only)
bad = [(k, w.get(k), g.get(k)) for k in sorted(set(w) | set(g), key=str) if w.get(k) != g.get(k)]
for b in bad:
    print("#", b)
sys.exit(1 if bad or not w else 0)
EOF
# loads.py DIR: every file of DIR loads in Python's json, as a Chrome trace of one rank whose
# processes are the trace_view.json ones
cat >"$t_tmp/loads.py" <<'EOF'
import json, os, sys
d = sys.argv[1]
files = sorted(os.listdir(d))
assert files, "no file"
for f in files:
    ev = json.load(open(os.path.join(d, f)))
    assert isinstance(ev, list) and ev, f
    procs = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
    assert {"Ascend Hardware", "HCCL", "Python"} <= procs, (f, procs)
    for e in ev:
        assert e["ph"] in "MXCsf", e
        assert e["ph"] == "M" or isinstance(e["ts"], str), e
EOF

ov() { # PATH OUT: tl summary --json
	"$TL_BIN" summary "$1" --json --no-cache >"$2" 2>/dev/null
}
roundtrip() { # WHAT PATH [export options] -- compares every step
	what=$1
	in=$2
	shift 2
	rm -rf "$t_tmp/out"
	if ! "$TL_BIN" export "$in" -o "$t_tmp/out" "$@" 2>"$t_tmp/err"; then
		not_ok "$what: tl export failed: $(head -1 "$t_tmp/err")"
		return
	fi
	ov "$in" "$t_tmp/want.json"
	ov "$t_tmp/out" "$t_tmp/got.json"
	check "$what: loads in Python's json" python3 "$t_tmp/loads.py" "$t_tmp/out"
	check "$what: summary of the export = summary of the input" \
		python3 "$t_tmp/same.py" "$t_tmp/want.json" "$t_tmp/got.json" $only
}
only=
roundtrip "DB" "$P"
roundtrip "trace_view.json" "$t_tmp/json"
roundtrip "fixture (a kernel launched in the step before)" "$t_tmp/fx"
n=$(cat "$t_tmp"/out/rank*.trace.json | grep -c '"ph":"s"')
check "fixture: the late kernels carry their launch step as a flow ($n)" [ "$n" -ge 2 ]
only=2
roundtrip "DB --step 2" "$P" --step 2
check_all "--step 2: one file per rank, rank{r}.trace.json" \
	'[ -f "$t_tmp/out/rank0.trace.json" ] && [ -f "$t_tmp/out/rank1.trace.json" ]'
roundtrip "trace_view.json --step 2" "$t_tmp/json" --step 2
only=8
roundtrip "fixture --step 8" "$t_tmp/fx" --step 8
# a window of time: from the first to the last instant of step 2's work, by plain SQL over the DBs
lo=
hi=
for db in "$P"/*/ASCEND_PROFILER_OUTPUT/*.db; do
	x=$(sqlite3 -readonly "$db" "SELECT min(t.startNs), max(t.endNs) FROM TASK t
		JOIN STEP_TIME s ON s.id = 2 JOIN CANN_API c ON c.connectionId = t.connectionId
		WHERE c.startNs BETWEEN s.startNs AND s.endNs")
	a=${x%|*}
	b=${x#*|}
	[ -z "$lo" ] || [ "$a" -lt "$lo" ] && lo=$a
	[ -z "$hi" ] || [ "$b" -gt "$hi" ] && hi=$b
done
only=2
roundtrip "DB --from --to (step 2's work, $lo to $hi)" "$P" --from "$lo" --to $((hi + 1))
n=$(python3 -c 'import json,sys; print(sorted({e["name"] for e in json.load(open(sys.argv[1])) if e["name"].startswith("ProfilerStep")}))' "$t_tmp/out/rank0.trace.json")
check "--from --to: the steps whose work meets the window are written ($n)" [ -n "$n" ]

if [ -d "$SAMPLES/ascend-db" ]; then
	only=
	roundtrip "sample ascend-db level2" "$SAMPLES/ascend-db/level2"
	roundtrip "sample ascend-text level1" "$SAMPLES/ascend-text/level1"
	roundtrip "sample Kineto (two steps)" "$SAMPLES/kineto/trace_filter__sampled_rank-0.json"
	roundtrip "sample Kineto, CPU only (host collectives)" "$SAMPLES/kineto/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json"
	roundtrip "sample Kineto, AMD (no rank number)" "$SAMPLES/kineto/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json"
	check "a rank without a number: rank_unknown.trace.json" [ -f "$t_tmp/out/rank_unknown.trace.json" ]
else
	skip "$SAMPLES is absent: the real samples' round trip not checked"
fi

# csv: the slices of the window, as tl query prints them
"$TL_BIN" export "$P" -o "$t_tmp/s.csv" --format csv --step 2 2>/dev/null
"$TL_BIN" query "$P" "SELECT * FROM slices WHERE step = 2" --csv >"$t_tmp/q.csv" 2>/dev/null
check "--format csv = tl query's slices --csv ($(wc -l <"$t_tmp/s.csv") lines)" cmp -s "$t_tmp/s.csv" "$t_tmp/q.csv"
want=0
for db in "$P"/*/ASCEND_PROFILER_OUTPUT/*.db; do
	x=$(sqlite3 -readonly "$db" "SELECT count(*) FROM TASK t JOIN COMPUTE_TASK_INFO i
		ON i.globalTaskId = t.globalTaskId JOIN STEP_TIME s ON s.id = 2
		JOIN CANN_API c ON c.connectionId = t.connectionId
		WHERE c.startNs BETWEEN s.startNs AND s.endNs")
	want=$((want + x))
done
got=$(grep -c '^[0-9]*,[^,]*,compute,' "$t_tmp/s.csv")
check_all "--format csv: step 2's kernels = plain SQL's count ($got)" \
	'[ "$got" -eq "$want" ] && [ "$want" -gt 0 ]'
"$TL_BIN" export "$P" -o - --format csv --from "$lo" --to $((hi + 1)) >"$t_tmp/w.csv" 2>/dev/null
"$TL_BIN" query "$P" "SELECT * FROM slices WHERE end_ns > $lo AND start_ns < $((hi + 1))" --csv >"$t_tmp/q.csv" 2>/dev/null
check "--format csv -o - with --from --to = tl query's window" cmp -s "$t_tmp/w.csv" "$t_tmp/q.csv"

# refusals: one line, exit 1, the input untouched
find "$P" -type f -exec cksum {} + | sort >"$t_tmp/before"
refuse() { # WHAT PATTERN export-args...
	what=$1
	pat=$2
	shift 2
	"$TL_BIN" export "$@" >"$t_tmp/o" 2>"$t_tmp/e"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$t_tmp/e")" -eq 1 ] && grep -q "$pat" "$t_tmp/e"; then
		ok "refused: $what ($(cat "$t_tmp/e"))"
	else
		echo "# rc=$rc: $(cat "$t_tmp/e")"
		not_ok "refused: $what"
	fi
}
db=$(ls "$P"/*-r0_*/ASCEND_PROFILER_OUTPUT/*.db)
refuse "-o an input file" "inside the input" "$db" -o "$db" --format csv
refuse "-o a file that exists" "never overwrites" "$P" -o "$t_tmp/s.csv" --format csv
refuse "-o a directory inside the input" "inside the input" "$P" -o "$P/export"
mkdir -p "$t_tmp/full"
echo x >"$t_tmp/full/rank0.trace.json"
refuse "-o a directory that is not empty" "not empty" "$P" -o "$t_tmp/full"
refuse "--from without --to" "together" "$P" -o "$t_tmp/x" --from 5
refuse "--step with --from" "together" "$P" -o "$t_tmp/x" --from 5 --to 6 --step 2
refuse "no -o" "needs -o" "$P"
refuse "an unknown format" "chrome or csv" "$P" -o "$t_tmp/x" --format pdf
find "$P" -type f -exec cksum {} + | sort >"$t_tmp/after"
check "the input is as it was (every file, its checksum)" cmp -s "$t_tmp/before" "$t_tmp/after"
check "tl help export says what -o is" sh -c "'$TL_BIN' help export | grep -q 'rank{r}.trace.json'"

# bounded memory: the peak RSS of a window of one step and of all ten, the same load
if [ -x /usr/bin/time ]; then
	B=$t_tmp/big
	"$TLGEN" bench "$B" --ranks 1 --tasks 20000 --steps 10 >/dev/null 2>&1
	rss() { # OUT [options]: the export's peak RSS in KB
		out=$1
		shift
		/usr/bin/time -v "$TL_BIN" export "$B" -o "$out" --no-cache "$@" 2>&1 >/dev/null |
			sed -n 's/.*Maximum resident set size (kbytes): //p'
	}
	small=$(rss "$t_tmp/b1" --step 5)
	large=$(rss "$t_tmp/b10")
	s1=$(cat "$t_tmp"/b1/*.json | wc -c)
	s10=$(cat "$t_tmp"/b10/*.json | wc -c)
	echo "# peak RSS: one step ${small} KB ($s1 bytes written), ten steps ${large} KB ($s10 bytes)"
	check "ten steps write more than 5x one step ($s1 -> $s10 bytes)" [ "$s10" -gt $((5 * s1)) ]
	check "the peak RSS does not grow with the window (${small} -> ${large} KB, within 4 MB)" \
		[ "$large" -le $((small + 4096)) ]
else
	skip "/usr/bin/time is not installed: the peak RSS is not measured"
fi
t_done
