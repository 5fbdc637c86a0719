#!/bin/sh
# The viewer's unit tests (tests/unit/ui/test_ui) and the man page key list check.
. "$(dirname "$0")/../lib.sh"
if [ -x "$TL_TESTBIN/unit/ui/test_ui" ]; then
	"$TL_TESTBIN/unit/ui/test_ui" | sed -n 's/^\(not \)\{0,1\}ok [0-9]* - /&/p' > "$t_tmp/out"
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) not_ok "${line#not ok * - }" ;;
		"ok "*"# SKIP"*) skip "${line#*# SKIP }" ;;
		"ok "*) ok "${line#ok * - }" ;;
		esac
	done < "$t_tmp/out"
else
	not_ok "tests/unit/ui/test_ui is not built"
fi
for f in man/tl.1 README.md; do
	if sh "$TL_SRCDIR/tests/tui/man_keys.sh" --check "$TL_BIN" "$TL_SRCDIR/$f" > "$t_tmp/mk" 2>&1; then
		ok "the key list in $f agrees with the action table"
	else
		sed 's/^/# /' "$t_tmp/mk"
		not_ok "the key list in $f differs from the action table: run make man-keys"
	fi
done
t_done
