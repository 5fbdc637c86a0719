#!/bin/bash
# `make bench`, the model cache: on the 8 ranks x 1,000,000 tasks profile (shared with bench.sh,
# kept in bench-out/), `tl summary` and the viewer's first frame without the cache (--no-cache),
# writing it (first open) and reading it (warm), the viewer's peak anonymous and total resident
# memory per slice cold and warm, the cache's size on disk per slice, and `tl index`
# throughput with one process and with two (half the ranks each) into one directory.
# Figures, not assertions; medians of RUNS runs.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
CACHE="$OUT/cache-bench"
export XDG_CONFIG_HOME=/nonexistent TERM=xterm-256color LC_ALL=C.UTF-8

stats=$(TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache 2>&1 >/dev/null | grep '^stats:')
slices=$(echo "$stats" | sed 's/.*slices=\([0-9]*\).*/\1/')
rows=$(echo "$stats" | sed 's/.*rows=\([0-9]*\).*/\1/')

timed() { # timed CMD...: seconds of wall time
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	calc "$t1 - $t0"
}
summary_cold() { "$TL_BIN" summary "$PROFILE" --no-cache; }
summary_write() { rm -rf "$CACHE" && "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE"; }
summary_warm() { "$TL_BIN" summary "$PROFILE" --cache-dir "$CACHE"; }
med() { # med FN: median seconds of RUNS runs
	local i
	for i in $(seq "$RUNS"); do timed "$1"; done | median
}
s_cold=$(med summary_cold)
s_write=$(med summary_write)
s_warm=$(med summary_warm)
bytes=$(cat "$CACHE"/*.tlc | wc -c)

# the viewer: time to its first frame, and its peak RssAnon / VmHWM sampled every 20 ms
echo ":quit" >"$OUT/quit-keys.txt"
view_once() { # view_once [--no-cache]: sets ff (ms), anon_kb, hwm_kb
	local pid s a
	"$TL_BIN" view "$PROFILE" --script "$OUT/quit-keys.txt" --size 200x50 \
		--stats "$OUT/cache-view-stats.txt" --cache-dir "$CACHE" "$@" >/dev/null 2>&1 &
	pid=$!
	anon_kb=0
	hwm_kb=0
	while [ -r "/proc/$pid/status" ]; do
		s=$(cat "/proc/$pid/status" 2>/dev/null) || break
		a=$(echo "$s" | awk '$1 == "RssAnon:" { print $2 }')
		[ -n "$a" ] && [ "$a" -gt "$anon_kb" ] && anon_kb=$a
		a=$(echo "$s" | awk '$1 == "VmHWM:" { print $2 }')
		[ -n "$a" ] && [ "$a" -gt "$hwm_kb" ] && hwm_kb=$a
		sleep 0.02
	done
	wait "$pid" || true
	ff=$(awk '$1 == "first_frame_ms" { print $2 }' "$OUT/cache-view-stats.txt")
}
view_once --no-cache
v_cold=$ff v_cold_anon=$anon_kb v_cold_hwm=$hwm_kb
view_once
v_warm=$ff v_warm_anon=$anon_kb v_warm_hwm=$hwm_kb

# tl index: one process for all ranks, then two for half the ranks each, into a fresh directory
half=$((RANKS / 2))
index_one() { rm -rf "$CACHE" && "$TL_BIN" index "$PROFILE" --cache-dir "$CACHE"; }
index_two() {
	rm -rf "$CACHE"
	"$TL_BIN" index "$PROFILE" --rank "0-$((half - 1))" --cache-dir "$CACHE" >/dev/null 2>&1 &
	"$TL_BIN" index "$PROFILE" --rank "$half-$((RANKS - 1))" --cache-dir "$CACHE" >/dev/null 2>&1
	wait
}
i_one=$(med index_one)
i_two=$(med index_two)

echo "== the model cache on $RANKS ranks x $TASKS tasks ($slices slices, $rows rows; $(nproc) cores, medians of $RUNS)"
printf 'tl summary, no cache:             %8.3f s\n' "$s_cold"
printf 'tl summary, writing the cache:    %8.3f s\n' "$s_write"
printf 'tl summary, cache present:        %8.3f s   (%.1f%% of no cache; bar: <= 1 s and <= 5%%)\n' \
	"$s_warm" "$(calc "100 * $s_warm / $s_cold")"
printf 'viewer first frame, no cache:     %8.1f ms\n' "$v_cold"
printf 'viewer first frame, cache:        %8.1f ms  (%.1f%% of no cache)\n' "$v_warm" "$(calc "100 * $v_warm / $v_cold")"
printf 'viewer peak RssAnon per slice:    %8.1f B cold, %.1f B warm  (bar: <= 32)\n' \
	"$(calc "$v_cold_anon * 1024 / $slices")" "$(calc "$v_warm_anon * 1024 / $slices")"
printf 'viewer peak RSS (VmHWM):          %8.1f MB cold, %.1f MB warm\n' \
	"$(calc "$v_cold_hwm / 1024")" "$(calc "$v_warm_hwm / 1024")"
printf 'cache on disk:                    %8.1f MB, %.1f B per slice\n' "$(calc "$bytes / 1048576")" \
	"$(calc "$bytes / $slices")"
printf 'tl index, 1 process:              %8.3f s, %.2f M rows/s\n' "$i_one" "$(calc "$rows / $i_one / 1e6")"
printf 'tl index, 2 processes:            %8.3f s, %.2f M rows/s\n' "$i_two" "$(calc "$rows / $i_two / 1e6")"
rm -rf "$CACHE"
