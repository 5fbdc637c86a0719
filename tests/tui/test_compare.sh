#!/bin/sh
# tl view A --compare B: B's lanes under A's, the delta lane, the alignment and the diff panel,
# on a generated pair with known changes (B: ref_logprob's kernels 1.6 times as long on ranks 1
# and 2, one collective's last arrival 2 ms late, the clock 5 hours later). Every number on
# screen is checked against tl diff --json of the same pair; tl diff's own numbers are checked
# against the generator's truth in tests/unit/query/test_diff.c.
. "$(dirname "$0")/lib_tui.sh"

rlgen() { "$TLGEN" rl "$@"; }
T0=1736407067000000000
pair() { # pair NAME [rl_fixture options of B]: $t_tmp/NAME.a (once) and $t_tmp/NAME.b
	name=$1
	shift
	[ -d "$t_tmp/a" ] || rlgen "$t_tmp/a" --ranks 4 --steps 2 --seed 7 --slow -1 > /dev/null 2>&1 || return 1
	rlgen "$t_tmp/$name" --ranks 4 --steps 2 --seed 7 --slow -1 "$@" > /dev/null 2>&1
}
if ! pair b --slow-stage 1 --slow-factor 1600 --slow-ranks 6 --delay-coll 40 --delay-ns 2000000 \
	--t0 $((T0 + 5 * 3600 * 1000000000)); then
	not_ok "generate the pair"
	t_done
	exit 1
fi
# relative names, as a user types them (the diff panel shows them; the goldens do not hold the
# temporary directory)
cd "$t_tmp" || exit 1
A=a B=b
"$TL_BIN" diff "$A" "$B" --json > "$t_tmp/diff.json" 2> /dev/null
"$TL_BIN" diff "$A" "$B" > "$t_tmp/diff.txt" 2> /dev/null
# jq-free: the changes of tl diff --json as "kind|name|rank|step|a_ns|b_ns|delta_ns", in order
python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["changes"]:
    print("%s|%s|%s|%s|%d|%d|%d" % (c["kind"], c["name"], "all" if c["rank"] is None else c["rank"],
          "all" if c["step"] is None else c["step"], c["a_ns"], c["b_ns"], c["delta_ns"]))
' "$t_tmp/diff.json" > "$t_tmp/changes"
check "tl diff --json lists the changes" [ -s "$t_tmp/changes" ]
# delta_ns of a per-rank stage row
stage_delta() { awk -F'|' -v n="$1" -v r="$2" -v s="$3" '$1 == "stage" && $2 == n && $3 == r && $4 == s { print $7; exit }' "$t_tmp/changes"; }

VIEW_OPTS="--compare $B"
export VIEW_OPTS

# ---- the compare view: A's lanes, the delta lane, B's lanes, per rank ----------------------
view "$A" 140x45 ":step 1"
golden compare
check "each rank has a delta lane" sh -c "[ \$(grep -c '^ Δ B−A stages' '$t_tmp/screen.txt') -ge 2 ]"
check "B's lanes are marked in the label column (▍, slot compare.b)" sh -c "grep -q '^▍stage ' '$t_tmp/screen.txt' && grep -q '^b' '$t_tmp/screen.attr'"
check "... under A's: rank 0's stage lane, its delta lane, then B's" sh -c "grep -n '' '$t_tmp/screen.txt' | awk -F: '/^[0-9]+: stage / && !a { a = \$1 } /Δ B−A/ && !d { d = \$1 } /^[0-9]+:▍stage/ && !b { b = \$1 } END { exit !(a < d && d < b) }'"
check "the delta lane marks ref_logprob longer in B (+, slot diff.longer)" sh -c "grep '^ Δ B−A' '$t_tmp/screen.txt' | head -1 | grep -q '+' && grep -n '' '$t_tmp/screen.attr' | grep -q 'G'"

# zoomed out, the stages are narrower than their labels: the one of the largest |B-A| of the
# rank is still labelled, by name (rank 0's, from tl diff --json's per-rank stage rows)
view "$A" 100x40
big=$(awk -F'|' '$1 == "stage" && $3 == 0 { d = $7 < 0 ? -$7 : $7; if (d > m) { m = d; n = $2; v = $7 } }
	END { printf "%s %s%.3f ms", n, (v >= 0 ? "+" : "-"), m / 1e6 }' "$t_tmp/changes")
check "zoomed out: rank 0's delta lane labels its largest change ($big)" sh -c "grep '^ Δ B−A' '$t_tmp/screen.txt' | head -1 | grep -qF '$big'"
golden compare-zoomed-out

# the delta at the cursor: rank 1's ref_logprob in step 1, as tl diff says
want=$(stage_delta ref_logprob 1 1)
check "tl diff has rank 1's ref_logprob delta ($want ns)" [ -n "$want" ]
# the cursor into rank 1's ref_logprob: its start from the overview's stage table
start=$("$TL_BIN" summary "$A" 2> /dev/null | awk '/^RL stages per rank/ { s = 1 } s && $1 == 1 && $2 == 1 && $3 == "ref_logprob" { printf "%.3f", $4 + 0.5; exit }')
view "$A" 140x45 ":step 1" ":rank 1" ":goto ${start}ms"
ms=$(awk -v d="$want" 'BEGIN { printf "%s%.3f ms", (d >= 0 ? "+" : "-"), (d < 0 ? -d : d) / 1e6 }')
check "the status line gives rank 1's ref_logprob delta at the cursor ($ms)" sh -c "grep -q 'B−A ref_logprob step 1: $ms' '$t_tmp/screen.txt'"

view "$A" 140x45
check "the message line names B and gives tl diff's verdict" sh -c "tail -1 '$t_tmp/screen.txt' | grep -qF -- 'B (b) under each rank, aligned on the step at the cursor; %: $(head -1 "$t_tmp/diff.txt")'"

# ---- alignment: on the step at the cursor, or on a stage start in it --------------------------
# the column where actor_update starts (slot char 7) in A's stage lane and in B's, rank 0
au_cols() {
	a=$(grep -n '^ stage ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
	b=$(grep -n '^▍stage ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
	ca=$(sed -n "${a}p" "$t_tmp/screen.attr" | awk '{ print index($0, "7") }')
	cb=$(sed -n "${b}p" "$t_tmp/screen.attr" | awk '{ print index($0, "7") }')
	echo "$ca $cb"
}
view "$A" 140x45 ":step 1"
set -- $(au_cols)
check "aligned on step 1: B's slower ref_logprob puts its actor_update later ($1 < $2)" [ "$1" -lt "$2" ]
view "$A" 140x45 ":step 1" ":align stage actor_update"
set -- $(au_cols)
check_all ":align stage actor_update: both actor_updates start in one column ($1 = $2)" "[ '$1' -eq '$2' ] && [ '$1' -gt 0 ]"
check "... the message says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^B aligned on the start of stage actor_update'"
view "$A" 140x45 ":step 1" ":align stage actor_update" ":align step"
set -- $(au_cols)
check ":align step goes back ($1 < $2)" [ "$1" -lt "$2" ]
view "$A" 140x45 ":align stage nosuch"
check ":align stage of a stage in neither run says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q \"^align: no stage 'nosuch' in either run\""
# zooming moves both: at fit-all and zoomed in, A's and B's step 1 start in one column
view "$A" 140x45 ":step 2" + + +
a=$(grep -n '^ step ' "$t_tmp/screen.attr" 2> /dev/null | head -1)
la=$(grep -n '^ step ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
lb=$(grep -n '^▍step ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
pa=$(sed -n "${la}p" "$t_tmp/screen.attr" | awk '{ print index($0, "p") }')
pb=$(sed -n "${lb}p" "$t_tmp/screen.attr" | awk '{ print index($0, "p") }')
check "zoomed into step 2: A's and B's step slices start in one column ($pa = $pb)" [ "$pa" -eq "$pb" ]

# ---- the diff panel: tl diff's ranked changes, Enter shows one in both runs ---------------------
view "$A" 140x45 "%"
golden compare-diff
verdict=$(head -1 "$t_tmp/diff.txt")
check "% opens the diff panel under tl diff's verdict ($verdict)" sh -c "head -1 '$t_tmp/screen.txt' | grep -qF -- ' Diff: $verdict '"
n=$(wc -l < "$t_tmp/changes")
check "... as many changes as tl diff --json ($n)" has "$n changes, largest per step first"
# the first 20 rows: tl diff --json's rows over all ranks, in its order (ms with 3 decimals);
# each quantity's ranks fold under its row
awk -F'|' '$3 == "all" && ++n <= 20 { printf "%s %s %s %s %.3f %.3f %+.3f\n", $1, substr($2, 1, 38), $3, $4, $5 / 1e6, $6 / 1e6, $7 / 1e6 }' "$t_tmp/changes" | sed 's/ \([0-9]*\) \([0-9.]*\) / \1 \2 /' > "$t_tmp/want20"
sed -n '4,23p' "$t_tmp/screen.txt" | sed 's/^.//' | awk '{
	# kind, a fold mark (▸ closed, ▾ open, none), name (may hold spaces), rank, step, A, B,
	# delta: the last 5 fields before delta%
	n = NF; printf "%s", $1; f = ($2 == "▸" || $2 == "▾") ? 3 : 2
	for (i = f; i <= n - 6; i++) printf " %s", $i
	rk = $(n - 5); sub(/^all\([0-9]*\)$/, "all", rk)
	printf " %s %s %s %s %s\n", rk, $(n - 4), $(n - 3), $(n - 2), $(n - 1) }' > "$t_tmp/got20"
check "... the first 20 rows are tl diff's over all ranks, in its order" cmp -s "$t_tmp/want20" "$t_tmp/got20"
cmp -s "$t_tmp/want20" "$t_tmp/got20" || diff "$t_tmp/want20" "$t_tmp/got20" | head -6 | sed 's/^/# /'
# ranked per step: the whole-capture operator totals (delta / 2 steps) below the stage's change
# in step 1, though their deltas are larger (tl diff --json's own numbers)
python3 -c '
import json, sys
ch = [c for c in json.load(open(sys.argv[1]))["changes"] if c["rank"] is None]
ops = [c for c in ch if c["kind"] == "operator"]
st = [c for c in ch if c["kind"] == "stage"]
key = [abs(c["delta_ns"]) // 1 if c["kind"] != "operator" else abs(c["b_ns"] // 2 - c["a_ns"] // 2) for c in ch]
ok = all(key[i] >= key[i + 1] for i in range(len(key) - 1))
big = max(ops, key=lambda c: abs(c["delta_ns"]))
sys.exit(0 if ok and ch.index(big) > ch.index(st[0]) else 1)
' "$t_tmp/diff.json"
check "... rows ranked by their change per step (an operator total over its 2 steps)" [ $? -eq 0 ]
# Right opens a row's ranks, as tl diff --json lists them under it; Left closes them
row=$(grep -n '^. overlap  *▸ computing ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
downs=$(i=4; while [ $i -lt "$row" ]; do printf 'j '; i=$((i + 1)); done)
view "$A" 140x45 "%" $downs "<Right>"
want=$(awk -F'|' '$1 == "overlap" && $2 == "computing" && $4 == 1 { if ($3 == "all") s = 1; else if (s) print $3 }' "$t_tmp/changes" | tr '\n' ' ')
got=$(sed -n "$((row + 1)),\$p" "$t_tmp/screen.txt" | awk '$1 == "computing" { print $2; next } { exit }' | tr '\n' ' ')
check_all "Right on 'overlap computing' step 1 opens its ranks ($want) under it" '[ -n "$want" ] && [ "$want" = "$got" ]'
check "... marked open (▾)" sh -c "sed -n ${row}p '$t_tmp/screen.txt' | grep -q '▾ computing'"
view "$A" 140x45 "%" $downs "<Right>" j "<Left>"
check "... Left on one of them closes them" sh -c "sed -n ${row}p '$t_tmp/screen.txt' | grep -q '▸ computing' && ! sed -n $((row + 1))p '$t_tmp/screen.txt' | grep -q '^ *computing '"
view "$A" 140x45 "%" $downs "<Enter>" j "<Enter>"
r1=$(echo "$want" | cut -d' ' -f1)
check "Enter opens them too, Enter on the first shows rank $r1's" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^overlap computing, rank $r1, step 1: A '"
# at 80 columns the kind leaves, the numbers stay whole
view "$A" 80x24 "%"
first=$(head -1 "$t_tmp/changes" | awk -F'|' '{ printf "%.3f %.3f %+.3f", $5 / 1e6, $6 / 1e6, $7 / 1e6 }')
check "at 80 columns: the first row's A, B and delta whole ($first)" sh -c "sed -n 4p '$t_tmp/screen.txt' | grep -q -- '$(echo "$first" | sed 's/ /  */g') '"
check "... and no number cut (no … on the rows)" sh -c "! sed -n '4,\$p' '$t_tmp/screen.txt' | grep -q '…'"
view "$A" 140x45 ":diff"
check ":diff opens it too" sh -c "head -1 '$t_tmp/screen.txt' | grep -q '^ Diff: '"
# Enter on the first stage row: that stage and step in both runs
row=$(grep -n '^. stage ' "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
downs=$(i=4; while [ $i -lt "$row" ]; do printf 'j '; i=$((i + 1)); done)
view "$A" 140x45 "%" $downs "<Enter>"
m1=$(tail -2 "$t_tmp/screen.txt" | tr '\n' ' ' | tr -s ' ')
check "Enter on the first stage row (all ranks, nothing to open) shows it in both runs, B aligned on its start" sh -c "echo '$m1' | grep -q 'stage ref_logprob, mean over ranks, shown on rank [0-9] (changed most), step 1: A [0-9.]* ms, B [0-9.]* ms, +[0-9.]* ms (+[0-9.]*%); B aligned on its start'"
set -- $(au_cols)
r0=$(echo "$m1" | sed -n 's/.*stage ref_logprob, mean over ranks, shown on rank \([0-9]\).*/\1/p')
check "... the status line is on that rank's ref_logprob" sh -c "grep -q 'rank $r0 .*B−A ref_logprob step 1: +' '$t_tmp/screen.txt'"

# Enter on an operator row: its kernels, the first on the row's rank selected on A's lane, and
# n / N walk all of them (their number: COMPUTE_TASK_INFO rows of that name over A's ranks)
# (the first operator over all ranks; its first rank below it changed most)
opname=$(awk -F'|' '$1 == "operator" && $2 !~ /^type / && $3 == "all" { print $2; exit }' "$t_tmp/changes")
oprank=$(awk -F'|' -v n="$opname" '$1 == "operator" && $2 == n && $3 != "all" { print $3; exit }' "$t_tmp/changes")
nk=0
for db in "$A"/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db; do
	c=$(sqlite3 "file:$db?immutable=1" "SELECT count(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '$opname'")
	nk=$((nk + c))
done
view "$A" 120x40 %
row=$(grep -n "^. operator  *▸ $opname " "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
downs=$(i=4; while [ $i -lt "$row" ]; do printf 'j '; i=$((i + 1)); done)
view "$A" 120x40 % $downs "<Enter>" j "<Enter>"
omsg=$(tail -3 "$t_tmp/screen.txt" | tr '\n' ' ' | tr -s ' ')
check "Enter on the first operator row ($opname, rank $oprank): its $nk kernels, n/N walk them" sh -c "echo '$omsg' | grep -qF 'operator $opname, rank $oprank, whole capture: ' && echo '$omsg' | grep -qF 'its $nk kernels: n/N walk them'"
# its longest kernel on that rank: TASK's longest of that name in rank $oprank's DB
db=$(ls "$A"/gen-r${oprank}_*/ASCEND_PROFILER_OUTPUT/*.db)
lk=$(sqlite3 "file:$db?immutable=1" "SELECT max(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '$opname'")
lk=$(awk -v n="$lk" 'BEGIN { printf "%d us", n / 1000 }')
check "... its longest kernel on rank $oprank selected ($lk, from TASK)" sh -c "echo '$omsg' | grep -qF 'its longest ($lk) selected'"
check "... the first selected on rank $oprank's own lane, not run B's" sh -c "grep -q '| rank $oprank compute' '$t_tmp/screen.txt' && ! grep -q '| rank $oprank B compute' '$t_tmp/screen.txt'"

# Enter (twice: it opens, then shows) on the second op type's row (the first is rank's largest,
# the panel's first row anyway): the operators panel of the rank that changed most (its first
# rank row), that type's row selected
optype=$(awk -F'|' '$1 == "operator" && $2 ~ /^type / && $3 == "all" && ++n == 2 { sub(/^type /, "", $2); print $2; exit }' "$t_tmp/changes")
oprank=$(awk -F'|' -v n="type $optype" '$1 == "operator" && $2 == n && $3 != "all" { print $3; exit }' "$t_tmp/changes")
view "$A" 120x40 %
row=$(grep -n "^. operator  *. type $optype " "$t_tmp/screen.txt" | head -1 | cut -d: -f1)
downs=$(i=4; while [ $i -lt "$row" ]; do printf 'j '; i=$((i + 1)); done)
view "$A" 120x40 % $downs "<Enter>" "<Enter>"
check "Enter on 'type $optype': rank $oprank's operators, its row selected" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '^ Operators of rank $oprank by op type' && grep -q '^▸ .* $optype (' '$t_tmp/screen.txt'"

# ---- without colour: + and - tell B longer and shorter apart ----------------------------------
if pair fast --slow-stage 1 --slow-factor 500 --slow-ranks 15; then
	NO_COLOR=1 VIEW_OPTS="--compare $t_tmp/fast --theme mono" view "$A" 140x45 ":step 1"
	check "B faster: its ref_logprob shows - in the delta lane" sh -c "grep '^ Δ B−A' '$t_tmp/screen.txt' | head -1 | grep -Eq -- '=-[0-9.]+ ms .*-='"
	check "... in slot diff.shorter" sh -c "grep -q H '$t_tmp/screen.attr'"
	golden compare-mono
else
	not_ok "generate the faster B"
fi

# ---- a run against itself, a B with fewer ranks ------------------------------------------------
VIEW_OPTS="--compare $A" view "$A" 120x40 "%"
check "A against itself: the verdict is 'no changes'" sh -c "head -1 '$t_tmp/screen.txt' | grep -q '^ Diff: no changes '"
check "... and the panel lists none" has "No changes."
VIEW_OPTS="--compare $A" view "$A" 120x40 ":step 1"
check "... the delta lane shows = only" sh -c "! grep '^ Δ B−A' '$t_tmp/screen.txt' | grep -q '[-+]'"
if rlgen "$t_tmp/three" --ranks 3 --steps 2 --seed 7 --slow -1 > /dev/null 2>&1; then
	VIEW_OPTS="--compare $t_tmp/three" view "$A" 120x40 ":step 1" ":rank 3"
	check "B without rank 3: rank 3's delta lane says so" has "rank 3 is not in B"
else
	not_ok "generate the 3-rank B"
fi

# ---- real captures without RL stages: compared by step and overlap; the delta lane says why --
if [ -d "$SAMPLES/ascend-db/level0" ] && [ -d "$SAMPLES/ascend-db/level2" ]; then
	VIEW_OPTS="--compare $SAMPLES/ascend-db/level2" view "$SAMPLES/ascend-db/level0" 120x30 ":step 50"
	check "two samples without stages: the delta lane says so" has "no RL stages in either run"
	check "... B's lanes are there" sh -c "grep -q '^▍comm ' '$t_tmp/screen.txt'"
	VIEW_OPTS="--compare $SAMPLES/ascend-db/level2" view "$SAMPLES/ascend-db/level0" 120x30 "%"
	v=$("$TL_BIN" diff "$SAMPLES/ascend-db/level0" "$SAMPLES/ascend-db/level2" 2> /dev/null | head -1)
	check "... the diff panel's verdict is tl diff's ($v)" sh -c "head -1 '$t_tmp/screen.txt' | grep -qF -- ' Diff: $v'"
else
	skip "samples absent: real captures not compared"
fi

# ---- without --compare; options ----------------------------------------------------------------
unset VIEW_OPTS
view "$A" 100x30 "%"
check "% without --compare says how to compare" has "Nothing to compare: open two runs with tl view A --compare B."
view "$A" 100x30 ":align step"
check ":align without --compare says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^align: nothing to compare'"
"$TL_BIN" summary "$A" --compare "$B" > /dev/null 2> "$t_tmp/err"
check "summary does not take --compare" grep -q "summary does not take --compare" "$t_tmp/err"
"$TL_BIN" view "$A" --compare "$t_tmp/nothing-here" --script /dev/null --size 80x24 > /dev/null 2> "$t_tmp/err"
rc=$?
"$TL_BIN" view "$t_tmp/nothing-here" --script /dev/null --size 80x24 > /dev/null 2> /dev/null
check "a B that cannot be read: the status of an A that cannot ($rc), and its name" sh -c "[ $rc -eq $? ] && [ $rc -ne 0 ] && grep -q 'nothing-here' '$t_tmp/err'"

# ---- a real terminal (tmux) --------------------------------------------------------------------
if command -v tmux > /dev/null 2>&1; then
	TM="tmux -L tl-compare-$$ -f /dev/null"
	trap '$TM kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
	$TM new-session -d -x 140 -y 45 -s t \
		"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' '$TL_BIN' view '$A' --compare '$B'; sleep 60"
	i=0
	while [ $i -lt 100 ] && ! $TM capture-pane -p -t t 2> /dev/null | grep -q "rank 0"; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
	$TM capture-pane -p -t t > "$t_tmp/pane"
	check "tmux: the compare view shows B's lanes and the delta lane" sh -c "grep -q '^▍stage' '$t_tmp/pane' && grep -q 'Δ B−A stages' '$t_tmp/pane'"
	$TM send-keys -t t %
	sleep 0.5
	$TM capture-pane -p -t t > "$t_tmp/pane"
	check "tmux: % opens the diff panel" sh -c "head -1 '$t_tmp/pane' | grep -qF -- ' Diff: $verdict'"
	$TM send-keys -t t q
	sleep 0.3
	$TM capture-pane -p -t t > "$t_tmp/pane"
	check "tmux: q closes it" sh -c "grep -q '^▍stage' '$t_tmp/pane'"
	$TM kill-server 2> /dev/null
else
	skip "tmux absent: the compare view is not checked in a terminal"
fi

t_done
