#!/bin/bash
# `make bench`, what the summary's JSON sections, the model cache and `tl diff` cost, side by
# side in one run on the 8 ranks x 1,000,000 tasks profile (shared with bench.sh and
# bench_diff.sh, kept in bench-out/): `tl summary` text and --json without the cache (bar: json
# <= 1.2x text), both again with the cache present (bar: <= 5% of no cache and <= 1 s), and
# `tl diff A B` without and with the cache against one `tl summary A` without (bar: <= 2.2x).
# Each figure is the median of RUNS runs; the runs of the two sides of a ratio alternate.
# Figures, not assertions.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
A="$OUT/profile-${RANKS}x${TASKS}"
B="$OUT/diff-b-${RANKS}x${TASKS}"
. "$(dirname "$0")/lib.sh"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
generate_once "$B" "the same, ref_logprob slowed on ranks 1 and 2, clock +5 h" \
	"$TLGEN" bench "$B" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3 \
	--slow-stage 1 --slow-factor 1500 --slow-ranks 6 --delay-coll 40 --delay-ns 2000000 \
	--t0 $((1736407067000000000 + 5 * 3600 * 1000000000))
CACHE="$OUT/cache-fast"
export XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8

text_cold() { "$TL_BIN" summary "$A" --no-cache; }
json_cold() { "$TL_BIN" summary --json "$A" --no-cache; }
text_warm() { "$TL_BIN" summary "$A" --cache-dir "$CACHE"; }
json_warm() { "$TL_BIN" summary --json "$A" --cache-dir "$CACHE"; }
diff_cold() { "$TL_BIN" diff "$A" "$B" --no-cache; }
diff_warm() { "$TL_BIN" diff "$A" "$B" --cache-dir "$CACHE"; }

# pair X Y: runs X and Y alternately RUNS times; sets xw yw (median wall seconds) and xc yc
# (median CPU seconds, user + system: the figure that holds up on a machine others share)
pair() {
	local i xws=() yws=() xcs=() ycs=() t
	for i in $(seq "$RUNS"); do
		t=$( { TIMEFORMAT='%R %U %S'; time "$1" >/dev/null 2>&1; } 2>&1 | tail -1)
		xws+=("$(echo "$t" | awk '{print $1}')") xcs+=("$(echo "$t" | awk '{print $2 + $3}')")
		t=$( { TIMEFORMAT='%R %U %S'; time "$2" >/dev/null 2>&1; } 2>&1 | tail -1)
		yws+=("$(echo "$t" | awk '{print $1}')") ycs+=("$(echo "$t" | awk '{print $2 + $3}')")
	done
	xw=$(printf '%s\n' "${xws[@]}" | median) yw=$(printf '%s\n' "${yws[@]}" | median)
	xc=$(printf '%s\n' "${xcs[@]}" | median) yc=$(printf '%s\n' "${ycs[@]}" | median)
}
line() { # line LABEL WALL CPU [NOTE]
	printf '%-34s %8.3f s wall %8.3f s cpu  %s\n' "$1" "$2" "$3" "${4:-}"
}

pair json_cold text_cold
j_cold=$xw j_cold_c=$xc t_cold=$yw t_cold_c=$yc
pair diff_cold text_cold
d_cold=$xw d_cold_c=$xc t2_cold=$yw t2_cold_c=$yc
rm -rf "$CACHE"
t0=$(now)
"$TL_BIN" diff "$A" "$B" --cache-dir "$CACHE" >/dev/null 2>&1 # writes both sides' files
t1=$(now)
write=$(calc "$t1 - $t0")
pair json_warm text_warm
j_warm=$xw j_warm_c=$xc t_warm=$yw t_warm_c=$yc
pair diff_warm text_cold
d_warm=$xw d_warm_c=$xc t3_cold=$yw t3_cold_c=$yc

echo "== summary sections, the cache and tl diff on $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS; each ratio from runs that alternate)"
line "tl summary, no cache:" "$t_cold" "$t_cold_c"
line "tl summary --json, no cache:" "$j_cold" "$j_cold_c" \
	"$(printf '%.2fx text wall, %.2fx cpu; bar: <= 1.2x' "$(calc "$j_cold / $t_cold")" "$(calc "$j_cold_c / $t_cold_c")")"
line "tl summary, cache present:" "$t_warm" "$t_warm_c" \
	"$(printf '%.1f%% of no cache wall, %.1f%% cpu; bar: <= 1 s and <= 5%%' "$(calc "100 * $t_warm / $t_cold")" "$(calc "100 * $t_warm_c / $t_cold_c")")"
line "tl summary --json, cache present:" "$j_warm" "$j_warm_c" \
	"$(printf '%.1f%% of no cache wall' "$(calc "100 * $j_warm / $j_cold")")"
printf '%-34s %8.3f s wall\n' "tl diff A B, writing the cache:" "$write"
line "tl diff A B, no cache:" "$d_cold" "$d_cold_c" \
	"$(printf '%.2fx one summary wall (%.3f s), %.2fx cpu; bar: <= 2.2x' "$(calc "$d_cold / $t2_cold")" "$t2_cold" "$(calc "$d_cold_c / $t2_cold_c")")"
line "tl diff A B, cache present:" "$d_warm" "$d_warm_c" \
	"$(printf '%.2fx one summary without cache wall (%.3f s), %.2fx cpu' "$(calc "$d_warm / $t3_cold")" "$t3_cold" "$(calc "$d_warm_c / $t3_cold_c")")"
rm -rf "$CACHE"
