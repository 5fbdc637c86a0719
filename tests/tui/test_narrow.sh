#!/bin/sh
# No silent cuts at 80 columns: every panel at 80x24 (screen goldens), the matrix's hidden
# columns marked on each side, every PP block labelled or marked, the DP panel's hidden columns
# named, a long message wrapped onto more lines instead of cut.
. "$(dirname "$0")/lib_tui.sh"
XDG_CACHE_HOME=$t_tmp/xdg "$TL_BIN" demo --no-view > /dev/null 2> "$t_tmp/err" || cat "$t_tmp/err"
D=$t_tmp/xdg/tl/demo-v3
VIEW_OPTS="--cache-dir $t_tmp/xdg/tl/models"
"$TLGEN" rl "$t_tmp/pp" --ranks 8 --pp 4 --steps 2 > /dev/null 2>&1
"$TLGEN" rl "$t_tmp/dp" --ranks 4 --decode dp > /dev/null 2>&1

# every panel of the demo at 80x24
for k in D R V X I x B; do
	view "$D" 80x24 "$k"
	golden "narrow-$k-80x24"
done

# ... and at 120x40, where they have room
for k in D R V x B; do
	view "$D" 120x40 "$k"
	golden "wide-$k-120x40"
done
# the demo's pipeline (actor_update, 2 PP stages) at both sizes
view "$D" 80x24 P
golden narrow-demo-P-80x24
view "$D" 120x40 P
golden wide-demo-P-120x40
view "$t_tmp/pp" 120x40 P
golden wide-P-120x40

# the matrix: 8 ranks do not fit in 80 columns; the hidden one is counted on its side
view "$D" 80x24 x
check "matrix: 'columns 1-7 of 8' on the page line" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'columns 1-7 of 8'"
check "matrix: the hidden column 8 is marked at the right (1▸)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq ' 6 +1▸ *$'"
view "$D" 80x24 x l l l l l l l l
golden narrow-x-scrolled-80x24
check "matrix scrolled: rank 0's column is marked at the left (◂1 more), not gone" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -q '^ ◂1 more  *1 '"
check "... page line 'columns 2-8 of 8'" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'columns 2-8 of 8'"
view "$D" 120x40 x
check "matrix at 120 columns: all 8 shown, no marker" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^ src.dst +0 .* 7 *$' && ! grep -q 'columns 1-' '$t_tmp/screen.txt'"

# PP: every block (8 forward, 8 backward a step) keeps its label or a marker (…) on each stage
view "$t_tmp/pp" 80x24 P
golden narrow-P-80x24
for st in 0 1 2 3; do
	n=$(grep "^.pp $st " "$t_tmp/screen.txt" | grep -oE '[FB][0-9]+|[FB]?…' | wc -l)
	check "P at 80 columns: PP stage $st shows 16 block labels or markers ($n)" [ "$n" -eq 16 ]
done
view "$t_tmp/pp" 160x24 P
n=$(grep "^.pp 0 " "$t_tmp/screen.txt" | grep -oE '[FB][0-9]+' | wc -l)
check "P at 160 columns: every label whole ($n of 16)" [ "$n" -eq 16 ]

# DP: the key columns stay, the hidden ones are named
view "$t_tmp/dp" 80x24 D
golden narrow-dp-D-80x24
check "DP at 80: rank, duration, wait, decode kept" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'rank +duration .* wait +decode'"
check "DP at 80: '+5 hidden:' where the bar's heading was" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -q '+5 hidden: '"
view "$t_tmp/dp" 100x24 D
check "DP at 100: the two still hidden, named (last, queued)" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -q '+2 hidden: las'"

# a long message wraps: B's message at 80 columns, whole over two lines
view "$D" 80x24 B
m=$(tail -2 "$t_tmp/screen.txt" | tr '\n' ' ' | tr -s ' ')
check "B at 80: the message ends with its reason, not cut ($m)" sh -c "echo '$m' | grep -Eq '^Bubble #1 of [0-9]+ by size: .*, stage [a-z_]+, [a-z_]+ $'"
check "... and no ellipsis in it" sh -c "! echo '$m' | grep -q '…'"

# the findings panel at 80 columns: the selected finding's evidence under the list, wrapped at
# spaces onto the lines it needs, word for word tl triage's
"$TL_BIN" triage "$D" --cache-dir "$t_tmp/xdg/tl/models" 2> /dev/null | sed -n 2p | tr -s ' ' | sed 's/^ //' > "$t_tmp/ev"
view "$D" 80x24 '!'
awk '/^▸/ { on = 1; next } on && /^ [^ ]/ && !/^ +[0-9]+ +[0-9.]+ / { print }' "$t_tmp/screen.txt" | tr '\n' ' ' | tr -s ' ' | sed 's/^ //; s/ $//' > "$t_tmp/evs"
check "!: finding 1's evidence whole at 80 columns ($(wc -c < "$t_tmp/ev") bytes, no …)" sh -c "[ -s '$t_tmp/ev' ] && [ \"\$(cat '$t_tmp/ev')\" = \"\$(cat '$t_tmp/evs')\" ] && ! grep -q '…' '$t_tmp/evs'"
# A at the start of the capture (nothing live yet): the sentence whole, over two lines
view "$D" 80x24 A
check "A at 80: 'nothing live' wraps, whole" sh -c "sed -n 3,4p '$t_tmp/screen.txt' | tr '\n' ' ' | tr -s ' ' | grep -q 'No OP_MEMORY allocation of rank 0 is live at this time (the profile needs profile_memory). '"
# M at 80 columns: the range statistics, no number cut; the busy kinds in two tables
view "$D" 80x70 M
check "M at 80: no cut number in the range statistics" sh -c "! grep -E '^ (ms|busy ms|rank [0-9]+) ' '$t_tmp/screen.txt' | grep -q '…'"
check "M at 80: the overlap row of rank 0 has its 6 numbers" grep -Eq '^ rank 0 +([0-9]+\.[0-9]{3} +){5}[0-9]+\.[0-9]{3} *$' "$t_tmp/screen.txt"
check "M at 80: the busy kinds in two tables (stage .. comm, comm.task .. other)" sh -c "[ \$(grep -c '^ busy ms ' '$t_tmp/screen.txt') -eq 2 ] && grep -q '^ busy ms .*comm.task .*other' '$t_tmp/screen.txt'"
t_done
