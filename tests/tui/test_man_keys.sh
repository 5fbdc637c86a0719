#!/bin/sh
# The key lists of tl(1) and docs/viewer.md agree with the action table (`make man-keys` rewrites them).
. "$(dirname "$0")/../lib.sh"
for f in man/tl.1 docs/viewer.md; do
	if sh "$TL_SRCDIR/tests/tui/man_keys.sh" --check "$TL_BIN" "$TL_SRCDIR/$f" > "$t_tmp/mk" 2>&1; then
		ok "the key list in $f agrees with the action table"
	else
		sed 's/^/# /' "$t_tmp/mk"
		not_ok "the key list in $f differs from the action table: run make man-keys"
	fi
done
t_done
