#!/bin/bash
# `make bench`, tl critical: figures, not assertions. On bench.sh's profile (BENCH_RANKS
# ranks x BENCH_TASKS device tasks, 3 steps, rank 3 slow; bench_pair's A), the critical path's own cost (the
# analysis of every step, TL_STATS' critical_ms and its CPU time, the load left out) beside a
# cold `tl summary` (no model cache, no stored result: the whole read and analysis); bar: the
# path costs <= 25% of that summary. RUNS rounds, medians.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
. "$(dirname "$0")/lib.sh"
A="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3

sum=() cp=() cpu=() rss=()
for _i in $(seq "$RUNS"); do
	t0=$(now)
	TL_STATS=1 "$TL_BIN" summary "$A" --no-cache >/dev/null 2>&1
	t1=$(now)
	sum+=("$(calc "$t1 - $t0")")
	TL_STATS=1 /usr/bin/time -f 'rss %M' "$TL_BIN" critical "$A" --no-cache \
		>/dev/null 2>"$OUT/critical.err"
	cp+=("$(sed -n 's/.*critical_ms=\([0-9.]*\).*/\1/p' "$OUT/critical.err")")
	cpu+=("$(sed -n 's/.*critical_cpu_ms=\([0-9.]*\).*/\1/p' "$OUT/critical.err")")
	rss+=("$(sed -n 's/^rss //p' "$OUT/critical.err")")
done
s=$(printf '%s\n' "${sum[@]}" | median)
c=$(printf '%s\n' "${cp[@]}" | median)
u=$(printf '%s\n' "${cpu[@]}" | median)
m=$(printf '%s\n' "${rss[@]}" | median)
echo "== tl critical on $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
printf '  cold tl summary:        %8.2f s\n' "$s"
printf '  critical path analysis: %8.2f s (CPU %.2f s), %.0f%% of the summary (bar 25%%)\n' \
	"$(calc "$c / 1000")" "$(calc "$u / 1000")" "$(calc "100 * $c / 1000 / $s")"
printf '  tl critical peak RSS:   %8.0f MB\n' "$(calc "$m / 1024")"
