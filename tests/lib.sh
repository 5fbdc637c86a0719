# Helpers for shell tests: TAP "ok N - msg" lines, and t_done's "1..N" plan at the end, read by
# automake's TAP driver (`make check`). A script that stops before t_done is reported as an error.
: "${TL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TL_BIN:=$TL_SRCDIR/tl}"
: "${TL_TESTBIN:=$TL_SRCDIR/tests}"
: "${TLGEN:=$TL_TESTBIN/gen/tlgen}" # the profile generator (tests/gen/tlgen.c)
SAMPLES=${TL_SAMPLES:-$TL_SRCDIR/../shared/samples}
t_n=0
t_failed=0
ok() { t_n=$((t_n + 1)); echo "ok $t_n - $*"; }
not_ok() { t_n=$((t_n + 1)); t_failed=$((t_failed + 1)); echo "not ok $t_n - $*"; }
skip() { t_n=$((t_n + 1)); echo "ok $t_n - # SKIP $*"; }
# check "message" command...: passes when the command succeeds
check() { msg=$1; shift; if "$@"; then ok "$msg"; else not_ok "$msg"; fi; }
# check_all "message" 'condition': passes when the shell condition, of several commands, holds
# (`check "message" [ a ] && [ b ]` would check [ a ] alone: the shell runs [ b ] after check)
check_all() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-test.XXXXXX")
trap 'rm -rf "$t_tmp"' EXIT
t_done() {
	echo "1..$t_n"
	[ "$t_failed" -eq 0 ]
}
