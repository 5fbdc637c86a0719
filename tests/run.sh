#!/bin/sh
# Runs every test program and script, echoes their TAP-like lines, and ends with
# "N passed, N failed" (N counts individual test cases). Exits non-zero when anything failed.
# Environment: TL_BIN (the tl binary), TL_TESTBIN (build dir of tests/), TL_SRCDIR (source root).
: "${TL_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TL_TESTBIN:=$TL_SRCDIR/tests}"
: "${TL_BIN:=$TL_SRCDIR/tl}"
export TL_SRCDIR TL_TESTBIN TL_BIN
if [ ! -d "$TL_SRCDIR/../shared/samples" ] && [ -z "$TL_SAMPLES" ]; then
	echo "# note: $TL_SRCDIR/../shared/samples is absent: sample-based tests will be skipped"
fi

pass=0 fail=0 skip=0 crashed=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_one() {
	name=$1
	shift
	echo "# $name"
	"$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	s=$(grep -c '^ok .*# SKIP' "$out")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# a crash or an early exit without a failing check still fails the run
		echo "not ok - $name exited with status $rc"
		fail=$((fail + 1))
		crashed="$crashed $name"
	fi
}

for t in "$TL_TESTBIN"/unit/*/test_* "$TL_TESTBIN"/fuzz/test_*; do
	case "$t" in *.c | *.h | *.o) continue ;; esac
	[ -x "$t" ] || continue
	[ "$t" = "$TL_TESTBIN/unit/ui/test_ui" ] && continue # run by tests/tui/test_units.sh
	run_one "${t#"$TL_TESTBIN"/}" "$t"
done
for t in "$TL_SRCDIR"/tests/golden/test_*.sh "$TL_SRCDIR"/tests/tui/test_*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$(dirname "$t")")/$(basename "$t")" sh "$t"
done

[ -n "$crashed" ] && echo "# exited abnormally:$crashed"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
