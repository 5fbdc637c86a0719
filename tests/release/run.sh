#!/bin/sh
# Runs the release tests named (static aarch64 install deb dist-bin: tests/release/test_NAME.sh),
# echoes their TAP-like lines and ends with "N passed, N failed" (and skipped), like tests/run.sh.
# Exits non-zero when anything failed.
: "${TL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
export TL_SRCDIR TL_TESTBIN TL_BIN TL_BUILDDIR TL_BUILD_CPU TL_VERSION
pass=0 fail=0 skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for name in "$@"; do
	echo "# release/test_$name.sh"
	sh "$TL_SRCDIR/tests/release/test_$name.sh" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	s=$(grep -c '^ok .*# SKIP' "$out")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - release/test_$name.sh exited with status $rc"
		fail=$((fail + 1))
	fi
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
