#!/bin/bash
# `make bench`, what the summary's JSON sections, the model cache and `tl diff` cost, side by
# side in one run on the 8 ranks x 1,000,000 tasks profile (shared with bench.sh and
# bench_diff.sh, kept in bench-out/): `tl summary` text and --json without the cache (bar: json
# <= 1.2x text), both again with the cache present (bar: <= 5% of no cache and <= 1 s), and
# `tl diff A B` without and with the cache against one `tl summary A` without (bar: <= 2.2x).
# Each figure is the median of RUNS runs; the runs of the two sides of a ratio alternate.
# Figures, not assertions.
set -e
: "${TL_BIN:?}" "${BENCH_GEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
A="$OUT/profile-${RANKS}x${TASKS}"
B="$OUT/diff-b-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$BENCH_GEN" "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
generate_once "$B" "the same, ref_logprob slowed on ranks 1 and 2, clock +5 h" \
	"$BENCH_GEN" "$B" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3 \
	--slow-stage 1 --slow-factor 1500 --slow-ranks 6 --delay-coll 40 --delay-ns 2000000 \
	--t0 $((1736407067000000000 + 5 * 3600 * 1000000000))
CACHE="$OUT/cache-fast"
export XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8

text_cold() { "$TL_BIN" summary "$A" --no-cache >/dev/null 2>&1; }
json_cold() { "$TL_BIN" summary --json "$A" --no-cache >/dev/null 2>&1; }
text_warm() { "$TL_BIN" summary "$A" --cache-dir "$CACHE" >/dev/null 2>&1; }
json_warm() { "$TL_BIN" summary --json "$A" --cache-dir "$CACHE" >/dev/null 2>&1; }
diff_cold() { "$TL_BIN" diff "$A" "$B" --no-cache >/dev/null 2>&1; }
diff_warm() { "$TL_BIN" diff "$A" "$B" --cache-dir "$CACHE" >/dev/null 2>&1; }

side_by_side "$RUNS" json_cold text_cold
j_cold=$tl_med t_cold=$base_med j_runs=${tl_times[*]} t_runs=${base_times[*]}
rm -rf "$CACHE"
t0=$(now)
"$TL_BIN" diff "$A" "$B" --cache-dir "$CACHE" >/dev/null 2>&1 # writes both sides' files
t1=$(now)
write=$(calc "$t1 - $t0")
side_by_side "$RUNS" json_warm text_warm
j_warm=$tl_med t_warm=$base_med
side_by_side "$RUNS" diff_cold diff_warm
d_cold=$tl_med d_warm=$base_med d_runs=${tl_times[*]}

echo "== summary sections, the cache and tl diff on $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS)"
printf 'tl summary, no cache:             %8.3f s   (runs: %s)\n' "$t_cold" "$t_runs"
printf 'tl summary --json, no cache:      %8.3f s   (runs: %s; %.2fx text; bar: <= 1.2x)\n' \
	"$j_cold" "$j_runs" "$(calc "$j_cold / $t_cold")"
printf 'tl summary, cache present:        %8.3f s   (%.1f%% of no cache; bar: <= 1 s and <= 5%%)\n' \
	"$t_warm" "$(calc "100 * $t_warm / $t_cold")"
printf 'tl summary --json, cache present: %8.3f s   (%.1f%% of no cache)\n' \
	"$j_warm" "$(calc "100 * $j_warm / $j_cold")"
printf 'tl diff A B, writing the cache:   %8.3f s\n' "$write"
printf 'tl diff A B, no cache:            %8.3f s   (runs: %s; %.2fx one summary; bar: <= 2.2x)\n' \
	"$d_cold" "$d_runs" "$(calc "$d_cold / $t_cold")"
printf 'tl diff A B, cache present:       %8.3f s   (%.2fx one summary without cache)\n' \
	"$d_warm" "$(calc "$d_warm / $t_cold")"
rm -rf "$CACHE"
