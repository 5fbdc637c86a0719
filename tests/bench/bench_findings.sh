#!/bin/bash
# `make bench`, the findings engine: figures, not assertions. On bench.sh's profile (BENCH_RANKS
# ranks x BENCH_TASKS device tasks, 3 steps, rank 3 slow), the engine's own wall time inside a
# cold `tl summary` (no model cache, no stored result: the whole read and analysis; TL_STATS'
# findings_ns, the time tlq_findings took) and its share of that summary; bar: <= 10%. With
# BENCH_BASE / BENCH_BASE_TL (lib.sh) the baseline's cold summary in the same rounds (a build
# before the findings prints no findings_ns: its summary time alone). RUNS rounds, medians.
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
bench_base

# cold BIN: one cold summary; prints "wall_s findings_s" (findings_s empty when not printed)
cold() {
	local t0 t1
	t0=$(now)
	TL_STATS=1 "$1" summary "$A" --no-cache >/dev/null 2>"$OUT/findings.err"
	t1=$(now)
	echo "$(calc "$t1 - $t0") $(sed -n 's/.*findings_ns=\([0-9]*\).*/\1/p' "$OUT/findings.err" | tail -1)"
}
sum=() eng=() bsum=() beng=()
for _i in $(seq "$RUNS"); do
	read -r s e <<<"$(cold "$TL_BIN")"
	sum+=("$s")
	eng+=("$(calc "${e:-0} / 1e9")")
	if [ -n "$BASE_TL" ]; then
		read -r s e <<<"$(cold "$BASE_TL")"
		bsum+=("$s")
		[ -z "$e" ] || beng+=("$(calc "$e / 1e9")")
	fi
done
s=$(printf '%s\n' "${sum[@]}" | median)
e=$(printf '%s\n' "${eng[@]}" | median)
echo "== the findings engine in a cold tl summary, $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
printf '  cold tl summary:        %8.2f s\n' "$s"
printf '  findings engine:        %8.3f s, %.1f%% of the summary (bar 10%%)\n' "$e" "$(calc "100 * $e / $s")"
if [ -n "$BASE_TL" ]; then
	bs=$(printf '%s\n' "${bsum[@]}" | median)
	echo "-- the baseline, $BASE_TL, in the same rounds"
	printf '  cold tl summary:        %8.2f s (this build %+.1f%%)\n' "$bs" "$(calc "100 * ($s - $bs) / $bs")"
	if [ ${#beng[@]} -gt 0 ]; then
		be=$(printf '%s\n' "${beng[@]}" | median)
		printf '  findings engine:        %8.3f s, %.1f%% of its summary\n' "$be" "$(calc "100 * $be / $bs")"
	else
		echo "  findings engine:        (the baseline prints no findings_ns)"
	fi
fi
"$TL_BIN" triage "$A" 2>/dev/null | sed -n 's/^1\. /top finding: /p'
