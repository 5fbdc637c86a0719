#!/bin/bash
# `make bench-summary`: the summary at the floor (figures, not assertions), side by side with a
# baseline (BENCH_BASE=main or BENCH_BASE_TL=PATH) in the same rounds. On RANKS x TASKS (bench.sh's
# profile, generated once into bench-out/):
# - the floor: tests/bench/floor, one core stepping through every row and column of the SELECTs
#   tl runs (TL_TRACE_SQL=1) on every rank's DB, nothing else (bar: cold tl summary <= 0.5x its
#   wall time);
# - cold `tl summary --no-cache`: wall and CPU time, peak RSS per slice (bar: <= 24 bytes);
# - the first run that writes the model cache: peak RSS per slice (bar: <= 32 bytes);
# - warm over the mapped models with stored results off (TL_CACHE_RESULTS=0): its CPU time as
#   a share of the cold one (bar: <= 5%);
# - where the cold run's time goes: TL_PHASES=1's phases (open, read, gather, load, clock,
#   analyses, output), wall and CPU;
# - the engines in the cold run (TL_STATS): the clock estimate (bar: <= 5% of its CPU), the
#   findings (<= 10%), the critical path (<= 25%); tl query's scan is make bench-query's line;
# - JSON inputs, a generated trace_view.json and a Kineto trace of ~0.6 GB each: MB read per
#   CPU second end to end (bar: >= 600).
# Each figure is the median of RUNS rounds (every command once per round).
set -e
: "${TL_BIN:?}" "${TLGEN:?}" "${FLOOR:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
JTASKS=${BENCH_SUMMARY_JSON_TASKS:-600000}
KLAUNCH=${BENCH_SUMMARY_KINETO_LAUNCHES:-120000}
. "$(dirname "$0")/lib.sh"
bench_scratch
A="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
J="$OUT/json-1x${JTASKS}"
generate_once "$J" "1 rank x $JTASKS device tasks, DB and trace_view.json" \
	"$TLGEN" bench "$J" --ranks 1 --tasks "$JTASKS" --steps 3 --slow -1 --json
K="$OUT/kineto-6x${KLAUNCH}"
gen_kineto() { mkdir -p "$K" && "$TLGEN" kineto "$K/trace.json" --steps 6 --launches "$KLAUNCH"; }
generate_once "$K" "a Kineto trace, 6 steps x $KLAUNCH launches" gen_kineto
JFILE=$(find "$J" -name trace_view.json | head -n 1)
KFILE="$K/trace.json"
bench_base
export XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8

TL_TRACE_SQL=1 "$TL_BIN" summary "$A" --rank 0 --no-cache 2>&1 >/dev/null |
	grep '^SELECT ' >"$RUN/summary-queries.sql"
DBS=$(find "$A" -name 'ascend_pytorch_profiler_*.db' | sort)
floor() { "$FLOOR" "$RUN/summary-queries.sql" $DBS; }

sides=(tl)
[ -z "$BASE_TL" ] || sides+=(base)
for T in "${sides[@]}"; do
	bin=$TL_BIN
	[ $T = tl ] || bin=$BASE_TL
	cache="$RUN/cache-summary-$T"
	rm -f "$RUN/sum-$T-"*.txt
	eval "${T}_cold() { TL_STATS=1 TL_PHASES=1 \"$bin\" summary \"\$A\" --no-cache 2>>\"$RUN/sum-$T-cold.txt\"; }
${T}_warm() { TL_CACHE_RESULTS=0 \"$bin\" summary \"\$A\" --cache-dir \"$cache\"; }
${T}_json() { \"$bin\" summary \"\$JFILE\" --no-cache; }
${T}_kineto() { \"$bin\" summary \"\$KFILE\" --no-cache; }
${T}_write() { rm -rf \"$cache\"; TL_STATS=1 TL_PHASES=1 \"$bin\" summary \"\$A\" --cache-dir \"$cache\" 2>>\"$RUN/sum-$T-write.txt\"; }"
done
cold=(floor) warm=() json=() write=()
for T in "${sides[@]}"; do
	cold+=("${T}_cold")
	warm+=("${T}_warm")
	json+=("${T}_json" "${T}_kineto")
	write+=("${T}_write")
done
cat "$JFILE" "$KFILE" >/dev/null # from the page cache, as the DBs are after the first round
rounds "$RUNS" "${cold[@]}"
rounds "$RUNS" "${write[@]}" # the last round's cache files stay for the warm runs
rounds "$RUNS" "${warm[@]}"
rounds "$RUNS" "${json[@]}"

# statof FILE KEY: the median of KEY=N over the stats lines of FILE
statof() { sed -n "s/^stats: .*[ ]$2=\([0-9]*\).*/\1/p" "$1" | median; }
# anon FILE: the median over FILE's runs of the most anonymous memory (kB) at a phase's end
anon() {
	awk '/^phase: open /{if(n)print m; m=0; n=1} /^phase: /{for(i=1;i<=NF;i++)
		if($i~/^anon_kb=/){v=substr($i,9)+0; if(v>m)m=v}} END{if(n)print m}' "$1" | median
}
# phase FILE NAME FIELD: the median of a phase's FIELD (wall_s, cpu_s) over FILE's runs
phase() { sed -n "s/^phase: $2 .*$3=\([0-9.]*\).*/\1/p" "$1" | median; }
slices=$(statof "$RUN/sum-tl-cold.txt" slices)
jmb=$(calc "int($(wc -c <"$JFILE") / 1000000)")
kmb=$(calc "int($(wc -c <"$KFILE") / 1000000)")
fw=${WALL[floor]} fc=${CPU[floor]}
echo "== tl summary at the floor: $RANKS ranks x $TASKS tasks, $slices slices ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $RUNS rounds)"
printf '%-44s %8.3f s wall %8.3f s cpu\n' "floor (one core, sqlite3_step, same SELECTs):" "$fw" "$fc"
report() { # report T
	local T=$1 w=${WALL[${1}_cold]} c=${CPU[${1}_cold]} f="$RUN/sum-$1-cold.txt"
	local n
	n=$(statof "$f" slices)
	printf '%-44s %8.3f s wall %8.3f s cpu  %.2fx floor wall, %.2fx cpu (bar: <= 0.5x wall)\n' \
		"cold tl summary --no-cache:" "$w" "$c" "$(calc "$w / $fw")" "$(calc "$c / $fc")"
	printf '%-44s %8.1f     (%.0f MB; bar: <= 24)\n' "  peak RSS, bytes per slice:" \
		"$(calc "$(statof "$f" maxrss_kb) * 1024 / $n")" "$(calc "$(statof "$f" maxrss_kb) / 1024")"
	printf '%-44s %8.1f     (%.0f MB; bar: <= 32)\n' "  writing the cache, bytes per slice:" \
		"$(calc "$(statof "$RUN/sum-$T-write.txt" maxrss_kb) * 1024 / $n")" \
		"$(calc "$(statof "$RUN/sum-$T-write.txt" maxrss_kb) / 1024")"
	if grep -q '^phase: ' "$RUN/sum-$T-write.txt"; then
		printf '%-44s %8.1f     (the rest: the mapped cache files, pages the kernel may drop)\n' \
			"    of which anonymous, at most:" \
			"$(calc "$(anon "$RUN/sum-$T-write.txt") * 1024 / $n")"
		printf '%-44s %8.1f\n' "  cold, anonymous at most, bytes per slice:" \
			"$(calc "$(anon "$f") * 1024 / $n")"
	fi
	# the engines' CPU in the cold run (TL_STATS), each a share of its CPU time
	printf '%-44s %8.3f s cpu  %.2f%% of cold cpu (bar: <= 5%%)\n' "  clock estimate:" \
		"$(calc "$(statof "$f" clock_cpu_ns) / 1e9")" \
		"$(calc "100 * $(statof "$f" clock_cpu_ns) / 1e9 / $c")"
	printf '%-44s %8.3f s cpu  %.1f%% of cold cpu (bar: <= 10%%)\n' "  findings engine:" \
		"$(calc "$(statof "$f" findings_cpu_ns) / 1e9")" \
		"$(calc "100 * $(statof "$f" findings_cpu_ns) / 1e9 / $c")"
	printf '%-44s %8.3f s cpu  %.1f%% of cold cpu (bar: <= 25%%)\n' "  critical path:" \
		"$(calc "$(statof "$f" critical_cpu_ms) / 1e3")" \
		"$(calc "100 * $(statof "$f" critical_cpu_ms) / 1e3 / $c")"
	printf '%-44s %8.3f s wall %8.3f s cpu  %.1f%% of cold cpu (bar: <= 5%%)\n' \
		"warm, TL_CACHE_RESULTS=0:" "${WALL[${T}_warm]}" "${CPU[${T}_warm]}" \
		"$(calc "100 * ${CPU[${T}_warm]} / $c")"
	printf '%-44s %8.3f s wall %8.3f s cpu  %.0f MB per cpu second (bar: >= 600)\n' \
		"trace_view.json, $jmb MB:" "${WALL[${T}_json]}" "${CPU[${T}_json]}" \
		"$(calc "$jmb / ${CPU[${T}_json]}")"
	printf '%-44s %8.3f s wall %8.3f s cpu  %.0f MB per cpu second (bar: >= 600)\n' \
		"Kineto trace, $kmb MB:" "${WALL[${T}_kineto]}" "${CPU[${T}_kineto]}" \
		"$(calc "$kmb / ${CPU[${T}_kineto]}")"
	if grep -q '^phase: ' "$f"; then
		echo "  phases of the cold run (read, gather, cache: summed over the loading threads):"
		for p in open read gather load clock analyses output; do
			grep -q "^phase: $p " "$f" || continue
			printf '    %-40s %8.3f s wall %8.3f s cpu\n' "$p" "$(phase "$f" $p wall_s)" \
				"$(phase "$f" $p cpu_s)"
		done
		printf '    %-40s %8.2f\n' "cores busy while loading (cpu / wall):" \
			"$(calc "$(phase "$f" load cpu_s) / $(phase "$f" load wall_s)")"
	fi
}
echo "-- this tl, $TL_BIN"
report tl
if [ -n "$BASE_TL" ]; then
	echo "-- the baseline, $BASE_TL, in the same rounds"
	report base
	echo "-- this tl against the baseline (its figure / the baseline's: below 1 is better)"
	for f in cold warm json kineto; do
		printf '%-44s %8.2fx wall %8.2fx cpu\n' "$f:" "$(calc "${WALL[tl_$f]} / ${WALL[base_$f]}")" \
			"$(calc "${CPU[tl_$f]} / ${CPU[base_$f]}")"
	done
	for f in cold write; do
		printf '%-44s %8.2fx\n' "$f peak RSS:" \
			"$(calc "$(statof "$RUN/sum-tl-$f.txt" maxrss_kb) / $(statof "$RUN/sum-base-$f.txt" maxrss_kb)")"
	done
fi
