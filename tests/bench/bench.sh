#!/bin/bash
# `make bench`: figures, not assertions. Generates 8 ranks x 1,000,000 device tasks once (kept in
# bench-out/), then times `tl summary` against the sqlite3 shell running the very same SELECTs
# (printed by tl itself with TL_TRACE_SQL=1) on every rank's DB with output to /dev/null.
# Machines are noisy: each side runs RUNS times, medians are reported.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/profile-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"

generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3

# the statements tl runs, per rank DB
TL_TRACE_SQL=1 "$TL_BIN" summary "$PROFILE" --rank 0 --no-cache >/dev/null 2>"$OUT/sql.txt"
grep -v '^tl:' "$OUT/sql.txt" | grep -v '^stats:' >"$OUT/queries.sql"
DBS=$(find "$PROFILE" -name 'ascend_pytorch_profiler_*.db' | sort)

run_tl() { TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache >/dev/null 2>"$OUT/stats.txt"; }
run_shell() {
	for db in $DBS; do
		sqlite3 -readonly "$db" <"$OUT/queries.sql" >/dev/null
	done
}
side_by_side "$RUNS" run_tl run_shell
sh_med=$base_med
sh_times=("${base_times[@]}")
stats=$(grep '^stats:' "$OUT/stats.txt")
slices=$(echo "$stats" | sed 's/.*slices=\([0-9]*\).*/\1/')
slice_bytes=$(echo "$stats" | sed 's/.*slice_bytes=\([0-9]*\).*/\1/')
rss_kb=$(echo "$stats" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')

echo "== tl summary on $RANKS ranks x $TASKS tasks ($(nproc) cores, $RUNS runs, medians)"
printf 'tl summary wall time:            %8.3f s   (runs: %s)\n' "$tl_med" "${tl_times[*]}"
printf 'sqlite3 shell, same SELECTs:     %8.3f s   (runs: %s)\n' "$sh_med" "${sh_times[*]}"
printf 'ratio tl / sqlite3 shell:        %8.3f     (bar: <= 0.35)\n' "$(calc "$tl_med / $sh_med")"
printf 'slices loaded:                   %8d\n' "$slices"
printf 'peak resident memory:            %8.1f MB\n' "$(calc "$rss_kb / 1024")"
printf 'resident bytes per slice:        %8.1f     (bar: <= 48)\n' "$(calc "$rss_kb * 1024 / $slices")"
printf 'slice arrays bytes per slice:    %8.1f\n' "$(calc "$slice_bytes / $slices")"

# the findings engine (tl triage's, which tl summary's verdict runs too): its own time against
# the whole tl summary
TL_STATS=1 "$TL_BIN" triage "$PROFILE" --no-cache >/dev/null 2>"$OUT/triage.txt"
find_s=$(sed -n 's/^stats: findings_s=//p' "$OUT/triage.txt")
printf 'findings engine:                 %8.3f s   (%.1f%% of tl summary; bar: <= 10%%)\n' \
	"$find_s" "$(calc "100 * $find_s / $tl_med")"

# BENCH_BASE_TL=/path/to/an/older/tl: the same `tl summary` by that binary, alternately with
# this one (what a change to the summary costs; the communication sections read each rank's
# HCCL sub-tasks besides what the load reads).
if [ -n "${BENCH_BASE_TL:-}" ]; then
	run_base_tl() { "$BENCH_BASE_TL" summary "$PROFILE" >/dev/null 2>&1; }
	run_tl_json() { "$TL_BIN" summary --json "$PROFILE" >/dev/null 2>&1; }
	run_base_json() { "$BENCH_BASE_TL" summary --json "$PROFILE" >/dev/null 2>&1; }
	side_by_side "$RUNS" run_tl run_base_tl
	printf 'tl summary / %s:    %8.3f     (runs: %s / %s)\n' "base tl" \
		"$(calc "$tl_med / $base_med")" "${tl_times[*]}" "${base_times[*]}"
	side_by_side "$RUNS" run_tl_json run_base_json
	printf 'tl summary --json / base tl:     %8.3f     (runs: %s / %s)\n' \
		"$(calc "$tl_med / $base_med")" "${tl_times[*]}" "${base_times[*]}"
fi
