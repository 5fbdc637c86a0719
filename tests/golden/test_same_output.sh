#!/bin/sh
# The same output as an earlier build: with TL_BASE set to a built tl of an earlier revision
# (a performance change's "before"; `make check TESTS=tests/golden/test_same_output.sh
# TL_BASE=PATH`), `tl summary`, `tl summary --json` and `tl diff` print byte for byte what it
# prints, on every sample (../shared/samples) and on generated profiles (DB and JSON, two
# hosts with a drifting clock, a diff pair), each without the cache, writing it and reading it
# (stored results off). Without TL_BASE the comparison is skipped, saying so; the three runs of
# this tl are still compared with each other.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" TL_CACHE_RESULTS=0

gen=$t_tmp/gen
mkdir -p "$gen"
profiles=""
if "$TLGEN" bench "$gen/a" --ranks 2 --tasks 3000 --steps 3 --slow 1 --json >/dev/null 2>&1 &&
	"$TLGEN" bench "$gen/b" --ranks 2 --tasks 3000 --steps 3 --slow 1 --slow-stage 1 \
		--slow-factor 1500 --slow-ranks 2 >/dev/null 2>&1 &&
	"$TLGEN" bench "$gen/hosts" --ranks 4 --tasks 2000 --steps 3 --slow 2 --hosts 2 \
		--host-clock 1 3700000 30 >/dev/null 2>&1; then
	cp -r "$gen/a" "$gen/json" && find "$gen/json" -name '*.db' -exec rm {} +
	find "$gen/a" -name trace_view.json -exec rm {} +
	profiles="$gen/a $gen/json $gen/hosts"
else
	not_ok "generate the profiles"
fi
if [ -d "$SAMPLES" ]; then
	for d in ascend-db/level0 ascend-db/level2 ascend-text/level1; do
		[ -d "$SAMPLES/$d" ] && profiles="$profiles $(cd "$SAMPLES/$d" && pwd -P)"
	done
	for f in "$SAMPLES"/kineto/*.json; do
		[ -f "$f" ] && profiles="$profiles $f"
	done
else
	skip "samples absent: $SAMPLES (generated profiles only)"
fi

# outputs BIN TAG: every command's output of BIN on every profile, under $t_tmp/TAG/, each
# without the cache, writing it and reading it
outputs() {
	bin=$1
	out=$t_tmp/$2
	mkdir -p "$out"
	n=0
	for p in $profiles; do
		n=$((n + 1))
		for how in none write read; do
			case $how in
			none) opt=--no-cache ;;
			write)
				rm -rf "$t_tmp/cache-$2"
				opt="--cache-dir $t_tmp/cache-$2"
				;;
			read) opt="--cache-dir $t_tmp/cache-$2" ;;
			esac
			"$bin" summary "$p" $opt >"$out/$n.summary.$how" 2>&1
			echo "exit $?" >>"$out/$n.summary.$how"
			"$bin" summary --json "$p" $opt >"$out/$n.json.$how" 2>&1
			echo "exit $?" >>"$out/$n.json.$how"
		done
	done
	for how in none write read; do
		case $how in
		none) opt=--no-cache ;;
		write)
			rm -rf "$t_tmp/cache-$2"
			opt="--cache-dir $t_tmp/cache-$2"
			;;
		read) opt="--cache-dir $t_tmp/cache-$2" ;;
		esac
		"$bin" diff "$gen/a" "$gen/b" $opt >"$out/diff.$how" 2>&1
		echo "exit $?" >>"$out/diff.$how"
		"$bin" diff --json "$gen/a" "$gen/b" $opt >"$out/diff-json.$how" 2>&1
		echo "exit $?" >>"$out/diff-json.$how"
	done
}

outputs "$TL_BIN" new
# this tl: the cache changes nothing (the file written and read again say what the load said)
for f in "$t_tmp"/new/*.none; do
	b=$(basename "$f" .none)
	check "$b: writing the cache prints what --no-cache prints" cmp -s "$f" "$t_tmp/new/$b.write"
	check "$b: reading the cache prints what --no-cache prints" cmp -s "$f" "$t_tmp/new/$b.read"
done
if [ -n "${TL_BASE:-}" ] && [ -x "$TL_BASE" ]; then
	outputs "$TL_BASE" base
	for f in "$t_tmp"/base/*; do
		b=$(basename "$f")
		check "$b: byte-identical to $TL_BASE" cmp "$f" "$t_tmp/new/$b"
	done
else
	skip "TL_BASE (an earlier build's tl) not set: no comparison with it"
fi
t_done
