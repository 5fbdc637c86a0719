#!/bin/bash
# `make bench`, one clock for the cluster: figures, not assertions. BENCH_RANKS ranks x
# BENCH_TASKS device tasks on two hosts, the second's clock 3.7 ms ahead and drifting 30 ppm
# (generated once into bench-out/). `tl summary` cold (--no-cache) and warm (the model cache),
# RUNS rounds, medians; TL_STATS gives load_clock's own time (grouping the hosts, the estimate
# from the collectives, moving every rank onto the reference clock), wall and CPU, set against
# the whole run. Bar: under 5% of a cold load. A warm load reads the estimate the cache kept
# (clock_kept=1) and moves each mapped rank in its private mapping. With BENCH_BASE=REV or
# BENCH_BASE_TL=PATH the warm load of that build runs in the same rounds, beside ours.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/clock-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"
bench_base

generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks on 2 hosts" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --hosts 2 \
	--host-clock 1 3700000 30
CACHE="$OUT/clock-cache"
rm -rf "$CACHE" "$CACHE.base"

stat_of() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
cold() { TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache >/dev/null 2>"$OUT/clock-cold.txt"; }
warm() {
	TL_STATS=1 "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE" >/dev/null 2>"$OUT/clock-warm.txt"
}
# the baseline's warm load, its own cache directory (another build's files are not read)
base_warm() {
	TL_STATS=1 "$BASE_TL" summary "$PROFILE" --cache-dir "$CACHE.base" >/dev/null 2>"$OUT/clock-base.txt"
}
raw() { "$TL_BIN" summary "$PROFILE" --no-cache --clock raw >/dev/null 2>&1; }
warm # writes the cache
[ -z "$BASE_TL" ] || base_warm
cold_w=() cold_c=() cold_cc=() warm_w=() warm_c=() warm_cc=() kept=() base_w=() base_c=()
for _i in $(seq "$RUNS"); do
	t0=$(now); cold; t1=$(now)
	cold_w+=("$(calc "$t1 - $t0")")
	cold_c+=("$(calc "$(stat_of clock_ns "$OUT/clock-cold.txt") / 1e9")")
	cold_cc+=("$(calc "$(stat_of clock_cpu_ns "$OUT/clock-cold.txt") / 1e9")")
	t0=$(now); warm; t1=$(now)
	warm_w+=("$(calc "$t1 - $t0")")
	warm_c+=("$(calc "$(stat_of clock_ns "$OUT/clock-warm.txt") / 1e9")")
	warm_cc+=("$(calc "$(stat_of clock_cpu_ns "$OUT/clock-warm.txt") / 1e9")")
	kept+=("$(stat_of clock_kept "$OUT/clock-warm.txt")")
	if [ -n "$BASE_TL" ]; then
		t0=$(now); base_warm; t1=$(now)
		base_w+=("$(calc "$t1 - $t0")")
		base_c+=("$(calc "$(stat_of clock_ns "$OUT/clock-base.txt") / 1e9")")
	fi
done
side_by_side "$RUNS" cold raw
med() { printf '%s\n' "$@" | median; }
cw=$(med "${cold_w[@]}") cc=$(med "${cold_c[@]}") ccc=$(med "${cold_cc[@]}")
ww=$(med "${warm_w[@]}") wc=$(med "${warm_c[@]}") wcc=$(med "${warm_cc[@]}")
echo "== one clock: tl summary on $RANKS ranks x $TASKS tasks, 2 hosts ($(nproc) cores, medians of $RUNS)"
printf 'cold load (--no-cache):          %8.3f s wall, of it the clocks %8.4f s = %5.2f%% (bar: < 5%%; CPU %.4f s)\n' \
	"$cw" "$cc" "$(calc "100 * $cc / $cw")" "$ccc"
printf 'cold, --clock raw (no clocks):   %8.3f s wall (the aligned run beside it: %8.3f s)\n' \
	"$base_med" "$tl_med"
printf 'warm load (the model cache):     %8.3f s wall, of it the clocks %8.4f s = %5.2f%% (CPU %.4f s; estimate kept: %s of %s runs)\n' \
	"$ww" "$wc" "$(calc "100 * $wc / $ww")" "$wcc" "$(printf '%s\n' "${kept[@]}" | grep -c '^1$')" "$RUNS"
if [ -n "$BASE_TL" ]; then
	bw=$(med "${base_w[@]}") bc=$(med "${base_c[@]}")
	printf 'warm load, baseline %s: %8.3f s wall, of it the clocks %8.4f s (same rounds)\n' \
		"$BASE_TL" "$bw" "$bc"
	printf 'warm load before -> after:       %8.3f -> %.3f s wall, the clocks %.4f -> %.4f s\n' \
		"$bw" "$ww" "$bc" "$wc"
	# CPU time (user + system), which holds up on a machine others share: each build's warm
	# load with and without the clocks, in the same rounds; the difference is the clocks' cost
	warm_raw() { "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE" --clock raw >/dev/null 2>&1; }
	base_raw() { "$BASE_TL" summary "$PROFILE" --cache-dir "$CACHE.base" --clock raw >/dev/null 2>&1; }
	warm_on() { TL_CACHE_RESULTS=0 "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE" >/dev/null 2>&1; }
	base_on() { TL_CACHE_RESULTS=0 "$BASE_TL" summary "$PROFILE" --cache-dir "$CACHE.base" >/dev/null 2>&1; }
	export TL_CACHE_RESULTS=0
	rounds "$RUNS" warm_on warm_raw base_on base_raw
	unset TL_CACHE_RESULTS
	printf 'warm CPU, baseline: %6.3f s, --clock raw %6.3f s: the clocks %6.3f s\n' \
		"${CPU[base_on]}" "${CPU[base_raw]}" "$(calc "${CPU[base_on]} - ${CPU[base_raw]}")"
	printf 'warm CPU, this one: %6.3f s, --clock raw %6.3f s: the clocks %6.3f s\n' \
		"${CPU[warm_on]}" "${CPU[warm_raw]}" "$(calc "${CPU[warm_on]} - ${CPU[warm_raw]}")"
	printf 'warm wall, baseline -> this one: %6.3f -> %6.3f s (--clock raw: %6.3f -> %6.3f s)\n' \
		"${WALL[base_on]}" "${WALL[warm_on]}" "${WALL[base_raw]}" "${WALL[warm_raw]}"
fi
"$TL_BIN" info "$PROFILE" 2>/dev/null | sed -n '/^host /,$p' | sed 's/^/clock: /'
