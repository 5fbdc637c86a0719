#!/bin/bash
# `make bench`, tl critical: figures, not assertions. On bench.sh's profile (BENCH_RANKS
# ranks x BENCH_TASKS device tasks, 3 steps, rank 3 slow; bench_pair's A), the critical path's own
# cost beside a cold `tl summary` (no model cache, no stored result: the whole read and
# analysis). The summary computes the path itself: TL_STATS' critical_ms is its part of the
# summary (the load left out), and the share is that part over the rest of the summary (the
# summary without the path, as the share was measured before the summary had one); bar: 25%.
# `tl critical`'s own analysis (its critical_ms, CPU time) is shown too. With BENCH_BASE=REV
# (or BENCH_BASE_TL) the same figures of that build are printed beside (a build whose summary
# has no path: its share is its tl critical's analysis over its summary). The shares in wall
# time and in CPU time (user + system: on a machine others share, the wall time of the path,
# one thread, and of the summary's parallel rest stretch differently). RUNS rounds, medians.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_RANKS:-8}
TASKS=${BENCH_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
. "$(dirname "$0")/lib.sh"
bench_scratch
A="$OUT/profile-${RANKS}x${TASKS}"
generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
	"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
bench_base || exit 1

field() { sed -n "s/.*$1=\([0-9.-]*\).*/\1/p" "$2" | tail -1; }
# round BIN TAG: one cold summary and one cold tl critical of BIN, their figures appended to
# TAG's lists: summary wall s, the path's part of it (ms; -1: none), tl critical's analysis
# (wall and CPU ms) and peak RSS (kB)
declare -A L
round() {
	local t0 t1 p
	t0=$(now)
	TL_STATS=1 /usr/bin/time -f 'cpu %U %S %M' "$1" summary "$A" --no-cache >/dev/null \
		2>"$RUN/summary-$2.err"
	t1=$(now)
	p=$(field critical_ms "$RUN/summary-$2.err")
	pc=$(field critical_cpu_ms "$RUN/summary-$2.err")
	L[SC_$2]+="$(sed -n 's/^cpu //p' "$RUN/summary-$2.err" | awk '{ print $1 + $2 }') "
	L[PC_$2]+="${pc:--1} "
	L[SM_$2]+="$(sed -n 's/^cpu //p' "$RUN/summary-$2.err" | awk '{ print $3 }') "
	TL_STATS=1 /usr/bin/time -f 'rss %M' "$1" critical "$A" --no-cache \
		>/dev/null 2>"$RUN/critical-$2.err"
	L[S_$2]+="$(calc "$t1 - $t0") "
	L[P_$2]+="${p:--1} "
	L[C_$2]+="$(field critical_ms "$RUN/critical-$2.err") "
	L[U_$2]+="$(field critical_cpu_ms "$RUN/critical-$2.err") "
	L[M_$2]+="$(sed -n 's/^rss //p' "$RUN/critical-$2.err") "
}
# the builds alternate, round by round, so that each sees the machine's load as the other does
for _i in $(seq "$RUNS"); do
	round "$TL_BIN" new
	[ -z "$BASE_TL" ] || round "$BASE_TL" base
done
for k in "${!L[@]}"; do
	printf -v "$k" '%s' "$(printf '%s\n' ${L[$k]} | median)"
done

echo "== tl critical on $RANKS ranks x $TASKS tasks ($(nproc) cores, medians of $RUNS rounds)"
printf '  %-44s %12s %12s\n' "" "this build" "${BENCH_BASE:-${BASE_TL:+base}}"
row() { # row LABEL FORMAT NEW [BASE] (BASE "-": none)
	printf "  %-44s $2 " "$1" "$3"
	if [ "$4" = - ]; then printf '%12s' -; elif [ -n "$BASE_TL" ]; then printf "$2" "$4"; fi
	echo
}
share_new=$(calc "100 * $P_new / 1000 / ($S_new - $P_new / 1000)")
row "cold tl summary (s)" '%12.2f' "$S_new" "${S_base:-0}"
row "  its CPU time (s)" '%12.2f' "$SC_new" "${SC_base:-0}"
pb=
if [ -n "$BASE_TL" ]; then
	pb=-
	[ "$(calc "(${P_base:--1} >= 0) ? 1 : 0")" = 0 ] || pb=$(calc "$P_base / 1000")
fi
row "  its critical path (s)" '%12.2f' "$(calc "$P_new / 1000")" "$pb"
[ -z "$pb" ] || [ "$pb" = - ] || pb=$(calc "$PC_base / 1000")
row "    its CPU time (s)" '%12.2f' "$(calc "$PC_new / 1000")" "$pb"
row "tl critical's analysis (s)" '%12.2f' "$(calc "$C_new / 1000")" "$(calc "${C_base:-0} / 1000")"
row "  its CPU time (s)" '%12.2f' "$(calc "$U_new / 1000")" "$(calc "${U_base:-0} / 1000")"
row "tl summary peak RSS (MB)" '%12.0f' "$(calc "$SM_new / 1024")" "$(calc "${SM_base:-0} / 1024")"
row "tl critical peak RSS (MB)" '%12.0f' "$(calc "$M_new / 1024")" "$(calc "${M_base:-0} / 1024")"
if [ -n "$BASE_TL" ]; then
	if [ "$(calc "(${P_base:--1} >= 0) ? 1 : 0")" = 1 ]; then
		share_base=$(calc "100 * $P_base / 1000 / ($S_base - $P_base / 1000)")
	else
		share_base=$(calc "100 * $C_base / 1000 / $S_base")
	fi
fi
row "path / the summary's other work (bar 25%)" '%11.1f%%' "$share_new" "${share_base:-0}"
# the same in CPU time (user + system), the figure that holds up on a machine others share
cshare_new=$(calc "100 * $PC_new / 1000 / ($SC_new - $PC_new / 1000)")
if [ -n "$BASE_TL" ]; then
	if [ "$(calc "(${PC_base:--1} >= 0) ? 1 : 0")" = 1 ]; then
		cshare_base=$(calc "100 * $PC_base / 1000 / ($SC_base - $PC_base / 1000)")
	else
		cshare_base=$(calc "100 * $U_base / 1000 / $SC_base")
	fi
fi
row "  the same in CPU time" '%11.1f%%' "$cshare_new" "${cshare_base:-0}"
