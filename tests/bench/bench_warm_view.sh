#!/bin/bash
# `make bench-warm`: the viewer's first frame with the model cache present (warm), on RANKS
# ranks x TASKS tasks and on RANKS x 2*TASKS, to show how it scales with the slices (the bar:
# warm <= 1 s whatever the size; ideally flat). Per build, the cache is written once by `tl
# index` into a directory of its own (a build reads only its own files), then the viewer opens
# the profile RUNS times (script mode, 200x50, :quit): first_frame_ms (wall) and
# first_frame_cpu_ms (the process's CPU until then, every thread; a build that does not write
# it shows 0). The two builds run alternately, so that both see the same page cache and load.
#
# Side by side with a baseline: BENCH_BASE_TL=PATH names another build of tl (see
# bench_cache.sh). Figures, not assertions; medians of RUNS runs.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-16}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-7}
BASE=${BENCH_BASE_TL:-}
case $OUT in /*) abs_out=$OUT ;; *) abs_out=$PWD/$OUT ;; esac
export XDG_CONFIG_HOME=/nonexistent TERM=xterm-256color LC_ALL=C.UTF-8
export XDG_CACHE_HOME="$abs_out/xdg-warm" TL_CACHE_MAX=1T # its stamps; no eviction between
echo ":quit" >"$OUT/warm-quit-keys.txt"

view_once() { # view_once BIN CACHE PROFILE: prints "wall_ms cpu_ms"
	"$1" view "$3" --script "$OUT/warm-quit-keys.txt" --size 200x50 \
		--stats "$OUT/warm-view-stats.txt" --cache-dir "$2" >/dev/null 2>&1
	awk '$1 == "first_frame_ms" { w = $2 } $1 == "first_frame_cpu_ms" { c = $2 }
		END { print w, (c == "" ? 0 : c) }' "$OUT/warm-view-stats.txt"
}

printf '== the viewer'"'"'s warm first frame (%s cores, medians of %s, 200x50)\n' "$(nproc)" "$RUNS"
[ -n "$BASE" ] && printf '%-34s %12s %12s   %12s %12s\n' "" "tl wall ms" "tl CPU ms" \
	"base wall ms" "base CPU ms"
for tasks in "$TASKS" $((2 * TASKS)); do
	profile="$OUT/profile-${RANKS}x${tasks}"
	generate_once "$profile" "$RANKS ranks x $tasks device tasks" \
		"$TLGEN" bench "$profile" --ranks "$RANKS" --tasks "$tasks" --steps 3 --slow 3
	rm -rf "$OUT/cache-warm-tl" "$OUT/cache-warm-base"
	"$TL_BIN" index "$profile" --cache-dir "$OUT/cache-warm-tl" >/dev/null 2>&1
	[ -n "$BASE" ] && "$BASE" index "$profile" --cache-dir "$OUT/cache-warm-base" >/dev/null 2>&1
	: >"$OUT/warm-tl.txt"
	: >"$OUT/warm-base.txt"
	for i in $(seq "$RUNS"); do
		view_once "$TL_BIN" "$OUT/cache-warm-tl" "$profile" >>"$OUT/warm-tl.txt"
		[ -n "$BASE" ] && view_once "$BASE" "$OUT/cache-warm-base" "$profile" >>"$OUT/warm-base.txt"
	done
	tw=$(awk '{ print $1 }' "$OUT/warm-tl.txt" | median)
	tc=$(awk '{ print $2 }' "$OUT/warm-tl.txt" | median)
	eval "tw_$tasks=$tw tc_$tasks=$tc"
	label="$RANKS ranks x $tasks tasks"
	if [ -n "$BASE" ]; then
		bw=$(awk '{ print $1 }' "$OUT/warm-base.txt" | median)
		bc=$(awk '{ print $2 }' "$OUT/warm-base.txt" | median)
		eval "bw_$tasks=$bw bc_$tasks=$bc"
		printf '%-34s %12.1f %12.1f   %12.1f %12.1f\n' "$label" "$tw" "$tc" "$bw" "$bc"
	else
		printf '%-34s %10.1f ms wall %10.1f ms CPU\n' "$label" "$tw" "$tc"
	fi
done
t2=$((2 * TASKS))
ratio() { calc "$(eval echo "\$$1_$t2") / $(eval echo "\$$1_$TASKS")"; }
if [ -n "$BASE" ]; then
	bcr=-
	[ "$(calc "($(eval echo "\$bc_$TASKS") > 0)")" = 1 ] && bcr=$(printf '%.2f' "$(ratio bc)")
	printf '%-34s %12.2f %12.2f   %12.2f %12s\n' "  2x tasks / 1x (flat: 1.00)" \
		"$(ratio tw)" "$(ratio tc)" "$(ratio bw)" "$bcr"
else
	printf '%-34s %10.2f wall %10.2f CPU\n' "  2x tasks / 1x (flat: 1.00)" "$(ratio tw)" \
		"$(ratio tc)"
fi
rm -rf "$OUT/cache-warm-tl" "$OUT/cache-warm-base"
