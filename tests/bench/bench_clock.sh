#!/bin/bash
# `make bench`, one clock for the cluster: figures, not assertions. BENCH_RANKS ranks x
# BENCH_TASKS device tasks on two hosts, the second's clock 3.7 ms ahead and drifting 30 ppm
# (generated once into bench-out/). `tl summary` cold (--no-cache) and warm (the model cache),
# RUNS rounds, medians; TL_STATS gives load_clock's own time (grouping the hosts, the estimate
# from the collectives, moving every rank onto the reference clock), set against the whole run.
# Bar: under 5% of a cold load. A warm load moves the mapped ranks' lanes into memory of their
# own (the cache keeps raw times), which is most of its part there.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/clock-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"

generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks on 2 hosts" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --hosts 2 \
	--host-clock 1 3700000 30
CACHE="$OUT/clock-cache"
rm -rf "$CACHE"

stat_of() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
cold() { TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache >/dev/null 2>"$OUT/clock-cold.txt"; }
warm() {
	TL_STATS=1 "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE" >/dev/null 2>"$OUT/clock-warm.txt"
}
raw() { "$TL_BIN" summary "$PROFILE" --no-cache --clock raw >/dev/null 2>&1; }
warm # writes the cache
cold_w=() cold_c=() warm_w=() warm_c=()
for _i in $(seq "$RUNS"); do
	t0=$(now); cold; t1=$(now)
	cold_w+=("$(calc "$t1 - $t0")")
	cold_c+=("$(calc "$(stat_of clock_ns "$OUT/clock-cold.txt") / 1e9")")
	t0=$(now); warm; t1=$(now)
	warm_w+=("$(calc "$t1 - $t0")")
	warm_c+=("$(calc "$(stat_of clock_ns "$OUT/clock-warm.txt") / 1e9")")
done
side_by_side "$RUNS" cold raw
cw=$(printf '%s\n' "${cold_w[@]}" | median)
cc=$(printf '%s\n' "${cold_c[@]}" | median)
ww=$(printf '%s\n' "${warm_w[@]}" | median)
wc=$(printf '%s\n' "${warm_c[@]}" | median)
echo "== one clock: tl summary on $RANKS ranks x $TASKS tasks, 2 hosts ($(nproc) cores, medians of $RUNS)"
printf 'cold load (--no-cache):          %8.3f s wall, of it the clocks %8.4f s = %5.2f%% (bar: < 5%%)\n' \
	"$cw" "$cc" "$(calc "100 * $cc / $cw")"
printf 'cold, --clock raw (no clocks):   %8.3f s wall (the aligned run beside it: %8.3f s)\n' \
	"$base_med" "$tl_med"
printf 'warm load (the model cache):     %8.3f s wall, of it the clocks %8.4f s = %5.2f%%\n' \
	"$ww" "$wc" "$(calc "100 * $wc / $ww")"
"$TL_BIN" info "$PROFILE" 2>/dev/null | sed -n '/^host /,$p' | sed 's/^/clock: /'
