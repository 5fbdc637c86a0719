#!/bin/bash
# `make bench`, what the summary's JSON sections, the model cache and `tl diff` cost, side by
# side in one run on the 8 ranks x 1,000,000 tasks profile and its pair (lib.sh, bench_pair):
# `tl summary` text and --json without the cache (bar: json <= 1.2x text), both again with the
# cache present (bar: <= 5% of no cache and <= 1 s), and `tl diff A B` without and with the cache
# against one `tl summary A` without (bar: <= 2.2x). Each figure is the median of RUNS runs, all
# runs in rounds (every command once per round), so the two sides of a ratio see the same load.
# With BENCH_BASE=main (built in a worktree) or BENCH_BASE_TL=path, the baseline's commands run
# in the same rounds and its figures are printed beside ours. Figures, not assertions.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-5}
. "$(dirname "$0")/lib.sh"
bench_pair
bench_base
export XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8

# the commands of one tl: T (tl or base), its cache C
for T in tl base; do
	[ $T = tl ] || [ -n "$BASE_TL" ] || continue
	bin=$TL_BIN
	[ $T = tl ] || bin=$BASE_TL
	cache="$OUT/cache-fast-$T"
	eval "${T}_text_cold() { \"$bin\" summary \"\$A\" --no-cache; }
${T}_json_cold() { \"$bin\" summary --json \"\$A\" --no-cache; }
${T}_diff_cold() { \"$bin\" diff \"\$A\" \"\$B\" --no-cache; }
${T}_text_warm() { \"$bin\" summary \"\$A\" --cache-dir \"$cache\"; }
${T}_json_warm() { \"$bin\" summary --json \"\$A\" --cache-dir \"$cache\"; }
${T}_diff_warm() { \"$bin\" diff \"\$A\" \"\$B\" --cache-dir \"$cache\"; }
${T}_write() { rm -rf \"$cache\"; \"$bin\" diff \"\$A\" \"\$B\" --cache-dir \"$cache\"; }"
done
sides=(tl)
[ -z "$BASE_TL" ] || sides+=(base)
cold=() warm=() write=()
for T in "${sides[@]}"; do
	cold+=("${T}_text_cold" "${T}_json_cold" "${T}_diff_cold")
	warm+=("${T}_text_warm" "${T}_json_warm" "${T}_diff_warm")
	write+=("${T}_write")
done
rounds "$RUNS" "${cold[@]}"
rounds 1 "${write[@]}" # writes both sides' cache files
rounds "$RUNS" "${warm[@]}"

line() { # line LABEL WALL CPU [NOTE]
	printf '%-36s %8.3f s wall %8.3f s cpu  %s\n' "$1" "$2" "$3" "${4:-}"
}
report() { # report T: T's figures
	local T=$1 tc=${CPU[${1}_text_cold]} tw=${WALL[${1}_text_cold]}
	line "tl summary, no cache:" "$tw" "$tc"
	line "tl summary --json, no cache:" "${WALL[${T}_json_cold]}" "${CPU[${T}_json_cold]}" \
		"$(printf '%.2fx text wall, %.2fx cpu; bar: <= 1.2x' "$(calc "${WALL[${T}_json_cold]} / $tw")" "$(calc "${CPU[${T}_json_cold]} / $tc")")"
	line "tl summary, cache present:" "${WALL[${T}_text_warm]}" "${CPU[${T}_text_warm]}" \
		"$(printf '%.1f%% of no cache wall, %.1f%% cpu; bar: <= 1 s and <= 5%%' "$(calc "100 * ${WALL[${T}_text_warm]} / $tw")" "$(calc "100 * ${CPU[${T}_text_warm]} / $tc")")"
	line "tl summary --json, cache present:" "${WALL[${T}_json_warm]}" "${CPU[${T}_json_warm]}" \
		"$(printf '%.1f%% of no cache wall' "$(calc "100 * ${WALL[${T}_json_warm]} / ${WALL[${T}_json_cold]}")")"
	printf '%-36s %8.3f s wall\n' "tl diff A B, writing the cache:" "${WALL[${T}_write]}"
	line "tl diff A B, no cache:" "${WALL[${T}_diff_cold]}" "${CPU[${T}_diff_cold]}" \
		"$(printf '%.2fx one summary wall, %.2fx cpu; bar: <= 2.2x' "$(calc "${WALL[${T}_diff_cold]} / $tw")" "$(calc "${CPU[${T}_diff_cold]} / $tc")")"
	line "tl diff A B, cache present:" "${WALL[${T}_diff_warm]}" "${CPU[${T}_diff_warm]}" \
		"$(printf '%.2fx one summary without cache wall, %.2fx cpu' "$(calc "${WALL[${T}_diff_warm]} / $tw")" "$(calc "${CPU[${T}_diff_warm]} / $tc")")"
}
echo "== summary sections, the cache and tl diff on $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
report tl
if [ -n "$BASE_TL" ]; then
	echo "-- the baseline, $BASE_TL, in the same rounds"
	report base
	echo "-- this tl against the baseline (its time / the baseline's: below 1 is faster)"
	for f in text_cold json_cold diff_cold text_warm json_warm diff_warm; do
		printf '%-36s %8.2fx wall %8.2fx cpu\n' "$f:" "$(calc "${WALL[tl_$f]} / ${WALL[base_$f]}")" \
			"$(calc "${CPU[tl_$f]} / ${CPU[base_$f]}")"
	done
fi
rm -rf "$OUT/cache-fast-tl" "$OUT/cache-fast-base"
