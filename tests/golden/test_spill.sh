#!/bin/sh
# The viewer's --no-cache spills its ranks (each written in the cache format to a file with no
# name and mapped back): the --stats file counts them; nothing is left in the cache directory,
# no stamp and no stored result, and a later open finds no cache; the screens are the ones a
# viewer keeping its ranks in memory draws; TL_SPILL=0 keeps them in memory; a directory that
# cannot be written falls back to $TMPDIR, and with none to memory after one warning line; a
# JSON trace's counter lanes (read with its slices) survive the spill.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/xdg"
unset TL_SPILL TMPDIR
# a tmpfs is refused (tests/unit/store/test_spill); a test directory on one is used all the same
[ "$(stat -f -c %T "$t_tmp" 2>/dev/null)" = tmpfs ] && export TL_TEST_SPILL_ANY_FS=1

if ! "$TLGEN" screens "$t_tmp/p" --ranks 3 --tasks 800 >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
printf 'j\nj\nj\n<Enter>\n:dump %s\n+\n+\n<Right>\n:dump %s\n:quit\n' \
	"$t_tmp/screen.1" "$t_tmp/screen.2" >"$t_tmp/keys"
# view NAME [ARGS...]: the viewer on the script, its screens as NAME.1 and NAME.2, its stderr
# as NAME.err, its --stats as NAME.stats
view() {
	n=$1
	shift
	rm -f "$t_tmp/screen.1" "$t_tmp/screen.2"
	"$TL" view "$t_tmp/p" --script "$t_tmp/keys" --size 120x40 --stats "$t_tmp/$n.stats" "$@" \
		>/dev/null 2>"$t_tmp/$n.err"
	echo $? >"$t_tmp/$n.rc"
	mv "$t_tmp/screen.1" "$t_tmp/$n.1" 2>/dev/null
	mv "$t_tmp/screen.2" "$t_tmp/$n.2" 2>/dev/null
}
spilled() { sed -n 's/^spilled_ranks //p' "$t_tmp/$1.stats"; }
same_screens() { cmp -s "$t_tmp/mem.1" "$t_tmp/$1.1" && cmp -s "$t_tmp/mem.2" "$t_tmp/$1.2"; }
entries() { find "$1" -mindepth 1 2>/dev/null | wc -l; }

TL_SPILL=0 view mem --no-cache
check "TL_SPILL=0: every rank stays in memory (spilled_ranks $(spilled mem))" [ "$(spilled mem)" = 0 ]
check "TL_SPILL=0: nothing is written, not even the directory" [ ! -e "$t_tmp/xdg" ]
check "the screens drawn" sh -c "[ -s '$t_tmp/mem.1' ] && [ -s '$t_tmp/mem.2' ]"

view spill --no-cache
check "--no-cache: every rank spilled (spilled_ranks $(spilled spill))" [ "$(spilled spill)" = 3 ]
check "--no-cache: nothing said, status 0" sh -c "[ ! -s '$t_tmp/spill.err' ] && [ \"\$(cat '$t_tmp/spill.rc')\" = 0 ]"
check "--no-cache: the same screens as with the ranks in memory" same_screens spill
check "--no-cache: nothing left in the cache directory ($(entries "$t_tmp/xdg/tl/models") entries)" \
	[ "$(entries "$t_tmp/xdg/tl/models")" -eq 0 ]
check "--no-cache: no stamp, no stored result (only the empty directory: $(find "$t_tmp/xdg" | tr '\n' ' '))" \
	[ "$(find "$t_tmp/xdg" -type f | wc -l)" -eq 0 ]
TL_STATS=1 "$TL" summary "$t_tmp/p" --json 2>&1 >/dev/null | grep '^stats:' >"$t_tmp/stats.after"
check "a later open finds no cache file ($(cat "$t_tmp/stats.after"))" \
	grep -q 'cache_checked=0 cache_stamped=0 source_opens=[1-9]' "$t_tmp/stats.after"
"$TL" view "$t_tmp/p" --script "$t_tmp/keys" --size 120x40 >/dev/null 2>&1
view warm
check "the viewer with a cache spills nothing (spilled_ranks $(spilled warm))" [ "$(spilled warm)" = 0 ]
check "and draws the same screens" same_screens warm

mkdir "$t_tmp/cd" "$t_tmp/tmpdir"
view dir --no-cache --cache-dir "$t_tmp/cd"
check "--cache-dir: spilled there (spilled_ranks $(spilled dir)), nothing left" \
	sh -c "[ '$(spilled dir)' = 3 ] && [ \"\$(find '$t_tmp/cd' -mindepth 1 | wc -l)\" -eq 0 ]"

: >"$t_tmp/afile"
TMPDIR="$t_tmp/tmpdir" view tmp --no-cache --cache-dir "$t_tmp/afile/sub"
check "a cache directory that cannot be made: \$TMPDIR instead (spilled_ranks $(spilled tmp)), silently" \
	sh -c "[ '$(spilled tmp)' = 3 ] && [ ! -s '$t_tmp/tmp.err' ]"
check "nothing left in \$TMPDIR" [ "$(entries "$t_tmp/tmpdir")" -eq 0 ]
check "the same screens" same_screens tmp

TMPDIR="$t_tmp/afile" view none --no-cache --cache-dir "$t_tmp/afile/sub"
check "nowhere to spill: the ranks stay in memory (spilled_ranks $(spilled none)), status $(cat "$t_tmp/none.rc")" \
	sh -c "[ '$(spilled none)' = 0 ] && [ \"\$(cat '$t_tmp/none.rc')\" = 0 ]"
check "in one warning line ($(head -1 "$t_tmp/none.err"))" \
	sh -c "[ \"\$(wc -l <'$t_tmp/none.err')\" -eq 1 ] && grep -q 'cannot spill ranks to a file here (.*); they stay in memory' '$t_tmp/none.err'"
check "the same screens" same_screens none

# a JSON trace reads its counters with its slices: a spilled rank keeps them
if "$TLGEN" screens "$t_tmp/pj" --ranks 2 --tasks 3000 --seed 7 --memory --json >/dev/null 2>&1; then
	find "$t_tmp/pj" -name '*.db' -exec rm {} +
	printf 'U\n:lanes HBM|DDR|freq\n:zoom 0ms 100ms\n:dump %s\n:quit\n' "$t_tmp/ctr" >"$t_tmp/ckeys"
	for m in 0 1; do
		TL_SPILL=$m "$TL" view "$t_tmp/pj" --no-cache --script "$t_tmp/ckeys" --size 120x40 \
			--stats "$t_tmp/ctr.stats" >/dev/null 2>&1
		sed -n '3,7p' "$t_tmp/ctr" >"$t_tmp/ctr.$m"
	done
	check "a spilled JSON trace (spilled_ranks $(spilled ctr)) draws the counter lanes it draws in memory" \
		sh -c "[ '$(spilled ctr)' = 2 ] && grep -q 'AI Core freq' '$t_tmp/ctr.0' && cmp -s '$t_tmp/ctr.0' '$t_tmp/ctr.1'"
else
	not_ok "generate the JSON fixture with counters"
fi

# tl summary --no-cache neither spills nor writes (it frees as it goes)
rm -rf "$t_tmp/xdg"
"$TL" summary "$t_tmp/p" --json --no-cache >"$t_tmp/none.json" 2>/dev/null
"$TL" summary "$t_tmp/p" --json >"$t_tmp/cached.json" 2>/dev/null
check "tl summary --json: the same bytes with and without the cache" \
	sh -c "[ -s '$t_tmp/none.json' ] && cmp -s '$t_tmp/none.json' '$t_tmp/cached.json'"
t_done
