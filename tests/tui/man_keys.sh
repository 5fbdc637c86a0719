#!/bin/sh
# The key and command lists of man/tl.1 (`tl keys --man`) and docs/viewer.md (`tl keys --markdown`)
# are generated from the action and command tables, between BEGIN KEYS and END KEYS markers.
#   man_keys.sh --update TL_BIN FILE   rewrites the list between the markers
#   man_keys.sh --check  TL_BIN FILE   exits 1 when it differs from the table
mode=$1 bin=$2 man=$3
tmp=$(mktemp) gen=$(mktemp)
trap 'rm -f "$tmp" "$gen"' EXIT
case "$man" in
*.md) fmt=--markdown ;;
*) fmt=--man ;;
esac
"$bin" keys --keymap default $fmt > "$gen" || exit 2
grep -q 'BEGIN KEYS' "$man" || { echo "man_keys: no BEGIN KEYS marker in $man" >&2; exit 1; }
awk -v genfile="$gen" '
	/^(\.\\"|<!--) BEGIN KEYS/ { print; while ((getline l < genfile) > 0) print l; skip = 1; next }
	/^(\.\\"|<!--) END KEYS/ { skip = 0 }
	!skip { print }
' "$man" > "$tmp"
case "$mode" in
--update)
	if ! cmp -s "$tmp" "$man"; then
		cat "$tmp" > "$man"
		echo "man_keys: updated $man"
	fi
	;;
--check)
	cmp -s "$tmp" "$man" || { diff "$man" "$tmp" | head -20; exit 1; }
	;;
*)
	echo "usage: man_keys.sh --update|--check TL_BIN FILE" >&2
	exit 2
	;;
esac
