#!/bin/sh
# The layers, checked by #include: a file of src/MODULE/ includes headers of its own module and of
# modules below it, never of a module above it or beside it, so the code reads top-down:
#
#   main.c, static               the command line; the static build's built-in terminfo
#   report, ui                   what a user reads (text and JSON; the viewer)
#   query                        what report and ui ask of a loaded trace
#   load                         the loaders (each owns its file format)
#   profile, analysis            discovery of files and ranks; analyses over the model
#   model, gen                   the in-memory trace and its sources; the profile generator
#   util                         allocation, strings, times, messages
#
# docs/architecture.md explains the layers. libtl_core.a / libtl_ui.a enforce the report-ui
# split at link time as well (Makefile.am). Output is TAP, one line per module.
. "$TL_SRCDIR/tests/lib.sh"
src=$TL_SRCDIR/src

rank() {
	case $1 in
	util) echo 0 ;;
	model | gen) echo 1 ;;
	profile | analysis) echo 2 ;;
	load) echo 3 ;;
	query) echo 4 ;;
	report | ui) echo 5 ;;
	main | static) echo 6 ;; # static/: the static build's terminfo entries, linked into tl only
	*) echo "" ;;
	esac
}

for dir in "$src"/*/ "$src/main.c"; do
	case $dir in
	*/main.c) mod=main files=$dir ;;
	*) mod=$(basename "$dir") files=$(find "$dir" -name '*.[ch]' | LC_ALL=C sort) ;;
	esac
	mine=$(rank "$mod")
	if [ -z "$mine" ]; then
		not_ok "src/$mod/ has no place in the layers: add it to tests/check_layers.sh and docs/architecture.md"
		continue
	fi
	bad=""
	for f in $files; do
		# the module of every #include "module/file.h"
		for dep in $(sed -n 's|^#[ 	]*include[ 	]*"\([a-z_]*\)/[^"]*".*|\1|p' "$f" | sort -u); do
			[ "$dep" = "$mod" ] && continue
			theirs=$(rank "$dep")
			if [ -z "$theirs" ] || [ "$theirs" -ge "$mine" ]; then
				bad="$bad ${f#"$TL_SRCDIR"/}->$dep"
			fi
		done
	done
	if [ -z "$bad" ]; then
		ok "src/$mod includes only modules below it"
	else
		for b in $bad; do
			echo "# $b"
		done
		not_ok "src/$mod includes a module above or beside it:$bad"
	fi
done

# What the includes cannot see (query/ headers declare analysis/ and load/ types): the report and
# the viewer call no function of analysis/, load/ or profile/; they ask the query session. Read
# from the built objects' symbols.
obj=${TL_TESTBIN%/tests}/src
if ! command -v nm >/dev/null 2>&1 || ! ls "$obj"/analysis/*.o >/dev/null 2>&1; then
	skip "no nm or no built objects under $obj"
else
	nm -g --defined-only "$obj"/analysis/*.o "$obj"/load/*.o "$obj"/profile/*.o |
		awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | LC_ALL=C sort -u >"$t_tmp/lower"
	bad=""
	for o in "$obj"/report/*.o "$obj"/ui/*.o; do
		for s in $(nm -u "$o" | awk '{ print $NF }' | LC_ALL=C sort -u |
			LC_ALL=C comm -12 - "$t_tmp/lower"); do
			bad="$bad ${o#"$obj"/}:$s"
		done
	done
	if [ -z "$bad" ]; then
		ok "src/report and src/ui call no function of analysis/, load/ or profile/"
	else
		not_ok "src/report or src/ui calls below the query session:$bad"
	fi
fi
t_done
