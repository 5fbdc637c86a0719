#!/bin/bash
# `make bench`, the findings engine: figures, not assertions. On bench.sh's profile (BENCH_RANKS
# ranks x BENCH_TASKS device tasks, 3 steps, rank 3 slow), the engine's own wall time inside a
# cold `tl summary` (no model cache, no stored result: the whole read and analysis; TL_STATS'
# findings_ns, the time tlq_findings took) and its share of that summary; bar: <= 10%. With
# BENCH_BASE / BENCH_BASE_TL (lib.sh) the baseline's cold summary in the same rounds (a build
# before the findings prints no findings_ns: its summary time alone). RUNS rounds (this build
# and the baseline alternately), medians of wall and CPU time.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
. "$(dirname "$0")/lib.sh"
bench_scratch
A="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
bench_base

# a cold summary by this build and by the baseline, alternately (lib.sh's rounds: wall and CPU
# medians); this build's TL_STATS lines collect the engine's time
rm -f "$RUN/findings.err"
tl_cold() { TL_STATS=1 "$TL_BIN" summary "$A" --no-cache 2>>"$RUN/findings.err"; }
base_cold() { "$BASE_TL" summary "$A" --no-cache; }
fns=(tl_cold)
[ -z "$BASE_TL" ] || fns+=(base_cold)
rounds "$RUNS" "${fns[@]}"
e=$(sed -n 's/.*findings_ns=\([0-9]*\).*/\1/p' "$RUN/findings.err" | median)
e=$(calc "$e / 1e9")
ec=$(sed -n 's/.*findings_cpu_ns=\([0-9]*\).*/\1/p' "$RUN/findings.err" | median)
ec=$(calc "$ec / 1e9")
s=${WALL[tl_cold]}
echo "== the findings engine in a cold tl summary, $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
printf '  cold tl summary:        %8.2f s wall %8.2f s cpu\n' "$s" "${CPU[tl_cold]}"
printf '  findings engine:        %8.3f s wall, %.1f%% of the summary'"'"'s wall (bar 10%%)\n' "$e" \
	"$(calc "100 * $e / $s")"
printf '                          %8.3f s cpu,  %.1f%% of the summary'"'"'s cpu\n' "$ec" \
	"$(calc "100 * $ec / ${CPU[tl_cold]}")"
if [ -n "$BASE_TL" ]; then
	echo "-- the baseline, $BASE_TL, in the same rounds"
	printf '  cold tl summary:        %8.2f s wall %8.2f s cpu\n' "${WALL[base_cold]}" "${CPU[base_cold]}"
fi
"$TL_BIN" triage "$A" --no-cache 2>/dev/null | sed -n 's/^1\. /top finding: /p'
