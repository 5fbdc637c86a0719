#!/bin/bash
# `make bench`, the viewer: the time to the first frame during a cold load, full and progressive
# (TL_BASE=path/to/tl adds a baseline binary; BENCH_BIG_TASKS=N adds 16 ranks x N tasks); then
# replays 1,000 navigation keys (zoom, pan, search, bubble jumps) on the
# 8 ranks x 1,000,000 tasks profile (shared with bench.sh, kept in bench-out/) at 200x50 in
# script mode, and prints the time to the first frame, the CPU time per frame and the bytes a
# terminal (xterm-256color) would receive per frame; then the frame times zoomed out and zoomed
# in, without the cache and warm (warm without and with the background populate of the mapped
# cache files, TL_PREFAULT=0 and 1, with the viewer thread's minor faults over the keys), beside
# a baseline build's (BENCH_BASE_TL, see bench_cache.sh); BENCH_TUI_ZOOM_ONLY=1 runs only that.
# Figures, not assertions; the bars are p99 <= 16 ms per frame and a median <= 2 KB per
# one-column pan.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
PROFILE="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$PROFILE" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3

# Time to the first frame during a cold load (no model cache), side by side: the full load
# first (script mode's default, what tl did before progressive loading, and what TL_BASE, a
# baseline tl such as main's, does) against the progressive load (TL_TEST_LOAD_DELAY_MS=0: no
# rank held, script mode does not wait for the ranks before its first frame). small_ms: every
# rank's steps, MSTX ranges, stages and comm ops on screen (a frame with no placeholder row
# left; a tl without the first pass has them only with the whole rank: its loaded_ms);
# loaded_ms: the last rank in. Medians of 3 alternating runs.
first_frame() { # PROFILE BIN [ENV...]: prints "first_frame_ms loaded_ms small_ms"
	_p=$1 _bin=$2
	shift 2
	printf ':quit\n' > "$OUT/tui-quit.txt"
	env "$@" TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent \
		"$_bin" view "$_p" --no-cache --script "$OUT/tui-quit.txt" --size 200x50 \
		--stats "$OUT/tui-ff.txt" > /dev/null
	awk '$1 == "first_frame_ms" { f = $2 } $1 == "loaded_ms" { l = $2 }
		$1 == "small_ms" { s = $2 }
		END { l = l ? l : f; printf "%s %s %s\n", f, l, s ? s : l }' "$OUT/tui-ff.txt"
}
first_frames() { # PROFILE LABEL
	_full=() _prog=() _base=() _ploaded=() _psmall=() _bsmall=()
	for _i in 1 2 3; do
		_full+=("$(first_frame "$1" "$TL_BIN" | cut -d' ' -f1)")
		read -r _f _l _s <<< "$(first_frame "$1" "$TL_BIN" TL_TEST_LOAD_DELAY_MS=0)"
		_prog+=("$_f") _ploaded+=("$_l") _psmall+=("$_s")
		if [ -n "$TL_BASE" ]; then
			_base+=("$(first_frame "$1" "$TL_BASE" | cut -d' ' -f1)")
			read -r _f _l _s <<< "$(first_frame "$1" "$TL_BASE" TL_TEST_LOAD_DELAY_MS=0)"
			_bsmall+=("$_s")
		fi
	done
	printf '== tl view, cold load, time to first frame: %s\n' "$2"
	printf 'full load first (as before):   %10.1f ms\n' "$(printf '%s\n' "${_full[@]}" | median)"
	[ -n "$TL_BASE" ] &&
		printf 'baseline %s: %10.1f ms\n' "$TL_BASE" "$(printf '%s\n' "${_base[@]}" | median)"
	printf 'progressive:                   %10.1f ms   (bar: <= 1000 ms; every rank in after %.1f ms)\n' \
		"$(printf '%s\n' "${_prog[@]}" | median)" "$(printf '%s\n' "${_ploaded[@]}" | median)"
	printf 'MSTX/steps of every rank shown: %9.1f ms\n' "$(printf '%s\n' "${_psmall[@]}" | median)"
	[ -n "$TL_BASE" ] &&
		printf '  baseline, progressive:       %10.1f ms\n' "$(printf '%s\n' "${_bsmall[@]}" | median)"
}
# BENCH_TUI_ZOOM_ONLY=1: only the frame times zoomed out and in (the last part)
[ "${BENCH_TUI_ZOOM_ONLY:-}" = 1 ] || first_frames "$PROFILE" "$RANKS ranks x $TASKS tasks"
# 16 ranks of BENCH_BIG_TASKS tasks each (e.g. 8000000: 20 GB of DBs), when asked for
if [ -n "$BENCH_BIG_TASKS" ] && [ "${BENCH_TUI_ZOOM_ONLY:-}" != 1 ]; then
	BIG="$OUT/profile-16x${BENCH_BIG_TASKS}"
	generate_once "$BIG" "16 ranks x $BENCH_BIG_TASKS device tasks" \
		"$TLGEN" bench "$BIG" --ranks 16 --tasks "$BENCH_BIG_TASKS" --steps 4
	first_frames "$BIG" "16 ranks x $BENCH_BIG_TASKS tasks"
fi

# 1,000 keys: a deterministic mix of what a user does while triaging
script="$OUT/tui-keys.txt"
awk 'BEGIN {
	srand(42)
	n = 0
	print "/MatMul"; n++
	while (n < 1000) {
		r = rand()
		if (r < 0.30) { k = int(rand() * 6) + 1; for (i = 0; i < k && n < 1000; i++) { print (rand() < 0.5 ? "<gt>" : "<lt>"); n++ } }
		else if (r < 0.45) { print (rand() < 0.6 ? "+" : "-"); n++ }
		else if (r < 0.55) { print (rand() < 0.5 ? "<Right>" : "<Left>"); n++ }
		else if (r < 0.62) { print (rand() < 0.5 ? "d" : "a"); n++ }
		else if (r < 0.70) { print (rand() < 0.7 ? "n" : "N"); n++ }
		else if (r < 0.76) { print (rand() < 0.5 ? "}" : "{"); n++ }
		else if (r < 0.80) { print "B"; n++ }
		else if (r < 0.90) { print (rand() < 0.5 ? "j" : "k"); n++ }
		else if (r < 0.93) { print "<Tab>"; n++ }
		else if (r < 0.96) { print "."; n++ }
		else if (r < 0.98) { print "b"; n++ }
		else { print "0"; n++ }
	}
	print ":quit"
}' > "$script"
# zoomed out (the whole capture: every column holds thousands of slices) and zoomed in: lane
# moves, pans and jumps, then ten zooms in and the same again; zoomed out, a bubble jump would
# zoom in to the bubble (and leave the rest of that block zoomed in), so there it is a fit-all
# (0), which redraws every lane as a jump does
zscript="$OUT/tui-zoom-keys.txt"
awk 'BEGIN {
	srand(7)
	for (z = 0; z < 2; z++) {
		if (z) for (i = 0; i < 10; i++) print "+"
		for (n = 0; n < 150; n++) {
			r = rand()
			if (r < 0.4) print (rand() < 0.5 ? "<gt>" : "<lt>")
			else if (r < 0.7) print (rand() < 0.5 ? "j" : "k")
			else if (r < 0.85) print (z ? (rand() < 0.5 ? "}" : "{") : "0")
			else print (rand() < 0.5 ? "<Tab>" : ".")
		}
	}
	print ":quit"
}' > "$zscript"

# view BIN SCRIPT STATS [--no-cache]: one scripted run
view() {
	local bin=$1 keys=$2 st=$3
	shift 3
	TERM=xterm-256color LC_ALL=C.UTF-8 NO_COLOR= XDG_CONFIG_HOME=/nonexistent \
		"$bin" view "$PROFILE" --script "$keys" --size 200x50 --stats "$st" "$@" >/dev/null
}
stats="$OUT/tui-stats.txt"
if [ "${BENCH_TUI_ZOOM_ONLY:-}" != 1 ]; then
view "$TL_BIN" "$script" "$stats" --no-cache

awk -v profile="$PROFILE" '
function pct(arr, n, p,   i, j, t, k) {
	for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
	k = int(p * n + 0.999999); if (k < 1) k = 1; if (k > n) k = n
	return arr[k]
}
$1 == "first_frame_ms" { ff = $2 }
$1 == "frame" && $2 > 0 {
	n++; cpu[n] = $3 / 1e6; b[n] = $4
	if ($5 == "pan-left" || $5 == "pan-right") { np++; pb[np] = $4; pc[np] = $3 / 1e6 }
	if ($3 / 1e6 > mx) { mx = $3 / 1e6; mxa = $5 }
}
END {
	for (i = 1; i <= n; i++) { c2[i] = cpu[i]; b2[i] = b[i] }
	printf "== tl view: %d keys on %s at 200x50 (TERM=xterm-256color)\n", n, profile
	printf "time to first frame (load + lanes + draw): %8.1f ms\n", ff
	printf "CPU per frame, median:                     %8.3f ms\n", pct(c2, n, 0.50)
	printf "CPU per frame, p99:                        %8.3f ms   (bar: <= 16 ms; max %.1f ms on %s)\n", pct(cpu, n, 0.99), mx, mxa
	printf "bytes to the terminal per frame, median:   %8d\n", pct(b2, n, 0.50)
	printf "bytes to the terminal per frame, p99:      %8d\n", pct(b, n, 0.99)
	printf "one-column pans: %d, median bytes %d (bar: <= 2048), median CPU %.3f ms\n", np, pct(pb, np, 0.5), pct(pc, np, 0.5)
}' "$stats"

# ---- the counter lanes (U): the same keys with them off and on, side by side -----------------
# A profile with memory records (allocator totals, NPU memory, AI Core frequency: tlgen
# --memory), BENCH_MEM_TASKS tasks per rank; each run replays the keys above, "U" first for the
# lanes on, RUNS times alternately; the medians of the runs' per-frame CPU (median and p99). At
# 200x160 every lane of both runs is on screen: the lanes on draw the same lanes and more.
MTASKS=${BENCH_MEM_TASKS:-200000}
MPROFILE="$OUT/profile-mem-${RANKS}x${MTASKS}"
generate_once "$MPROFILE" "$RANKS ranks x $MTASKS device tasks with memory records" \
	"$TLGEN" bench "$MPROFILE" --ranks "$RANKS" --tasks "$MTASKS" --steps 3 --slow 3 --memory
RUNS=${BENCH_RUNS:-3}
{ echo U; cat "$script"; } > "$OUT/tui-keys-counters.txt"
frame_pcts() { # STATS -> "median p99" of the CPU per frame, ms
	awk '$1 == "frame" && $2 > 0 { print $3 / 1e6 }' "$1" | sort -g |
		awk '{ a[NR] = $1 } END { k = int(0.99 * NR + 0.999999); printf "%.3f %.3f\n", a[int((NR + 1) / 2)], a[k] }'
}
off_med=() off_p99=() on_med=() on_p99=()
for i in $(seq "$RUNS"); do
	for mode in off on; do
		keys=$script
		[ $mode = on ] && keys="$OUT/tui-keys-counters.txt"
		TERM=xterm-256color LC_ALL=C.UTF-8 NO_COLOR= XDG_CONFIG_HOME=/nonexistent \
			"$TL_BIN" view "$MPROFILE" --no-cache --script "$keys" --size 200x160 \
			--stats "$OUT/tui-stats-$mode.txt"
		read -r m p < <(frame_pcts "$OUT/tui-stats-$mode.txt")
		if [ $mode = off ]; then off_med+=("$m") off_p99+=("$p"); else on_med+=("$m") on_p99+=("$p"); fi
	done
done
lanes_on=$(awk '$1 == "frame"' "$OUT/tui-stats-on.txt" | wc -l)
med_of() { printf '%s\n' "$@" | median; }
printf '== counter lanes off vs on: %s keys on %s at 200x160, %s runs each (medians of runs)\n' \
	"$((lanes_on - 1))" "$MPROFILE" "$RUNS"
printf 'CPU per frame, median: off %8.3f ms   on %8.3f ms   ratio %.2f\n' \
	"$(med_of "${off_med[@]}")" "$(med_of "${on_med[@]}")" \
	"$(calc "$(med_of "${on_med[@]}") / $(med_of "${off_med[@]}")")"
printf 'CPU per frame, p99:    off %8.3f ms   on %8.3f ms   ratio %.2f   (bar: <= 16 ms)\n' \
	"$(med_of "${off_p99[@]}")" "$(med_of "${on_p99[@]}")" \
	"$(calc "$(med_of "${on_p99[@]}") / $(med_of "${off_p99[@]}")")"
fi # BENCH_TUI_ZOOM_ONLY

# frame times zoomed out and in, without the cache and with it (warm), side by side with a
# baseline build when BENCH_BASE_TL names one (see bench_cache.sh)
zoom_p99() { # zoom_p99 STATS: "p99-out p99-in" ms (frames 1-150 out, the last 150 in)
	awk '
	function pct(arr, n, p,   i, j, t, k) {
		for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
		k = int(p * n + 0.999999); if (k < 1) k = 1; if (k > n) k = n
		return arr[k]
	}
	$1 == "frame" && $2 > 0 { n++; c[n] = $3 / 1e6 }
	END {
		for (i = 1; i <= 150 && i <= n; i++) o[i] = c[i]
		for (i = n - 149; i <= n; i++) if (i > 160) z[++m] = c[i]
		printf "%.3f %.3f\n", pct(o, 150, 0.99), pct(z, m, 0.99)
	}' "$1"
}
# faults STATS: the minor faults the viewer's thread took over the keys (frame lines' 6th
# column; "-" for a tl without it), and what the background populate did after the first frame
faults() {
	awk '$1 == "frame" && $2 > 0 { if (NF >= 6) { n += $6; have = 1 } }
	$1 == "prefault" { p = sprintf(", populate %s: %.0f MB in %s ms", $2, $12 / 1048576, $14) }
	END { printf "minor faults over the keys %s%s", have ? n : "-", p }' "$1"
}
zoom_runs() { # zoom_runs BIN NAME: prints one line per mode
	local bin=$1 name=$2 cache="$OUT/cache-tui-$2" r
	rm -rf "$cache"
	view "$bin" "$zscript" "$OUT/tui-zoom-stats.txt" --no-cache
	r=$(zoom_p99 "$OUT/tui-zoom-stats.txt")
	printf '%-10s no cache:  p99 %8.3f ms zoomed out, %8.3f ms zoomed in\n' "$name" $r
	TL_CACHE_MAX=1T "$bin" index "$PROFILE" --cache-dir "$cache" >/dev/null 2>&1
	# warm, without and with the background populate (TL_PREFAULT=0: a tl before it)
	for pf in 0 1; do
		TL_CACHE_MAX=1T TL_PREFAULT=$pf view "$bin" "$zscript" "$OUT/tui-zoom-stats.txt" \
			--cache-dir "$cache"
		r=$(zoom_p99 "$OUT/tui-zoom-stats.txt")
		printf '%-10s warm%s: p99 %8.3f ms zoomed out, %8.3f ms zoomed in   (first frame %s ms; %s)\n' \
			"$name" "$([ $pf = 0 ] && echo ', TL_PREFAULT=0' || echo '              ')" $r \
			"$(awk '$1 == "first_frame_ms" { print $2 }' "$OUT/tui-zoom-stats.txt")" \
			"$(faults "$OUT/tui-zoom-stats.txt")"
	done
	rm -rf "$cache"
}
echo "== frame CPU p99, zoomed out and in (bar: <= 16 ms)"
zoom_runs "$TL_BIN" tl
[ -n "${BENCH_BASE_TL:-}" ] && zoom_runs "$BENCH_BASE_TL" baseline
exit 0
