#!/bin/sh
# The README's "Triage in five keys", key by key on `tl demo`: each key shows what the README says
# it shows. The numbers are checked against the screen and against tl summary's text (computed
# apart from the viewer's panels), and the slow rank against the generator's design (rank 3
# computes every kernel 30% slower, src/gen/gen.c).
. "$(dirname "$0")/lib_tui.sh"
README=$TL_SRCDIR/README.md
sed -n '/^## Triage in five keys/,/^## /p' "$README" | tr -s ' \n' ' ' > "$t_tmp/walk"
check "the README has the walk-through" grep -q 'On `tl demo`' "$t_tmp/walk"
# the README's claims this test holds the screens to
for claim in '1. `D` — DP imbalance of a stage and step (rollout, step 1): rank 3 finishes last, the others wait up to 78 ms for it.' \
	'2. `R` — slow-rank votes: rank 3 has 59 of 60;' \
	'3. `B` — the worst bubble: the longest idle gap of any rank, with its step, stage and reason;' \
	'4. `V` — the overview, `tl summary`'"'"'s tables: rank 3 computes 627-632 ms a step, the others 461-492 ms,' \
	'5. `P` — the pipeline view: actor_update'"'"'s F/B blocks per PP stage (ranks 0-3, 4-7), 4 micro-batches, and the idle between them (bubble 34.6% and 27.0% in step 1);' \
	'Then `!` lists the findings (the straggler, the slow link 5 -> 6, the pipeline'"'"'s bubble, the stalls; Enter goes to one), `x` the communication matrix (rank 5 sends rank 6 46 MB in a step where every other neighbour gets 184 MB),'; do
	check "README says: ${claim%%—*}" grep -qF -- "$claim" "$t_tmp/walk"
done

XDG_CACHE_HOME=$t_tmp/xdg "$TL_BIN" demo --no-view > "$t_tmp/summary" 2> "$t_tmp/err"
check "tl demo --no-view makes the demo and prints its summary" sh -c "[ $? -eq 0 ] && [ -d '$t_tmp/xdg/tl/demo-v3' ]"
D=$t_tmp/xdg/tl/demo-v3
VIEW_OPTS="--cache-dir $t_tmp/xdg/tl/models"

# the first frame's footer names the five keys, and the findings panel first
view "$D" 100x30
check "the footer starts with ! findings, as the README's screen shows it" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  D imbalance '"
for k in "D imbalance" "R slow rank" "B worst bubble" "V overview" "P pipeline"; do
	check "the footer names $k" sh -c "tail -1 '$t_tmp/screen.txt' | grep -qF '$k'"
done

# 1. D: rollout, step 1; rank 3 last to finish; the largest wait 78.x ms
view "$D" 100x30 D
check "D: the DP panel of rollout, step 1" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'DP load imbalance: stage rollout, step 1'"
check "D: rank 3 finishes last" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'last to finish rank 3 '"
# a rank's row: duration ms, its bar, wait ms, ...: the wait is the number before the second "ms"
maxwait=$(awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i == "ms" && ++n == 2) w = $(i - 1) }
	n >= 2 && w + 0 > m { m = w + 0 } END { print int(m) }' "$t_tmp/screen.txt")
check "D: the others wait up to 78 ms (the panel's largest wait: $maxwait ms)" [ "$maxwait" = 78 ]
# the same from tl summary: rollout of step 1 ends last on rank 3
awk '$2 == 1 && $3 == "rollout" { print $1, $5 }' "$t_tmp/summary" | sort -k2 -g | tail -1 > "$t_tmp/last"
check "tl summary: rank 3 ends step 1's rollout last" grep -q '^3 ' "$t_tmp/last"

# 2. R: rank 3 first, 59 votes of 60 instances
view "$D" 100x30 R
check "R: the slow-rank votes" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Slow ranks'"
check "R: 60 instances" grep -q ' 60 instances' "$t_tmp/screen.txt"
check "R: rank 3 has 59 votes, first" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^▸ +3 +59 '"

# 3. B: the largest bubble, with its step, stage and reason
view "$D" 100x30 B
check "B: the largest bubble of all ranks, named by step, stage and reason (the message wraps)" sh -c "tail -2 '$t_tmp/screen.txt' | tr -s '\\n ' '  ' | grep -Eq 'Bubble #1 of [0-9]+ by size: .* idle on rank [0-7] at .*, step [0-9]+, stage [a-z_]+, [a-z_]'"
view "$D" 100x30 B B
check "B again: the next largest" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'Bubble #2 of'"

# 4. V: the overview's computing column, against tl summary's text
view "$D" 100x30 V
check "V: the overview's first table" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Overview 1/4: overlap per rank and step'"
range() { # 3 or other: min-max of computing (ms, rounded) over rank 3's rows or the others' 
	awk -v t="$1" '/^Overlap per rank and step/ { on = 1; next } on && NF == 0 { exit }
		on && $1 ~ /^[0-9]+$/ && (t == "3" ? $1 == 3 : $1 != 3) { v = sprintf("%.0f", $3) + 0; if (mn == "" || v < mn) mn = v; if (v > mx) mx = v }
		END { print mn "-" mx }' "$t_tmp/summary"
}
check "tl summary: rank 3 computes 627-632 ms a step" [ "$(range 3)" = 627-632 ]
check "tl summary: the others 461-492 ms" [ "$(range other)" = 461-492 ]
check "V: rank 3's row shows 627.127 ms computing" sh -c "grep -Eq '^ +3 +1 +627\.127 ' '$t_tmp/screen.txt'"

# 5. P: actor_update's pipeline, its two stages' bubbles in step 1 (test_demo_panels.sh checks
# them against SQL over the blocks' ranges)
view "$D" 100x30 P
check "P: the pipeline view of step 1" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Pipeline: step 1 (1 of 2), 2 PP stages'"
check "P: stage 0 (ranks 0-3) 34.6%, stage 1 (ranks 4-7) 27.0%" sh -c "grep -Eq 'pp 0 r0-3 +34\.6% ' '$t_tmp/screen.txt' && grep -Eq 'pp 1 r4-7 +27\.0% ' '$t_tmp/screen.txt'"
view "$D" 100x30 P T
check "P T: step 2" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Pipeline: step 2 (2 of 2)'"

# then !: the findings, the slow link among them; x: the matrix, 5 -> 6 at 46 MB, 184 MB elsewhere
view "$D" 120x40 '!'
for f in straggler slow_link pipeline_bubble stall; do
	check "!: the findings list $f" grep -q " $f" "$t_tmp/screen.txt"
done
check "!: the slow link is 5 -> 6" grep -q 'slow_link.*5 -> 6' "$t_tmp/screen.txt"
view "$D" 120x40 x
check "x: rank 5 sends rank 6 46 MB, rank 4 sends rank 5 184 MB" sh -c "grep -Eq '^ +5 .* 46\.094 ' '$t_tmp/screen.txt' && grep -Eq '^ +4 .* 184\.37 ' '$t_tmp/screen.txt'"

# then: M marks the step (its numbers in the detail pane), / searches, q quits
view "$D" 100x30 M
check "M marks the step under the cursor" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Step 1 marked'"
check "... its per-rank numbers in the detail pane (rank 3 computing 627.12x ms)" grep -Eq '^ rank 3 +627\.12[0-9] ' "$t_tmp/screen.txt"
t_done
