#!/bin/sh
# Screen tests of the RL panels through script mode: the DP load-imbalance panel and
# the pipeline-parallel view on generated profiles whose slow rank and schedule are known, the
# stage lanes, and the plain messages of profiles without RL ranges, without PP, or with one
# rank.
. "$(dirname "$0")/lib_tui.sh"

# rlfix NAME [tlgen rl options]: a generated profile in $t_tmp/NAME
rlfix() {
	name=$1
	shift
	[ -d "$t_tmp/$name" ] && return 0
	"$TLGEN" rl "$t_tmp/$name" "$@" > "$t_tmp/$name.log" 2>&1 || {
		cat "$t_tmp/$name.log"
		return 1
	}
}

if ! rlfix grpo --ranks 4 --steps 2 --seed 3 --slow 2 || ! rlfix pp --ranks 8 --pp 4 --steps 2 ||
	! rlfix gpipe --ranks 4 --pp 4 --steps 1 --gpipe || ! rlfix one --ranks 1 --steps 1 ||
	! rlfix plain --ranks 2 --steps 1 --no-ranges ||
	! rlfix decnone --ranks 3 --steps 1 --decode none ||
	! rlfix ppops --ranks 8 --pp 4 --steps 2 --op-pairs ||
	! rlfix ppops-unsaid --ranks 4 --pp 4 --steps 1 --op-pairs --no-meta --no-p2p; then
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
check "the header names the rank that finished last: the generated slow rank 2" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'last to finish rank 2 '"
check "... which is also the longest running, so no second rank is named" sh -c "! sed -n 2p '$t_tmp/screen.txt' | grep -q 'longest running'"
check "the header has max/mean and cv" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'max/mean [0-9.]*   cv [0-9.]*'"
check "one row per rank" sh -c "[ \$(sed -n '4,7p' '$t_tmp/screen.txt' | grep -c ' ms ') -eq 4 ]"
check "the slowest rank waits 0" sh -c "sed -n '4,7p' '$t_tmp/screen.txt' | grep -Eq '^ +2 .* 0\.000 ms '"
check "bars in the rollout colour" sh -c "sed -n 4p '$t_tmp/screen.attr' | grep -q 1111"
check "the wait for the slowest in the free colour" sh -c "sed -n 4p '$t_tmp/screen.attr' | grep -q ffff"
golden dp-panel
check "decode steps are counted on every rank, with the last step and the bubble rate" sh -c "[ \$(sed -n '4,7p' '$t_tmp/screen.txt' | grep -Ec ' ms +[0-9]+ +[0-9]+ +[0-9.]+% +[0-9.]+%') -eq 4 ]"
view "$t_tmp/decnone" 100x30 D
check "no decode range: the decode column shows a dash, not 0" sh -c "[ \$(sed -n '4,6p' '$t_tmp/screen.txt' | grep -Ec ' ms +– +[0-9.]+%') -eq 3 ]"
LANG=C LC_ALL=C view "$t_tmp/decnone" 100x30 D
check "... an ASCII dash under LANG=C" sh -c "[ \$(sed -n '4,6p' '$t_tmp/screen.txt' | grep -Ec ' ms +- +[0-9.]+%') -eq 3 ]"
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
view "$t_tmp/pp" 120x24 P
sed 1,2d "$t_tmp/screen.txt" > "$t_tmp/pp-ranges.txt"
view "$t_tmp/ppops" 120x24 P
check "without ranges, the blocks come from the operator pairs (said above the rows)" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 't=0   blocks from forward/backward operator pairs'"
check "... the title still ends with its key hints at 120 columns" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'q: close)'"
check "... and the view is the one the ranges give" sh -c "sed 1,2d '$t_tmp/screen.txt' | cmp -s - '$t_tmp/pp-ranges.txt'"
view "$t_tmp/ppops-unsaid" 100x30 P
check "operator pairs alone, nothing says PP: the PP view says none found" has "Pipeline parallelism: none found (no forward or backward step ranges;"
view "$t_tmp/pp" 120x24 P j "<Enter>"
check "Enter jumps to the PP stage's rank and step" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^PP stage 1 (rank 2): bubble ratio'"

# ---- tl summary text: a long stage name widens its column, the others stay aligned -----------
mkdir -p "$t_tmp/xdg/tl"
echo 'other:a_rather_long_stage_name_for_rollout   ^generate_sequences$' >"$t_tmp/xdg/tl/stages"
XDG_CONFIG_HOME="$t_tmp/xdg" "$TL_BIN" summary "$t_tmp/grpo" >"$t_tmp/sum.txt" 2>/dev/null
# the column where the "end" header ends, and where each row's end time ends
check "a long stage name: the stages table stays aligned" awk '
	/^RL stages per rank/ { t = 1; next }
	t && /^ +rank +step +stage/ { col = index($0, " end ") + 3; next }
	t && col && /^$/ { exit ok ? 0 : 1 }
	t && col { if (substr($0, col, 1) ~ /[0-9]/ && substr($0, col + 1, 1) == " ") ok = 1; else exit 1 }
	END { exit ok ? 0 : 1 }' "$t_tmp/sum.txt"
check "... with the long name in it" grep -q "other:a_rather_long_stage_name_for_rollout" "$t_tmp/sum.txt"

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

# ---- bubbles: the viewer and `tl summary` say the same of a gap ---------------------------------
# For the largest bubble of every rank, the B message (step, stage, reason) and the detail pane
# (start, end to the ns, step, stage, reason) agree with the rank's first entry of
# `tl summary --json` "bubbles" (longest first). B walks the largest bubbles over all ranks,
# longest first, so the first bubble B shows on a rank is that rank's largest.

# json_bubbles PROFILE: "rank start_ns end_ns stage step reason" per bubble (stage - for null,
# step "between" for a gap between steps: "step": null with "between_steps": true)
json_bubbles() {
	"$TL_BIN" summary "$1" --json 2>/dev/null | python3 -c '
import json, sys
def v(x):
    return "-" if x is None else str(x)
for b in json.load(sys.stdin)["bubbles"]:
    step = "between" if b["between_steps"] and b["step"] is None else v(b["step"])
    print(v(b["rank"]), b["start_ns"], b["end_ns"], v(b["stage"]), step, b["reason"])'
}

# epoch NS: the detail pane's "2025-01-09 07:17:47.102024860" (TZ=UTC) of an epoch ns time
epoch() {
	printf '%s.%09d\n' "$(date -u -d "@$(($1 / 1000000000))" '+%Y-%m-%d %H:%M:%S')" $(($1 % 1000000000))
}

# tui_bubbles PROFILE N: presses B N times with the detail pane open; per press
# "rank start end stage step reason | message-step message-stage message-reason"
tui_bubbles() {
	: > "$t_tmp/bscript"
	echo i >> "$t_tmp/bscript"
	k=1
	while [ $k -le "$2" ]; do
		printf 'B\n:dump %s/b%d.txt\n' "$t_tmp" $k >> "$t_tmp/bscript"
		k=$((k + 1))
	done
	"$TL_BIN" view "$1" --script "$t_tmp/bscript" --size 200x50 2> "$t_tmp/err" || return 1
	k=1
	while [ $k -le "$2" ]; do
		awk '
		/^ start  / { s = $0; sub(/.*\(/, "", s); sub(/\).*/, "", s) }
		/^ end  / { e = $0; sub(/.*\(/, "", e); sub(/\).*/, "", e) }
		/^ step  / { st = $2 }
		/^ stage  / { sg = $2 }
		/^ reason  / { rs = $2 }
		/^Bubble #[0-9]* of [0-9]* by size: / {
			m = $0; sub(/ *$/, "", m)
			r = m; sub(/.* idle on rank /, "", r); sub(/ .*/, "", r)
			n = split(m, f, ", ")
			ms = f[n - 2]; sub(/^step /, "", ms); if (ms == "no step") ms = "-"
			if (ms == "between steps") ms = "between"
			mg = f[n - 1]; sub(/^stage /, "", mg); if (mg == "no stage") mg = "-"
			mr = f[n]
		}
		END { printf "%s %s|%s %s %s %s | %s %s %s\n", r, s, e, sg, (st == "-" ? -1 : st), rs, (ms == "-" ? -1 : ms), mg, mr }
		' "$t_tmp/b$k.txt"
		k=$((k + 1))
	done
}

# want_of "rank start_ns end_ns stage step reason": the line tui_bubbles prints for it
want_of() {
	printf '%s %s|%s %s %s %s | %s %s %s\n' "$1" "$(epoch "$2")" "$(epoch "$3")" "$4" "$5" "$6" \
		"$5" "$4" "$6"
}

# agree NAME PROFILE NRANKS MIN_STAGED: MIN_STAGED of the bubbles compared lie in a stage
agree() {
	name=$1 prof=$2 nr=$3 min_staged=$4
	json_bubbles "$prof" > "$t_tmp/$name.json.txt"
	tui_bubbles "$prof" 80 > "$t_tmp/$name.tui.txt"
	check "$name: the summary lists bubbles" [ -s "$t_tmp/$name.json.txt" ]
	check "$name: B runs and shows bubbles" [ -s "$t_tmp/$name.tui.txt" ]
	r=0
	while [ $r -lt "$nr" ]; do
		# B walks the bubbles inside steps first: the rank's largest of those, if any
		j=$(awk -v r=$r '$1 == r && $5 != "between" { print; exit }' "$t_tmp/$name.json.txt")
		[ -n "$j" ] || j=$(awk -v r=$r '$1 == r { print; exit }' "$t_tmp/$name.json.txt")
		u=$(awk -v r=$r '$1 == r { print; exit }' "$t_tmp/$name.tui.txt")
		# shellcheck disable=SC2086
		want=$(want_of $j)
		if [ -n "$j" ] && [ "$u" = "$want" ]; then
			ok "$name rank $r: the viewer's largest bubble is the summary's ($u)"
		else
			not_ok "$name rank $r: viewer '$u', summary '$want'"
		fi
		r=$((r + 1))
	done
	# every bubble B showed that the summary lists too (its 10 longest per rank) agrees
	while IFS= read -r j; do
		# shellcheck disable=SC2086
		want_of $j
	done < "$t_tmp/$name.json.txt" > "$t_tmp/$name.want.txt"
	awk 'NR == FNR { want[$1 " " $2 " " $3 " " $4] = $0; next }
	($1 " " $2 " " $3 " " $4) in want {
		n++
		if (want[$1 " " $2 " " $3 " " $4] != $0) { bad++; print "# viewer  " $0; print "# summary " want[$1 " " $2 " " $3 " " $4] }
		if ($5 != "-") staged++
	}
	END { printf "%d %d %d\n", n, bad, staged }' "$t_tmp/$name.want.txt" "$t_tmp/$name.tui.txt" > "$t_tmp/$name.cmp"
	grep '^#' "$t_tmp/$name.cmp"
	grep -v '^#' "$t_tmp/$name.cmp" > "$t_tmp/$name.cmp.n"
	read -r n bad staged < "$t_tmp/$name.cmp.n"
	if [ "$n" -ge "$nr" ] && [ "$bad" -eq 0 ] && [ "$staged" -ge "$min_staged" ]; then
		ok "$name: the $n bubbles of B's walk that the summary lists agree ($staged in a stage)"
	else
		not_ok "$name: of $n bubbles of B's walk the summary lists, $bad differ ($staged in a stage, want $min_staged)"
	fi
}
if date -u -d @0 > /dev/null 2>&1; then
	agree grpo "$t_tmp/grpo" 4 10
	agree pp "$t_tmp/pp" 8 0
	agree plain "$t_tmp/plain" 2 0
else
	skip "the viewer's bubbles agree with the summary's: date(1) cannot convert epoch seconds"
fi
view "$t_tmp/grpo" 160x40 B
check "the B message names step, stage and reason: first the largest gap inside a step" \
	sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Bubble #1 of [0-9]* by size: [0-9.]+ (ms|us|µs) idle on rank [0-9]+ at [0-9.]*ms, step [0-9]+, stage [a-z_]+, [a-z_]+ *\$'"
# the summary's answer: the longest bubble inside a step over every rank (between steps last)
json_bubbles "$t_tmp/grpo" > "$t_tmp/grpo.all.txt"
first=$(awk '$5 != "between"' "$t_tmp/grpo.all.txt" | sort -k1,1n -s | awk '{ print ($3 - $2), $0 }' | sort -k1,1nr -s | head -1)
fr=$(echo "$first" | awk '{ print $2 }')
check "... it is the summary's longest in-step bubble (rank $fr)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q ' idle on rank $fr at '"
# the longest bubble of all, between two steps: the overview's bubble table, longest first
view "$t_tmp/grpo" 160x40 i V S S S "<Enter>"
check "the detail pane of a bubble: the summary's evidence" \
	sh -c "grep -q '^ evidence  *no host range open; after update_actor, before generate_sequences' '$t_tmp/screen.txt'"
check "... under the title Selected bubble" has "Selected bubble"
check "... its step: between steps, as the summary says" sh -c "grep -q '^ step  *between steps' '$t_tmp/screen.txt'"
view "$t_tmp/grpo" 160x40 ":goto 60ms" "}"
check "bubble-next names the stage enclosing the gap and the reason" \
	sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Bubble [0-9]+/[0-9]+: .* idle on rank 0 at [0-9.]+ms, step 1, (stage [a-z_]+|no stage), (collective_wait|host_launch_gap|nothing_scheduled) *$'"

# ---- the slow-rank panel ---------------------------------------------------------------------------
# The generator's slow rank (3 by default) arrives last at the collectives. The panel's worst
# collective of that rank is checked against COMMUNICATION_OP read with sqlite3: its own duration
# and the median of the group's durations minus it (msprof-analyze's median of an even count: the
# mean of the middle two).
if rlfix slow --ranks 4 --steps 1; then
	view "$t_tmp/slow" 100x30 R
	check "R opens the slow-rank panel" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Slow ranks: votes of msprof-analyze slow_rank'"
	golden slow-panel
	votes=$("$TL_BIN" summary --json "$t_tmp/slow" 2>/dev/null |
		python3 -c "import json, sys; print(*[v['votes'] for v in json.load(sys.stdin)['slow_ranks'] if v['rank'] == 3])")
	row=$(sed -n 4p "$t_tmp/screen.txt" | sed 's/^.//')
	check "the first row is the generated slow rank 3 with the votes of tl summary --json ($votes)" \
		sh -c "echo '$row' | awk '{ exit !(\$1 == 3) }' && [ -n '$votes' ] && [ \"\$(echo '$row' | awk '{ print \$2 }')\" = '$votes' ]"
	op=$(echo "$row" | awk '{ print $7 }')
	durs=$(for db in "$t_tmp"/slow/*/ASCEND_PROFILER_OUTPUT/*.db; do
		sqlite3 "$db" "SELECT c.endNs - c.startNs FROM COMMUNICATION_OP c JOIN STRING_IDS s ON s.id = c.opName WHERE s.value = '$op'"
	done | sort -n | tr '\n' ' ')
	want=$(echo "$durs" | awk '{ printf "%.3f ms +%.3f ms", (($2 + $3) / 2 - $1) / 1e6, $1 / 1e6 }')
	check "its worst collective ($op): the wait (median - its op) and its op agree with SQL" \
		sh -c "echo '$row' | grep -Eq '$want'"
	view "$t_tmp/slow" 100x30 R "<Enter>"
	check "Enter jumps to the worst collective on rank 3" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Rank 3 arrived last at $op: its op '"
	check "... selected on rank 3's communication lane" sh -c "grep -q '| rank 3 comm .*| sel' '$t_tmp/screen.txt' || grep -q '| rank 3 comm' '$t_tmp/screen.txt'"
	# the detail pane of that collective: every rank's arrival, against COMMUNICATION_OP's starts
	view "$t_tmp/slow" 100x50 R "<Enter>" i
	for db in "$t_tmp"/slow/*/ASCEND_PROFILER_OUTPUT/*.db; do
		r=${db##*_}
		sqlite3 "$db" "SELECT ${r%.db}, c.startNs FROM COMMUNICATION_OP c JOIN STRING_IDS s ON s.id = c.opName WHERE s.value = '$op'"
	done | tr '|' ' ' | sort -k2n > "$t_tmp/arrive.txt"
	last=$(tail -1 "$t_tmp/arrive.txt" | awk '{ print $1 }')
	skew=$(awk 'NR == 1 { a = $2 } { b = $2 } END { printf "%.3f ms", (b - a) / 1e6 }' "$t_tmp/arrive.txt")
	check "the detail pane names the last to arrive (rank $last in SQL) and the skew ($skew)" \
		grep -q "^ collective .* 4 ranks; last to arrive: rank $last, $skew after the first" "$t_tmp/screen.txt"
	check "... and lists every rank's arrival, the last one marked" sh -c "[ \$(grep -c '^ rank [0-9].*arrived +.*, waited .* for the last' '$t_tmp/screen.txt') -eq 4 ] && grep -q '^ rank $last last .*arrived +$skew, waited 0 ns' '$t_tmp/screen.txt'"
	view "$t_tmp/slow" 100x30 R O
	check "O sorts by the others' wait" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'sorted by others. wait'"
	view "$t_tmp/slow" 100x30 ":slow"
	check "the panel opens as :slow too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Slow ranks'"
else
	not_ok "generate the slow-rank fixture"
fi
view "$t_tmp/one" 100x30 R
check "one rank: the slow-rank panel says why it is empty" has "Slow ranks: needs at least two ranks; this profile has 1."

# ---- the communication panel ---------------------------------------------------------------------
if [ -d "$t_tmp/slow" ]; then
	view "$t_tmp/slow" 100x30 X
	check "X opens the communication panel" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Communication: time per op and rank'"
	golden comm-panel
	n=$(for db in "$t_tmp"/slow/*/ASCEND_PROFILER_OUTPUT/*.db; do sqlite3 "$db" "SELECT count(*) FROM COMMUNICATION_OP"; done | awk '{ s += $1 } END { print s }')
	check "one row per op and rank: $n in COMMUNICATION_OP" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q ' $n ops '"
	view "$t_tmp/slow" 100x30 X O
	sed -n '4,8p' "$t_tmp/screen.txt" | sed 's/^[^ ]*//' | awk '{ print $3 }' > "$t_tmp/elapse.txt"
	check "O sorts by elapse, the longest first" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'sorted by elapse' && sort -rn '$t_tmp/elapse.txt' | cmp -s - '$t_tmp/elapse.txt'"
	view "$t_tmp/slow" 100x30 X j "<Enter>"
	check "Enter shows the op on its rank's communication lane" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'Rank 0, hcom_.*: elapse [0-9.]* us, wait '"
	view "$t_tmp/slow" 100x30 ":comm"
	check "the panel opens as :comm too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Communication: time per op and rank'"
fi
view "$t_tmp/plain" 100x30 X
check "the panel of a profile without HCCL sub-tasks opens" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Communication'"
# Every row against torch_npu's own CommAnalyzerTime (ms) of the level2 sample, to 1 us.
L2=$SAMPLES/ascend-db/level2
if [ -d "$L2" ] && command -v sqlite3 > /dev/null; then
	view "$L2" 160x20 X
	for r in 0 1; do
		sqlite3 -separator ' ' "$L2/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db" \
			"SELECT $r, hccl_op_name, elapse_time * 1e3, transit_time * 1e3, wait_time * 1e3, synchronization_time * 1e3, idle_time * 1e3 FROM CommAnalyzerTime"
	done > "$t_tmp/cat.txt"
	sed -n '4,11p' "$t_tmp/screen.txt" | sed 's/^[^ ]*//' | awk '{ print $1, $2, $3, $4, $5, $6, $7 }' > "$t_tmp/panel.txt"
	check "level2: every row equals CommAnalyzerTime to 1 us (8 ops)" awk '
		NR == FNR { k = $1 " " $2; for (i = 3; i <= 7; i++) w[k, i] = $i; n++; next }
		{ k = $1 " " $2; if (!((k, 3) in w)) exit 1; for (i = 3; i <= 7; i++) { d = $i - w[k, i]; if (d > 1 || d < -1) exit 1 } m++ }
		END { exit !(n == 8 && m == 8) }' "$t_tmp/cat.txt" "$t_tmp/panel.txt"
else
	skip "level2 sample or sqlite3 missing: the communication panel against CommAnalyzerTime"
fi

# ---- the operator statistics panel -------------------------------------------------------------
# Checked against COMPUTE_TASK_INFO joined with TASK, read with sqlite3: the slow rank's count and
# total of its longest op type, and that total over the median of the four ranks' totals.
if [ -d "$t_tmp/slow" ]; then
	view "$t_tmp/slow" 100x30 I
	check "I opens the operator panel on the slow rank 3" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank 3 by op type'"
	golden ops-panel
	row=$(sed -n 4p "$t_tmp/screen.txt" | sed 's/^[^ ]*//')
	ty=$(echo "$row" | awk '{ print $7 }')
	for db in "$t_tmp"/slow/*/ASCEND_PROFILER_OUTPUT/*.db; do
		r=${db##*_}
		sqlite3 "$db" "SELECT ${r%.db}, count(*), sum(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS s ON s.id = c.opType WHERE s.value = '$ty'"
	done | tr '|' ' ' > "$t_tmp/ops.txt"
	want=$(awk '$1 == 3 { printf "%d %.3f", $2, $3 / 1e6 }' "$t_tmp/ops.txt")
	vs=$(sort -k3n "$t_tmp/ops.txt" | awk '{ t[NR] = $3; if ($1 == 3) m = $3 } END { printf "%.2fx", m / ((t[2] + t[3]) / 2) }')
	check "its longest op type ($ty): count and total as in SQL ($want)" sh -c "echo '$row' | awk '{ print \$1, \$2 }' | grep -qx '$want'"
	check "... and its total over the median rank's ($vs)" sh -c "echo '$row' | awk '{ print \$6 }' | grep -qx '$vs'"
	view "$t_tmp/slow" 100x30 I "<Tab>"
	check "Tab: the next rank (0)" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank 0 by op type'"
	view "$t_tmp/slow" 100x30 I "<Enter>"
	check "Enter: the type's op names and input shapes" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank 3: $ty .* by name and input shapes'"
	view "$t_tmp/slow" 100x30 I O O O O
	check "O sorts by vs median" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'sorted by vs median'"
	view "$t_tmp/slow" 100x30 ":ops"
	check "the panel opens as :ops too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank'"
fi
view "$t_tmp/one" 100x30 I
check "the operator panel of a one-rank profile opens" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'Operators'"

# ---- ? lists the panels' keys, on its first page ------------------------------------------------
view "$t_tmp/grpo" 100x60 "?"
check "? lists dp-panel" has "dp-panel"
check "? lists pp-view" has "pp-view"
check "? lists comm, slow and ops" sh -c "grep -q ' comm ' '$t_tmp/screen.txt' && grep -q ' slow ' '$t_tmp/screen.txt' && grep -q ' ops ' '$t_tmp/screen.txt'"
check "? lists stage-next and step-next" sh -c "grep -q stage-next '$t_tmp/screen.txt' && grep -q step-next '$t_tmp/screen.txt'"
t_done
