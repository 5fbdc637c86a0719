#!/bin/sh
# Progressive loading of `tl view`: the first frame before the ranks are in, with a row for every
# rank; each rank's small tables (steps, MSTX ranges, stages, communication ops) before its
# device lanes, the lanes filling in rank by rank, keys while loading, q cancelling the load. The loader is held by the test hook
# TL_TEST_LOAD_DELAY_MS=MS[:FROM] (ranks FROM and later wait MS before they start; script mode
# waits for the others), so the screens do not depend on timing; at exit the hook prints how
# many ranks were loaded and how many were cancelled, which tells a quit that stopped the load
# from one that waited for it.
. "$(dirname "$0")/lib_tui.sh"
export XDG_CACHE_HOME="$t_tmp/cache"

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two
HOLD=600000 # ms: ten minutes, far longer than any of these runs

# hooked PROFILE SIZE FROM LINE...: view with ranks FROM and later held
hooked() {
	prof=$1 size=$2 from=$3
	shift 3
	TL_TEST_LOAD_DELAY_MS=$HOLD:$from view "$prof" "$size" "$@"
}
# the hook's line at exit: "N of M ranks loaded, K cancelled"
hook_says() { grep -q "TL_TEST_LOAD_DELAY_MS: $1" "$t_tmp/err"; }
last() { tail -1 "$t_tmp/screen.txt"; }

# ---- the first frame, before any rank is in -----------------------------------------------
VIEW_OPTS=--no-cache hooked "$P" 100x30 0
check "view runs with every rank held" [ $? -eq 0 ]
check "the message line says no rank is in yet" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^loading… 0/2 ranks · rank 0 waiting · rank 1 waiting'"
check "no device lane yet" sh -c "! grep -q '^ compute' '$t_tmp/screen.txt'"
check "both ranks' headers say their small tables are in, device lanes waiting" \
	[ "$(grep -c '▾ rank [01] *│ steps, MSTX, comm in · device lanes: waiting' "$t_tmp/screen.txt")" -eq 2 ]
check_all "and their steps, MSTX ranges, stages and comm ops are drawn" \
	'[ "$(grep -c "^ step " "$t_tmp/screen.txt")" -eq 2 ] &&
	[ "$(grep -c "^ mstx default  *│" "$t_tmp/screen.txt")" -eq 2 ] &&
	[ "$(grep -c "^ stage " "$t_tmp/screen.txt")" -eq 2 ] &&
	[ "$(grep -c "^ comm " "$t_tmp/screen.txt")" -eq 2 ]'
check "quitting cancelled both ranks" hook_says "0 of 2 ranks loaded, 2 cancelled"
golden loading_small

# ---- rank 0 in, rank 1 loading --------------------------------------------------------------
hooked "$P" 100x30 1
check "view runs with rank 1 held" [ $? -eq 0 ]
check "rank 0's lanes are drawn" has "rank 0"
check "rank 1's device lanes are not" [ "$(grep -c '^ compute' "$t_tmp/screen.txt")" -eq 1 ]
check "rank 1's MSTX ranges and steps are, under its header" \
	sh -c "grep -A6 '▾ rank 1 *│ steps, MSTX, comm in · device lanes: waiting' '$t_tmp/screen.txt' | grep -q '^ mstx default '"
check "the message line shows 1 of 2 ranks in and rank 1 waiting" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^loading… 1/2 ranks · rank 1 waiting'"
check "q stopped the held rank: 1 of 2 loaded, 1 cancelled" hook_says "1 of 2 ranks loaded, 1 cancelled"
golden loading

# ---- a rank with no small tables to show: its placeholder row, then it goes ------------------
H=$t_tmp/half
cp -R "$P" "$H"
for f in "$H"/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db; do
	printf 'not a database, not a database, not a database, not a database\n' > "$f"
done
VIEW_OPTS=--no-cache hooked "$H" 100x30 1
check "rank 1 (unreadable, held) has its placeholder row saying it waits" \
	sh -c "grep -q '^▾ rank 1 *│ waiting *$' '$t_tmp/screen.txt'"
check "with no lanes under it" sh -c "grep -A1 '▾ rank 1' '$t_tmp/screen.txt' | tail -1 | grep -q '^ *$'"
golden loading_placeholder
VIEW_OPTS=--no-cache hooked "$H" 100x30 2
check "once loaded, the unreadable rank's row is gone" sh -c "! grep -q 'rank 1' '$t_tmp/screen.txt'"
check "the message line says 1 rank" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^loaded: 1 ranks'"
check "and its warning is printed at exit" grep -q 'ascend_pytorch_profiler_1.db: not an SQLite database' "$t_tmp/err"

# ---- keys while loading -----------------------------------------------------------------------
hooked "$P" 100x30 1 ":goto 30ms" + + + + "<gt>" "<gt>" a
check "zoom and pan while loading" [ $? -eq 0 ]
check "the cursor went to 30ms" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'cursor 30.000ms'"
check "the window is zoomed in to µs per column" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^[0-9]*us/col'"
golden loading_zoom
hooked "$P" 100x30 1 D
check "the DP panel waits for every rank" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^loading… 1/2 ranks: dp-panel works once every rank is in'"
hooked "$P" 100x30 1 B
check "the largest bubbles wait" has "bubble-largest works once every rank is in"
hooked "$P" 100x30 1 ":summary"
check ":summary waits" has "summary works once every rank is in"
hooked "$P" 100x30 1 "/matmul"
check "search waits" has "search works once every rank is in"

# ---- quit while loading -----------------------------------------------------------------------
printf 'q\n' > "$t_tmp/q"
TL_TEST_LOAD_DELAY_MS=$HOLD:1 "$TL_BIN" view "$P" --script "$t_tmp/q" --size 100x30 2> "$t_tmp/err"
check "q while loading exits 0" [ $? -eq 0 ]
check "and stopped the held rank, which would have waited ten minutes" hook_says "1 of 2 ranks loaded, 1 cancelled"

# ---- nothing loadable: the viewer closes and says why -------------------------------------------
B=$t_tmp/bad/x_ascend_pt/ASCEND_PROFILER_OUTPUT
mkdir -p "$B"
printf 'not a database, not a database, not a database, not a database\n' > "$B/ascend_pytorch_profiler_0.db"
printf ':dump %s\n' "$t_tmp/bad.txt" > "$t_tmp/bs"
TL_TEST_LOAD_DELAY_MS=0 "$TL_BIN" view "$t_tmp/bad" --no-cache --script "$t_tmp/bs" --size 80x20 2> "$t_tmp/err"
check "a profile with nothing loadable exits 2" [ $? -eq 2 ]
check "naming the file and the problem" grep -q 'ascend_pytorch_profiler_0.db: not an SQLite database' "$t_tmp/err"
check "and that nothing could be loaded" grep -q 'bad: nothing could be loaded' "$t_tmp/err"

# ---- the whole load, progressively -----------------------------------------------------------
VIEW_OPTS=--no-cache hooked "$P" 100x30 2
check "nothing held: both ranks in" hook_says "2 of 2 ranks loaded, 0 cancelled"
check "the message line says the load is done" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^loaded: 2 ranks'"
head -n 29 "$t_tmp/screen.txt" > "$t_tmp/prog"
VIEW_OPTS=--no-cache view "$P" 100x30
head -n 29 "$t_tmp/screen.txt" > "$t_tmp/sync"
if cmp -s "$t_tmp/prog" "$t_tmp/sync"; then
	ok "the screen after a progressive load is the full load's"
else
	diff "$t_tmp/sync" "$t_tmp/prog" | head -10 | sed 's/^/# /'
	not_ok "the screen after a progressive load differs from the full load's"
fi
VIEW_OPTS=--no-cache hooked "$P" 100x30 2 D
check "the DP panel opens once every rank is in" sh -c "! grep -q 'works once every rank' '$t_tmp/screen.txt'"

# ---- the cache: a cancelled rank is never written --------------------------------------------
rm -rf "$XDG_CACHE_HOME"
hooked "$P" 100x30 1
n=$(find "$XDG_CACHE_HOME" -type f -name "*.tlc" ! -name ".tmp-*" 2>/dev/null | wc -l)
check "quitting while rank 1 loads caches rank 0 only ($n files)" [ "$n" -eq 1 ]
hooked "$P" 100x30 2
n=$(find "$XDG_CACHE_HOME" -type f -name "*.tlc" ! -name ".tmp-*" 2>/dev/null | wc -l)
check "a whole progressive load caches both ranks ($n files)" [ "$n" -eq 2 ]
hooked "$P" 100x30 2
head -n 29 "$t_tmp/screen.txt" > "$t_tmp/warm"
check "a warm progressive open shows the same screen" cmp -s "$t_tmp/warm" "$t_tmp/sync"

# ---- in a real terminal (tmux): the loading line, then q ---------------------------------------
if command -v tmux > /dev/null 2>&1; then
	T="tmux -L tl-prog-$$ -f /dev/null"
	trap '$T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
	$T new-session -d -x 120 -y 40 -s t \
		"env TL_TEST_LOAD_DELAY_MS=$HOLD:1 TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_CACHE_HOME='$XDG_CACHE_HOME' '$TL_BIN' view '$P' --no-cache; echo EXIT=\$?; sleep 120"
	# wait_for TEXT: up to 10 s for TEXT on the pane
	wait_for() {
		i=0
		while [ $i -lt 100 ]; do
			$T capture-pane -p -t t > "$t_tmp/pane"
			grep -qF -- "$1" "$t_tmp/pane" && return 0
			sleep 0.1
			i=$((i + 1))
		done
		return 1
	}
	if wait_for "loading… 1/2 ranks · rank 1 waiting" && grep -q "▾ rank 0" "$t_tmp/pane"; then
		ok "tmux: rank 0's lanes while the loading line says rank 1 is waiting"
	else
		sed 's/^/# /' "$t_tmp/pane" | tail -5
		not_ok "tmux: rank 0's lanes while the loading line says rank 1 is waiting"
	fi
	check "tmux: rank 1's header shows its small tables in, device lanes waiting" \
		wait_for "steps, MSTX, comm in · device lanes: waiting"
	qs=$(date +%s%N)
	$T send-keys -t t q
	wait_for "EXIT="
	qms=$((($(date +%s%N) - qs) / 1000000))
	check "tmux: q exits 0 while loading" grep -q "EXIT=0" "$t_tmp/pane"
	# the held rank would wait ten minutes: a quit that waited for it would time out above
	check "tmux: q quits at once while loading (${qms} ms, under 3 s)" [ "$qms" -lt 3000 ]
	check "tmux: and cancelled the held rank" grep -q "1 of 2 ranks loaded, 1 cancelled" "$t_tmp/pane"
	$T kill-server 2> /dev/null
else
	skip "tmux absent"
fi

# ---- no leaks when quitting mid-load (valgrind; ASan builds run the cases above) -------------
if ! command -v valgrind >/dev/null; then
	skip "valgrind absent: quit-while-loading leak check not run"
elif grep -qa "__asan_init" "$TL_BIN"; then
	skip "tl is built with AddressSanitizer: its leak check ran on the cases above"
else
	TL_TEST_LOAD_DELAY_MS=$HOLD:1 valgrind --tool=memcheck --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible --log-file="$t_tmp/vg" \
		"$TL_BIN" view "$P" --no-cache --script "$t_tmp/q" --size 100x30 2> "$t_tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && hook_says "1 of 2 ranks loaded, 1 cancelled"; then
		ok "valgrind: quit while loading: 0 errors, no leaks"
	else
		grep -E 'ERROR SUMMARY|lost' "$t_tmp/vg" | head -5 | sed 's/^/# /'
		not_ok "valgrind: quit while loading: exit $rc"
	fi
fi

t_done
