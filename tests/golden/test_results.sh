#!/bin/sh
# Stored results: `tl summary` over unchanged inputs prints the output it stored, byte for byte
# what it prints without the cache, without opening a profile or a rank's model file; anything
# that could change the output (the inputs, the command line, the stage rules, the environment)
# is a miss; a spoiled result file is named in one line and computed again.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/xdg"
CD="$t_tmp/xdg/tl/models"
unset TL_CACHE_RESULTS TL_STATS

P="$t_tmp/rl"
if ! "$TLGEN" rl "$P" --ranks 2 --tasks 400 >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
nres() { find "$1" -maxdepth 1 -name '*.tlr' 2>/dev/null | wc -l; }
# opened FILE [EXT]: how many rank model files (or files named *EXT) a traced run opened;
# discovery opens every profile's data file to see what it is, whatever the cache holds
opened() { grep -E "open(at)?\\(.*\\${2:-.tlc}\"" "$1" | grep -vc ENOENT; }
have_strace=0
strace -f -o /dev/null true 2>/dev/null && have_strace=1
# st ARGS: strace ARGS; LeakSanitizer cannot run under ptrace (a sanitized tl would die at exit)
st() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"; }

"$TL" summary "$P" --json --no-cache >"$t_tmp/none.json" 2>"$t_tmp/none.err"
"$TL" summary "$P" --no-cache >"$t_tmp/none.txt" 2>/dev/null
check "--no-cache stores no result" [ "$(nres "$CD")" -eq 0 ]
"$TL" summary "$P" --json >"$t_tmp/cold.json" 2>"$t_tmp/cold.err"
# (and, one more, the critical path it computed: tl critical and the text summary share it)
check "a summary that wrote the cache stores its result and its path" [ "$(nres "$CD")" -eq 2 ]
"$TL" summary "$P" --json >"$t_tmp/warm.json" 2>"$t_tmp/warm.err"
check "the stored result is byte-identical to the output without the cache" \
	sh -c "cmp -s '$t_tmp/none.json' '$t_tmp/cold.json' && cmp -s '$t_tmp/none.json' '$t_tmp/warm.json' && [ -s '$t_tmp/none.json' ]"
check "... and says what it said on stderr" \
	sh -c "cmp -s '$t_tmp/none.err' '$t_tmp/cold.err' && cmp -s '$t_tmp/none.err' '$t_tmp/warm.err'"
if [ $have_strace -eq 1 ]; then
	st -f -e trace=open,openat -o "$t_tmp/trace" "$TL" summary "$P" --json >/dev/null 2>&1
	check "a stored result opens no rank's model ($(opened "$t_tmp/trace")), one result" \
		sh -c "[ $(opened "$t_tmp/trace") -eq 0 ] && [ $(opened "$t_tmp/trace" .tlr) -eq 1 ]"
	st -f -e trace=open,openat -o "$t_tmp/trace" env TL_CACHE_RESULTS=0 "$TL" summary "$P" --json >/dev/null 2>&1
	check "TL_CACHE_RESULTS=0 maps the rank models instead ($(opened "$t_tmp/trace") files)" \
		[ "$(opened "$t_tmp/trace")" -eq 2 ]
else
	skip "no strace: cannot see which files a stored result opens"
	skip "no strace"
fi

# ---- what makes a miss -------------------------------------------------------------------------
"$TL" summary "$P" >"$t_tmp/cold.txt" 2>/dev/null
"$TL" summary "$P" >"$t_tmp/warm.txt" 2>/dev/null
check "the text summary is a result of its own, the same as without the cache" \
	sh -c "[ $(nres "$CD") -eq 3 ] && cmp -s '$t_tmp/none.txt' '$t_tmp/cold.txt' && cmp -s '$t_tmp/none.txt' '$t_tmp/warm.txt'"
"$TL" summary "$P" --json --rank 1 >"$t_tmp/r1.json" 2>/dev/null
"$TL" summary "$P" --json --rank 1 --no-cache >"$t_tmp/r1none.json" 2>/dev/null
check "another --rank is another result" \
	sh -c "cmp -s '$t_tmp/r1.json' '$t_tmp/r1none.json' && ! cmp -s '$t_tmp/r1.json' '$t_tmp/none.json'"

# the stage rules: a user file that names the rollout stage differently
mkdir -p "$XDG_CONFIG_HOME/tl"
printf 'other:genseq ^generate_sequences$\n' >"$XDG_CONFIG_HOME/tl/stages"
"$TL" summary "$P" --json >"$t_tmp/rules.json" 2>/dev/null
"$TL" summary "$P" --json --no-cache >"$t_tmp/rulesnone.json" 2>/dev/null
check "a changed stage rules file is a miss: the output follows the rules" \
	sh -c "cmp -s '$t_tmp/rules.json' '$t_tmp/rulesnone.json' && ! cmp -s '$t_tmp/rules.json' '$t_tmp/none.json' && grep -q genseq '$t_tmp/rules.json'"
rm "$XDG_CONFIG_HOME/tl/stages"
"$TL" summary "$P" --json >"$t_tmp/back.json" 2>/dev/null
check "... and without it the first result again" cmp -s "$t_tmp/back.json" "$t_tmp/none.json"

# an input touched: its identity changed, so the ranks are read again and stored anew
db=$(find "$P" -name '*.db' | head -1)
touch -d '2031-01-01 00:00:00' "$db"
if [ $have_strace -eq 1 ]; then
	st -f -e trace=open,openat -o "$t_tmp/trace" "$TL" summary "$P" --json >"$t_tmp/touched.json" 2>/dev/null
	check "a touched input is a miss: its rank is read again" [ "$(opened "$t_tmp/trace" .db)" -gt 2 ]
else
	"$TL" summary "$P" --json >"$t_tmp/touched.json" 2>/dev/null
	skip "no strace"
fi
check "... with the same numbers" cmp -s "$t_tmp/touched.json" "$t_tmp/none.json"

# ---- spoiled result files ---------------------------------------------------------------------
"$TL" summary "$P" --json >/dev/null 2>&1
f=$(ls -t "$CD"/*.tlr | head -1)
cp "$f" "$t_tmp/good"
size=$(wc -c <"$f")
# spoiled NAME WHAT: f was spoiled; the next summary names it in one line, prints the right
# output, and stores it again (the run after is quiet)
spoiled() {
	"$TL" summary "$P" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
	rc=$?
	check "$1: exit 0, the same output" sh -c "[ $rc -eq 0 ] && cmp -s '$t_tmp/none.json' '$t_tmp/got.json'"
	check "$1: one line names the file and says $2" \
		sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q '$f: stored result not used: $2.*; computing it again\$' '$t_tmp/err'"
	sed 's/^/# /' "$t_tmp/err"
	"$TL" summary "$P" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
	check "$1: stored again (the next run is quiet and right)" \
		sh -c "[ ! -s '$t_tmp/err' ] && cmp -s '$t_tmp/none.json' '$t_tmp/got.json'"
	cp "$t_tmp/good" "$f"
}
printf 'X' | dd of="$f" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
spoiled "one byte changed" "its checksum does not match"
head -c $((size / 2)) "$t_tmp/good" >"$f"
spoiled "truncated" "truncated or extended"
printf 'NOTARSLT' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
spoiled "another kind of file" "not a tl result file"
printf '\011' | dd of="$f" bs=1 seek=8 conv=notrunc 2>/dev/null
spoiled "another format version" "written by another version of tl"
# another command's result under this one's name: its key differs, so it is a miss, silently
other=$(ls -t "$CD"/*.tlr | sed -n 2p)
cp "$other" "$f"
"$TL" summary "$P" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
check "another result under its name: the right output, nothing said" \
	sh -c "cmp -s '$t_tmp/none.json' '$t_tmp/got.json' && [ ! -s '$t_tmp/err' ]"

# ---- when no result is stored ----------------------------------------------------------------
rm -rf "$t_tmp/xdg"
TL_CACHE_RESULTS=0 "$TL" summary "$P" --json >/dev/null 2>&1
check "TL_CACHE_RESULTS=0 stores no output, only the critical path that belongs to the model (the ranks are cached)" \
	sh -c "[ $(nres "$CD") -eq 1 ] && [ \$(ls '$CD' | grep -c '\.tlc\$') -gt 0 ]"
if [ "$(id -u)" -ne 0 ]; then
	chmod a-w "$CD"
	"$TL" summary "$P" --json >"$t_tmp/ro.json" 2>/dev/null
	check "a read-only cache directory: no result, the same output" \
		sh -c "[ $(nres "$CD") -eq 0 ] && cmp -s '$t_tmp/ro.json' '$t_tmp/none.json'"
	chmod u+w "$CD"
else
	skip "running as root: a read-only directory is writable"
fi
# two summaries at once into one directory: both right, one result, no temporary file left
rm -rf "$t_tmp/xdg"
"$TL" summary "$P" --json >"$t_tmp/a.json" 2>/dev/null &
"$TL" summary "$P" --json >"$t_tmp/b.json" 2>/dev/null
wait
"$TL" summary "$P" --json >"$t_tmp/c.json" 2>/dev/null
check "two summaries at once: both right, then the stored one" \
	sh -c "cmp -s '$t_tmp/a.json' '$t_tmp/none.json' && cmp -s '$t_tmp/b.json' '$t_tmp/none.json' && cmp -s '$t_tmp/c.json' '$t_tmp/none.json'"
check "... no temporary file is left" [ "$(ls -A "$CD" | grep -c '^\.tmp-')" -eq 0 ]
"$TL" cache --clear >"$t_tmp/out" 2>&1
check "tl cache --clear removes the stored results" \
	sh -c "grep -q 'and 2 stored results' '$t_tmp/out' && [ $(nres "$CD") -eq 0 ]"
t_done
