#!/bin/bash
# `make bench`, the model cache: on the 8 ranks x 1,000,000 tasks profile (shared with bench.sh,
# kept in bench-out/), `tl summary` and the viewer's first frame without the cache (--no-cache),
# writing it (first open) and reading it (warm), the viewer's peak anonymous and total resident
# memory per slice without the cache (its ranks spilled to unnamed files, and with TL_SPILL=0
# kept in memory), writing it and warm, the cache's size on disk per slice,
# and `tl index` throughput with one process and with two (half the ranks each) into one
# directory. "Cache present" is a stored result (tl summary's output kept in the cache);
# "mapped ranks" bypasses it (TL_CACHE_RESULTS=0): every rank's model mapped on its "verified
# once" stamp (tl wrote the files) and analysed; "checked whole" opens the same files with no
# stamp directory, checking each file whole. Wall time and CPU time (user + system) both: on a
# shared host the wall time also
# measures the other processes.
#
# Side by side with a baseline: BENCH_BASE_TL=PATH names another build of tl (for example main:
# `git worktree add ../tl-main main && cd ../tl-main && autoreconf -fi && ./configure &&
# make tl`), measured the same way into a cache directory of its own.
# Figures, not assertions; medians of RUNS runs.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
BASE=${BENCH_BASE_TL:-}
PROFILE="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
export XDG_CONFIG_HOME=/nonexistent TERM=xterm-256color LC_ALL=C.UTF-8
# "verified once" stamps go to a directory of the bench's own; NOSTAMP is one where they cannot
# be made, so that every open checks each cache file whole (as before stamps)
case $OUT in /*) abs_out=$OUT ;; *) abs_out=$PWD/$OUT ;; esac
export XDG_CACHE_HOME="$abs_out/xdg"
NOSTAMP="$abs_out/xdg-nostamp"
mkdir -p "$NOSTAMP/tl" && : >"$NOSTAMP/tl/verified"

stats=$(TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache 2>&1 >/dev/null | grep '^stats:')
slices=$(echo "$stats" | sed 's/.*slices=\([0-9]*\).*/\1/')
rows=$(echo "$stats" | sed 's/.*rows=\([0-9]*\).*/\1/')

timed() { # timed SHELL-COMMAND: "wall cpu" seconds (CPU: user + system of it and its children)
	local t0 t1 c
	t0=$(now)
	c=$(/usr/bin/time -f 'cpu %U %S' sh -c "$1 >/dev/null 2>&1" 2>&1 | grep '^cpu' | tail -1)
	t1=$(now)
	echo "$(calc "$t1 - $t0") $(echo "$c" | awk '{ print $2 + $3 }')"
}
med() { # med SHELL-COMMAND: sets mw, mc: median wall and CPU seconds of RUNS runs
	local i out
	out=$(for i in $(seq "$RUNS"); do timed "$1"; done)
	mw=$(echo "$out" | awk '{ print $1 }' | median)
	mc=$(echo "$out" | awk '{ print $2 }' | median)
}

# the viewer: time to its first frame (script mode: after the whole load; with the test hook
# TL_TEST_LOAD_DELAY_MS=0 progressive), and its peak RssAnon / VmHWM sampled every 20 ms
echo ":quit" >"$OUT/quit-keys.txt"
view_once() { # view_once BIN CACHE [--no-cache]: sets ff, ffc (ms: wall, CPU), ld (ms: every rank in), anon_kb, hwm_kb
	local pid s a bin=$1 cache=$2
	shift 2
	"$bin" view "$PROFILE" --script "$OUT/quit-keys.txt" --size 200x50 \
		--stats "$OUT/cache-view-stats.txt" --cache-dir "$cache" "$@" >/dev/null 2>&1 &
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
	# the progressive load's last rank (script mode waits for every rank: its first frame)
	ld=$(awk '$1 == "loaded_ms" { l = $2 } END { print l }' "$OUT/cache-view-stats.txt")
	[ -n "$ld" ] || ld=$ff
	# the process's CPU time until then (0: a build that does not write it)
	ffc=$(awk '$1 == "first_frame_cpu_ms" { print $2 }' "$OUT/cache-view-stats.txt")
	ffc=${ffc:-0}
}

# measure BIN PREFIX: every figure of one build, into variables PREFIX_*
measure() {
	local bin=$1 p=$2 cache="$OUT/cache-bench-$2"
	med "'$bin' summary '$PROFILE' --no-cache"
	eval "${p}_s_cold=$mw ${p}_c_cold=$mc"
	med "rm -rf '$cache' && '$bin' summary '$PROFILE' --cache-dir '$cache'"
	eval "${p}_s_write=$mw ${p}_c_write=$mc"
	med "'$bin' summary '$PROFILE' --cache-dir '$cache'"
	eval "${p}_s_warm=$mw ${p}_c_warm=$mc"
	# the same with the stored result bypassed: the ranks' models mapped and analysed
	med "TL_CACHE_RESULTS=0 '$bin' summary '$PROFILE' --cache-dir '$cache'"
	eval "${p}_s_mapped=$mw ${p}_c_mapped=$mc"
	med "TL_CACHE_RESULTS=0 XDG_CACHE_HOME='$NOSTAMP' '$bin' summary '$PROFILE' --cache-dir '$cache'"
	eval "${p}_s_whole=$mw ${p}_c_whole=$mc"
	eval "${p}_bytes=$(cat "$cache"/*.tlc | wc -c)"
	# without the cache the viewer spills its ranks to unnamed files (TL_SPILL=0: it keeps
	# them in memory, as before; a build without spilling ignores it)
	view_once "$bin" "$cache" --no-cache
	eval "${p}_v_none=$ff ${p}_none_anon=$anon_kb ${p}_none_hwm=$hwm_kb"
	TL_SPILL=0 view_once "$bin" "$cache" --no-cache
	eval "${p}_v_mem=$ff ${p}_mem_anon=$anon_kb ${p}_mem_hwm=$hwm_kb"
	TL_TEST_LOAD_DELAY_MS=0 view_once "$bin" "$cache" --no-cache
	eval "${p}_v_pnone=$ff ${p}_v_pnone_ld=$ld"
	TL_SPILL=0 TL_TEST_LOAD_DELAY_MS=0 view_once "$bin" "$cache" --no-cache
	eval "${p}_v_pmem=$ff ${p}_v_pmem_ld=$ld"
	rm -rf "$cache"
	view_once "$bin" "$cache"
	eval "${p}_v_cold=$ff ${p}_cold_anon=$anon_kb ${p}_cold_hwm=$hwm_kb"
	vw=$(for i in $(seq "$RUNS"); do
		view_once "$bin" "$cache"
		echo "$ff $anon_kb $hwm_kb $ffc"
	done)
	eval "${p}_v_warm=$(echo "$vw" | awk '{ print $1 }' | median)"
	eval "${p}_v_warm_cpu=$(echo "$vw" | awk '{ print $4 }' | median)"
	eval "${p}_warm_anon=$(echo "$vw" | awk '{ print $2 }' | median)"
	eval "${p}_warm_hwm=$(echo "$vw" | awk '{ print $3 }' | median)"
	vw=$(for i in $(seq "$RUNS"); do
		XDG_CACHE_HOME="$NOSTAMP" view_once "$bin" "$cache"
		echo "$ff"
	done)
	eval "${p}_v_whole=$(echo "$vw" | median)"
	rm -rf "$cache"
}
measure "$TL_BIN" tl
[ -n "$BASE" ] && measure "$BASE" base

# tl index: one process for all ranks, then two for half the ranks each, into a fresh directory
CACHE="$OUT/cache-bench"
half=$((RANKS / 2))
med "rm -rf '$CACHE' && '$TL_BIN' index '$PROFILE' --cache-dir '$CACHE'"
i_one=$mw
med "rm -rf '$CACHE'; '$TL_BIN' index '$PROFILE' --rank 0-$((half - 1)) --cache-dir '$CACHE' & '$TL_BIN' index '$PROFILE' --rank $half-$((RANKS - 1)) --cache-dir '$CACHE'; wait"
i_two=$mw
rm -rf "$CACHE"

per() { calc "$1 * 1024 / $slices"; } # KB -> bytes per slice
row() { # row LABEL FORMAT VAR: tl's figure, and the baseline's when there is one
	local l=$1 f=$2 v=$3 a b
	a=$(eval echo "\$tl_$v")
	if [ -n "$BASE" ]; then
		b=$(eval echo "\$base_$v")
		printf "%-44s $f   $f\n" "$l" "$a" "$b"
	else
		printf "%-44s $f\n" "$l" "$a"
	fi
}
for p in tl base; do
	[ "$p" = base ] && [ -z "$BASE" ] && continue
	for m in none mem cold warm; do
		eval "${p}_${m}_anon_b=$(per "$(eval echo "\$${p}_${m}_anon")")"
		eval "${p}_${m}_hwm_mb=$(calc "$(eval echo "\$${p}_${m}_hwm") / 1024")"
	done
	eval "${p}_pct_s=$(calc "100 * $(eval echo "\$${p}_s_warm") / $(eval echo "\$${p}_s_cold")")"
	eval "${p}_pct_c=$(calc "100 * $(eval echo "\$${p}_c_warm") / $(eval echo "\$${p}_c_cold")")"
	eval "${p}_pct_ms=$(calc "100 * $(eval echo "\$${p}_s_mapped") / $(eval echo "\$${p}_s_cold")")"
	eval "${p}_pct_mc=$(calc "100 * $(eval echo "\$${p}_c_mapped") / $(eval echo "\$${p}_c_cold")")"
	eval "${p}_disk=$(calc "$(eval echo "\$${p}_bytes") / $slices")"
done
echo "== the model cache on $RANKS ranks x $TASKS tasks ($slices slices, $rows rows; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), medians of $RUNS)"
[ -n "$BASE" ] && printf "%-44s %10s   %10s\n" "" "tl" "baseline"
row "tl summary, no cache (wall s)" "%10.3f" s_cold
row "tl summary, no cache (CPU s)" "%10.3f" c_cold
row "tl summary, writing the cache (wall s)" "%10.3f" s_write
row "tl summary, cache present (wall s)" "%10.3f" s_warm
row "tl summary, cache present (CPU s)" "%10.3f" c_warm
row "tl summary, cache checked whole (wall s)" "%10.3f" s_whole
row "tl summary, cache checked whole (CPU s)" "%10.3f" c_whole
row "  warm / cold, wall (bar <= 5%)" "%9.1f%%" pct_s
row "  warm / cold, CPU" "%9.1f%%" pct_c
row "tl summary, mapped ranks (wall s)" "%10.3f" s_mapped
row "tl summary, mapped ranks (CPU s)" "%10.3f" c_mapped
row "  mapped / cold, wall" "%9.1f%%" pct_ms
row "  mapped / cold, CPU" "%9.1f%%" pct_mc
row "viewer whole load, no cache (ms)" "%10.1f" v_none
row "viewer whole load, no cache, TL_SPILL=0 (ms)" "%10.1f" v_mem
row "viewer first frame, no cache, progressive (ms)" "%10.1f" v_pnone
row "  every rank in (ms)" "%10.1f" v_pnone_ld
row "  the same, TL_SPILL=0: first frame (ms)" "%10.1f" v_pmem
row "  the same, TL_SPILL=0: every rank in (ms)" "%10.1f" v_pmem_ld
row "viewer first frame, writing the cache (ms)" "%10.1f" v_cold
row "viewer first frame, cache present (ms)" "%10.1f" v_warm
row "  its CPU time (ms; 0: not reported)" "%10.1f" v_warm_cpu
row "viewer first frame, checked whole (ms)" "%10.1f" v_whole
row "viewer peak RssAnon, no cache (B/slice)" "%10.1f" none_anon_b
row "viewer peak RssAnon, no cache, TL_SPILL=0" "%10.1f" mem_anon_b
row "viewer peak RssAnon, writing (B/slice)" "%10.1f" cold_anon_b
row "viewer peak RssAnon, warm (B/slice; <= 32)" "%10.1f" warm_anon_b
row "viewer peak RSS (VmHWM), no cache (MB)" "%10.1f" none_hwm_mb
row "viewer peak RSS (VmHWM), TL_SPILL=0 (MB)" "%10.1f" mem_hwm_mb
row "viewer peak RSS (VmHWM), writing (MB)" "%10.1f" cold_hwm_mb
row "viewer peak RSS (VmHWM), warm (MB)" "%10.1f" warm_hwm_mb
row "cache on disk (B/slice)" "%10.1f" disk
printf 'tl index, 1 process:              %8.3f s, %.2f M rows/s\n' "$i_one" "$(calc "$rows / $i_one / 1e6")"
printf 'tl index, 2 processes:            %8.3f s, %.2f M rows/s\n' "$i_two" "$(calc "$rows / $i_two / 1e6")"
