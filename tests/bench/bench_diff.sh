#!/bin/bash
# `make bench`, tl diff: figures, not assertions. `tl diff A B` on the pair of bench_pair
# (lib.sh: BENCH_RANKS ranks x BENCH_TASKS device tasks, B with ref_logprob slowed on two ranks,
# a collective late and a later clock) side by side with one `tl summary A`; bar: <= 2.2x. Both
# use the model cache, as a user's commands do (the runs after the first read it); the operator
# statistics are read from each rank's TASK table on every run, which the text summary does not
# do. RUNS rounds, medians; with BENCH_BASE / BENCH_BASE_TL (lib.sh) the baseline in the same
# rounds.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-5}
. "$(dirname "$0")/lib.sh"
bench_pair
bench_base

tl_diff() { "$TL_BIN" diff "$A" "$B"; }
tl_summary() { "$TL_BIN" summary "$A"; }
base_diff() { "$BASE_TL" diff "$A" "$B"; }
base_summary() { "$BASE_TL" summary "$A"; }
fns=(tl_diff tl_summary)
[ -z "$BASE_TL" ] || fns+=(base_diff base_summary)
rounds "$RUNS" "${fns[@]}"

echo "== tl diff on two profiles of $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
for T in tl base; do
	[ $T = tl ] || [ -n "$BASE_TL" ] || continue
	[ $T = tl ] || echo "-- the baseline, $BASE_TL, in the same rounds"
	printf 'tl diff A B:           %8.3f s wall %8.3f s cpu\n' "${WALL[${T}_diff]}" "${CPU[${T}_diff]}"
	printf 'tl summary A:          %8.3f s wall %8.3f s cpu\n' "${WALL[${T}_summary]}" "${CPU[${T}_summary]}"
	printf 'ratio diff / summary:  %8.3f wall   %8.3f cpu     (bar: <= 2.2)\n' \
		"$(calc "${WALL[${T}_diff]} / ${WALL[${T}_summary]}")" "$(calc "${CPU[${T}_diff]} / ${CPU[${T}_summary]}")"
done
"$TL_BIN" diff "$A" "$B" 2>/dev/null | head -1 | sed 's/^/verdict: /'
