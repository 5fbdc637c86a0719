#!/bin/sh
# The short triage paths of the viewer (steps, ...) and the fixes around them: each path is a
# script whose key count and final screen are checked.
. "$(dirname "$0")/lib_tui.sh"

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two

# ---- every action has a key in every built-in keymap ----------------------------------------
for km in default vim emacs; do
	"$TL_BIN" keys --keymap "$km" > "$t_tmp/keys" 2>&1
	# a line of an action whose key column (columns 3-24) is empty
	awk 'substr($0,1,2)=="  " && substr($0,3,21) ~ /^ *$/ { print; bad = 1 } END { exit bad }' \
		"$t_tmp/keys" > "$t_tmp/nokey"
	check "keymap $km: every action has a key" [ $? -eq 0 ]
	[ -s "$t_tmp/nokey" ] && sed 's/^/# no key: /' "$t_tmp/nokey"
done

# ---- moving between ranks keeps them on screen ---------------------------------------------
# both ranks fit at 100x30: J and Tab move the cursor, not the lanes
for k in J "<Tab>"; do
	view "$P" 100x30 "$k"
	check "$k with every lane on screen: rank 0 stays at the top" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 0 '"
	check "... and rank 1 is current" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q '| rank 1  '"
done
view "$P" 100x30 J C
check "C folds every rank and both header rows stay on screen" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▸ rank 0 ' && sed -n 3p '$t_tmp/screen.txt' | grep -q '^▸ rank 1 '"
view "$P" 100x30 J C C
check "C again opens them with rank 0 still at the top" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 0 '"
if [ -d "$SAMPLES/ascend-db/level0" ]; then
	view "$SAMPLES/ascend-db/level0" 100x30 J
	check "level0 sample: J keeps rank 0 on screen" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 0 '"
else
	skip "samples absent: J on the level0 sample not checked"
fi
# a small screen: the rank moved to is shown from its header, with the least scrolling
view "$P" 100x16 J
check "100x16: J shows rank 1 from its header" sh -c "grep -q '^▾ rank 1 ' '$t_tmp/screen.txt'"
view "$P" 100x16 J K
check "100x16: K goes back to rank 0, its header on screen" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 0 '"

# ---- more than 8 ranks: header rows, the current rank open --------------------------------
if fixture twelve --ranks 12 --tasks 200; then
	view "$t_tmp/twelve" 120x40
	check "12 ranks: rank 0 open" has "▾ rank 0 "
	check "... the others folded to header rows" sh -c "[ \$(grep -c '^▸ rank ' '$t_tmp/screen.txt') -eq 11 ]"
	view "$t_tmp/twelve" 120x40 J J
	check "J J opens rank 2 and folds the others" sh -c "grep -q '^▾ rank 2 ' '$t_tmp/screen.txt' && [ \$(grep -c '^▸ rank ' '$t_tmp/screen.txt') -eq 11 ]"
	check "... every header row stays on screen" sh -c "grep -q '^▸ rank 0 ' '$t_tmp/screen.txt' && grep -q '^▸ rank 11 ' '$t_tmp/screen.txt'"
	view "$t_tmp/twelve" 120x40 ":rank 9"
	check ":rank 9 opens rank 9" has "▾ rank 9 "
	view "$t_tmp/twelve" 120x40 "<Space>" J
	check "folded by hand, J no longer opens ranks" sh -c "[ \$(grep -c '^▸ rank ' '$t_tmp/screen.txt') -eq 12 ]"
else
	not_ok "generate the 12-rank fixture"
fi

# ---- Esc that clears the selection closes the pane it opened ------------------------------
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>"
check "Enter selects and shows the detail pane" has "Selected slice"
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>" "<Esc>"
check "Esc clears the selection and closes the empty pane" sh -c "! grep -q 'Selected slice\|Nothing selected' '$t_tmp/screen.txt'"

# ---- the detail pane gives each field once ---------------------------------------------------
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>" ":resize 100x90"
sed -n '/^ Selected slice/,$p' "$t_tmp/screen.txt" | awk 'NF > 1 && $1 != "" { print $1 }' |
	sort | uniq -d > "$t_tmp/dups"
check "no field of a task is shown twice" [ ! -s "$t_tmp/dups" ]
[ -s "$t_tmp/dups" ] && sed 's/^/# twice: /' "$t_tmp/dups"
gt=$(sed -n 's/^ globalTaskId *\([0-9]*\) *$/\1/p' "$t_tmp/screen.txt")
check "the task's globalTaskId is shown" [ -n "$gt" ]
if command -v sqlite3 >/dev/null && [ -n "$gt" ]; then
	db=$(ls "$P"/*r0_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db)
	want=$(sqlite3 "$db" "SELECT s.value FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE t.globalTaskId = $gt")
	info=$(sqlite3 "$db" "SELECT s.value FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.taskType WHERE c.globalTaskId = $gt")
	check "taskType is COMPUTE_TASK_INFO's ($info)" grep -Eq "^ taskType +$info *\$" "$t_tmp/screen.txt"
	if [ "$want" != "$info" ]; then
		check "TASK's own taskType ($want) is named by its table" grep -Eq "^ TASK\.taskType +$want *\$" "$t_tmp/screen.txt"
	fi
fi

# ---- a key that does nothing says why -----------------------------------------------------
view "$P" 100x30 S
check "S outside a panel says where it works" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'stage-next does nothing here: In the DP panel'"
view "$P" 100x30 O
check "O outside a panel says where it works" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'sort-next does nothing here: In a panel'"
view "$P" 100x30 f
check "f without a selection says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Nothing selected'"

# ---- steps: go to step N, next/previous step, "this step" statistics in one key ------------
# the answer: the step's span over the ranks, from the fixture's own STEP_TIME tables
span_ms() { # span_ms ID: max(endNs) - min(startNs) of step ID over every rank's DB, in ms
	for db in "$P"/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db; do
		sqlite3 "$db" "SELECT startNs, endNs FROM STEP_TIME WHERE id = $1"
	done | awk -F'|' 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $2 > hi { hi = $2 }
		END { if (NR) printf "%.3f ms", (hi - lo) / 1e6 }'
}
if command -v sqlite3 >/dev/null; then
	want=$(span_ms 2)
	check "the fixture has a step 2" [ -n "$want" ]
	# path: 2 keys (:step 2, M) to the statistics of step 2
	view "$P" 100x30 ":step 2" M
	check "step path: :step 2 then M marks step 2 ($want)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Step 2 marked ($want): its statistics below'"
	check "... the detail pane shows the range statistics of every rank" sh -c "grep -q '^ Range statistics' '$t_tmp/screen.txt' && grep -q '^ rank 0 ' '$t_tmp/screen.txt' && grep -q '^ rank 1 ' '$t_tmp/screen.txt'"
	check "... the range is the step's span" sh -c "grep -q '^ range .*($want)' '$t_tmp/screen.txt'"
	check "... the status line shows the step" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'cursor [0-9.]*ms step 2  | range $want'"
	# path: 2 keys from the start (T, M) give the same step
	view "$P" 100x30 T M
	check "step-next from step 1 goes to step 2 and M marks it" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Step 2 marked ($want)'"
	view "$P" 100x30 ":step 2" "<M-T>"
	check "step-prev goes back to step 1 ($(span_ms 1))" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Step 1: .*($(span_ms 1)); M marks it'"
	check "... the status line shows step 1" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'cursor 0ns step 1 '"
	view "$P" 100x30 ":step 2" T
	check "past the last step T says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^No step after this one'"
else
	skip "sqlite3 absent: the step spans are not checked"
fi
view "$P" 100x30 ":step 99"
check ":step of a step that is not there says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^No step 99 in this profile'"
view "$P" 100x30 ":step x"
check ":step with no number says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^step: expected a step number'"

# ---- the overview panel: the tables of tl summary, sortable, Enter jumps ---------------------
# path: 1 key (V, or :summary) to the overlap of every rank and step
if [ -d "$SAMPLES/ascend-db/level0" ] && command -v sqlite3 > /dev/null; then
	L0=$SAMPLES/ascend-db/level0
	view "$L0" 120x30 V
	check "overview path: V shows the overlap table" has "Overview 1/4: overlap per rank and step"
	for r in 0 1; do
		an=$L0/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db
		# torch_npu's own numbers (us) as the panel prints them (ms, 3 decimals)
		want=$(sqlite3 -readonly "$an" "SELECT printf('%d %d %.3f %.3f %.3f %.3f %.3f %.3f', $r, step, computing/1000.0, communication/1000.0, overlapped/1000.0, communication_not_overlapped/1000.0, free/1000.0, preparing/1000.0) FROM StepTraceTime")
		check "overview rank $r: the row is StepTraceTime's ($want)" sh -c "sed 's/^.//; s/  */ /g; s/^ //; s/ $//' '$t_tmp/screen.txt' | grep -qxF -- '$want'"
	done
	# at 80 columns every column still fits: the full headers, no number cut
	view "$L0" 80x30 V
	check "overview at 80 columns: every overlap column's header" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -q 'computing communication overlapped comm.exposed *free preparing'"
	for r in 0 1; do
		want=$(sqlite3 -readonly "$L0/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db" "SELECT printf('%d %d %.3f %.3f %.3f %.3f %.3f %.3f', $r, step, computing/1000.0, communication/1000.0, overlapped/1000.0, communication_not_overlapped/1000.0, free/1000.0, preparing/1000.0) FROM StepTraceTime")
		check "... rank $r's row whole ($want)" sh -c "sed 's/^.//; s/  */ /g; s/^ //; s/ $//' '$t_tmp/screen.txt' | grep -qxF -- '$want'"
	done
	check "... nothing cut (no …)" sh -c "! grep -q '…' '$t_tmp/screen.txt'"
	view "$L0" 120x30 ":summary"
	check ":summary opens the same panel" has "Overview 1/4: overlap per rank and step"
	# sorted by comm.exposed (5 presses of O), the largest first: rank 1 per StepTraceTime
	top=$(for r in 0 1; do sqlite3 -readonly "$L0/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db" "SELECT communication_not_overlapped, $r FROM StepTraceTime"; done | sort -t'|' -k1,1nr | head -1 | cut -d'|' -f2)
	view "$L0" 120x30 V O O O O O
	check "exposed-communication path: V and O x5 sort by comm.exposed" has "sorted by comm.exposed (largest first)"
	check "... the first row is the rank with the most (rank $top)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +$top +50 '"
	view "$L0" 120x30 V O O O O O "<Enter>"
	check "... Enter goes to that rank and step in the timeline" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Rank $top: ' && sed -n 29p '$t_tmp/screen.txt' | grep -q 'step 50  | rank $top '"
else
	skip "samples or sqlite3 absent: the overview's overlap is not checked against StepTraceTime"
fi
# the GRPO demo profile: slow-rank votes and the largest bubble as tl summary gives them
if XDG_CACHE_HOME="$t_tmp/cache" "$TL_BIN" demo --no-view > "$t_tmp/demo.txt" 2> /dev/null; then
	DEMO=$(ls -d "$t_tmp/cache"/tl/demo* | head -1)
	votes=$(sed -n '/^Slow ranks/,/^Stage skew/p' "$t_tmp/demo.txt" | awk '$1 ~ /^[0-9]+$/ { print $1, $2; exit }')
	view "$DEMO" 120x40 V S S
	check "slow-rank path: V S S shows the votes" has "Overview 3/4: slow-rank votes"
	set -- $votes
	check "... the first row is the summary's ($votes)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +$1 +$2 *\$'"
	view "$DEMO" 120x40 V S S "<Enter>"
	check "... Enter goes to that rank" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -q '| rank $1 '"
	big=$(sed -n '/^Largest bubbles/,/^$/p' "$t_tmp/demo.txt" | awk '$1 ~ /^[0-9]+$/ { printf "%s %.3f %.3f\n", $1, $2, $3 }' | sort -k3,3nr -k2,2n -k1,1n | head -1)
	set -- $big
	view "$DEMO" 120x40 V S S S
	check "longest-stall path: V S S S lists the largest bubble first ($big)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +$1 +$2 +$3 '"
	view "$DEMO" 120x40 V S S S "<Enter>"
	check "... Enter selects it in the timeline" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bubble: $3 ms idle on rank $1 at $2ms'"
	# ---- the four triage questions on tl demo, each in one key -----------------------------
	# keystrokes KEY...: what a user types (a :command or /search: its characters and Enter)
	keystrokes() {
		n=0
		for k in "$@"; do
			case $k in :* | /*) n=$((n + ${#k} + 1)) ;; *) n=$((n + 1)) ;; esac
		done
		echo $n
	}
	# the slow rank: msprof-analyze's votes, the generator's slow rank (3) first
	set -- R
	check "slow rank in $(keystrokes "$@") key (R)" [ "$(keystrokes "$@")" -eq 1 ]
	view "$DEMO" 120x40 "$@"
	check "... the first row is the generator's slow rank 3 with the summary's votes ($votes)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +3 +${votes#* } '"
	# the slowest rollout rank: the DP panel of rollout, step 1, as tl summary's DP section
	last=$(sed -n 's/^stage rollout, step 1: .*last to finish rank \([0-9]*\),.*/\1/p' "$t_tmp/demo.txt")
	set -- D
	check "slowest rollout rank in $(keystrokes "$@") key (D)" [ "$(keystrokes "$@")" -eq 1 ]
	view "$DEMO" 120x40 "$@"
	check "... rank $last last to finish, as tl summary (the generator's slow rank 3)" sh -c "[ '$last' = 3 ] && sed -n 2p '$t_tmp/screen.txt' | grep -q 'last to finish rank $last '"
	# the longest stall inside a step: B, the summary's longest in-step bubble
	stall=$(sed -n '/^Largest bubbles/,/^$/p' "$t_tmp/demo.txt" | awk '$1 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { printf "%s %.3f %.3f %s\n", $1, $2, $3, $4 }' | sort -k3,3nr -k2,2n -k1,1n | head -1)
	set -- B
	check "longest stall in $(keystrokes "$@") key (B)" [ "$(keystrokes "$@")" -eq 1 ]
	view "$DEMO" 120x40 "$@"
	set -- $stall
	check "... the summary's longest bubble inside a step ($stall)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bubble #1 of [0-9]* by size: $3 ms idle on rank $1 at [0-9.]*m*s, step $4,'"
	# exposed communication per step: V, every rank and step of the summary's overlap table
	set -- V
	check "exposed communication per step in $(keystrokes "$@") key (V)" [ "$(keystrokes "$@")" -eq 1 ]
	view "$DEMO" 120x40 "$@"
	sed -n '/^Overlap per rank/,/^$/p' "$t_tmp/demo.txt" | awk '$1 ~ /^[0-9]+$/ { printf "%s %s %.3f\n", $1, $2, $6 }' > "$t_tmp/exposed.want"
	sed -n '4,$p' "$t_tmp/screen.txt" | sed 's/^.//' | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $6 }' > "$t_tmp/exposed.got"
	check "... all $(wc -l < "$t_tmp/exposed.want") rows of rank, step and comm.exposed, as tl summary" sh -c "[ -s '$t_tmp/exposed.want' ] && cmp -s '$t_tmp/exposed.want' '$t_tmp/exposed.got'"
else
	not_ok "tl demo --no-view"
fi

# ---- pin ranks to the top, filter lanes: both undoable, both on the status line ------------
# path: 3 keys — the slow card (rank 1) above the fast one (rank 0), only communication and
# stage lanes
view "$P" 100x30 "J" p ":lanes comm|step"
check "pin path: p pins the current rank (1) to the top" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 1 '"
check "... rank 0 follows it" sh -c "grep -n '^▾ rank 0 ' '$t_tmp/screen.txt' | grep -qv '^2:'"
check "... the status line says so" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q '| pinned 1  | lanes /comm|step/'"
# the lanes left: per rank its header, step, comm group lanes and the two Communication overlap
# lanes; nothing else
check "... only lanes whose name or kind matches are left" sh -c "sed -n '2,27p' '$t_tmp/screen.txt' | grep -v '^[▾▸] rank ' | grep -v '^ *$' | cut -c1-22 | grep -Eiv 'comm|step' | grep -q . && exit 1 || exit 0"
check "... the step lane of each rank is kept" sh -c "[ \$(grep -c '^ step ' '$t_tmp/screen.txt') -eq 2 ]"
check "... compute lanes are gone" sh -c "! grep -q '^ compute' '$t_tmp/screen.txt'"
check "... the message counts the lanes" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^[0-9]+ lanes match /comm\|step/'"
view "$P" 100x30 "J" p ":lanes comm|step" p ":lanes"
check "undo: p again unpins and :lanes alone shows every lane" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^▾ rank 0 ' && grep -q '^ compute' '$t_tmp/screen.txt' && ! grep -q 'pinned\|lanes /' '$t_tmp/screen.txt'"
view "$P" 100x30 ":pin 1" ":pin 0"
check ":pin N pins in the order given" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q '| pinned 1 0 '"
view "$P" 100x30 ":lanes ("
check "a bad lane pattern says pcre2's message and changes nothing" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^lanes: missing closing parenthesis' && grep -q '^ compute' '$t_tmp/screen.txt'"
view "$P" 100x30 ":pin 9"
check ":pin of a rank not loaded says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q \"^pin: no rank '9' loaded\""

# ---- search results: per rank count, total, mean; every match; Enter jumps -------------------
# path: 2 keys (/matmul, F)
view "$P" 120x30 "/matmul" F
check "search-list path: / then F lists the matches" has "Search results for /matmul/: "
if command -v sqlite3 > /dev/null; then
	for r in 0 1; do
		db=$(ls "$P"/*r${r}_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db)
		# the kernels named *matmul* (the only slices of the fixture whose names match)
		want=$(sqlite3 -readonly "$db" "SELECT printf('%d %.3f ms', count(*), sum(t.endNs - t.startNs) / 1e6) FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId JOIN STRING_IDS s ON s.id = c.name WHERE s.value LIKE '%matmul%'")
		set -- $want
		check "rank $r: $1 matches, $2 ms in all, as the DB's own kernels" sh -c "grep -Eq '^. +$r +$1 +$2 ms ' '$t_tmp/screen.txt'"
	done
else
	skip "sqlite3 absent: the search counts are not checked"
fi
total=$(sed -n 's/.*: \([0-9]*\) matches on .*/\1/p' "$t_tmp/screen.txt")
check "... the title's count is the sum of the ranks'" sh -c "[ \$(sed -n 3,4p '$t_tmp/screen.txt' | awk '{ for (i = 1; i <= NF; i++) if (\$i == \"ms\") { n += \$(i - 2); break } } END { print n }') -eq $total ]"
view "$P" 120x30 "/matmul" F j j j "<Enter>"
check "Enter on the second match row goes to match 2" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Match 2 of $total: aclnnMatmul'"
view "$P" 120x30 F
check "F before any search says how to search" has "No search yet"

# ---- bookmarks: :mark NAME, listed and jumpable, kept per profile in the state directory ---
cp -R "$P" "$t_tmp/ro"
chmod -R a-w "$t_tmp/ro"
find "$t_tmp/ro" -type f -exec cksum {} + | sort > "$t_tmp/ro.before"
view "$t_tmp/ro" 100x30 ":goto 42ms" J ":mark slowstart" ":goto 100ms" K ":mark later"
check "mark path: :mark NAME says where it is" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bookmark later: rank 0 at 100.000ms (2 kept for this profile)'"
bm=$(ls "$XDG_STATE_HOME"/tl/bookmarks/*.tsv 2> /dev/null)
check "... kept in \$XDG_STATE_HOME/tl/bookmarks/" [ -n "$bm" ]
check "... as NAME, rank, time" sh -c "grep -q '^slowstart	1	' '$bm' && grep -q '^later	0	' '$bm'"
find "$t_tmp/ro" -type f -exec cksum {} + | sort > "$t_tmp/ro.after"
check "... and nothing is written beside the profile" cmp -s "$t_tmp/ro.before" "$t_tmp/ro.after"
# a new session of the same profile: 3 keys (' j Enter) back to the first bookmark
view "$t_tmp/ro" 100x30 "'"
check "bookmarks panel lists both" sh -c "grep -q '^▸ slowstart  *1 *42.000ms' '$t_tmp/screen.txt' && grep -q '^  later  *0 *100.000ms' '$t_tmp/screen.txt'"
view "$t_tmp/ro" 100x30 "'" "<Enter>"
check "Enter goes back to it: rank 1 at 42ms" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bookmark slowstart: rank 1 at 42.000ms' && sed -n 29p '$t_tmp/screen.txt' | grep -q 'cursor 42.000ms.*| rank 1 '"
view "$P" 100x30 "'"
check "another profile has its own (none)" has "None yet: :mark NAME"
state=$XDG_STATE_HOME
HOME=$t_tmp/home XDG_STATE_HOME= view "$t_tmp/ro" 100x30 ":mark h"
export XDG_STATE_HOME="$state"
check "without XDG_STATE_HOME: ~/.local/state/tl/bookmarks/" sh -c "ls '$t_tmp'/home/.local/state/tl/bookmarks/*.tsv > /dev/null 2>&1"
# deleting: x (or Delete) on the panel's row, :unmark NAME; the file follows
view "$t_tmp/ro" 100x30 "'" j x
check "x in the bookmarks panel deletes the row under the cursor (later)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bookmark later deleted (1 kept for this profile)' && ! grep -q '^. later ' '$t_tmp/screen.txt' && grep -q '^▸ slowstart ' '$t_tmp/screen.txt'"
check "... and from the file" sh -c "grep -q '^slowstart	' '$bm' && ! grep -q '^later	' '$bm'"
view "$t_tmp/ro" 100x30 "'"
check "... a new session lists only the one kept" sh -c "grep -q 'Bookmarks: 1 ' '$t_tmp/screen.txt' && grep -q '^▸ slowstart ' '$t_tmp/screen.txt'"
view "$t_tmp/ro" 100x30 ":unmark nosuch"
check ":unmark of a name not kept says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q \"^unmark: no bookmark 'nosuch'\""
view "$t_tmp/ro" 100x30 ":unmark slowstart" "'"
check ":unmark NAME deletes it: the panel is empty" has "None yet: :mark NAME"
check "... and so is the file" sh -c "! grep -qv '^#' '$bm'"
view "$t_tmp/ro" 100x30 ":mark a" "'" "<Delete>"
check "Delete deletes too" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bookmark a deleted (0 kept for this profile)'"
view "$P" 100x30 ":mark 10ms 20ms"
check ":mark T0 T1 still marks a range" sh -c "grep -q '^ Range statistics' '$t_tmp/screen.txt'"
chmod -R u+w "$t_tmp/ro"

# ---- lane labels: the column widens to fit, a cut label keeps its end ----------------------
view "$P" 100x30
bar=$(sed -n 2p "$t_tmp/screen.txt" | python3 -c 'import sys; print(sys.stdin.read().find("│"))')
check "the label column widened past the old 22 columns (to $bar)" [ "$bar" -gt 22 ]
check "... at most a third of the screen" [ "$bar" -le 34 ]
if command -v sqlite3 > /dev/null; then
	db=$(ls "$P"/*r0_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db)
	group=$(sqlite3 -readonly "$db" "SELECT DISTINCT s.value FROM COMMUNICATION_OP c JOIN STRING_IDS s ON s.id = c.groupName LIMIT 1")
	tail=$(printf '%s' "$group" | awk '{ print substr($0, length($0) - 9) }')
	check "a cut group label keeps its distinguishing end (…$tail)" sh -c "grep -q '^ comm .*….*$tail│' '$t_tmp/screen.txt'"
fi
# label-width (|) widens by 8 up to half the screen, then the narrowest, then fitted again;
# :labels N sets it
bar_of() { sed -n 2p "$t_tmp/screen.txt" | python3 -c 'import sys; print(sys.stdin.read().find("│"))'; }
view "$P" 100x30 "|"
check "| widens the label column by 8 ($bar to $(bar_of))" [ "$(bar_of)" -eq $((bar + 8)) ]
check "... and says how wide" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Lane names: $((bar + 8)) columns'"
n=0 w=$bar
while [ $((w + 8)) -le 50 ]; do w=$((w + 8)) n=$((n + 1)); done
keys=$(i=0; while [ $i -lt $n ]; do printf '| '; i=$((i + 1)); done)
view "$P" 100x30 $keys
check "$n presses: $w columns, the widest up to half the screen" [ "$(bar_of)" -eq "$w" ]
view "$P" 100x30 $keys "|"
check "... once more: the narrowest (8)" [ "$(bar_of)" -eq 8 ]
view "$P" 100x30 $keys "|" "|"
check "... and once more: fitted again ($bar)" sh -c "[ \$(sed -n 2p '$t_tmp/screen.txt' | python3 -c 'import sys; print(sys.stdin.read().find(\"│\"))') -eq $bar ] && tail -1 '$t_tmp/screen.txt' | grep -q '^Lane names: fitted, $bar columns'"
view "$P" 100x30 ":labels 16"
check ":labels 16 makes it 16 columns" [ "$(bar_of)" -eq 16 ]
if [ -n "$group" ]; then
	end=$(printf '%s' "$group" | awk '{ print substr($0, length($0) - 4) }')
	check "... a cut group label keeps its end (…$end)" sh -c "grep -q '^ comm.*….*$end│' '$t_tmp/screen.txt'"
fi
view "$P" 100x30 ":labels 16" ":labels"
check ":labels alone fits them again" [ "$(bar_of)" -eq "$bar" ]
view "$P" 100x30 ":labels 500"
check ":labels keeps 20 columns of time ($(bar_of))" [ "$(bar_of)" -eq 79 ]
view "$P" 100x30 ":labels wide"
check ":labels with no number says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q \"^labels: expected a number of columns, not 'wide'\""
view "$P" 160x30
check "with room, the whole group name is shown" sh -c "grep -qF ' comm $group ' '$t_tmp/screen.txt'"

# ---- the PP view: F/B letters in mono too, the bubble ratio and idle time in words ---------
if "$TLGEN" rl "$t_tmp/pp" --ranks 8 --pp 4 --steps 2 > /dev/null 2>&1; then
	NO_COLOR=1 VIEW_OPTS="--theme mono" view "$t_tmp/pp" 120x24 P
	unset NO_COLOR VIEW_OPTS # a shell may keep what a function call was given
	check "PP view in mono: forward and backward blocks carry F and B with the micro-batch" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -q 'F0' && sed -n 3p '$t_tmp/screen.txt' | grep -q 'B0'"
	check "... and differ in their slot (mono: reverse, reverse underline)" sh -c "sed -n 3p '$t_tmp/screen.attr' | grep -q F && sed -n 3p '$t_tmp/screen.attr' | grep -q B"
	check "... the ruler starts at t=0, apart from the bubble column" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'bubble │t=0'"
	ratio=$("$TL_BIN" summary "$t_tmp/pp" 2> /dev/null | awk '/^step 1:/ { s = 1 } s && $1 == "0" { sub(/%/, "", $3); printf "%.1f", $3; exit }')
	span=$("$TL_BIN" summary "$t_tmp/pp" 2> /dev/null | awk '/^step 1:/ { printf "%.3f", $4; exit }')
	check "... the header says bubble ratio $ratio% of $span ms, as tl summary" sh -c "tail -2 '$t_tmp/screen.txt' | grep -q '^ pp 0: bubble ratio $ratio%, [0-9.]* ms idle of the step.s $span ms'"
	idle=$(sed -n 's/.* bubble ratio [0-9.]*%, \([0-9.]*\) ms idle.*/\1/p' "$t_tmp/screen.txt")
	check "... the idle time is the ratio of the span ($idle ms)" sh -c "awk 'BEGIN { r = $idle / $span * 100; exit !(r > $ratio - 0.06 && r < $ratio + 0.06) }'"
else
	not_ok "generate the PP fixture"
fi

# ---- help at 80 columns: every key, name and description whole ---------------------------------
view "$P" 80x220 "?"
sed -n '/^ Panels/,/^ :-commands/p' "$t_tmp/screen.txt" > "$t_tmp/help80"
check "help at 80 columns cuts nothing (no …)" sh -c "! grep -q '…' '$t_tmp/help80'"
"$TL_BIN" keys | sed -n "1,/^:-commands/p" | awk 'substr($0, 1, 2) == "  " && NF >= 2 { print substr($0, 26, 20) }' | awk '{ print $1 }' > "$t_tmp/names"
missing=$(while read -r n; do grep -q " $n " "$t_tmp/help80" || echo "$n"; done < "$t_tmp/names")
check "... every action name is there whole" [ -z "$missing" ]
[ -n "$missing" ] && echo "# missing: $missing"
# each description, its wrapped lines joined, is the action table's
desc=$("$TL_BIN" keys | awk 'substr($0, 1, 2) == "  " && $0 ~ /goto/ { print substr($0, 47) }')
check "... a long description wraps onto the next line" sh -c "grep -A1 ' goto ' '$t_tmp/help80' | tr -s ' \n' ' ' | grep -qF -- '$desc'"

# ---- the mouse in a real terminal (tmux): SGR reports, drags that stop at the ends --------
if command -v tmux > /dev/null 2>&1; then
	TM="tmux -L tl-triage-$$ -f /dev/null"
	trap '$TM kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
	esc=$(printf '\033')
	tcap() { sleep 0.5; $TM capture-pane -p -t t > "$t_tmp/pane"; }
	tstart() { # tstart COLS ROWS: tl view in a fresh tmux session (TERM with X10 mouse)
		$TM kill-server 2> /dev/null
		$TM new-session -d -x "$1" -y "$2" -s t \
			"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' '$TL_BIN' view '$P'; sleep 60"
		i=0
		while [ $i -lt 100 ] && ! $TM capture-pane -p -t t 2> /dev/null | grep -q "rank 0"; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.3
	}
	tstart 260 30
	# a click on the ruler at column 241 (1-based), beyond X10's 223
	$TM send-keys -t t -l "${esc}[<0;241;1M"
	$TM send-keys -t t -l "${esc}[<0;241;1m"
	tcap
	col=$(sed -n 1p "$t_tmp/pane" | python3 -c 'import sys; print(sys.stdin.read().find("▼") + 1)')
	check "an SGR click at column 241 puts the cursor there (at $col)" [ "$col" = 241 ]
	check "... the cursor moved from the start" sh -c "sed -n 29p '$t_tmp/pane' | grep -q 'cursor [1-9][0-9.]*ms'"
	# a drag at fit-all does not pull empty time onto the screen
	before=$(sed -n 29p "$t_tmp/pane" | cut -c1-40)
	$TM send-keys -t t -l "${esc}[<0;100;5M${esc}[<32;160;5M${esc}[<0;160;5m"
	tcap
	check "a drag at fit-all leaves the view where it is" [ "$(sed -n 29p "$t_tmp/pane" | cut -c1-40)" = "$before" ]
	# zoomed in at the start, dragging right stops at the profile's start
	$TM send-keys -t t Home + + +
	tcap
	$TM send-keys -t t -l "${esc}[<0;250;5M${esc}[<32;150;5M${esc}[<0;150;5m"
	tcap
	check "a drag to the left pans forward" sh -c "sed -n 29p '$t_tmp/pane' | grep -q '^ [1-9][0-9.]*ms '"
	$TM send-keys -t t -l "${esc}[<0;20;5M${esc}[<32;250;5M${esc}[<0;250;5m"
	tcap
	check "a long drag to the right stops at the profile's start" sh -c "sed -n 29p '$t_tmp/pane' | grep -Eq '^ [0-9][0-9.]*(ns|us|µs) '"
	# the terminal's | and Delete keys: the label column widens, a bookmark is deleted
	$TM send-keys -t t '|'
	tcap
	check "| from the terminal widens the label column" sh -c "tail -1 '$t_tmp/pane' | grep -q '^Lane names: [0-9]* columns'"
	$TM send-keys -t t ':mark tm' Enter "'"
	tcap
	$TM send-keys -t t DC
	tcap
	check "Delete from the terminal deletes the bookmark" sh -c "tail -1 '$t_tmp/pane' | grep -q '^Bookmark tm deleted'"
	$TM kill-server 2> /dev/null
else
	skip "tmux absent: the mouse is not checked"
fi

# ---- the man page: escapes render, the SYNOPSIS lists every option of every command -------
if command -v groff >/dev/null; then
	groff -man -Tutf8 -P-cbou -rLL=300n "$TL_SRCDIR/man/tl.1" > "$t_tmp/man.txt" 2>"$t_tmp/man.err"
	check "tl.1 renders" [ -s "$t_tmp/man.txt" ]
	check "the eighth-block escapes render as blocks" grep -q "eighth blocks (▁ to █)" "$t_tmp/man.txt"
	check "no escape is left as digits" sh -c "! grep -Eq '\(581|(^| )581 ' '$t_tmp/man.txt'"
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$t_tmp/man.txt" > "$t_tmp/synopsis"
	opts=$(sed -n 's/^[[:space:]]*{"\([a-z-]*\)", [a-z_]*_argument.*/\1/p' "$TL_SRCDIR/src/main.c")
	check "the option table was read from main.c" [ -n "$opts" ]
	for cmd in info summary view keys demo; do
		# the SYNOPSIS lines of the command, with view's where they refer to them
		grep -E "^ +tl $cmd( |\$)" "$t_tmp/synopsis" > "$t_tmp/syn.$cmd"
		grep -q "options of view" "$t_tmp/syn.$cmd" && grep -E "^ +tl view " "$t_tmp/synopsis" >> "$t_tmp/syn.$cmd"
		for o in $opts; do
			case $o in help | version) continue ;; esac
			if [ "$cmd" = keys ]; then
				"$TL_BIN" keys --$o x > /dev/null 2> "$t_tmp/o.err"
			else
				"$TL_BIN" $cmd /nonexistent --$o x > /dev/null 2> "$t_tmp/o.err"
			fi
			if grep -q "does not take --$o" "$t_tmp/o.err"; then
				check "SYNOPSIS: tl $cmd does not list --$o it does not take" sh -c "! grep -q -- '--$o\b' '$t_tmp/syn.$cmd'"
			else
				check "SYNOPSIS: tl $cmd lists --$o" grep -q -- "--$o" "$t_tmp/syn.$cmd"
			fi
		done
	done
	check "SYNOPSIS lists --help and --version" grep -Eq "^ +tl --help.*--version" "$t_tmp/synopsis"
else
	skip "groff absent: the man page is not rendered"
fi

t_done
