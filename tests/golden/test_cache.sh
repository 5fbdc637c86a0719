#!/bin/sh
# The model cache: `tl summary --json` byte-identical with and without it (samples and generated
# profiles), hits and misses, invalidation when an input is touched, --no-cache, --cache-dir,
# a cache directory tl cannot write, several `tl index` at once into one directory, the LRU
# bound, `tl cache`, and hostile cache files (each named in one line, rebuilt, same numbers).
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/xdg"
CD="$t_tmp/xdg/tl/models"

if ! "$TLGEN" screens "$t_tmp/both" --ranks 3 --tasks 800 --json >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
cp -r "$t_tmp/both" "$t_tmp/json" && find "$t_tmp/json" -name '*.db' -exec rm {} +
# pipeline-parallel: its layout from each DB's META_DATA distributed_args; launch delays vary
"$TLGEN" rl "$t_tmp/ppmeta" --ranks 4 --tasks 600 --pp 2 --microbatches 4 --jitter --host-ops \
	>/dev/null 2>&1 || not_ok "generate the pipeline-parallel fixture"
find "$t_tmp/both" -name trace_view.json -exec rm {} +
mv "$t_tmp/both" "$t_tmp/db"

nfiles() { find "$1" -maxdepth 1 -name '*.tlc' ! -name '.tmp-*' 2>/dev/null | wc -l; }
ntmp() { find "$1" -maxdepth 1 -name '.tmp-*' 2>/dev/null | wc -l; }

# ---- the same output without the cache, writing it, and reading it ------------------------
profiles="$t_tmp/db $t_tmp/json $t_tmp/ppmeta"
for s in ascend-db/level0 ascend-db/level2 ascend-text kineto; do
	[ -d "$SAMPLES/$s" ] && profiles="$profiles $SAMPLES/$s"
done
for p in $profiles; do
	name=${p#"$t_tmp/"}
	name=${name#"$SAMPLES/"}
	rm -rf "$t_tmp/xdg"
	"$TL" summary "$p" --json --no-cache >"$t_tmp/none.json" 2>"$t_tmp/none.err"
	check "$name: --no-cache writes no cache file" [ "$(nfiles "$CD")" -eq 0 ]
	"$TL" summary "$p" --json >"$t_tmp/cold.json" 2>"$t_tmp/cold.err"
	n=$(nfiles "$CD")
	check "$name: a cold open writes one file per rank ($n)" [ "$n" -gt 0 ]
	"$TL" summary "$p" --json >"$t_tmp/warm.json" 2>"$t_tmp/warm.err"
	# the stored result (test_results.sh) served that one; this one reads the mapped ranks
	TL_CACHE_RESULTS=0 "$TL" summary "$p" --json >"$t_tmp/mapped.json" 2>"$t_tmp/mapped.err"
	# a warm open reads none of the profile's files: every table the summary shows is in the
	# cache (the cold open, without one, reads them all)
	TL_STATS=1 "$TL" summary "$p" --json 2>&1 >/dev/null | grep '^stats:' >"$t_tmp/stats.warm"
	TL_STATS=1 "$TL" summary "$p" --json --no-cache 2>&1 >/dev/null | grep '^stats:' >"$t_tmp/stats.none"
	check "$name: a warm summary --json opens no data file ($(sed -n 's/.*source_opens=\([0-9]*\).*/\1/p' "$t_tmp/stats.warm"); without the cache $(sed -n 's/.*source_opens=\([0-9]*\).*/\1/p' "$t_tmp/stats.none"))" \
		sh -c "grep -q 'source_opens=0 ' '$t_tmp/stats.warm' && ! grep -q 'source_opens=0 ' '$t_tmp/stats.none'"
	"$TL" summary "$p" >"$t_tmp/warm.txt" 2>/dev/null
	"$TL" summary "$p" --no-cache >"$t_tmp/none.txt" 2>/dev/null
	TL_CACHE_RESULTS=0 "$TL" summary "$p" >"$t_tmp/mapped.txt" 2>/dev/null
	check "$name: summary --json is byte-identical cold, warm (stored and mapped) and without the cache" \
		sh -c "cmp -s '$t_tmp/none.json' '$t_tmp/cold.json' && cmp -s '$t_tmp/none.json' '$t_tmp/warm.json' && cmp -s '$t_tmp/none.json' '$t_tmp/mapped.json' && [ -s '$t_tmp/none.json' ]"
	check "$name: the text summary too" sh -c "cmp -s '$t_tmp/none.txt' '$t_tmp/warm.txt' && cmp -s '$t_tmp/none.txt' '$t_tmp/mapped.txt'"
	check "$name: the same warnings from the cache as from the files" \
		sh -c "cmp -s '$t_tmp/none.err' '$t_tmp/cold.err' && cmp -s '$t_tmp/none.err' '$t_tmp/warm.err' && cmp -s '$t_tmp/none.err' '$t_tmp/mapped.err'"
	"$TL" index "$p" >"$t_tmp/idx" 2>&1
	nr=$(grep -c '^rank .*: already cached in ' "$t_tmp/idx")
	check "$name: index finds every rank cached ($nr of $n)" [ "$nr" -eq "$n" ]
done

# ---- the viewer: the same screens (lanes, a slice's arguments read through its row id or
# event index) from the cache as from the files ------------------------------------------------
views="$t_tmp/db $t_tmp/json"
[ -d "$SAMPLES/kineto" ] && views="$views $SAMPLES/kineto"
for p in $views; do
	name=$(basename "$p")
	rm -rf "$t_tmp/xdg"
	for run in none cold warm; do
		printf 'j\nj\nj\n<Enter>\n:dump %s\n+\n+\n<Right>\n:dump %s\n:quit\n' \
			"$t_tmp/$run.1" "$t_tmp/$run.2" >"$t_tmp/keys"
		if [ $run = none ]; then
			"$TL" view "$p" --no-cache --script "$t_tmp/keys" --size 120x40 >/dev/null \
				2>"$t_tmp/$run.verr"
		else
			"$TL" view "$p" --script "$t_tmp/keys" --size 120x40 >/dev/null \
				2>"$t_tmp/$run.verr"
		fi
	done
	check "$name: the viewer's screens are the same cold, warm and without the cache" \
		sh -c "[ -s '$t_tmp/none.1' ] && cmp -s '$t_tmp/none.1' '$t_tmp/cold.1' && cmp -s '$t_tmp/none.1' '$t_tmp/warm.1' && cmp -s '$t_tmp/none.2' '$t_tmp/warm.2'"
	# warm, the files are stamped: the tables the viewer drops are stepped over, not read; a
	# wrong step would say the file is bad (and rebuild it) on stderr
	check "$name: ... and the warm viewer says what the one without the cache says" \
		cmp -s "$t_tmp/none.verr" "$t_tmp/warm.verr"
done

# ---- tl index, hits and invalidation ------------------------------------------------------
rm -rf "$t_tmp/xdg"
P=$t_tmp/db
"$TL" index "$P" >"$t_tmp/idx" 2>"$t_tmp/err"
check "index exits 0 and warns of nothing" sh -c "[ $? -eq 0 ] && [ ! -s '$t_tmp/err' ]"
check "index wrote ranks 0, 1 and 2" sh -c "grep -q '^rank 0: wrote $CD/.*\.tlc ([0-9]* slices, [0-9]* bytes)' '$t_tmp/idx' && grep -q '^rank 1: wrote' '$t_tmp/idx' && grep -q '^rank 2: wrote' '$t_tmp/idx'"
check "index's last line totals 3 ranks in the directory" grep -q "^3 ranks in $CD: [0-9]* slices, [0-9]* bytes" "$t_tmp/idx"
slices=$(sed -n 's/^3 ranks in .*: \([0-9]*\) slices.*/\1/p' "$t_tmp/idx")
want=$(TL_STATS=1 "$TL" summary "$P" --no-cache 2>&1 >/dev/null | sed -n 's/.* slices=\([0-9]*\) .*/\1/p')
check "index counts the slices the loader made ($slices = $want)" [ "$slices" = "$want" ]
db1=$(find "$P" -name 'ascend_pytorch_profiler_1.db')
touch -d '2001-01-01 00:00:00' "$db1"
"$TL" index "$P" >"$t_tmp/idx" 2>&1
check "touching rank 1's DB re-reads rank 1 only" sh -c "grep -q '^rank 1: wrote' '$t_tmp/idx' && grep -q '^rank 0: already cached' '$t_tmp/idx' && grep -q '^rank 2: already cached' '$t_tmp/idx'"
info1=$(find "$(dirname "$(dirname "$db1")")" -maxdepth 1 -name 'profiler_info*.json' | head -1)
if [ -n "$info1" ]; then
	touch -d '2002-02-02 00:00:00' "$info1"
	"$TL" index "$P" >"$t_tmp/idx" 2>&1
	check "touching rank 1's profiler_info re-reads rank 1" grep -q '^rank 1: wrote' "$t_tmp/idx"
else
	skip "the fixture has no profiler_info file"
fi
"$TL" index "$P" --rank 2 >"$t_tmp/idx" 2>&1
check "index --rank 2 names rank 2 only" sh -c "[ \$(grep -c '^rank ' '$t_tmp/idx') -eq 1 ] && grep -q '^rank 2: already cached' '$t_tmp/idx'"
n=$(nfiles "$CD")
check "the stale file of rank 1 stays until the bound evicts it ($n files)" [ "$n" -ge 3 ]

# ---- --cache-dir, and a directory tl cannot write ------------------------------------------
"$TL" index "$P" --cache-dir "$t_tmp/shared" >"$t_tmp/idx" 2>&1
check "--cache-dir DIR: the files go there" [ "$(nfiles "$t_tmp/shared")" -eq 3 ]
# another build of tl (here: the same program with one byte more) never reads this build's files:
# its loaders may differ, so it writes its own
cp "$TL" "$t_tmp/tl-other" && printf x >>"$t_tmp/tl-other" && chmod +x "$t_tmp/tl-other"
"$t_tmp/tl-other" index "$t_tmp/db" --cache-dir "$t_tmp/shared" >"$t_tmp/idx2" 2>&1
check "another build of tl writes its own cache files, reads none of this build's" \
	sh -c "[ \$(grep -c '^rank [0-9]*: wrote' '$t_tmp/idx2') -eq 3 ] && [ \$(find '$t_tmp/shared' -maxdepth 1 -name '*.tlc' | wc -l) -eq 6 ]"
"$TL" summary "$P" --json --no-cache >"$t_tmp/want.json" 2>/dev/null
: >"$t_tmp/notadir"
"$TL" summary "$P" --json --cache-dir "$t_tmp/notadir/cache" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "a cache directory that cannot be made: exit 0, the same numbers" \
	sh -c "[ $? -eq 0 ] && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
check "... and one warning naming it" \
	sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'notadir/cache: cannot write the model cache here' '$t_tmp/err'"
sed 's/^/# /' "$t_tmp/err"
if [ "$(id -u)" -ne 0 ]; then
	rm -rf "$t_tmp/ro" && mkdir -p "$t_tmp/ro" && chmod 555 "$t_tmp/ro"
	"$TL" summary "$P" --json --cache-dir "$t_tmp/ro" >"$t_tmp/got.json" 2>"$t_tmp/err"
	check "a read-only cache directory: the same numbers, one warning" \
		sh -c "cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && [ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'cannot write the model cache' '$t_tmp/err'"
	chmod 755 "$t_tmp/ro"
	chmod 555 "$t_tmp/shared"
	"$TL" summary "$P" --json --cache-dir "$t_tmp/shared" >"$t_tmp/got.json" 2>"$t_tmp/err"
	check "a read-only directory others filled is still read (no warning: nothing to write)" \
		sh -c "cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && [ ! -s '$t_tmp/err' ]"
	chmod 755 "$t_tmp/shared"
else
	skip "read-only cache directory: root writes anyway"
	skip "read-only cache directory filled by others: root writes anyway"
fi

# a full disk: here a file size limit, which fails the cache's write as ENOSPC would
(
	ulimit -f 8
	"$TL" summary "$P" --json --cache-dir "$t_tmp/full" 2>"$t_tmp/err"
) | cat >"$t_tmp/got.json"
check "a cache write that fails (file size limit): exit 0, the same numbers" cmp -s "$t_tmp/want.json" "$t_tmp/got.json"
check "... one warning, and no file left behind" \
	sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'full: cannot write the model cache here (cannot write a file: File too large)' '$t_tmp/err' && [ -z \"\$(ls -A '$t_tmp/full')\" ]"
sed 's/^/# /' "$t_tmp/err"

# ---- several tl index at once into one directory --------------------------------------------
rm -rf "$t_tmp/conc"
pids=""
for i in 1 2 3 4; do
	"$TL" index "$P" --cache-dir "$t_tmp/conc" >"$t_tmp/conc.$i" 2>&1 &
	pids="$pids $!"
done
okall=1
for p in $pids; do wait "$p" || okall=0; done
check "four tl index at once into one directory all exit 0" [ $okall -eq 1 ]
check "... each reports all 3 ranks" sh -c "for i in 1 2 3 4; do grep -q '^3 ranks in ' '$t_tmp/conc.'\$i || exit 1; done"
check "... no temporary or lock file is left" sh -c "[ \$(ls -A '$t_tmp/conc' | grep -cv '\.tlc\$') -eq 0 ] && [ $(ntmp "$t_tmp/conc") -eq 0 ]"
check "... three files, one per rank" [ "$(nfiles "$t_tmp/conc")" -eq 3 ]
"$TL" summary "$P" --json --cache-dir "$t_tmp/conc" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "... and they are whole: read without a warning, the same numbers" \
	sh -c "cmp -s '$t_tmp/want.json' '$t_tmp/got.json' && [ ! -s '$t_tmp/err' ]"

# ---- the LRU bound ---------------------------------------------------------------------------
rm -rf "$t_tmp/lru"
"$TL" index "$t_tmp/json" --cache-dir "$t_tmp/lru" >/dev/null 2>&1
sleep 0.05
"$TL" index "$P" --cache-dir "$t_tmp/lru" >/dev/null 2>&1
dbbytes=$("$TL" index "$P" --cache-dir "$t_tmp/lru" 2>/dev/null | sed -n 's/^3 ranks in .*, \([0-9]*\) bytes$/\1/p')
check "both profiles are cached under the default bound" [ "$(nfiles "$t_tmp/lru")" -eq 6 ]
# a bound that holds one profile: the least recently used (the JSON one) goes
TL_CACHE_MAX=$((dbbytes + 100)) "$TL" index "$P" --cache-dir "$t_tmp/lru" >"$t_tmp/idx" 2>&1
check "TL_CACHE_MAX of one profile's size keeps 3 files" [ "$(nfiles "$t_tmp/lru")" -eq 3 ]
check "... the ones just used" sh -c "grep -q '^rank 0: already cached' '$t_tmp/idx' && for f in \$(sed -n 's/^rank .* in \(.*\.tlc\) .*/\1/p' '$t_tmp/idx'); do [ -f \"\$f\" ] || exit 1; done"
"$TL" index "$t_tmp/json" --cache-dir "$t_tmp/lru" >"$t_tmp/idx" 2>&1
check "... the evicted profile is read again" grep -q '^rank 0: wrote' "$t_tmp/idx"
# a bound below one profile: the files this run wrote stay (mapped now, wanted next time),
# said once in one line; the next profile opened evicts them
rm -rf "$t_tmp/lru2"
TL_CACHE_MAX=1000 "$TL" index "$P" --cache-dir "$t_tmp/lru2" >"$t_tmp/idx" 2>"$t_tmp/err"
check "a bound below one profile keeps the files just written" [ "$(nfiles "$t_tmp/lru2")" -eq 3 ]
check "... and says so in one line" sh -c "[ \$(grep -c 'above the cache.s bound' '$t_tmp/err') -eq 1 ] && [ \$(wc -l <'$t_tmp/err') -eq 1 ]"
TL_CACHE_MAX=1000 "$TL" index "$P" --cache-dir "$t_tmp/lru2" >"$t_tmp/idx" 2>"$t_tmp/err"
check "... the next open reads them, not writes them again, and says nothing" \
	sh -c "grep -q '^rank 0: already cached' '$t_tmp/idx' && [ ! -s '$t_tmp/err' ]"
TL_CACHE_MAX=1000 "$TL" index "$t_tmp/json" --cache-dir "$t_tmp/lru2" >/dev/null 2>&1
n=$(nfiles "$t_tmp/lru2")
TL_CACHE_MAX=1000 "$TL" index "$P" --cache-dir "$t_tmp/lru2" >"$t_tmp/idx" 2>/dev/null
check "... another profile's open evicts them ($n files)" \
	sh -c "[ $n -eq 3 ] && grep -q '^rank 0: wrote' '$t_tmp/idx'"

# ---- tl cache ------------------------------------------------------------------------------
"$TL" cache --cache-dir "$t_tmp/conc" >"$t_tmp/out" 2>&1
bytes=$(cat "$t_tmp/conc"/*.tlc "$t_tmp/conc"/*.tlr | wc -c)
nres=$(find "$t_tmp/conc" -maxdepth 1 -name '*.tlr' | wc -l)
check "tl cache names the directory" grep -q "^cache: $t_tmp/conc\$" "$t_tmp/out"
check "tl cache counts 3 files" grep -q '^files: 3$' "$t_tmp/out"
check "tl cache counts the stored results ($nres)" sh -c "[ $nres -gt 0 ] && grep -q '^stored results: $nres\$' '$t_tmp/out'"
check "tl cache sums their bytes ($bytes)" grep -q "^size: $bytes bytes" "$t_tmp/out"
"$TL" cache >"$t_tmp/out" 2>&1
check "tl cache defaults to \$XDG_CACHE_HOME/tl/models" grep -q "^cache: $CD\$" "$t_tmp/out"
"$TL" cache --clear --cache-dir "$t_tmp/conc" >"$t_tmp/out" 2>&1
check "tl cache --clear removes them" sh -c "grep -q '^removed 3 cache files and $nres stored results' '$t_tmp/out' && [ $(nfiles "$t_tmp/conc") -eq 0 ] && ! ls '$t_tmp/conc' | grep -q '\.tlr\$'"
mkdir -p "$t_tmp/conc/keep" && echo x >"$t_tmp/conc/notes.txt"
"$TL" cache --clear --cache-dir "$t_tmp/conc" >/dev/null 2>&1
check "... and nothing that is not a cache file" sh -c "[ -d '$t_tmp/conc/keep' ] && [ -f '$t_tmp/conc/notes.txt' ]"
check "tl summary does not take --clear" sh -c "! '$TL' summary '$P' --clear 2>/dev/null"

# ---- hostile cache files (read: not served from a stored result) ---------------------------
export TL_CACHE_RESULTS=0
rm -rf "$t_tmp/h"
"$TL" index "$P" --cache-dir "$t_tmp/h" >"$t_tmp/idx" 2>&1
f0=$(sed -n 's/^rank 0: wrote \(.*\.tlc\) .*/\1/p' "$t_tmp/idx")
f1=$(sed -n 's/^rank 1: wrote \(.*\.tlc\) .*/\1/p' "$t_tmp/idx")
cp "$f0" "$t_tmp/good0"
size0=$(wc -c <"$f0")
# hostile NAME WHAT: f0 was spoiled; the next open names it in one line, rebuilds it, and
# the numbers are those of the profile
hostile() {
	"$TL" summary "$P" --json --cache-dir "$t_tmp/h" >"$t_tmp/got.json" 2>"$t_tmp/err"
	rc=$?
	check "$1: exit 0, the same numbers" sh -c "[ $rc -eq 0 ] && cmp -s '$t_tmp/want.json' '$t_tmp/got.json'"
	check "$1: one line names the file and says $2" \
		sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q '$f0: cache file not used: $2.*; reading the profile again\$' '$t_tmp/err'"
	sed 's/^/# /' "$t_tmp/err"
	"$TL" summary "$P" --json --cache-dir "$t_tmp/h" >/dev/null 2>"$t_tmp/err"
	check "$1: rebuilt (the next open is quiet)" [ ! -s "$t_tmp/err" ]
	cp "$t_tmp/good0" "$f0"
}
head -c $((size0 / 2)) "$t_tmp/good0" >"$f0"
hostile "truncated" "truncated or extended"
: >"$f0"
hostile "empty" "empty"
cp "$t_tmp/good0" "$f0" && printf 'X' | dd of="$f0" bs=1 seek=$((size0 - 200)) conv=notrunc 2>/dev/null
hostile "one byte changed" "its checksum does not match"
cp "$t_tmp/good0" "$f0" && printf '\377' | dd of="$f0" bs=1 seek=8 conv=notrunc 2>/dev/null
hostile "another format version" "written by another version of tl"
cp "$t_tmp/good0" "$f0" && printf '\014\000\000\000' | dd of="$f0" bs=1 seek=8 conv=notrunc 2>/dev/null
hostile "the format before the step runs (12)" "written by another version of tl"
cp "$t_tmp/good0" "$f0" && printf '\001\002\003\004' | dd of="$f0" bs=1 seek=12 conv=notrunc 2>/dev/null
hostile "the other byte order" "written on a host of the other byte order"
cp "$t_tmp/good0" "$f0" && printf 'NOTMODEL' | dd of="$f0" bs=1 seek=0 conv=notrunc 2>/dev/null
hostile "another kind of file" "not a tl cache file"
cp "$f1" "$f0"
hostile "another rank's file under its name" "made from other input files"
cat "$t_tmp/good0" "$t_tmp/good0" >"$f0"
hostile "extended" "truncated or extended"
# an overlap lane changed and the checksum made right again (what a crafted file can do): the
# lanes stand in for the slices in the summary's figures, so they are checked against them.
# cache_forge.py computes the checksum from its definition (cache_checksum), not by tl.
if command -v python3 >/dev/null; then
	cp "$t_tmp/good0" "$f0"
	python3 "$TL_SRCDIR/tests/golden/cache_forge.py" lane "$f0" >"$t_tmp/why" 2>&1
	check "an overlap lane changed, its checksum made right (python3)" [ $? -eq 0 ]
	sed 's/^/# /' "$t_tmp/why"
	hostile "overlap lanes that are not the slices'" "its overlap lanes are not those its slices make"
	# an operator's stored sum (what tl summary's totals read instead of the durations) off
	# by one, the checksum made right: an untrusted file's sums are checked against the
	# durations. The group: four string ids, the sum, the count, the durations ascending, the
	# count again (cache_write.c's put_tables).
	cp "$t_tmp/good0" "$f0"
	python3 "$TL_SRCDIR/tests/golden/cache_forge.py" opsum "$f0" >"$t_tmp/why" 2>&1
	check "an operator's sum changed, its checksum made right (python3)" [ $? -eq 0 ]
	sed 's/^/# /' "$t_tmp/why"
	hostile "an operator's sum that is not its durations'" "an operator sum is not the sum of its durations"
	# a lane's step runs naming a step the rank does not have, the checksum made right
	cp "$t_tmp/good0" "$f0"
	python3 "$TL_SRCDIR/tests/golden/cache_forge.py" steprun "$f0" >"$t_tmp/why" 2>&1
	check "a lane's step run changed, its checksum made right (python3)" [ $? -eq 0 ]
	sed 's/^/# /' "$t_tmp/why"
	hostile "a step run naming no step" "a lane.s step runs are out of order or range"
else
	skip "python3 absent (tools/install-deps --test installs it): a crafted lane not checked"
fi
rm -f "$f0" && mkdir "$f0"
"$TL" summary "$P" --json --cache-dir "$t_tmp/h" >"$t_tmp/got.json" 2>"$t_tmp/err"
check "a directory under a cache file's name: the same numbers" cmp -s "$t_tmp/want.json" "$t_tmp/got.json"
rmdir "$f0"
unset TL_CACHE_RESULTS


# ---- the inputs' pages: once a rank is in its cache file (or the viewer's spill file), its DBs
# are dropped from the page cache (POSIX_FADV_DONTNEED), so that they do not push the mapped
# lanes out; not without a file in their place, nor with TL_DROP_INPUTS=0 -----------------------
dbs=$(find "$t_tmp/db" -name '*.db')
res() { fincore -b -n -o RES "$1" 2>/dev/null | tr -d ' '; }
warm_dbs() { for f in $dbs; do cat "$f" >/dev/null; done; }
resident() { # the bytes of the DBs in the page cache
	_s=0
	for f in $dbs; do _s=$((_s + $(res "$f"))); done
	echo "$_s"
}
sync $dbs 2>/dev/null
warm_dbs
before=$(resident)
if command -v fincore >/dev/null && [ "${before:-0}" -gt 0 ]; then
	"$TL" summary "$t_tmp/db" --cache-dir "$t_tmp/dropc" >/dev/null 2>&1
	after=$(resident)
	check "a cold summary that writes the cache drops its DBs' pages ($before -> $after bytes resident)" \
		[ "$after" -eq 0 ]
	warm_dbs
	TL_DROP_INPUTS=0 "$TL" summary "$t_tmp/db" --cache-dir "$t_tmp/dropc2" >/dev/null 2>&1
	check "TL_DROP_INPUTS=0 keeps them ($(resident) bytes resident)" [ "$(resident)" -eq "$before" ]
	"$TL" summary "$t_tmp/db" --no-cache >/dev/null 2>&1
	check "summary --no-cache (no file in their place) keeps them ($(resident))" \
		[ "$(resident)" -eq "$before" ]
	printf ':quit\n' >"$t_tmp/quit.keys"
	TERM=xterm-256color "$TL" view "$t_tmp/db" --no-cache --script "$t_tmp/quit.keys" \
		--size 80x24 --cache-dir "$t_tmp/dropc3" >/dev/null 2>&1
	check "the viewer with --no-cache, its ranks spilled, drops them ($(resident))" \
		[ "$(resident)" -eq 0 ]
else
	skip "the page cache of $t_tmp cannot be seen (fincore) or holds no file pages (tmpfs)"
fi

# ---- loader state read on demand after loading: a DB's forward/backward operator pairs are
# read when the pipeline needs them, after the rank was cached; a rank from the cache must read
# them too (its "pairs read" state is cached only where they were read, and they with it) ------
if "$TLGEN" rl "$t_tmp/pp" --pp 2 --op-pairs --no-meta --ranks 4 --tasks 500 \
	>/dev/null 2>&1; then
	"$TL" summary "$t_tmp/pp" --pp 2 --json --no-cache >"$t_tmp/pp.none" 2>&1
	"$TL" summary "$t_tmp/pp" --pp 2 --json --cache-dir "$t_tmp/ppc" >"$t_tmp/pp.cold" 2>&1
	"$TL" summary "$t_tmp/pp" --pp 2 --json --cache-dir "$t_tmp/ppc" >"$t_tmp/pp.warm" 2>&1
	"$TL" summary "$t_tmp/pp" --pp 2 --cache-dir "$t_tmp/ppc" >"$t_tmp/pp.txt" 2>&1
	check "op-pair pipeline: the blocks come from the operator pairs" \
		grep -q 'blocks from forward/backward operator pairs' "$t_tmp/pp.txt"
	check "op-pair pipeline: summary --json the same cold, warm and without the cache" \
		sh -c "cmp -s '$t_tmp/pp.none' '$t_tmp/pp.cold' && cmp -s '$t_tmp/pp.none' '$t_tmp/pp.warm'"
else
	not_ok "generate the op-pair pipeline fixture"
fi

t_done
