#!/bin/sh
# tl query's findings table = tl triage --json's findings, row for row and field for field (a
# field triage leaves out is NULL in the table), on generated profiles with problems injected by
# the generator (so that every rule with a place, a link, an operator or a pipeline stage has
# rows) and on the real samples (DB, text export, Kineto). That triage's numbers are right is
# test_findings.sh's; here the table must not tell them otherwise.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"
if ! command -v python3 >/dev/null; then
	skip "python3 is not installed (tools/install-deps --test)"
	t_done
	exit
fi

# same.py TRIAGE_JSON QUERY_JSON: prints what differs, exits 1 then (or when there is no row)
cat >"$t_tmp/same.py" <<'EOF'
import json, sys
want = json.load(open(sys.argv[1]))["findings"]
got = json.load(open(sys.argv[2]))
if len(want) != len(got) or not want:
    print("# %d rows, tl triage --json has %d" % (len(got), len(want)))
    sys.exit(1)
cols = ["finding", "kind", "rank", "ranks", "step", "steps", "stage", "start_ns", "end_ns",
        "recoverable_ns", "share", "src_rank", "dst_rank", "pp_stage", "transport", "op",
        "evidence"]
bad = 0
for w, g in zip(want, got):
    if list(g) != cols:
        print("# columns %s" % list(g))
        sys.exit(1)
    w = dict(w, finding=w.pop("index"))
    for k in cols:
        a, b = g[k], w.get(k)
        same = abs(a - b) <= 5e-7 if k == "share" and a is not None and b is not None else a == b
        if not same:
            print("# finding %s (%s): %s = %r, tl triage --json says %r" % (w["finding"], w["kind"], k, a, b))
            bad = 1
sys.exit(bad)
EOF

# compare WHAT PATH [tl options]: the table = tl triage --json; prints the kinds it saw
compare() {
	what=$1
	path=$2
	shift 2
	"$TL_BIN" triage "$path" --json "$@" >"$t_tmp/triage.json" 2>/dev/null
	"$TL_BIN" query "$path" "SELECT * FROM findings" --json "$@" >"$t_tmp/query.json" 2>"$t_tmp/err"
	rc=$?
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$t_tmp/query.json" 2>/dev/null)
	check_all "$what: SELECT * FROM findings = tl triage --json ($n findings)" \
		'[ $rc -eq 0 ] && [ ! -s "$t_tmp/err" ] && python3 "$t_tmp/same.py" "$t_tmp/triage.json" "$t_tmp/query.json"'
}

# the generator's problems: a straggler, a stall, a slow link, time between steps, frequency
# drops, small packets; and a pipeline
P=$t_tmp/many
"$TLGEN" rl "$P" --ranks 4 --tasks 2000 --slow 3 --stall-rank 1 --stall-ns 6000000 \
	--slow-link 2 --between-ns 20000000 --memory >/dev/null 2>&1
compare "injected problems" "$P"
kinds=$("$TL_BIN" query "$P" "SELECT group_concat(kind, ' ') FROM (SELECT DISTINCT kind FROM findings ORDER BY kind)" --csv | sed -n 2p | tr -d '\r')
check "injected problems: the rules that fired ($kinds)" sh -c "
	for k in straggler stall slow_link between_steps frequency_drop; do
		echo ' $kinds ' | grep -q \" \$k \" || exit 1
	done"
compare "injected problems, --rank 1-3" "$P" --rank 1-3
compare "injected problems, --no-cache" "$P" --no-cache
"$TLGEN" rl "$t_tmp/pp" --pp 4 --clean >/dev/null 2>&1
compare "a pipeline" "$t_tmp/pp"
n=$("$TL_BIN" query "$t_tmp/pp" "SELECT count(*) FROM findings WHERE kind = 'pipeline_bubble' AND pp_stage IS NOT NULL" --csv | sed -n 2p | tr -d '\r')
check "a pipeline: its bubbles name their PP stage ($n)" [ "${n:-0}" -gt 0 ]
# the SQL a user writes over it: the time each rule costs, by plain arithmetic on the JSON
got=$("$TL_BIN" query "$P" "SELECT kind || ':' || sum(recoverable_ns) FROM findings GROUP BY kind ORDER BY kind" --csv | sed 1d | tr -d '\r' | tr '\n' ' ')
want=$("$TL_BIN" triage "$P" --json | python3 -c '
import json, sys
t = {}
for f in json.load(sys.stdin)["findings"]:
    t[f["kind"]] = t.get(f["kind"], 0) + f["recoverable_ns"]
print(" ".join("%s:%d" % kv for kv in sorted(t.items())), end=" ")')
check_all "GROUP BY kind sums = tl triage --json's, summed in Python" \
	'[ -n "$want" ] && [ "$got" = "$want" ]'
# a rank = over a whole table is not pushed down: it filters the rows
a=$("$TL_BIN" query "$P" "SELECT count(*) FROM findings WHERE rank = 3" --csv | sed -n 2p | tr -d '\r')
"$TL_BIN" triage "$P" --json >"$t_tmp/triage.json"
b=$(python3 -c 'import json,sys; print(sum(1 for f in json.load(open(sys.argv[1]))["findings"] if f["rank"] == 3))' "$t_tmp/triage.json")
check_all "WHERE rank = 3 keeps the findings naming rank 3 ($a, want $b)" \
	'[ "$a" = "$b" ] && [ "$b" -gt 0 ]'
check ".schema findings lists recoverable_ns with its meaning" \
	sh -c "'$TL_BIN' query '$P' '.schema findings' | grep -q '^  recoverable_ns .*time'"

# the real samples
for s in ascend-db/level0 ascend-db/level2 ascend-text/level1 kineto/trace_filter__sampled_rank-0.json kineto; do
	if [ -e "$SAMPLES/$s" ]; then
		compare "sample $s" "$SAMPLES/$s"
	else
		skip "$SAMPLES/$s is absent"
	fi
done
t_done
