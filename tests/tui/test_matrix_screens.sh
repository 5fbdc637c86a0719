#!/bin/sh
# The communication matrix panel (x, :matrix) and the operator panel's scopes (the marked range,
# a DP panel stage instance): golden screens in colour and mono, numbers against plain SQL over
# the generated profile and against the level2 sample's analysis.db, and a tmux run.
. "$(dirname "$0")/lib_tui.sh"

if ! "$TLGEN" rl "$t_tmp/grpo" --ranks 4 --steps 2 --seed 3 --slow 2 > "$t_tmp/grpo.log" 2>&1; then
	cat "$t_tmp/grpo.log"
	not_ok "generate the fixture"
	t_done
	exit 1
fi
G=$t_tmp/grpo
db_of() { echo "$G"/gen-r$1_*/ASCEND_PROFILER_OUTPUT/*.db; }
have_sql=0
command -v sqlite3 > /dev/null 2>&1 && have_sql=1

# ---- the matrix ----------------------------------------------------------------------------------
view "$G" 100x30 x
check "x opens the matrix on the first step" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication matrix, step 1 '"
check "a row per sending rank, a column per rank" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -q 'src.dst  *0  *1  *2  *3 *\$' && sed -n 8p '$t_tmp/screen.txt' | grep -q '^      3 '"
check "cells in the heat slots (U..Y)" sh -c "sed -n 6p '$t_tmp/screen.attr' | grep -q '[UVWXY]'"
golden matrix-panel
VIEW_OPTS="--theme mono" NO_COLOR=1 view "$G" 100x30 x
golden matrix-panel-mono
check "mono: each cell carries its level as a glyph" sh -c "sed -n 5p '$t_tmp/screen.txt' | grep -q '[▁▃▅▇█] '"
LC_ALL=C LANG=C view "$G" 100x30 x
check "ASCII: the levels are digits 1-5" sh -c "sed -n 5p '$t_tmp/screen.txt' | grep -q '  [1-5] [0-9]'"
view "$G" 100x30 ":matrix"
check ":matrix opens it too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication matrix'"

# the cell 0 -> 1 of step 1: its bytes are the transfers rank 0's DB records from 0 to 1 whose
# task starts in its step 1, summed in SQL
view "$G" 100x30 x l
line=$(sed -n 29p "$t_tmp/screen.txt")
check "the status line names the cell under the cursor" sh -c "echo '$line' | grep -q '^ rank 0 -> rank 1: '"
if [ $have_sql = 1 ]; then
	want=$(sqlite3 "$(db_of 0)" "SELECT printf('%.6f', sum(c.size) / 1e6) FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId, STEP_TIME s WHERE s.id = 1 AND c.srcRank = 0 AND c.dstRank = 1 AND t.startNs >= s.startNs AND t.startNs < s.endNs")
	check "its bytes are SQL's ($want MB)" sh -c "echo '$line' | grep -q ': $want MB in '"
else
	skip "sqlite3 missing: the matrix cell against SQL"
fi
view "$G" 100x30 x c
check "c: heat by time" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'heat: time (us)'"
view "$G" 100x30 x c c
check "c c: heat by bandwidth" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'heat: bandwidth (GB/s)'"
view "$G" 100x30 x T
check "T: the next step" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication matrix, step 2 ' && sed -n 2p '$t_tmp/screen.txt' | grep -q '^ page 2/2 '"
view "$G" 100x30 x T "<M-T>"
check "M-T: back to step 1" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication matrix, step 1 '"
view "$G" 100x30 x l "<Enter>"
check "Enter lists the cell's ops" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Ops of rank 0 -> rank 1, group '"
golden matrix-ops
nops=$(sed -n 2p "$t_tmp/screen.txt" | awk '{ print $1 }')
listed=$(grep -c 'hcom_' "$t_tmp/screen.txt")
check "as many rows as the header says ($nops)" [ "$nops" = "$listed" ]
if [ $have_sql = 1 ]; then
	want=$(sqlite3 "$(db_of 0)" "SELECT count(DISTINCT c.opId) FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId, STEP_TIME s WHERE s.id = 1 AND c.srcRank = 0 AND c.dstRank = 1 AND t.startNs >= s.startNs AND t.startNs < s.endNs")
	check "... the ops with a transfer from 0 to 1 in step 1 in SQL ($want)" [ "$nops" = "$want" ]
fi
op=$(sed -n 4p "$t_tmp/screen.txt" | awk '{ print $NF }')
view "$G" 100x30 x l "<Enter>" "<Enter>"
check "Enter on an op selects it on the timeline" sh -c "grep -q '^Rank 0, $op' '$t_tmp/screen.txt' && grep -q 'rank 0 comm' '$t_tmp/screen.txt'"
view "$G" 100x30 x l "<Enter>" q
check "q in the list goes back to the matrix" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication matrix'"
view "$G" 100x30 x q
check "q closes it" sh -c "! grep -q 'Communication matrix' '$t_tmp/screen.txt'"
if "$TLGEN" rl "$t_tmp/mod" --ranks 2 --steps 1 --modules > /dev/null 2>&1; then
	view "$t_tmp/mod" 100x30 x
	check "without transfers the panel says so" has "no transfer between ranks"
	golden matrix-none
else
	not_ok "generate a profile without transfers"
fi

# level2: the cell 0 -> 1 is analysis.db's allreduce-total row
L2=$TL_SRCDIR/../shared/samples/ascend-db/level2
[ -n "$TL_SAMPLES" ] && L2=$TL_SAMPLES/ascend-db/level2
if [ -d "$L2" ] && [ $have_sql = 1 ]; then
	view "$L2" 100x30 x l
	want=$(sqlite3 "file:$L2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db?immutable=1" "SELECT printf('%.6f', transit_size) FROM CommAnalyzerMatrix WHERE hccl_op_name = 'allreduce-total' AND src_rank = '0' AND dst_rank = '1'")
	check "level2: the cell 0 -> 1 is CommAnalyzerMatrix's -total row ($want MB)" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q '^ rank 0 -> rank 1: $want MB in .* over HCCS, 4 ops'"
else
	skip "level2 sample or sqlite3 missing: the matrix against CommAnalyzerMatrix"
fi

# ---- the operator panel of the marked range and of a stage instance ------------------------------
view "$G" 100x30 I
check "I without a mark: the whole profile" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ whole profile '"
view "$G" 100x30 ":step 2" M I
check "M then I: the ops of the marked step" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ in the marked range '"
golden ops-panel-range
rk=$(sed -n 1p "$t_tmp/screen.txt" | awk '{ print $4 }')
row=$(sed -n 4p "$t_tmp/screen.txt" | sed 's/^[^ ]*//')
ty=$(echo "$row" | awk '{ print $7 }')
if [ $have_sql = 1 ]; then
	# the mark is step 2 over every rank: its earliest start to its latest end
	span=$(for r in 0 1 2 3; do sqlite3 "$(db_of $r)" "SELECT startNs, endNs FROM STEP_TIME WHERE id = 2"; done | tr '|' ' ' |
		awk 'NR == 1 || $1 < a { a = $1 } NR == 1 || $2 > b { b = $2 } END { print a, b }')
	a=${span% *} b=${span#* }
	want=$(sqlite3 "$(db_of "$rk")" "SELECT count(*), printf('%.3f', sum(t.endNs - t.startNs) / 1e6) FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS s ON s.id = c.opType WHERE s.value = '$ty' AND t.startNs >= $a AND t.startNs < $b" | tr '|' ' ')
	whole=$(sqlite3 "$(db_of "$rk")" "SELECT count(*) FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS s ON s.id = c.opType WHERE s.value = '$ty'")
	check "rank $rk's $ty in the range: count and total as in SQL ($want of $whole)" sh -c "echo '$row' | awk '{ print \$1, \$2 }' | grep -qx '$want' && [ '${want% *}' -lt '$whole' ]"
else
	skip "sqlite3 missing: the scoped operator statistics against SQL"
fi
view "$G" 100x30 ":step 2" M I q "<Esc>" I
check "Esc clears the mark: I shows the whole profile again" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ whole profile '"
view "$G" 100x30 D I
check "I in the DP panel: the ops of its stage and step" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ in stage rollout, step 1 '"
golden ops-panel-stage
dp=$(sed -n 4p "$t_tmp/screen.txt" | sed 's/^[^ ]*//' | awk '{ print $1 }')
dpty=$(sed -n 4p "$t_tmp/screen.txt" | sed 's/^[^ ]*//' | awk '{ print $7, $8 }')
view "$G" 100x30 D I q q I # q: back to the DP panel (its parent), q again: the timeline
all=$(sed 's/^[^ ]*//' "$t_tmp/screen.txt" | grep -F " $dpty" | head -1 | awk '{ print $1 }')
check "... fewer $dpty tasks than the whole profile's on the same rank ($dp < $all)" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ whole profile ' && [ '$dp' -lt '$all' ]"
view "$G" 100x30 D "<Down>" I
check "the DP panel's selected rank is the one shown" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank '"

# ---- tmux: what a user sees -----------------------------------------------------------------------
if command -v tmux > /dev/null 2>&1; then
	n_server=0
	T=
	trap '[ -n "$T" ] && $T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
	cap() { $T capture-pane -p -e -t t > "$t_tmp/pane.e"; $T capture-pane -p -t t > "$t_tmp/pane"; }
	wait_for() {
		i=0
		while [ $i -lt 100 ]; do
			cap
			if grep -qF -- "$1" "$t_tmp/pane"; then
				sleep 0.3
				cap
				return 0
			fi
			sleep 0.1
			i=$((i + 1))
		done
		return 1
	}
	start() { # a fresh server per run (a killed one may still be exiting)
		[ -n "$T" ] && $T kill-server 2> /dev/null
		n_server=$((n_server + 1))
		T="tmux -L tl-matrix-$$-$n_server -f /dev/null"
		$T new-session -d -x 120 -y 40 -s t \
			"env $* TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$TL_BIN' view '$G'; echo EXIT=\$?; sleep 60"
		wait_for "rank 0"
	}
	start
	$T send-keys -t t x
	check "tmux: x shows the matrix" wait_for "Communication matrix, step 1"
	check "tmux: the hottest cells in heat.5's red (160)" grep -q "48;5;160m" "$t_tmp/pane.e"
	$T send-keys -t t l Enter
	check "tmux: Enter lists the cell's ops" wait_for "Ops of rank 0 -> rank 1"
	$T send-keys -t t Enter
	check "tmux: Enter shows the op on the timeline" wait_for "Rank 0, hcom_"
	$T send-keys -t t q
	check "tmux: q quits" wait_for "EXIT=0"
	start NO_COLOR=1
	$T send-keys -t t x
	wait_for "Communication matrix" > /dev/null
	check "tmux NO_COLOR: no colour, the levels as glyphs" sh -c "! grep -q '48;5;160m' '$t_tmp/pane.e' && grep -q '█ [0-9]' '$t_tmp/pane'"
	$T kill-server 2> /dev/null
else
	skip "tmux absent"
fi
t_done
