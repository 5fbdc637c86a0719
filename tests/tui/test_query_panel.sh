#!/bin/sh
# The viewer's :query panel: it lists the rows `tl query --csv` gives for the same statement,
# Enter on a row with rank and start_ns puts the cursor on that place (the step's start, on its
# rank), a row without them says so, and a bad statement is one message, the viewer going on.
. "$(dirname "$0")/lib_tui.sh"
export XDG_CACHE_HOME="$t_tmp/cache"

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two
SQL="SELECT rank, step, start_ns, end_ns, computing_ns FROM steps ORDER BY rank, step"
cat >"$t_tmp/s1" <<EOF
:query $SQL
:dump $t_tmp/d1
j
<Enter>
:dump $t_tmp/d2
EOF
"$TL_BIN" view "$P" --script "$t_tmp/s1" --size 120x24 >/dev/null 2>"$t_tmp/err"
check "the script runs ($(head -1 "$t_tmp/err"))" [ $? -eq 0 ]
"$TL_BIN" query "$P" "$SQL" --csv | tail -n +2 | tr -d '\r' | tr ',' ' ' >"$t_tmp/want"
# the panel's rows: the lines under the header, their cells split on blanks
sed -n '3,$p' "$t_tmp/d1" | sed 's/^[^0-9]*//' | awk 'NF == 5 { print $1, $2, $3, $4, $5 }' >"$t_tmp/got"
check_all "the panel lists tl query's rows ($(wc -l <"$t_tmp/got") rows)" \
	'[ -s "$t_tmp/want" ] && cmp -s "$t_tmp/want" "$t_tmp/got"'
check "the title names the statement and the row count" \
	grep -q ":query SELECT rank, step.*$(wc -l <"$t_tmp/want") rows" "$t_tmp/d1"
# the second row's step, on its rank: the status line's cursor is in that step, on that rank
set -- $(sed -n 2p "$t_tmp/want")
check "Enter on rank $1 step $2 shows that step on that rank" \
	grep -q "step $2 *| rank $1 " "$t_tmp/d2"
cat >"$t_tmp/s2" <<EOF
:query SELECT count(*) AS n FROM slices
<Enter>
:dump $t_tmp/d3
EOF
"$TL_BIN" view "$P" --script "$t_tmp/s2" --size 120x24 >/dev/null 2>&1
n=$("$TL_BIN" query "$P" "SELECT count(*) AS n FROM slices" --csv | sed -n 2p | tr -d '\r')
check "a count: the panel shows tl query's number ($n)" grep -q " $n *\$" "$t_tmp/d3"
check "Enter on a row without rank and start_ns says so" grep -q "no rank and start_ns" "$t_tmp/d3"
cat >"$t_tmp/s3" <<EOF
:query ATTACH DATABASE 'x' AS x
:dump $t_tmp/d4
EOF
"$TL_BIN" view "$P" --script "$t_tmp/s3" --size 120x24 >/dev/null 2>"$t_tmp/err"
check "a refused statement: one message, tl query's reason" grep -q "query: .*ATTACH" "$t_tmp/d4"
# the findings: Enter on one that names a rank shows its place on that rank
r=$("$TL_BIN" query "$P" "SELECT rank FROM findings WHERE rank IS NOT NULL AND end_ns > start_ns LIMIT 1" --csv | sed -n 2p | tr -d '\r')
if [ -n "$r" ]; then
	cat >"$t_tmp/s4" <<EOF
:query SELECT rank, start_ns, end_ns, kind FROM findings WHERE rank IS NOT NULL AND end_ns > start_ns LIMIT 1
<Enter>
:dump $t_tmp/d5
EOF
	"$TL_BIN" view "$P" --script "$t_tmp/s4" --size 120x24 >/dev/null 2>"$t_tmp/err"
	rc=$?
	check_all "Enter on a finding of rank $r shows that rank" '[ $rc -eq 0 ] && grep -q "| rank $r " "$t_tmp/d5"'
else
	skip "the fixture has no finding that names a rank"
fi
t_done
