#!/bin/sh
# A shared cache is a trust boundary: another user's cache files never decide what tl shows.
# Run as two users (root, and `nobody` through runuser or setpriv): the other user's model
# files and stored results are skipped (one line says how many and whose) unless trusted
# with --trust-cache, TL_CACHE_TRUST or the config file; a crafted model file with a right
# checksum from an untrusted owner is not read; a stored result carrying an escape sequence
# and a bell never reaches the output; another user's file is never replaced or evicted; a
# directory untrusted users may write without the sticky bit is not used.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC
unset TL_CACHE_TRUST TL_CACHE_RESULTS TL_STATS TL_CACHE_MAX TL_SPILL

OTHER=nobody
if [ "$(id -u)" -ne 0 ]; then
	skip "not root: cannot run tl as a second user here (the test runs as root and nobody)"
	t_done
	exit 0
fi
if runuser -u "$OTHER" -- true 2>/dev/null; then
	as_other() { runuser -u "$OTHER" -- "$@"; }
elif setpriv --reuid="$OTHER" --regid="$(id -g "$OTHER")" --clear-groups true 2>/dev/null; then
	as_other() { setpriv --reuid="$OTHER" --regid="$(id -g "$OTHER")" --clear-groups "$@"; }
else
	skip "neither runuser nor setpriv can run a command as $OTHER"
	t_done
	exit 0
fi
OUID=$(id -u "$OTHER")
OGROUP=$(id -gn "$OTHER")
chmod 755 "$t_tmp" # the other user reads the profile and writes its cache under it
if ! as_other "$TL" --version >/dev/null 2>&1; then
	skip "$OTHER cannot run $TL (a build tree others cannot read)"
	t_done
	exit 0
fi

P="$t_tmp/p" Q="$t_tmp/q"
if ! "$TLGEN" rl "$P" --ranks 2 --tasks 400 >/dev/null 2>&1 ||
	! "$TLGEN" rl "$Q" --ranks 2 --tasks 300 >/dev/null 2>&1; then
	not_ok "generate the fixtures"
	t_done
	exit 1
fi
chmod -R a+rX "$P" "$Q"
OH="$t_tmp/other-home" MH="$t_tmp/my-home" S="$t_tmp/shared"
mkdir -p "$OH" "$MH/config/tl" && chown "$OTHER" "$OH" && chmod 700 "$OH"
mkdir -m 1777 "$S" # as /tmp: anyone writes, nobody touches another's files
# oth ARGS: tl as the other user; me ARGS: tl as root, each with a home of its own
oth() { as_other env XDG_CACHE_HOME="$OH/cache" XDG_CONFIG_HOME="$OH/config" "$TL" "$@"; }
me() { env XDG_CACHE_HOME="$MH/cache" XDG_CONFIG_HOME="$MH/config" "$TL" "$@"; }
# the answers: the profile read without any cache
me summary "$P" --no-cache >"$t_tmp/want.txt" 2>/dev/null
me summary "$P" --json --no-cache >"$t_tmp/want.json" 2>/dev/null
me summary "$Q" --json --no-cache >"$t_tmp/wantq.json" 2>/dev/null
# theirs DIR: the other user's files there (name, inode, size, mtime), to see they never change
theirs() { find "$1" -maxdepth 1 -type f -user "$OTHER" -printf '%f %i %s %T@\n' | sort; }
mine() { find "$1" -maxdepth 1 -type f -user root -name "${2:-*}" | wc -l; }
# cache reads in a run's TL_STATS line: files checked whole plus those a stamp vouched for
reads() { sed -n 's/.*cache_checked=\([0-9]*\) cache_stamped=\([0-9]*\).*/\1 \2/p' "$1" | awk '{print $1 + $2}'; }
IGN="ignored 2 cache files owned by uid $OUID ($OTHER): not trusted; see --trust-cache"

oth index "$P" --cache-dir "$S" >/dev/null 2>&1
check "the other user indexed 2 files into the shared directory" [ "$(theirs "$S" | wc -l)" -eq 2 ]
theirs "$S" >"$t_tmp/before"

# ---- another user's files: skipped by default, read when trusted --------------------------------
TL_STATS=1 me summary "$P" --json --cache-dir "$S" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "root by default reads none of the other user's files ($(reads "$t_tmp/err") read)" \
	sh -c "[ '$(reads "$t_tmp/err")' = 0 ] && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
check "... and says so in one line: how many, whose" \
	sh -c "[ \$(grep -c '^tl: ' '$t_tmp/err') -eq 1 ] && grep -qF 'tl: $S: $IGN' '$t_tmp/err'"
sed 's/^/# /' "$t_tmp/err"
check "... writing its own files beside them under new names" [ "$(mine "$S" "*.u0.tlc")" -eq 2 ]
theirs "$S" >"$t_tmp/after"
check "... the other user's files untouched" cmp -s "$t_tmp/before" "$t_tmp/after"
me summary "$P" --json --cache-dir "$S" >/dev/null 2>"$t_tmp/err"
check "the next run reads root's own files, quietly" [ ! -s "$t_tmp/err" ]

rm -f "$S"/*.u0.* # root's own: now only the other user's serve
TL_STATS=1 me summary "$P" --json --cache-dir "$S" --trust-cache "$OTHER" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "--trust-cache $OTHER: their 2 files are read, the same numbers" \
	sh -c "[ '$(reads "$t_tmp/err")' = 2 ] && cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && ! grep -q ignored '$t_tmp/err'"
check "... and root writes none of its own" [ "$(mine "$S" "*.tlc")" -eq 0 ]
TL_STATS=1 TL_CACHE_TRUST=$OUID me summary "$P" --json --cache-dir "$S" >/dev/null 2>"$t_tmp/err"
check "TL_CACHE_TRUST=$OUID (a uid) reads them" [ "$(reads "$t_tmp/err")" = 2 ]
TL_STATS=1 me summary "$P" --json --cache-dir "$S" --trust-cache "bin,@$OGROUP" >/dev/null 2>"$t_tmp/err"
check "--trust-cache bin,@$OGROUP (their group) reads them" [ "$(reads "$t_tmp/err")" = 2 ]
TL_STATS=1 TL_CACHE_TRUST=$OTHER me summary "$P" --json --cache-dir "$S" --trust-cache bin >/dev/null 2>"$t_tmp/err"
check "--trust-cache wins over TL_CACHE_TRUST" [ "$(reads "$t_tmp/err")" = 0 ]
rm -f "$S"/*.u0.*
printf '# whose cache files to read\ntrust-cache %s\n' "$OTHER" >"$MH/config/tl/config"
TL_STATS=1 me summary "$P" --json --cache-dir "$S" >/dev/null 2>"$t_tmp/err"
check "a trust-cache line in \$XDG_CONFIG_HOME/tl/config reads them" \
	sh -c "[ '$(reads "$t_tmp/err")' = 2 ] && ! grep -q '^tl: ' '$t_tmp/err'"
chmod g+w "$MH/config/tl/config"
TL_STATS=1 me summary "$P" --json --cache-dir "$S" >/dev/null 2>"$t_tmp/err"
check "... a config file others may write is not obeyed, and says so" \
	sh -c "[ '$(reads "$t_tmp/err")' = 0 ] && grep -q 'tl: $MH/config/tl/config: not trusted' '$t_tmp/err'"
rm -f "$MH/config/tl/config" "$S"/*.u0.*
me summary "$P" --cache-dir "$S" --trust-cache no-such-user-tl >/dev/null 2>"$t_tmp/err"
check "--trust-cache with no such user or group: exit 1, one line" \
	sh -c "[ $? -eq 1 ] && grep -qx \"tl: --trust-cache: no user or group named 'no-such-user-tl'\" '$t_tmp/err'"

me cache --cache-dir "$S" >"$t_tmp/out" 2>&1
check "tl cache shows the other owner, not trusted" \
	grep -qx "owner: uid $OUID ($OTHER): 2 files, 0 stored results, [0-9]* bytes: not trusted, not read" "$t_tmp/out"
me cache --cache-dir "$S" --trust-cache "$OTHER" >"$t_tmp/out" 2>&1
check "... and trusted with --trust-cache" \
	grep -qx "owner: uid $OUID ($OTHER): 2 files, 0 stored results, [0-9]* bytes: trusted (--trust-cache)" "$t_tmp/out"
sed 's/^/# /' "$t_tmp/out"

# ---- a crafted model file with a right checksum ---------------------------------------------------
# One of the other user's files with an overlap lane changed and its checksum made right (from
# its definition in cache_write.c): valid to anyone who checks only the checksum.
f0=$(find "$S" -maxdepth 1 -user "$OTHER" -name '*.tlc' | sort | head -1)
cp -p "$f0" "$t_tmp/good0"
if command -v python3 >/dev/null; then
	python3 "$TL_SRCDIR/tests/golden/cache_forge.py" lane "$f0"
	TL_STATS=1 me summary "$P" --json --cache-dir "$S" >"$t_tmp/got.json" 2>"$t_tmp/err"
	check "a crafted file of an untrusted owner is not read: no check sees it, right numbers" \
		sh -c "[ '$(reads "$t_tmp/err")' = 0 ] && ! grep -q 'overlap lanes' '$t_tmp/err' && grep -qF '$IGN' '$t_tmp/err' && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
	rm -f "$S"/*.u0.*
	me summary "$P" --json --cache-dir "$S" --trust-cache "$OTHER" >"$t_tmp/got.json" 2>"$t_tmp/err"
	check "... trusted, it is read (and its lanes refused): the same file is what was skipped" \
		sh -c "grep -qF '$f0: cache file not used: its overlap lanes are not those its slices make' '$t_tmp/err' && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
	check "... and root rebuilt it under its own name, the other user's file left as it was" \
		sh -c "[ -f '${f0%.tlc}.u0.tlc' ] && [ \$(stat -c %U '$f0') = '$OTHER' ] && ! cmp -s '$f0' '$t_tmp/good0'"
else
	skip "python3 absent: no crafted model file"
	skip "python3 absent"
	skip "python3 absent"
fi
cp -p "$t_tmp/good0" "$f0"
rm -f "$S"/*.u0.*

# ---- a stored result carrying an escape sequence and a bell ---------------------------------------
oth summary "$P" --cache-dir "$S" >/dev/null 2>&1
# (its output, not the critical path's binary part beside it, which starts with "tlcp")
r=$(find "$S" -maxdepth 1 -user "$OTHER" -name '*.tlr' -exec grep -L tlcp {} + | head -1)
check "the other user stored a result" [ -n "$r" ]
# forge R: its stdout gets ESC[31m ... BEL, sizes and checksum made right (cache_result.c's
# format: a 40-byte header, key, kind, status, stdout, stderr; the checksum cache_checksum's
# over the body: 8-byte words round-robin to 8 lanes, each a multiply-xorshift)
forge() {
	python3 "$TL_SRCDIR/tests/golden/cache_forge.py" result "$1"
}
# raw FILE...: lines holding an ESC or a BEL byte
raw() { grep -ac "$(printf '\033')\|$(printf '\007')" "$@" | awk -F: '{s += $NF} END {print s + 0}'; }
if command -v python3 >/dev/null && [ -n "$r" ]; then
	forge "$r"
	check "the forged file holds the escape and the bell (what the checks below look for)" \
		[ "$(raw "$r")" -gt 0 ]
	oth summary "$P" --cache-dir "$S" >"$t_tmp/o" 2>"$t_tmp/e"
	check "the forged result is refused as spoiled even by its owner, never printed" \
		sh -c "[ $(raw "$t_tmp/o" "$t_tmp/e") -eq 0 ] && grep -qF '$r: stored result not used: it holds bytes tl never prints' '$t_tmp/e' && cmp -s '$t_tmp/want.txt' '$t_tmp/o'"
	forge "$r"
	me summary "$P" --cache-dir "$S" >"$t_tmp/o" 2>"$t_tmp/e"
	check "root by default: no raw escape or bell, the right output" \
		sh -c "[ $(raw "$t_tmp/o" "$t_tmp/e") -eq 0 ] && cmp -s '$t_tmp/want.txt' '$t_tmp/o' && grep -q 'ignored .* owned by uid $OUID' '$t_tmp/e'"
	me summary "$P" --cache-dir "$S" >"$t_tmp/o" 2>"$t_tmp/e"
	check "... the run after prints root's own stored result, quietly (the line is not replayed)" \
		sh -c "[ ! -s '$t_tmp/e' ] && cmp -s '$t_tmp/want.txt' '$t_tmp/o' && [ -f '${r%.tlr}.u0.tlr' ]"
	rm -f "$S"/*.u0.*
	# the same command line as theirs (a result's key holds it): trust from the environment
	TL_CACHE_TRUST=$OTHER me summary "$P" --cache-dir "$S" >"$t_tmp/o" 2>"$t_tmp/e"
	check "root trusting $OTHER: the result is refused as spoiled, never printed" \
		sh -c "[ $(raw "$t_tmp/o" "$t_tmp/e") -eq 0 ] && cmp -s '$t_tmp/want.txt' '$t_tmp/o' && grep -qF 'stored result not used: it holds bytes tl never prints' '$t_tmp/e'"
	sed 's/^/# /' "$t_tmp/e"
	check "... and its own result went under its own name, theirs left" \
		sh -c "[ -f '${r%.tlr}.u0.tlr' ] && [ \$(stat -c %U '$r') = '$OTHER' ]"
	TL_CACHE_TRUST=$OTHER me summary "$P" --cache-dir "$S" >"$t_tmp/o" 2>"$t_tmp/e"
	check "... which the next run prints, quietly" sh -c "[ ! -s '$t_tmp/e' ] && cmp -s '$t_tmp/want.txt' '$t_tmp/o'"
else
	skip "python3 absent: no forged result"
	skip "python3 absent"
	skip "python3 absent"
	skip "python3 absent"
	skip "python3 absent"
	skip "python3 absent"
	skip "python3 absent"
fi
rm -f "$S"/*.u0.*

# ---- eviction and --clear remove only the user's own files ----------------------------------------
oth index "$Q" --cache-dir "$S" >/dev/null 2>&1
theirs "$S" >"$t_tmp/before"
me index "$P" --cache-dir "$S" >/dev/null 2>&1
check "root indexed P beside them (its own 2 files)" [ "$(mine "$S" "*.tlc")" -eq 2 ]
TL_CACHE_MAX=1 me summary "$Q" --json --cache-dir "$S" >"$t_tmp/got.json" 2>/dev/null
check "a bound of 1 byte: root's files of P evicted, its files of Q kept" \
	sh -c "[ \$(find '$S' -maxdepth 1 -user root -name '*.tlc' | wc -l) -eq 2 ] && cmp -s '$t_tmp/wantq.json' '$t_tmp/got.json'"
check "... and not one of the other user's files removed or changed" \
	sh -c "find '$S' -maxdepth 1 -type f -user '$OTHER' -printf '%f %i %s %T@\n' | sort | cmp -s - '$t_tmp/before'"
me cache --clear --cache-dir "$S" >"$t_tmp/out" 2>&1
check "tl cache --clear removes root's own, leaves the other user's and says so" \
	sh -c "[ $(mine "$S") -eq 0 ] && grep -qx 'left [0-9]* files of other users (never removed)' '$t_tmp/out' && find '$S' -maxdepth 1 -type f -user '$OTHER' -printf '%f %i %s %T@\n' | sort | cmp -s - '$t_tmp/before'"

# ---- the directory -----------------------------------------------------------------------------
W="$t_tmp/open"
mkdir -m 777 "$W"
me summary "$P" --json --cache-dir "$W" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "a directory anyone may write without the sticky bit is not used: one line" \
	sh -c "grep -qF 'tl: $W: not used as the model cache, not trusted: every user may write it' '$t_tmp/err' && [ \$(wc -l <'$t_tmp/err') -eq 1 ] && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
check "... nothing written there" [ -z "$(ls -A "$W")" ]
chmod +t "$W"
me summary "$P" --json --cache-dir "$W" >/dev/null 2>"$t_tmp/err"
check "... with the sticky bit it is used" sh -c "[ ! -s '$t_tmp/err' ] && [ \$(ls '$W' | grep -c 'tlc\$') -eq 2 ]"
G="$t_tmp/group"
mkdir -m 770 "$G" && chgrp "$OGROUP" "$G"
me summary "$P" --json --cache-dir "$G" >/dev/null 2>"$t_tmp/err"
check "a directory group $OGROUP may write is not used" grep -qF "group $OGROUP may write it" "$t_tmp/err"
me summary "$P" --json --cache-dir "$G" --trust-cache "@$OGROUP" >/dev/null 2>"$t_tmp/err"
check "... unless that group is trusted" sh -c "[ ! -s '$t_tmp/err' ] && [ \$(ls '$G' | grep -c 'tlc\$') -eq 2 ]"
t_done
