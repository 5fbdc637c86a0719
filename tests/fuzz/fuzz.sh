#!/bin/sh
# Runs libFuzzer targets built by `make fuzz-build`:
#   fuzz.sh FUZZDIR SECONDS TARGET...
# Seeds: the generator and ../shared/samples (fuzz_seeds), the keymaps, themes and stage rules
# of the source tree, tests/fuzz/seeds/TARGET, and what earlier runs added (FUZZDIR/corpus).
# Prints one TAP-like line per target with its executions and coverage; a finding is written to
# FUZZDIR/findings/ and fails the run (exit 1): minimise it (the command is printed), fix the
# bug, and commit the input under tests/fuzz/regress/TARGET/ (test_fuzz_regress replays it).
# FUZZ_JOBS=N runs N targets at a time (default 1); FUZZ_ARGS adds libFuzzer options.
fdir=$1
secs=$2
shift 2
: "${TL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
samples=${TL_SAMPLES:-$TL_SRCDIR/../shared/samples}
bin=$fdir/build/tests/fuzz
seeds=$fdir/seeds
mkdir -p "$fdir/corpus" "$fdir/findings" "$fdir/logs"

# ---- seeds ---------------------------------------------------------------------------------
if [ ! -d "$seeds/db" ]; then
	if [ -d "$samples" ]; then
		"$bin/fuzz_seeds" "$seeds" "$samples" || exit 1
	else
		echo "# note: $samples is absent: seeds from the generator only"
		"$bin/fuzz_seeds" "$seeds" || exit 1
	fi
	mkdir -p "$seeds/keymap" "$seeds/theme" "$seeds/stages" "$seeds/rankspec"
	cp "$TL_SRCDIR"/keymaps/*.keys "$seeds/keymap/"
	cp "$TL_SRCDIR"/themes/*.theme "$seeds/theme/"
	cp "$TL_SRCDIR"/src/analysis/stages.default "$seeds/stages/"
fi

n=0
fail=0
run_target() {
	t=$1
	mkdir -p "$fdir/corpus/$t"
	case $t in
	db) opts="-max_len=65536 -dict=$TL_SRCDIR/tests/fuzz/db.dict" ;;
	json) opts="-max_len=16384 -dict=$TL_SRCDIR/tests/fuzz/json.dict" ;;
	gzjson)
		opts="-max_len=16384 -dict=$TL_SRCDIR/tests/fuzz/json.dict"
		# the JSON seeds compressed (fuzz_gzjson takes gzip data as it is)
		if [ ! -d "$seeds/gzjson" ] && [ -d "$seeds/json" ]; then
			mkdir -p "$seeds/gzjson"
			for f in "$seeds"/json/*; do
				gzip -c "$f" >"$seeds/gzjson/$(basename "$f").gz"
			done
		fi
		;;
	query) opts="-max_len=8192 -dict=$TL_SRCDIR/tests/fuzz/query.dict" ;;
	dbpage) opts="-max_len=65536" ;;
	*) opts="-max_len=4096" ;;
	esac
	dirs="$fdir/corpus/$t"
	# the page scanner reads the DB target's seeds too (SQLite files of 512-byte pages)
	more=""
	[ "$t" = dbpage ] && more="$seeds/db"
	for d in "$seeds/$t" $more "$TL_SRCDIR/tests/fuzz/seeds/$t" "$TL_SRCDIR/tests/fuzz/regress/$t"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	# -timeout: an input taking longer is a hang; -rss_limit_mb: one eating memory is a
	# finding too (and so is any single allocation above it)
	# shellcheck disable=SC2086
	"$bin/fuzz_$t" $opts -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$fdir/findings/$t-" $FUZZ_ARGS \
		$dirs >"$fdir/logs/$t.log" 2>&1
}

report() {
	t=$1 rc=$2
	n=$((n + 1))
	log=$fdir/logs/$t.log
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - fuzz_$t: ${secs}s, ${runs:-?} executions, coverage ${cov:-?} edges (${ft:-?} features), no finding"
	else
		fail=$((fail + 1))
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		echo "not ok $n - fuzz_$t: a finding after ${runs:-?} executions: ${art:-see $log}"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 | sed 's/^/# /'
		[ -n "$art" ] && echo "# reproduce: $bin/fuzz_$t $art;  minimise: $bin/fuzz_$t -minimize_crash=1 -runs=10000 $art"
	fi
}

jobs=${FUZZ_JOBS:-1}
set -- "$@"
while [ $# -gt 0 ]; do
	batch=""
	i=0
	while [ $# -gt 0 ] && [ $i -lt "$jobs" ]; do
		batch="$batch $1"
		shift
		i=$((i + 1))
	done
	pids=""
	for t in $batch; do
		run_target "$t" &
		pids="$pids $!"
	done
	set -f
	k=0
	for t in $batch; do
		k=$((k + 1))
		pid=$(echo $pids | cut -d' ' -f$k)
		wait "$pid"
		report "$t" $?
	done
	set +f
done
echo "fuzz: $n targets, $fail with a finding"
[ "$fail" -eq 0 ]
