#!/bin/sh
# Golden outputs of `tl summary`, text and --json, on generated profiles: every section (overlap,
# RL stages, DP imbalance, pipeline, slow ranks, bubbles) compared byte for byte with
# tests/golden/summary/NAME.txt and NAME.json. When an output changes on purpose, `make
# golden-update` rewrites the files (review the diff before committing it).
# The goldens are not their own proof: every number the generator knows by construction (it lays
# the timeline out, it does not run tl's analyses) is checked in them too, from tlgen rl --truth
# (overlap per rank and step, stage ranges and their busy time, imbalance durations, waits and
# decode steps, PP bubble ratios and blocks), and so is each text table against the JSON.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"
GOLD=$TL_SRCDIR/tests/golden/summary
SJ=$TL_SRCDIR/tests/golden/summary_json.py
update=${TL_UPDATE_GOLDEN:-}

# NAME and tlgen rl options, one profile a line at the end (read on fd 3: the body keeps stdin)
while read -r name args <&3; do
	# shellcheck disable=SC2086 # the options are words
	if ! "$TLGEN" rl "$t_tmp/$name" $args --truth "$t_tmp/$name.truth"; then
		not_ok "$name: tlgen rl $args failed"
		continue
	fi
	"$TL_BIN" summary "$t_tmp/$name" >"$t_tmp/$name.txt" 2>"$t_tmp/$name.err"
	check "$name: tl summary exits 0" [ $? -eq 0 ]
	"$TL_BIN" summary "$t_tmp/$name" --json >"$t_tmp/$name.json" 2>>"$t_tmp/$name.err"
	check "$name: tl summary --json exits 0" [ $? -eq 0 ]
	check "$name: no warnings" [ ! -s "$t_tmp/$name.err" ]
	for ext in txt json; do
		if [ -n "$update" ]; then
			cp "$t_tmp/$name.$ext" "$GOLD/$name.$ext"
			echo "# wrote tests/golden/summary/$name.$ext"
		fi
		if cmp -s "$t_tmp/$name.$ext" "$GOLD/$name.$ext"; then
			ok "$name.$ext: equals the golden file"
		else
			# JSON is one line: show the differing objects, one a line
			sed 's/},{/},\n{/g' "$GOLD/$name.$ext" >"$t_tmp/want"
			sed 's/},{/},\n{/g' "$t_tmp/$name.$ext" >"$t_tmp/got"
			diff "$t_tmp/want" "$t_tmp/got" 2>&1 | cut -c1-200 | head -20 | sed 's/^/# /'
			not_ok "$name.$ext: differs from tests/golden/summary/$name.$ext (make golden-update if meant)"
		fi
	done
	# the generator's truth in the golden JSON (and so in tl's output, which equals it): each
	# object it knows (a rank's steps with their six StepTraceTime fields, stage rows, imbalance
	# ranks, ...) is an object of the document, every member it gives equal (python3's json)
	set -- $(python3 "$SJ" truth "$GOLD/$name.json" "$t_tmp/$name.truth" | tee "$t_tmp/$name.miss" | head -1)
	grep '^#' "$t_tmp/$name.miss"
	good=0
	[ "${1:-0}" -gt 0 ] && [ "${2:-1}" -eq 0 ] && good=1
	check "$name: all ${1:-0} objects the generator knows are in the golden JSON (${2:-?} missing)" \
		[ "$good" = 1 ]
	# the text overlap table says what the JSON says, row by row, in ms
	python3 "$SJ" rows "$GOLD/$name.json" >"$t_tmp/$name.rows"
	rows=$(awk '
		function ms(ns) { return sprintf("%d.%06d", int(ns / 1000000), ns % 1000000) }
		{ print ms($2), ms($3), ms($4), ms($5), ms($6), ms($7) }' "$t_tmp/$name.rows")
	table=$(awk '/^Overlap per rank/ { t = 1; next } t && /^ +rank/ { next }
		t && NF == 8 { print $3, $4, $5, $6, $7, $8; next } t { exit }' "$GOLD/$name.txt")
	good=0
	[ -n "$rows" ] && [ "$rows" = "$table" ] && good=1
	check "$name: the text overlap table has the JSON's numbers" [ "$good" = 1 ]
done 3<<'EOF'
grpo --ranks 4 --steps 2 --tasks 3000
pp-1f1b --ranks 4 --pp 2 --steps 2 --tasks 3000
pp-gpipe --ranks 4 --pp 2 --gpipe --steps 1 --tasks 2000
EOF
t_done
