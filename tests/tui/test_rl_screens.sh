#!/bin/sh
# Screen tests of the RL panels (issue 5) through script mode: the DP load-imbalance panel and
# the pipeline-parallel view on generated profiles whose slow rank and schedule are known, the
# stage lanes, and the plain messages of profiles without RL ranges, without PP, or with one
# rank.
. "$(dirname "$0")/lib_tui.sh"
RLFIX=$TL_TESTBIN/tui/rl_fixture

# rlfix NAME [rl_fixture options]: a generated profile in $t_tmp/NAME
rlfix() {
	name=$1
	shift
	[ -d "$t_tmp/$name" ] && return 0
	"$RLFIX" "$t_tmp/$name" "$@" > "$t_tmp/$name.log" 2>&1 || {
		cat "$t_tmp/$name.log"
		return 1
	}
}

if ! rlfix grpo --ranks 4 --steps 2 --seed 3 --slow 2 || ! rlfix pp --ranks 8 --pp 4 --steps 2 ||
	! rlfix gpipe --ranks 4 --pp 4 --steps 1 --gpipe || ! rlfix one --ranks 1 --steps 1 ||
	! rlfix plain --ranks 2 --steps 1 --no-ranges; then
	not_ok "generate the fixtures"
	t_done
	exit 1
fi

# ---- stage lanes -------------------------------------------------------------------------------
view "$t_tmp/grpo" 100x30
check "every rank has a stage lane" sh -c "[ \$(grep -c '^ stage ' '$t_tmp/screen.txt') -ge 2 ]"
check "stage slices are named by canonical stage" has "rollout"
check "stages are drawn in their stage colour (rollout)" attr_has 1
check "... and actor_update in its own" attr_has 7

# ---- the DP load-imbalance panel ---------------------------------------------------------------
view "$t_tmp/grpo" 100x30 D
check "D opens the DP panel on rollout, step 1" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'DP load imbalance: stage rollout, step 1'"
check "the header names the slowest rank: the generated slow rank 2" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'slowest rank 2 '"
check "the header has max/mean and cv" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'max/mean [0-9.]*   cv [0-9.]*'"
check "one row per rank" sh -c "[ \$(sed -n '4,7p' '$t_tmp/screen.txt' | grep -c ' ms ') -eq 4 ]"
check "the slowest rank waits 0" sh -c "sed -n '4,7p' '$t_tmp/screen.txt' | grep -Eq '^ +2 .* 0\.000 ms '"
check "bars in the rollout colour" sh -c "sed -n 4p '$t_tmp/screen.attr' | grep -q 1111"
check "the wait for the slowest in the free colour" sh -c "sed -n 4p '$t_tmp/screen.attr' | grep -q ffff"
golden dp-panel
view "$t_tmp/grpo" 100x30 D S
check "S cycles to the next stage" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'stage ref_logprob, step 1'"
view "$t_tmp/grpo" 100x30 D T
check "T cycles to the next step" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'stage rollout, step 2'"
view "$t_tmp/grpo" 100x30 D T T "<Right>" "<Left>"
check "steps wrap around, Right and Left cycle stages" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'stage rollout, step 1'"
view "$t_tmp/grpo" 100x30 D O
check "O sorts by duration" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'sorted by duration'"
check "the longest rollout (the slow rank) comes first" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +2 '"
view "$t_tmp/grpo" 100x30 D O "<Enter>"
check "Enter jumps to that rank and window in the timeline" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Rank 2, rollout step 1: '"
check "... and selects its stage slice" sh -c "grep -q '| sel rollout' '$t_tmp/screen.txt'"
view "$t_tmp/grpo" 100x30 D q
check "q closes the panel, the timeline is back" has "rank 0"
view "$t_tmp/grpo" 100x30 ":dp-panel"
check "the panel opens as :dp-panel too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'DP load imbalance'"

# ---- the pipeline-parallel view ----------------------------------------------------------------
view "$t_tmp/pp" 120x24 P
check "P opens the PP view: 4 PP stages from distributed_args" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Pipeline: step 1 (1 of 2), 4 PP stages from distributed_args'"
check "one row per PP stage with its ranks" sh -c "grep -q 'pp 0 r0,1' '$t_tmp/screen.txt' && grep -q 'pp 3 r6,7' '$t_tmp/screen.txt'"
check "forward and backward blocks in their colours" sh -c "grep -q FFF '$t_tmp/screen.attr' && grep -q BBB '$t_tmp/screen.attr'"
check "bubbles are shaded" sh -c "sed -n 3p '$t_tmp/screen.attr' | grep -q f"
check "P2P transfers are drawn between the stages" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -q '↓'"
check "1F1B: stage 0 runs its warm-up forwards, then alternates" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'F2.*F3.*B0.*F4.*B1'"
golden pp-view
view "$t_tmp/pp" 120x24 P T
check "T shows the next step" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'step 2 (2 of 2)'"
view "$t_tmp/gpipe" 120x24 P
check "GPipe: every forward before the first backward" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'F7.*B0' && ! sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'B0.*F'"
view "$t_tmp/pp" 120x24 P j "<Enter>"
check "Enter jumps to the PP stage's rank and step" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^PP stage 1 (rank 2): bubble ratio'"

# ---- plain messages ------------------------------------------------------------------------------
view "$t_tmp/one" 100x30 D
check "one rank: the DP panel says why it is empty" has "DP load imbalance: needs at least two ranks; this profile has 1."
view "$t_tmp/one" 100x30 P
check "one rank: the PP view says why it is empty" has "Pipeline parallelism: needs at least two ranks; this profile has 1."
view "$t_tmp/grpo" 100x30 P
check "no PP: the PP view says so" has "Pipeline parallelism: none found"
view "$t_tmp/pp" 100x30 D
check "no RL ranges (a PP profile): the DP panel says so" has "no RL stage ran on two ranks or more"
view "$t_tmp/plain" 100x30 D
check "no RL ranges: the DP panel says so" has "no RL stage ran on two ranks or more"
check "... with no empty box or header row" sh -c "! grep -q 'wait decode' '$t_tmp/screen.txt'"
view "$t_tmp/one" 60x20 D S T O j "<Enter>" P T j "<Enter>" q
check "keys in empty panels do not crash" [ $? -eq 0 ]

# ---- ? lists the panels' keys ----------------------------------------------------------------------
view "$t_tmp/grpo" 100x60 "?" "<PgDn>"
check "? lists dp-panel" has "dp-panel"
check "? lists pp-view" has "pp-view"
check "? lists stage-next and step-next" sh -c "grep -q stage-next '$t_tmp/screen.txt' && grep -q step-next '$t_tmp/screen.txt'"
t_done
