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
