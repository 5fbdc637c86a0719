# Helpers for the viewer's screen tests: generated fixtures, script runs, golden screens.
# Golden files live in tests/tui/golden; TL_UPDATE_GOLDEN=1 rewrites them from the current
# output (review the diff before committing).
. "$(dirname "$0")/../lib.sh"
GOLDEN=$TL_SRCDIR/tests/tui/golden
export XDG_CONFIG_HOME="$t_tmp/config" XDG_STATE_HOME="$t_tmp/state" TZ=UTC LC_ALL=C.UTF-8
unset NO_COLOR LANG LANGUAGE

# fixture NAME [tlgen screens options]: a generated profile in $t_tmp/NAME
fixture() {
	name=$1
	shift
	[ -d "$t_tmp/$name" ] && return 0
	"$TLGEN" screens "$t_tmp/$name" "$@" > "$t_tmp/$name.log" 2>&1 || {
		cat "$t_tmp/$name.log"
		return 1
	}
}

# view PROFILE SIZE LINE...: runs tl view in script mode, one argument per script line.
# The last dump is in $t_tmp/screen.txt and $t_tmp/screen.attr; stderr in $t_tmp/err.
view() {
	prof=$1 size=$2
	shift 2
	: > "$t_tmp/script"
	for l in "$@"; do
		printf '%s\n' "$l" >> "$t_tmp/script"
	done
	printf ':dump %s\n:dump-attrs %s\n' "$t_tmp/screen.txt" "$t_tmp/screen.attr" >> "$t_tmp/script"
	"$TL_BIN" view "$prof" --script "$t_tmp/script" --size "$size" $VIEW_OPTS 2> "$t_tmp/err"
}

# golden NAME: compares the last screen (text and colour slots) with golden/NAME.{txt,attr}
golden() {
	for ext in txt attr; do
		if [ -n "$TL_UPDATE_GOLDEN" ]; then
			mkdir -p "$GOLDEN"
			cp "$t_tmp/screen.$ext" "$GOLDEN/$1.$ext"
		fi
		if [ ! -f "$GOLDEN/$1.$ext" ]; then
			not_ok "golden $1.$ext missing (TL_UPDATE_GOLDEN=1 creates it)"
		elif cmp -s "$t_tmp/screen.$ext" "$GOLDEN/$1.$ext"; then
			ok "screen $1.$ext matches the golden file"
		else
			diff "$GOLDEN/$1.$ext" "$t_tmp/screen.$ext" | head -20 | sed 's/^/# /'
			not_ok "screen $1.$ext differs from the golden file"
		fi
	done
}

# has TEXT: the last screen shows TEXT
has() { grep -qF -- "$1" "$t_tmp/screen.txt"; }
# attr_has CHAR: some cell of the last screen is in the slot named by CHAR (theme.h)
attr_has() { grep -qF -- "$1" "$t_tmp/screen.attr"; }
# row N: line N (1-based) of the last screen
row() { sed -n "${1}p" "$t_tmp/screen.txt"; }
arow() { sed -n "${1}p" "$t_tmp/screen.attr"; }
