#!/bin/sh
# "Verified once" stamps of the model cache: a cache file tl wrote or checked whole is not
# checked whole again while its stamp (in the user's own $XDG_CACHE_HOME/tl/verified) matches
# its fstat; a file changed in place (same size, mtime put back) is still caught by its ctime; a
# stamp directory others may write is not trusted, one that cannot be made means checking every
# time; the numbers are the same stamped, unstamped and without the cache; `tl cache --clear`
# and eviction remove stamps. TL_STATS counts the opens checked whole (cache_checked) and those
# a stamp vouched for (cache_stamped).
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/xdg"
CD="$t_tmp/xdg/tl/models"
SD="$t_tmp/xdg/tl/verified"
P=$t_tmp/db
if ! "$TLGEN" screens "$P" --ranks 3 --tasks 800 >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
nstamps() { find "$SD" -maxdepth 1 -name '*.stamp' 2>/dev/null | wc -l; }
# opens CHECKED STAMPED [ARGS]: one summary --json into got.json; its opens were as said
opens() {
	want_c=$1 want_s=$2
	shift 2
	TL_STATS=1 "$TL" summary "$P" --json "$@" >"$t_tmp/got.json" 2>"$t_tmp/err"
	grep '^stats:' "$t_tmp/err" >"$t_tmp/stats"
	sed -i '/^stats:/d' "$t_tmp/err"
	grep -q "cache_checked=$want_c cache_stamped=$want_s " "$t_tmp/stats"
}
same() { cmp -s "$t_tmp/want.json" "$t_tmp/got.json"; }

"$TL" summary "$P" --json --no-cache >"$t_tmp/want.json" 2>/dev/null

# ---- written: stamped at once ---------------------------------------------------------------
"$TL" index "$P" >/dev/null 2>&1
check "tl index stamps the three files it wrote" [ "$(nstamps)" -eq 3 ]
check "stamps live in a directory only the user may use (0700)" \
	[ "$(stat -c %a "$SD")" = 700 ]
"$TL" cache >"$t_tmp/out" 2>&1
check "tl cache counts them" grep -q '^verified: 3 files' "$t_tmp/out"
opens 0 3
rc=$?
check "a warm open reads all three on their stamps, checking none whole ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]
check "... and gives the numbers of the profile (summary --json byte-identical to --no-cache)" same

# ---- unstamped: checked whole, then stamped ---------------------------------------------------
rm -f "$SD"/*.stamp
sleep 2 # a ctime this recent is not stamped after a check: a write could still keep it
opens 3 0
rc=$?
check "without stamps each file is checked whole ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]
check "... the same numbers" same
opens 0 3
rc=$?
check "... and stamped: the next open checks none whole ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]
check "... the same numbers" same

# ---- touched for the LRU bound: the touch sets the ctime, and the stamp follows it ----------
for f in "$CD"/*.tlc; do touch -d '2001-01-01 00:00:00' "$f"; done
sleep 2
opens 3 0
rc=$?
check "files whose mtime was set are checked whole again (their ctime changed)" [ $rc -eq 0 ]
opens 0 3
rc=$?
check "... and once used (touched, restamped), the next open checks none whole ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]

# ---- changed in place: same size, same mtime, one byte flipped --------------------------------
f0=$(ls "$CD"/*.tlc | head -1)
size0=$(wc -c <"$f0")
touch -r "$f0" "$t_tmp/ref"
before=$(stat -c '%i %s %y' "$f0")
sleep 1 # a later ctime, even on a filesystem that counts whole seconds
printf 'X' | dd of="$f0" bs=1 seek=$((size0 / 2)) conv=notrunc 2>/dev/null
touch -r "$t_tmp/ref" "$f0"
check "the flipped file has its inode, size and mtime back" [ "$before" = "$(stat -c '%i %s %y' "$f0")" ]
opens 1 2
rc=$?
check "a stamped file changed in place is checked whole again ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]
check "... and its change is found (one line)" \
	sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q '$f0: cache file not used: its checksum does not match' '$t_tmp/err'"
check "... the same numbers" same

# ---- a stamp directory others may write is not trusted ----------------------------------------
rm -rf "$t_tmp/xdg"
"$TL" index "$P" >/dev/null 2>&1
chmod g+w "$SD"
opens 3 0
rc=$?
check "a group-writable stamp directory: its stamps are ignored ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]
check "... the same numbers, nothing said" sh -c "cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && [ ! -s '$t_tmp/err' ]"
chmod g-w,o+w "$SD"
opens 3 0
rc=$?
check "an other-writable one too" [ $rc -eq 0 ]
chmod o-w "$SD"
opens 0 3
rc=$?
check "the user's own again: trusted ($(cat "$t_tmp/stats"))" [ $rc -eq 0 ]

# ---- no stamp directory: every open checks the whole file, silently ----------------------------
mkdir -p "$t_tmp/nostamp/tl" && : >"$t_tmp/nostamp/tl/verified"
XDG_CACHE_HOME="$t_tmp/nostamp" "$TL" index "$P" --cache-dir "$t_tmp/mc" >/dev/null 2>&1
sleep 2
(export XDG_CACHE_HOME="$t_tmp/nostamp"; opens 3 0 --cache-dir "$t_tmp/mc")
check "a stamp directory that cannot be made: checked whole" [ $? -eq 0 ]
check "... the same numbers, nothing said" sh -c "cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && [ ! -s '$t_tmp/err' ]"
(export XDG_CACHE_HOME="$t_tmp/nostamp"; opens 3 0 --cache-dir "$t_tmp/mc")
check "... and again the next time" [ $? -eq 0 ]
env -u HOME -u XDG_CACHE_HOME TL_STATS=1 "$TL" summary "$P" --json --cache-dir "$t_tmp/mc" \
	>"$t_tmp/got.json" 2>"$t_tmp/err"
check "no HOME nor XDG_CACHE_HOME: checked whole, the same numbers" \
	sh -c "grep -q 'cache_checked=3 cache_stamped=0 ' '$t_tmp/err' && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"

# ---- --clear and eviction remove stamps --------------------------------------------------------
rm -rf "$t_tmp/xdg"
"$TL" index "$P" >/dev/null 2>&1
"$TL" index "$P" --cache-dir "$t_tmp/other" >/dev/null 2>&1
check "two directories, six stamps" [ "$(nstamps)" -eq 6 ]
"$TL" cache --clear >/dev/null 2>&1
check "tl cache --clear removes the stamps of its directory's files, not another's" [ "$(nstamps)" -eq 3 ]
"$TL" cache --cache-dir "$t_tmp/other" >"$t_tmp/out" 2>&1
check "tl cache --cache-dir counts that directory's" grep -q '^verified: 3 files' "$t_tmp/out"
# another profile's open evicts these (an open never evicts its own files)
rm -rf "$t_tmp/P2" && cp -r "$P" "$t_tmp/P2"
TL_CACHE_MAX=1 "$TL" index "$t_tmp/P2" --cache-dir "$t_tmp/other" >/dev/null 2>&1
check "eviction removes the stamps of the files it removes (3 left: the new files')" \
	[ "$(nstamps)" -eq 3 ]
t_done
