#!/bin/bash
# `make bench`, tl diff: figures, not assertions. Two profiles of BENCH_RANKS ranks x
# BENCH_TASKS device tasks: A (the one bench.sh times `tl summary` on) and B, the same job with
# ref_logprob's kernels 1.5x as long on ranks 1 and 2, a collective's last arrival 2 ms late and
# the clock 5 hours later. `tl diff A B` (both loaded, each gathered through the summary's
# queries, plus the operator statistics that `tl summary --json` reads) side by side with one
# `tl summary A`; bar: <= 2.2x. Both use the model cache (the runs after the first read it);
# the operator statistics are read from each rank's TASK table on every run, which the text
# summary does not do. Machines are noisy: RUNS runs per side, medians reported.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
A="$OUT/profile-${RANKS}x${TASKS}"
B="$OUT/diff-b-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"

generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
generate_once "$B" "the same, ref_logprob slowed on ranks 1 and 2, clock +5 h" \
	"$TLGEN" bench "$B" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3 \
	--slow-stage 1 --slow-factor 1500 --slow-ranks 6 --delay-coll 40 --delay-ns 2000000 \
	--t0 $((1736407067000000000 + 5 * 3600 * 1000000000))

run_diff() { "$TL_BIN" diff "$A" "$B" >/dev/null 2>&1; }
run_summary() { "$TL_BIN" summary "$A" >/dev/null 2>&1; }
side_by_side "$RUNS" run_diff run_summary

echo "== tl diff on two profiles of $RANKS ranks x $TASKS tasks ($(nproc) cores, $RUNS runs, medians)"
printf 'tl diff A B wall time:           %8.3f s   (runs: %s)\n' "$tl_med" "${tl_times[*]}"
printf 'tl summary A wall time:          %8.3f s   (runs: %s)\n' "$base_med" "${base_times[*]}"
printf 'ratio diff / summary:            %8.3f     (bar: <= 2.2)\n' "$(calc "$tl_med / $base_med")"
"$TL_BIN" diff "$A" "$B" 2>/dev/null | head -1 | sed 's/^/verdict: /'
