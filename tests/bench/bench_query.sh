#!/bin/bash
# `make bench-query`: figures, not assertions. tl query's `count(*) ... GROUP BY rank` over the
# compute tasks of 8 ranks x 1,000,000 device tasks (bench.sh's profile, kept in bench-out/),
# warm (the model cache written first), against the same SQL in the sqlite3 shell over a table
# of the same rows (one row per compute task: rank, start, duration, name; built once from the
# DBs). The bar: tl within 2x of the shell. Then one step's compute slices, step = N pushed down
# against not. Machines are noisy: medians of RUNS runs.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-5}
PROFILE="$OUT/profile-${RANKS}x${TASKS}"
FLAT="$OUT/query-flat-${RANKS}x${TASKS}.db"
. "$(dirname "$0")/lib.sh"

generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
if [ ! -f "$FLAT.complete" ]; then
	rm -f "$FLAT"
	{
		echo "CREATE TABLE tasks (rank INTEGER, start_ns INTEGER, dur_ns INTEGER, name INTEGER);"
		for db in $(find "$PROFILE/" -name 'ascend_pytorch_profiler_*.db' | sort); do
			r=${db##*_}
			r=${r%.db}
			echo "ATTACH '$db' AS r; INSERT INTO tasks SELECT $r, t.startNs,"
			echo "  t.endNs - t.startNs, c.name FROM r.TASK t JOIN r.COMPUTE_TASK_INFO c"
			echo "  USING (globalTaskId); DETACH r;"
		done
	} | sqlite3 "$FLAT"
	[ "$(sqlite3 "$FLAT" "SELECT count(*) FROM tasks")" -gt 0 ] && touch "$FLAT.complete"
fi
export XDG_CACHE_HOME="$OUT/query-xdg"
"$TL_BIN" index "$PROFILE" >/dev/null # warm: the model cache holds every rank

run_tl() { "$TL_BIN" query "$PROFILE" "SELECT rank, count(*) FROM slices WHERE kind = 'compute' GROUP BY rank" >"$OUT/query-tl.txt"; }
run_shell() { sqlite3 "$FLAT" "SELECT rank, count(*) FROM tasks GROUP BY rank" >"$OUT/query-shell.txt"; }
side_by_side "$RUNS" run_tl run_shell
a=$(grep -E '^ *[0-9]' "$OUT/query-tl.txt" | awk '{ print $1 "|" $2 }')
b=$(cat "$OUT/query-shell.txt")
echo "== tl query, count(*) GROUP BY rank over $RANKS ranks x $TASKS tasks, warm ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), medians of $RUNS)"
printf 'tl query:                      %8.3f s   (runs: %s)\n' "$tl_med" "${tl_times[*]}"
printf 'sqlite3 shell, a flat table:   %8.3f s   (runs: %s)\n' "$base_med" "${base_times[*]}"
printf 'ratio tl / sqlite3 shell:      %8.3f     (bar: <= 2)\n' "$(calc "$tl_med / $base_med")"
[ "$a" = "$b" ] && echo "same counts per rank" || echo "COUNTS DIFFER: tl $a / shell $b"

# step = N pushed down: the compute slices of one step, against the same filter written so that
# the table cannot see it (step + 0), warm; the rows the tables handed to SQLite (TL_STATS)
STEPQ="SELECT count(*), sum(dur_ns) FROM slices WHERE kind = 'compute' AND step"
run_step() { "$TL_BIN" query "$PROFILE" "$STEPQ = 2" >"$OUT/query-step.txt"; }
run_step0() { "$TL_BIN" query "$PROFILE" "$STEPQ + 0 = 2" >"$OUT/query-step0.txt"; }
side_by_side "$RUNS" run_step run_step0
rows() { TL_STATS=1 "$TL_BIN" query "$PROFILE" "$1" 2>&1 >/dev/null | sed -n 's/^stats: query_rows_read=//p'; }
echo "== tl query, the compute slices of step 2, pushed down or not (medians of $RUNS)"
printf 'step = 2:       %8.3f s, %s rows read\n' "$tl_med" "$(rows "$STEPQ = 2")"
printf 'step + 0 = 2:   %8.3f s, %s rows read\n' "$base_med" "$(rows "$STEPQ + 0 = 2")"
cmp -s "$OUT/query-step.txt" "$OUT/query-step0.txt" && echo "same answer" || echo "ANSWERS DIFFER"
