#!/bin/sh
# The module panel (L, :modules) through script mode and in a real terminal (tmux): on a
# generated module profile its device times against the profile's own tables read with
# sqlite3, opening and closing, sorting, ranks, Enter to the module's first range; on a profile
# without Module ranges the message saying how to record them.
. "$(dirname "$0")/lib_tui.sh"
rlfix() {
	name=$1
	shift
	[ -d "$t_tmp/$name" ] && return 0
	"$TLGEN" rl "$t_tmp/$name" "$@" > "$t_tmp/$name.log" 2>&1 || {
		cat "$t_tmp/$name.log"
		return 1
	}
}
if ! rlfix mods --ranks 2 --steps 2 --modules --seed 4 || ! rlfix plain --ranks 2 --steps 1; then
	not_ok "generate the fixtures"
	t_done
	exit 1
fi
M=$t_tmp/mods

view "$M" 110x30 L
check "L opens the module panel on rank 0" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Modules of rank 0 '"
golden modules-panel
check "the top module, open, with its own operator" sh -c "sed -n 4,5p '$t_tmp/screen.txt' | grep -q 'Model' && sed -n 5p '$t_tmp/screen.txt' | grep -q 'aten::log_softmax \[aclnnLogSoftmax'"
check "backward modules are listed as [Backward]" has "[Backward]Norm_0"
check "neighbouring Norm calls with other operators are Norm_0 and Norm_1" sh -c "grep -q ' Norm_0 *$' '$t_tmp/screen.txt' && grep -q ' Norm_1 *$' '$t_tmp/screen.txt'"

# Embedding's device time against SQL: the kernels its only operator launched (PYTORCH_API ->
# CONNECTION_IDS -> TASK), in ms with three decimals as the panel prints them
if command -v sqlite3 > /dev/null; then
	db=$(ls "$M"/gen-r0_*/ASCEND_PROFILER_OUTPUT/*.db)
	want=$(sqlite3 "$db" "SELECT printf('%d.%03d', s / 1000000, s / 1000 % 1000) FROM (SELECT sum(t.endNs - t.startNs) AS s FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = p.name JOIN CONNECTION_IDS c ON c.id = p.connectionId JOIN TASK t ON t.connectionId = c.connectionId WHERE n.value = 'aten::embedding')")
	check "Embedding's device time equals SQL over its operator's kernels ($want ms)" sh -c "grep -E '^ +$want +$want +2 +2 +. Embedding' '$t_tmp/screen.txt' > /dev/null"
	# every module row of tl summary --json together: every operator's kernels but the
	# optimizer's, which runs outside every module
	tot=$(sqlite3 "$db" "SELECT sum(t.endNs - t.startNs) FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = p.name JOIN CONNECTION_IDS c ON c.id = p.connectionId JOIN TASK t ON t.connectionId = c.connectionId WHERE n.value NOT LIKE 'Optimizer%'")
	"$TL_BIN" summary "$M" --json --no-cache > "$t_tmp/sum.json" 2> "$t_tmp/err"
	got=$(python3 -c "import json, sys; print(sum(m['device_ns'] for m in json.load(open(sys.argv[1]))['modules'] if m['rank'] == 0))" "$t_tmp/sum.json")
	check "summary --json: rank 0's module rows sum to every operator's kernels but the optimizer's, as SQL ($tot ns)" [ "$got" = "$tot" ]
	# bad rows in rank 0's tables: the rest loads, each problem is one line naming the file
	cp -R "$M" "$t_tmp/bad"
	bdb=$(ls "$t_tmp"/bad/gen-r0_*/ASCEND_PROFILER_OUTPUT/*.db)
	sqlite3 "$bdb" "UPDATE MSTX_EVENTS SET endNs = startNs - 5 WHERE rowid = 2;
		UPDATE PYTORCH_API SET startNs = 'soon' WHERE rowid = 3;
		UPDATE TASK SET startNs = 'x' WHERE rowid IN (SELECT t.rowid FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId LIMIT 1);
		INSERT INTO CONNECTION_IDS VALUES (NULL, 5), ('x', NULL), (7, 'y');"
	"$TL_BIN" summary "$t_tmp/bad" --json --no-cache > "$t_tmp/bad.json" 2> "$t_tmp/bad.err"
	check "bad rows: tl summary --json still exits 0" [ $? -eq 0 ]
	check "... the PYTORCH_API row is one line naming the file" grep -q "^tl: $bdb: PYTORCH_API: 1 operators without usable times left out of the module statistics" "$t_tmp/bad.err"
	check "... so is the kernel without a usable start" grep -q "^tl: $bdb: COMPUTE_TASK_INFO: 1 kernels without usable times left out of the module statistics" "$t_tmp/bad.err"
	got1=$(tr '{' '\n' < "$t_tmp/bad.json" | grep -c '^"rank":1,"path"')
	want1=$(tr '{' '\n' < "$t_tmp/sum.json" | grep -c '^"rank":1,"path"')
	check "... and rank 1's module rows are all there ($want1)" [ "$got1" = "$want1" ]
	check "... rank 0 still has module rows" sh -c "tr '{' '\n' < '$t_tmp/bad.json' | grep -q '^\"rank\":0,\"path\"'"
else
	skip "sqlite3 absent: the panel's device times against SQL, bad rows"
fi

# read from the model cache, the Module lanes still say where to read: the same table
"$TL_BIN" summary "$M" --cache-dir "$t_tmp/cache" > "$t_tmp/cold.txt" 2>&1
"$TL_BIN" summary "$M" --cache-dir "$t_tmp/cache" > "$t_tmp/warm.txt" 2>&1
check "a cached rank gives the same module table" sh -c "cmp -s '$t_tmp/cold.txt' '$t_tmp/warm.txt' && grep -q '^ *0 .* Model/Layer/\[Backward\]MLP$' '$t_tmp/warm.txt' && ls '$t_tmp'/cache/*.tlc > /dev/null"

view "$M" 110x30 L "<Down>" "<Down>" "<Space>"
check "Space opens a module: Embedding's operator and kernel" sh -c "sed -n 7p '$t_tmp/screen.txt' | grep -q 'aten::embedding \[aclnnEmbedding'"
golden modules-open
view "$M" 110x30 L "<Down>" "<Down>" "<Space>" "<Left>"
check "Left closes it again" sh -c "! grep -q 'aten::embedding' '$t_tmp/screen.txt'"
view "$M" 110x30 L C
check "C opens every module" has "MmBackward0 [aclnnMatmul"
view "$M" 110x30 L O
check "O sorts by device time: Layer first under Model" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q 'sorted by device time' && sed -n 6p '$t_tmp/screen.txt' | grep -q ' Layer *$'"
view "$M" 110x30 L "<Tab>"
check "Tab: rank 1" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Modules of rank 1 '"
view "$M" 110x30 L "<Down>" "<Down>" "<Enter>"
check "Enter selects the module's first range on its Module lane" sh -c "tail -2 '$t_tmp/screen.txt' | grep -q 'mstx Module.*sel Embedding'"
check "... and says its device time" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Rank 0, Model/Embedding: [0-9.]* ms on the device over 2 operators'"
view "$M" 110x30 ":modules"
check "the panel opens as :modules too" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Modules of rank 0'"
view "$M" 110x30 I L
check "L from the operator panel" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Modules of rank 0'"

# the text export keeps the Module ranges but not which operator launched which kernel
if rlfix modsjson --ranks 1 --steps 1 --modules --json; then
	rm -f "$t_tmp"/modsjson/*/ASCEND_PROFILER_OUTPUT/*.db
	view "$t_tmp/modsjson" 100x24 L
	check "trace_view.json only: the Module ranges are found, the profile DB is asked for" sh -c "grep -q 'Module ranges found, but no operator' '$t_tmp/screen.txt' && grep -q 'capture with export_type db' '$t_tmp/screen.txt'"
	"$TL_BIN" summary "$t_tmp/modsjson" --no-cache > "$t_tmp/modsjson.txt" 2>&1
	check "... and the text summary says the same in its module table" grep -q "the Module ranges hold no operator that launched kernels" "$t_tmp/modsjson.txt"
else
	not_ok "generate the JSON module profile"
fi

view "$t_tmp/plain" 100x24 L
check "without Module ranges: says so" has "No module ranges in this profile."
check "... and how to record them" has "domain=\"Module\""
golden modules-none

# ---- in a real terminal --------------------------------------------------------------------
if ! command -v tmux > /dev/null 2>&1; then
	skip "tmux absent: the module panel in a terminal"
	t_done
	exit 0
fi
T="tmux -L tl-test-mod-$$ -f /dev/null"
trap '$T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
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
$T new-session -d -x 110 -y 30 -s t \
	"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$TL_BIN' view '$M'; echo EXIT=\$?; sleep 60"
wait_for "rank 0"
$T send-keys -t t L
check "tmux: L opens the module panel" wait_for "Modules of rank 0"
check "tmux: the tree's modules are there" grep -q "Embedding" "$t_tmp/pane"
check "tmux: the selected row in the current-label colour" grep -q "▸" "$t_tmp/pane"
$T send-keys -t t Down Down Enter
check "tmux: Enter goes back to the timeline with the module's range selected" wait_for "sel Embedding"
$T send-keys -t t q
check "tmux: q quits" wait_for "EXIT=0"
$T kill-server 2> /dev/null
t_done
