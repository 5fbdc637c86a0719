#!/bin/bash
# `make bench`, the viewer: replays 1,000 navigation keys (zoom, pan, search, bubble jumps) on the
# 8 ranks x 1,000,000 tasks profile (shared with bench.sh, kept in bench-out/) at 200x50 in
# script mode, and prints the time to the first frame, the CPU time per frame and the bytes a
# terminal (xterm-256color) would receive per frame; then the frame times zoomed out and zoomed
# in, without the cache and warm, beside a baseline build's (BENCH_BASE_TL, see bench_cache.sh).
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
# moves, pans and jumps, then ten zooms in and the same again
zscript="$OUT/tui-zoom-keys.txt"
awk 'BEGIN {
	srand(7)
	for (z = 0; z < 2; z++) {
		if (z) for (i = 0; i < 10; i++) print "+"
		for (n = 0; n < 150; n++) {
			r = rand()
			if (r < 0.4) print (rand() < 0.5 ? "<gt>" : "<lt>")
			else if (r < 0.7) print (rand() < 0.5 ? "j" : "k")
			else if (r < 0.85) print (rand() < 0.5 ? "}" : "{")
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
zoom_runs() { # zoom_runs BIN NAME: prints one line per mode
	local bin=$1 name=$2 cache="$OUT/cache-tui-$2" r
	rm -rf "$cache"
	view "$bin" "$zscript" "$OUT/tui-zoom-stats.txt" --no-cache
	r=$(zoom_p99 "$OUT/tui-zoom-stats.txt")
	printf '%-10s no cache:  p99 %8.3f ms zoomed out, %8.3f ms zoomed in\n' "$name" $r
	"$bin" index "$PROFILE" --cache-dir "$cache" >/dev/null 2>&1
	view "$bin" "$zscript" "$OUT/tui-zoom-stats.txt" --cache-dir "$cache"
	r=$(zoom_p99 "$OUT/tui-zoom-stats.txt")
	printf '%-10s warm:      p99 %8.3f ms zoomed out, %8.3f ms zoomed in   (first frame %s ms)\n' \
		"$name" $r "$(awk '$1 == "first_frame_ms" { print $2 }' "$OUT/tui-zoom-stats.txt")"
	rm -rf "$cache"
}
echo "== frame CPU p99, zoomed out and in (bar: <= 16 ms)"
zoom_runs "$TL_BIN" tl
[ -n "${BENCH_BASE_TL:-}" ] && zoom_runs "$BENCH_BASE_TL" baseline
exit 0
