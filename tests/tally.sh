#!/bin/sh
# Sums the test cases of a `make check` run from the TAP driver's .trs files given as arguments
# and prints the one line CI reads: "N passed, N failed" (", N skipped" when any were). A failed
# or errored case (a crash, a missing plan, a non-zero exit) counts as failed, and so does a test
# whose .trs is missing. Exits 1 when anything failed, or when no test ran at all.
pass=0 fail=0 skip=0 bad=""
samples=${TL_SAMPLES:-${TL_SRCDIR:-.}/../shared/samples}
for trs in "$@"; do
	if [ ! -f "$trs" ]; then
		fail=$((fail + 1))
		bad="$bad ${trs%.trs}"
		continue
	fi
	set -- $(awk '
		$1 == ":test-result:" && $2 == "PASS" { p++ }
		$1 == ":test-result:" && $2 == "XFAIL" { p++ }
		$1 == ":test-result:" && $2 == "SKIP" { s++ }
		$1 == ":test-result:" && ($2 == "FAIL" || $2 == "ERROR" || $2 == "XPASS") { f++ }
		END { print p + 0, f + 0, s + 0 }' "$trs")
	pass=$((pass + $1))
	fail=$((fail + $2))
	skip=$((skip + $3))
	[ "$2" -gt 0 ] && bad="$bad ${trs%.trs}"
done
[ $((pass + fail + skip)) -eq 0 ] && echo "# no test ran" && fail=1
for t in $bad; do
	echo "# failed: $t (see $t.log)"
done
[ -d "$samples" ] || echo "# note: $samples is absent: sample-based tests were skipped"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
