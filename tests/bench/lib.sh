# Helpers shared by the `make bench` scripts (sourced).
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
# generate_once PROFILE WHAT CMD...: runs CMD (which writes PROFILE) unless an earlier run
# completed it; generated profiles are kept in bench-out/ between runs.
generate_once() {
	_profile=$1
	_what=$2
	shift 2
	[ -f "$_profile/.complete" ] && return 0
	rm -rf "$_profile"
	mkdir -p "$(dirname "$_profile")"
	echo "bench: generating $_what into $_profile ..."
	_t0=$(now)
	"$@" >/dev/null
	_t1=$(now)
	touch "$_profile/.complete"
	printf 'bench: generated in %.1f s\n' "$(calc "$_t1 - $_t0")"
}
# side_by_side RUNS TL_FN BASE_FN: runs the two shell functions alternately RUNS times and sets
# tl_times / base_times (seconds per run) and tl_med / base_med (their medians).
side_by_side() {
	tl_times=()
	base_times=()
	for _i in $(seq "$1"); do
		_t0=$(now)
		"$2"
		_t1=$(now)
		tl_times+=("$(calc "$_t1 - $_t0")")
		_t0=$(now)
		"$3"
		_t1=$(now)
		base_times+=("$(calc "$_t1 - $_t0")")
	done
	tl_med=$(printf '%s\n' "${tl_times[@]}" | median)
	base_med=$(printf '%s\n' "${base_times[@]}" | median)
}

# bench_pair: the two profiles `tl diff` is timed on (bench_fast.sh, bench_diff.sh), generated
# once into bench-out/: A, RANKS ranks x TASKS tasks (bench.sh's profile), and B, the same job
# with ref_logprob's kernels 1.5x as long on ranks 1 and 2, one collective's last arrival 2 ms
# late and the clock 5 hours later. Sets A and B.
bench_pair() {
	A="$OUT/profile-${RANKS}x${TASKS}"
	B="$OUT/diff-b-${RANKS}x${TASKS}"
	generate_once "$A" "$RANKS ranks x $TASKS device tasks" \
		"$TLGEN" bench "$A" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3
	generate_once "$B" "the same, ref_logprob slowed on ranks 1 and 2, clock +5 h" \
		"$TLGEN" bench "$B" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow 3 \
		--slow-stage 1 --slow-factor 1500 --slow-ranks 6 --delay-coll 40 --delay-ns 2000000 \
		--t0 $((1736407067000000000 + 5 * 3600 * 1000000000))
}

# bench_base: BASE_TL, the tl to set the figures beside: BENCH_BASE_TL (a built tl), else
# BENCH_BASE=REV (e.g. main), that revision built once in a git worktree under bench-out/;
# empty when neither is given.
# bench_scratch: RUN, a directory of this run's own under OUT for its outputs and caches, removed
# at exit: benchmarks run at the same time (several worktrees sharing one BENCH_OUT) then keep
# their figures apart, sharing only the generated profiles.
bench_scratch() {
	mkdir -p "$OUT"
	RUN=$(mktemp -d "$OUT/run.XXXXXX")
	trap 'rm -rf "$RUN"' EXIT
}
bench_base() {
	BASE_TL=${BENCH_BASE_TL:-}
	[ -n "$BASE_TL" ] || [ -z "${BENCH_BASE:-}" ] || {
		_src=$(cd "$(dirname "$0")/../.." && pwd)
		_rev=$(git -C "$_src" rev-parse --short "$BENCH_BASE") || return 1
		_wt="$(cd "$OUT" && pwd)/base-$_rev"
		if [ ! -x "$_wt/tl" ]; then
			echo "bench: building $BENCH_BASE ($_rev) in $_wt ..."
			rm -rf "$_wt"
			git -C "$_src" worktree prune
			git -C "$_src" worktree add --detach "$_wt" "$_rev" >/dev/null 2>&1 || return 1
			(cd "$_wt" && autoreconf -fi && ./configure && make -j2 tl) >"$OUT/base-$_rev.log" 2>&1 ||
				{ echo "bench: the build failed, see $OUT/base-$_rev.log"; return 1; }
		fi
		BASE_TL="$_wt/tl"
	}
}

# rounds RUNS FN...: runs every function once per round, RUNS rounds, so that each figure sees
# the machine's load as the others do; sets WALL[FN] and CPU[FN], the medians in seconds of wall
# time and of CPU time (user + system: the figure that holds up on a machine others share).
declare -A WALL CPU
rounds() {
	local n=$1 i f t
	shift
	declare -A ws cs
	for i in $(seq "$n"); do
		for f in "$@"; do
			t=$( { TIMEFORMAT='%R %U %S'; time "$f" >/dev/null 2>&1; } 2>&1 | tail -1)
			ws[$f]+="$(echo "$t" | awk '{print $1}') "
			cs[$f]+="$(echo "$t" | awk '{print $2 + $3}') "
		done
	done
	for f in "$@"; do
		WALL[$f]=$(printf '%s\n' ${ws[$f]} | median)
		CPU[$f]=$(printf '%s\n' ${cs[$f]} | median)
	done
}
