#!/bin/sh
# `tl demo` shows every panel the README and man tl advertise: memory records and NPU memory (U,
# A, *), host launches with their PyTorch operators (H), an AI CPU operator (I), a pipeline in
# actor_update (P) and a slow link (x, the findings). Each number is checked against plain SQL
# over the demo's own DBs.
. "$(dirname "$0")/lib_tui.sh"
XDG_CACHE_HOME=$t_tmp/xdg "$TL_BIN" demo --no-view > "$t_tmp/summary" 2> "$t_tmp/err"
check "tl demo --no-view makes the demo" sh -c "[ $? -eq 0 ] && [ -d '$t_tmp/xdg/tl/demo-v3' ]"
D=$t_tmp/xdg/tl/demo-v3
VIEW_OPTS="--cache-dir $t_tmp/xdg/tl/models"
db() { ls "$D"/gen-r"$1"_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_"$1".db; }
sql() { sqlite3 "file:$(db "$1")?immutable=1" "$2"; }

# U: the counter lanes: the allocator's totals, NPU memory, the AI Core frequency
view "$D" 100x40 U
for l in "mem PTA allocated" "mem GE allocated" "mem app HBM" "AI Core freq"; do
	check "U: the lane '$l'" has " $l "
done

# A then *: the largest allocations live at rank 0's allocated peak (PTA)
peak=$(sql 0 "SELECT r.timestamp FROM MEMORY_RECORD r JOIN STRING_IDS s ON s.id = r.component
	WHERE s.value = 'PTA' ORDER BY r.totalAllocated DESC, r.timestamp LIMIT 1")
big=$(sql 0 "SELECT size FROM OP_MEMORY WHERE allocationTime <= $peak
	AND (releaseTime IS NULL OR releaseTime > $peak) ORDER BY size DESC LIMIT 1")
name=$(sql 0 "SELECT s.value FROM OP_MEMORY m JOIN STRING_IDS s ON s.id = m.name
	WHERE allocationTime <= $peak AND (releaseTime IS NULL OR releaseTime > $peak)
	ORDER BY size DESC LIMIT 1")
mib=$(awk -v b="$big" 'BEGIN { printf "%.2f MiB", b / 1048576 }')
view "$D" 100x40 A '*'
check "A *: the live allocations at the peak" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Live allocations: rank 0'"
check "A *: the largest is $mib of $name (SQL over OP_MEMORY at the peak)" sh -c \
	"sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^▸ +$mib +$name '"

# H: the host lanes, PyTorch operators and the CANN launches
view "$D" 100x40 H
check "H: a PyTorch operator lane" grep -Eq '^ host PyTorch [0-9]+ ' "$t_tmp/screen.txt"
check "H: a CANN launch lane" grep -Eq '^ host CANN [0-9]+ ' "$t_tmp/screen.txt"
nops=$(sql 0 "SELECT count(*) FROM PYTORCH_API")
check "the demo's rank 0 has PyTorch operators with call stacks ($nops)" sh -c \
	"[ $nops -gt 1000 ] && [ \$(sqlite3 'file:$(db 0)?immutable=1' 'SELECT count(*) FROM PYTORCH_CALLCHAINS') -gt 0 ]"

# I: an AI CPU operator, with its count on rank 3 from COMPUTE_TASK_INFO
n=$(sql 3 "SELECT count(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.taskType
	WHERE s.value = 'AI_CPU'")
view "$D" 100x40 ':rank 3' I
check "I: ArgMaxV2 runs on the AI CPU, $n tasks on rank 3" grep -Eq "^ +$n .* ArgMaxV2 \(AI_CPU\)" "$t_tmp/screen.txt"

# P: actor_update's pipeline, 2 PP stages (ranks 0-3, 4-7) from distributed_args; each stage's
# bubble in step 1 from the forward/backward ranges of its first rank (rank 0, rank 4) in SQL:
# span = the first block's start to the last block's end over both, bubble = (span - busy) / span
for r in 0 4; do
	sql "$r" "SELECT m.startNs, m.endNs FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message,
		STEP_TIME t WHERE t.id = 1 AND s.value IN ('{''name'': ''forward_step''}',
		'{''name'': ''backward_step''}') AND m.startNs >= t.startNs AND m.startNs < t.endNs" |
		sed "s/^/$r|/"
done > "$t_tmp/blocks"
set -- $(awk -F'|' '{ if (mn == "" || $2 < mn) mn = $2; if ($3 > mx) mx = $3; busy[$1] += $3 - $2; n[$1]++ }
	END { s = mx - mn; printf "%.3f %d %.1f%% %d %.1f%%", s / 1e6, n[0], 100 * (s - busy[0]) / s, n[4], 100 * (s - busy[4]) / s }' "$t_tmp/blocks")
view "$D" 100x30 P
check "P: 2 PP stages from distributed_args, step 1 spans $1 ms (SQL)" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -qF 'Pipeline: step 1 (1 of 2), 2 PP stages from distributed_args, span $1 ms'"
check "P: stage 0 (r0-3), $2 blocks, bubble $3 (SQL)" sh -c "[ $2 -eq 8 ] && grep -Eq 'pp 0 r0-3 +$3 ' '$t_tmp/screen.txt'"
check "P: stage 1 (r4-7), $4 blocks, bubble $5 (SQL)" sh -c "[ $4 -eq 8 ] && grep -Eq 'pp 1 r4-7 +$5 ' '$t_tmp/screen.txt'"
check "P: every block labelled, F0-F3 and B0-B3 on each stage" sh -c "for s in 0 1; do l=\$(grep \"pp \$s r\" '$t_tmp/screen.txt'); for b in F0 F1 F2 F3 B0 B1 B2 B3; do echo \"\$l\" | grep -q \$b || exit 1; done; done"
view "$D" 100x30 '!'
check "!: the findings list the pipeline's bubble" grep -q 'pipeline_bubble' "$t_tmp/screen.txt"

# x: the communication matrix of step 1: rank 5's link to rank 6 moves a quarter of the bytes
# rank 4's link to rank 5 moves (SQL over COMMUNICATION_TASK_INFO), in the same time; the
# findings name it
mb() { sql "$1" "SELECT printf('%.3f', sum(c.size) / 1e6) FROM COMMUNICATION_TASK_INFO c, TASK t,
	STEP_TIME s WHERE t.globalTaskId = c.globalTaskId AND s.id = 1 AND t.startNs >= s.startNs AND
	t.startNs < s.endNs AND c.srcRank = $1 AND c.dstRank = $2"; }
m45=$(mb 4 5) m56=$(mb 5 6)
view "$D" 100x30 x
check "x: 4 -> 5 moves $m45 MB, 5 -> 6 a quarter, $m56 MB (SQL)" sh -c "awk -v a='$m45' -v b='$m56' 'BEGIN { exit !(b * 4 > a * 0.99 && b * 4 < a * 1.01) }' &&
	grep -Eq '^ +4 .* $(printf %.6s "$m45") ' '$t_tmp/screen.txt' && grep -Eq '^ +5 .* $(printf %.6s "$m56") ' '$t_tmp/screen.txt'"
"$TL_BIN" triage "$D" --cache-dir "$t_tmp/xdg/tl/models" > "$t_tmp/triage" 2>&1
check "tl triage names the slow link 5 -> 6" grep -Eq '^ *[0-9]+\. slow_link: link 5 -> 6 ' "$t_tmp/triage"

# M and V give the same numbers for the same step: the detail pane of a marked step and the
# overview's rows, both rounded to the us from tl summary's exact ns (its 6 decimals)
view "$D" 120x50 V
sed 's/^▸ *//' "$t_tmp/screen.txt" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 8 {
	print $1, $2, $3, $4, $5, $6, $7 }' > "$t_tmp/v"
awk '/^Overlap per rank and step/ { on = 1; next } on && NF == 0 { exit }
	on && $1 ~ /^[0-9]+$/ { printf "%s %s %.3f %.3f %.3f %.3f %.3f\n", $1, $2, $3, $4, $5, $6, $7 }' \
	"$t_tmp/summary" > "$t_tmp/s"
check "V: the overview's 16 rows are tl summary's, rounded" sh -c "[ \$(wc -l < '$t_tmp/v') -eq 16 ] && cmp -s '$t_tmp/v' '$t_tmp/s'"
for step in 1 2; do
	if [ "$step" = 1 ]; then view "$D" 120x50 M; else view "$D" 120x50 T M; fi
	awk -v s="$step" '/^ ms +computing/ { on = 1; next } on && $1 == "rank" && NF == 8 {
		print $2, s, $3, $4, $5, $6, $7; next } on { exit }' "$t_tmp/screen.txt" > "$t_tmp/m$step"
	awk -v s="$step" '$2 == s' "$t_tmp/v" > "$t_tmp/v$step"
	check "M of step $step: the 8 ranks' numbers are V's, digit for digit" sh -c \
		"[ \$(wc -l < '$t_tmp/m$step') -eq 8 ] && cmp -s '$t_tmp/m$step' '$t_tmp/v$step'"
done

# from a kernel to its Python: Enter on a kernel, the pane starts with the operator that launched
# it and where in the Python (file:line), then its call stack; the raw DB fields come last.
# Checked against SQL: TASK -> CONNECTION_IDS -> PYTORCH_API -> PYTORCH_CALLCHAINS.
view "$D" 120x50 ':search MatMul' n '<Enter>'
sed -n '/^ Selected slice/,$p' "$t_tmp/screen.txt" > "$t_tmp/pane"
gid=$(awk '$1 == "globalTaskId" { print $2; exit }' "$t_tmp/pane")
rk=$(awk '$1 == "rank" && NF == 2 { print $2; exit }' "$t_tmp/pane")
q="SELECT (SELECT value FROM STRING_IDS WHERE id = p.name) || '|' || (SELECT value FROM STRING_IDS
	WHERE id = c.stack) FROM PYTORCH_API p JOIN PYTORCH_CALLCHAINS c ON c.id = p.callchainId
	WHERE c.stackDepth = 0 AND p.connectionId IN (SELECT id FROM CONNECTION_IDS WHERE
	connectionId = (SELECT connectionId FROM TASK WHERE globalTaskId = $gid))"
row=$(sql "$rk" "$q")
op=${row%%|*} frame=${row#*|}
place=$(echo "$frame" | sed -E 's|^.*/||; s|^([^(]*)\(([0-9]+)\): .*|\1:\2|')
check "kernel $gid of rank $rk: the pane starts with 'launched by $op ($place)' (SQL)" sh -c \
	"sed -n 2p '$t_tmp/pane' | grep -qF ' launched by    $op ($place), launch (CANN)'"
check "... then its call stack, the innermost frame first ($frame)" grep -qF " stack          $frame" "$t_tmp/pane"
check "... the raw DB fields last (globalTaskId after mstx)" sh -c \
	"[ \$(grep -n '^ mstx ' '$t_tmp/pane' | cut -d: -f1) -lt \$(grep -n '^ globalTaskId ' '$t_tmp/pane' | cut -d: -f1) ]"
# Enter on an empty cell (inside the largest bubble, on the compute lane) snaps to the nearest
view "$D" 120x50 B k k k k k k l l l l l l l l l l l l l l l l l l l l '<Enter>'
check "Enter on an empty cell: the nearest slice, said so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Nothing under the cursor: the nearest slice, [0-9.]+ [mun]?s (later|earlier)'"
check "... selected, its pane open" grep -q '^ Selected slice' "$t_tmp/screen.txt"
t_done
