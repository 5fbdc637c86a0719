#!/bin/sh
# The counter lanes (U, :counters) and the live allocations panel (A, :live) in script mode: on
# a generated profile with memory records (tlgen --memory) and on the real samples (skipped
# without them). The numbers on screen are checked against plain SQL over the profiles
# (sqlite3), the screens against golden dumps in colour and in mono/ASCII, and the DB's lanes
# against those of its own trace_view.json.
. "$(dirname "$0")/lib_tui.sh"
VIEW_OPTS=--no-cache

if ! fixture mem --ranks 2 --tasks 3000 --seed 7 --memory --json; then
	not_ok "generate the 2-rank fixture with memory records"
	t_done
	exit 1
fi
P=$t_tmp/mem
msg() { tail -1 "$t_tmp/screen.txt"; }
DB0=$(ls "$P"/*-r0_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db)
sq() { sqlite3 "$DB0" "$1"; }
# bytes as the viewer shows them: 1.16 GiB, 512.00 MiB
human() { awk -v b="$1" 'BEGIN { u = "B"; d = 1; split("KiB MiB GiB TiB", n, " ");
	for (i = 1; i <= 4 && b >= d * 1024; i++) { d *= 1024; u = n[i] }
	if (d == 1) printf "%d B\n", b; else printf "%.2f %s\n", b / d, u }'; }
have_sqlite3=1
command -v sqlite3 > /dev/null 2>&1 || have_sqlite3=0

# ---- off by default; U shows them ------------------------------------------------------------
view "$P" 120x40
check "no counter lane by default" sh -c "! grep -q 'mem PTA allocated' '$t_tmp/screen.txt'"
view "$P" 120x40 U
check "U shows the allocator lanes per component" sh -c "grep -q 'mem PTA allocated' '$t_tmp/screen.txt' && grep -q 'mem GE reserved' '$t_tmp/screen.txt'"
check "... the NPU memory lanes" has "mem device HBM"
check "... and AI Core frequency" has "AI Core freq"
check "the sparklines are in the counter slot" attr_has u
check "the peak's column is marked" attr_has Z
view "$P" 120x40 U U
check "U again hides them" sh -c "! grep -q 'mem PTA allocated' '$t_tmp/screen.txt'"
view "$P" 120x40 ":counters"
check ":counters is U" has "mem PTA allocated"

# ---- the peak: *, the status line, the live panel ---------------------------------------------
view "$P" 120x40 U ":lanes PTA allocated|HBM|freq" j "*"
check "* on a counter lane goes to its peak and says it" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Peak of PTA allocated on rank 0: [0-9.]+ GiB at [0-9.]+ms'"
check "the status line gives the value at the cursor" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -Eq 'cursor [0-9.]+ms step 1  \| value [0-9.]+ GiB'"
golden counters-peak
if [ $have_sqlite3 = 1 ]; then
	want=$(human "$(sq "SELECT max(totalAllocated) FROM MEMORY_RECORD WHERE component IN (SELECT id FROM STRING_IDS WHERE value = 'PTA')")")
	check "the peak is SQL's max over MEMORY_RECORD ($want)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -qF 'rank 0: $want at'"
	check "... and so is the status line's value" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -qF 'value $want'"
else
	skip "sqlite3 absent"
	skip "sqlite3 absent"
fi
VIEW_OPTS="--no-cache --theme mono" LC_ALL=C view "$P" 120x40 U ":lanes PTA allocated|HBM|freq" j "*"
check "mono and ASCII: the sparklines are ASCII only" sh -c "! LC_ALL=C grep -q '[^ -~]' '$t_tmp/screen.txt'"
golden counters-peak-mono

view "$P" 120x40 U ":lanes PTA allocated" j "*" A
check "* then A: the largest allocations live at the peak" has "Live allocations: rank 0 at"
golden counters-live
if [ $have_sqlite3 = 1 ]; then
	t=$(sq "SELECT timestamp FROM MEMORY_RECORD WHERE component IN (SELECT id FROM STRING_IDS WHERE value = 'PTA') ORDER BY totalAllocated DESC, timestamp LIMIT 1")
	row=$(sq "SELECT s.value, o.size FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = o.name WHERE o.allocationTime <= $t AND (o.releaseTime IS NULL OR o.releaseTime > $t) ORDER BY o.size DESC LIMIT 1")
	n=$(sq "SELECT count(*) FROM OP_MEMORY WHERE allocationTime <= $t AND (releaseTime IS NULL OR releaseTime > $t) AND size IS NOT NULL")
	op=${row%%|*}
	size=$(human "${row#*|}")
	check "its first row is SQL's largest live allocation ($op, $size)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -Eq '^. +$size +$op +PTA'"
	check "it counts SQL's live allocations ($n)" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ $n largest live'"
else
	skip "sqlite3 absent"
	skip "sqlite3 absent"
fi
view "$P" 120x40 ":goto 1ms" A "*"
check "* inside the panel: the rank's allocated peak" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Allocated peak of rank 0: [0-9.]+ GiB at '"
check "... the panel lists that moment" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -q 'aten::empty_strided'"
view "$P" 120x40 U ":lanes PTA allocated" j o
check "a lane rebuild (o) keeps the counter lane current" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -q 'rank 0 mem PTA'"
view "$P" 120x40 ":live"
check ":live is A" has "Live allocations: rank 0"
view "$P" 120x40 "*"
check "* without the counter lanes says how to get them" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Show the counter lanes first'"

# ---- DB and trace_view.json: the same lanes --------------------------------------------------
TV0=$(ls "$P"/*-r0_*/ASCEND_PROFILER_OUTPUT/trace_view.json)
# (the same range: the two profiles' slices span a little differently)
view "$DB0" 120x40 U ":lanes HBM|DDR|freq" ":zoom 0ms 100ms"
sed -n '3,7p' "$t_tmp/screen.txt" > "$t_tmp/db-lanes"
view "$TV0" 120x40 U ":lanes HBM|DDR|freq" ":zoom 0ms 100ms"
sed -n '3,7p' "$t_tmp/screen.txt" > "$t_tmp/json-lanes"
check "the DB and its trace_view.json draw the same NPU memory and frequency lanes" sh -c "grep -q 'AI Core freq' '$t_tmp/db-lanes' && cmp -s '$t_tmp/db-lanes' '$t_tmp/json-lanes'"

# ---- a profile without counters -------------------------------------------------------------
if fixture plain --ranks 1 --tasks 500 --seed 3; then
	view "$t_tmp/plain" 100x30 U
	check "U on a profile without counters says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^No memory or frequency counters in this profile'"
	view "$t_tmp/plain" 100x30 A
	check "A on a profile without OP_MEMORY says so" has "No OP_MEMORY allocation of rank 0 is live"
else
	not_ok "generate a profile without counters"
fi

# ---- the real samples ------------------------------------------------------------------------
DB=$SAMPLES/ascend-db/level0/rank0_ascend_pt
if [ ! -d "$DB" ] || [ $have_sqlite3 = 0 ]; then
	skip "samples or sqlite3 absent: $DB"
else
	S0=$DB/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db
	view "$DB" 140x40 U ":lanes PTA\\+GE allocated" j "*"
	want=$(human "$(sqlite3 "$S0" "SELECT max(totalAllocated) FROM MEMORY_RECORD WHERE component IN (SELECT id FROM STRING_IDS WHERE value = 'PTA+GE')")")
	check "level0: the PTA+GE peak is SQL's ($want)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -qF 'Peak of PTA+GE allocated on rank 0: $want at'"
	golden counters-level0
	view "$DB" 140x40 U ":lanes PTA\\+GE allocated" j "*" A
	check "level0: live at the peak, with Python frames" sh -c "grep -q 'aten::_foreach_add  *PTA .*torch/optim' '$t_tmp/screen.txt'"
	golden counters-level0-live
fi

# ---- a real terminal: tmux ------------------------------------------------------------------
if ! command -v tmux > /dev/null 2>&1; then
	skip "tmux absent"
else
	T="tmux -L tl-ctr-$$ -f /dev/null"
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
	$T new-session -d -x 120 -y 40 -s t \
		"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' '$TL_BIN' view --no-cache '$P'; echo EXIT=\$?; sleep 60"
	wait_for "rank 0"
	$T send-keys -t t U
	check "tmux: U draws the counter lanes" wait_for "mem PTA allocated"
	check "tmux: sparklines of eighth blocks in the counter colour (256-colour cyan)" sh -c "grep 'mem PTA allocated.*38;5;44m' '$t_tmp/pane.e' | grep -q '▁'"
	check "tmux: the peak in bold red" grep -q "38;5;196m" "$t_tmp/pane.e"
	$T send-keys -t t : l a n e s Space P T A Space a l l o c a t e d Enter j "*"
	check "tmux: * goes to the peak" wait_for "Peak of PTA allocated on rank 0"
	$T send-keys -t t A
	check "tmux: A lists what was live there" wait_for "aten::empty_strided"
	$T send-keys -t t q q
	check "tmux: the viewer quits cleanly" wait_for "EXIT=0"
	$T kill-server 2> /dev/null
fi

t_done
