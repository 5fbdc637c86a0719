#!/bin/sh
# The viewer's first-frame verdict line, an opened finding's span and a step's critical path
# marked on the lanes, and the blame panel: golden screens at 80x24 and 120x40, and their numbers
# and columns checked against tl triage --json and tl critical --json.
. "$(dirname "$0")/lib_tui.sh"

# a straggler (rank 3) and a stall (rank 1, 6 ms); a 4-stage pipeline whose path crosses ranks
for p in "both --clean --slow 3 --stall-rank 1 --stall-ns 6000000" "pp --pp 4 --clean"; do
	set -- $p
	name=$1
	shift
	if ! "$TLGEN" rl "$t_tmp/$name" "$@" >"$t_tmp/$name.log" 2>&1; then
		not_ok "generate the $name profile"
		t_done
		exit 1
	fi
done
B=$t_tmp/both
PP=$t_tmp/pp
"$TL_BIN" triage "$B" --json >"$t_tmp/both.json"
"$TL_BIN" triage "$B" >"$t_tmp/both.txt"
"$TL_BIN" critical "$PP" --json >"$t_tmp/pp.cp.json"
# the verdict's rules: those over the loaded lanes (the others read the profile's tables again
# and run when ! opens): tl triage's first finding of one of them
lanes_first() { # TRIAGE-JSON TRIAGE-TEXT: that finding's title as tl triage prints it
	python3 -c '
import json, re, sys
files = {"aicpu_op", "host_bound", "frequency_drop", "memory_peak", "slow_link", "small_packets"}
F = json.load(open(sys.argv[1]))["findings"]
i = next(f["index"] for f in F if f["kind"] not in files)
print(re.search(r"^%d\. (.*)$" % i, open(sys.argv[2]).read(), re.M).group(1))' "$@"
}
title=$(lanes_first "$t_tmp/both.json" "$t_tmp/both.txt")
# the profile start the screen counts from: tl triage's "at A .. B ms from the profile start"
# beside the same finding's start_ns
origin=$(python3 -c '
import json, re, sys
f = json.load(open(sys.argv[1]))["findings"][0]
a = re.search(r"^   at ([0-9.]+) \.\. ", open(sys.argv[2]).read(), re.M).group(1)
print(f["start_ns"] - round(float(a) * 1e6))' "$t_tmp/both.json" "$t_tmp/both.txt")

# tap PREFIX FILE: the checker's "ok - what" lines as this script's TAP lines
tap() {
	while read -r line; do
		case $line in
		"ok - "*) ok "$1${line#ok - }" ;;
		*) not_ok "$1${line#not ok - }" ;;
		esac
	done <"$2"
}

# ---- the verdict line ---------------------------------------------------------------------------
for size in 80x24 120x40; do
	h=${size#*x}
	view "$B" "$size"
	check "$size: the verdict line above the status line: tl triage's first finding ($title) and !" \
		sh -c "[ \"\$(sed -n $((h - 2))p '$t_tmp/screen.txt' | sed 's/ *\$//')\" = 'Verdict: $title  ! all findings' ]"
	check "$size: the status line keeps its row" sh -c "sed -n $((h - 1))p '$t_tmp/screen.txt' | grep -q 'cursor 0ns'"
	check "$size: 'Verdict:' and the key in the detail.key slot" sh -c "sed -n $((h - 2))p '$t_tmp/screen.attr' | grep -q '^kkkkkkkkkgg*kkkkkkkkkkkkkkkk'"
	golden "verdict-$size"
	view "$B" "$size" l
	check "$size: the first key takes it away, the lanes get the row back" sh -c "! grep -q 'Verdict' '$t_tmp/screen.txt' && sed -n $((h - 2))p '$t_tmp/screen.txt' | grep -q '│'"
	view "$B" "$size" ":goto 5ms"
	check "$size: so does a command" sh -c "! grep -q 'Verdict' '$t_tmp/screen.txt'"
done
# narrower than the line: the finding's title is cut with an ellipsis, the key stays whole
view "$B" 50x20
check "50 columns: the title cut with an ellipsis, '! all findings' whole at the end" \
	sh -c "sed -n 18p '$t_tmp/screen.txt' | grep -q '^Verdict: straggler.*…  ! all findings *\$'"
# a profile whose first finding needs the communication tables (small packets): the verdict is
# the first of the lanes' rules, the panel still lists the other first
if fixture two --ranks 2 --tasks 3000 --seed 7; then
	"$TL_BIN" triage "$t_tmp/two" --json >"$t_tmp/two.json"
	"$TL_BIN" triage "$t_tmp/two" >"$t_tmp/two.txt"
	t2=$(lanes_first "$t_tmp/two.json" "$t_tmp/two.txt")
	view "$t_tmp/two" 120x40
	check "a table rule first in tl triage: the verdict is the lanes' first ($t2)" \
		sh -c "sed -n 38p '$t_tmp/screen.txt' | grep -qF 'Verdict: $t2  ! all findings'"
	view "$t_tmp/two" 120x40 '!'
	check "... and ! lists tl triage's first first" sh -c "grep -qF '$(sed -n 's/^1\. //p' "$t_tmp/two.txt")' '$t_tmp/screen.txt'"
else
	not_ok "generate the 2-rank fixture"
fi
printf ':dump %s\n' "$t_tmp/screen.txt" >"$t_tmp/script"
"$TL_BIN" view "$B" --finding 2 --script "$t_tmp/script" --size 120x40 2>"$t_tmp/err"
check "--finding N: no verdict line (the finding is open)" sh -c "! grep -q 'Verdict' '$t_tmp/screen.txt'"

# ---- an opened finding's span ----------------------------------------------------------------
spans() { # FINDINGS-JSON INDEX: {"rank": [[start, end]]} for each rank the finding names
	python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"][int(sys.argv[2]) - 1]
ranks = [f["rank"]] if f["rank"] is not None else []
if f.get("ranks"):
    for part in f["ranks"].split(","):
        a, _, b = part.partition("-")
        ranks += range(int(a), int(b or a) + 1)
print(json.dumps({r: [[f["start_ns"], f["end_ns"]]] for r in ranks}))' "$@"
}
spans "$t_tmp/both.json" 1 >"$t_tmp/f1.json"
for size in 80x24 120x40; do
	view "$B" "$size" '!' '<Enter>'
	golden "finding-$size"
	python3 "$TL_SRCDIR/tests/tui/marks_check.py" "$t_tmp/screen.txt" "$t_tmp/screen.attr" "$origin" ━ Q "$t_tmp/f1.json" >"$t_tmp/tap"
	tap "$size finding 1: " "$t_tmp/tap"
done
# the stall (finding 3, rank 1, a few ms): --finding N marks it as Enter does
spans "$t_tmp/both.json" 3 >"$t_tmp/f3.json"
printf ':dump %s\n:dump-attrs %s\n' "$t_tmp/screen.txt" "$t_tmp/screen.attr" >"$t_tmp/script"
"$TL_BIN" view "$B" --finding 3 --script "$t_tmp/script" --size 120x40 2>"$t_tmp/err"
python3 "$TL_SRCDIR/tests/tui/marks_check.py" "$t_tmp/screen.txt" "$t_tmp/screen.attr" "$origin" ━ Q "$t_tmp/f3.json" >"$t_tmp/tap"
tap "--finding 3: " "$t_tmp/tap"
check "--finding 3: the ruler carries the span too" sh -c "head -1 '$t_tmp/screen.attr' | grep -q Q"
view "$B" 120x40 '!' '<Enter>' '<Esc>'
check "Esc clears the finding's marks" sh -c "! grep -q Q '$t_tmp/screen.attr' && ! grep -q ━ '$t_tmp/screen.txt'"
VIEW_OPTS="--theme mono" view "$B" 80x24 '!' '<Enter>'
check "mono: the heavy line still marks the span (the glyph, not a colour)" sh -c "grep -q '^▾ rank 3 .*━━━' '$t_tmp/screen.txt'"

# ---- the critical path --------------------------------------------------------------------------
# the profile start of pp: the first segment's start less the message's "at T" for it
view "$PP" 120x40 E n
at=$(tail -3 "$t_tmp/screen.txt" | tr '\n' ' ' | sed -n 's/.*Path segment 1 of [0-9]*: .* at \([0-9.-]*[a-zµ]*s\) (.*/\1/p')
pp_origin=$(python3 -c '
import json, re, sys
s = json.load(open(sys.argv[1]))["critical_path"][0]["segments"][0]["start_ns"]
m = re.match(r"(-?[0-9.]+)(ns|us|µs|ms|s)$", sys.argv[2])
print(s - round(float(m.group(1)) * {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]))' "$t_tmp/pp.cp.json" "$at")
check "E n: the message names segment 1 and where it starts ($at)" [ -n "$pp_origin" ]
python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))["critical_path"][0]
out = {}
for g in st["segments"]:
    out.setdefault(g["rank"], []).append([g["start_ns"], g["end_ns"]])
print(json.dumps(out))' "$t_tmp/pp.cp.json" >"$t_tmp/path.json"
for size in 80x24 120x40; do
	view "$PP" "$size" E
	golden "path-$size"
	check "$size: E says the path's step, segments and changes of rank" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | grep -q 'Critical path of step 1: .* 211 segments, 8 changes of rank'"
	python3 "$TL_SRCDIR/tests/tui/marks_check.py" "$t_tmp/screen.txt" "$t_tmp/screen.attr" "$pp_origin" ═ P "$t_tmp/path.json" >"$t_tmp/tap"
	tap "$size path: " "$t_tmp/tap"
done
view "$PP" 120x40 E '<Esc>'
check "Esc clears the path" sh -c "! grep -q P '$t_tmp/screen.attr' && ! grep -q ═ '$t_tmp/screen.txt'"
view "$PP" 120x40 :critical
check ":critical marks it as E does" sh -c "grep -q '═' '$t_tmp/screen.txt' && grep -q P '$t_tmp/screen.attr'"
NO_COLOR=1 view "$PP" 80x24 E
check "NO_COLOR: the double line still marks the path" sh -c "grep -q '^▾ rank [0-3] .*═' '$t_tmp/screen.txt'"
# n and N: the path's segments while it is the active mark, a search's matches after a search
view "$PP" 120x40 E n n
check "E n n: segment 2 of the path" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | grep -q 'Path segment 2 of 211: rank 0'"
view "$PP" 120x40 E /hcom n
check "a search after E: n walks the matches" sh -c "tail -2 '$t_tmp/screen.txt' | grep -q '^Match 2 of'"
view "$PP" 120x40 E /hcom n E n
check "E again: n walks the path again" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | grep -q 'Path segment 1 of 211'"
view "$PP" 120x40 E N
check "E N: the last segment" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | grep -q 'Path segment 211 of 211'"

# ---- the blame panel ----------------------------------------------------------------------------
for size in 80x24 120x40; do
	view "$PP" "$size" E E
	golden "blame-$size"
	python3 - "$t_tmp/pp.cp.json" "$t_tmp/screen.txt" >"$t_tmp/tap" <<'EOF'
import json, re, sys
st = json.load(open(sys.argv[1]))["critical_path"][0]
scr = open(sys.argv[2], encoding="utf-8").read()
def ok(c, w):
    print(("ok - " if c else "not ok - ") + w)
length = st["end_ns"] - st["start_ns"]
ranks, kinds = {}, {}
for b in st["blame"]:
    ranks[b["rank"]] = ranks.get(b["rank"], 0) + b["ns"]
    kinds[b["kind"]] = kinds.get(b["kind"], 0) + b["ns"]
ok(sum(ranks.values()) == length, "tl critical's blame sums to the step (%d ns)" % length)
def ms(ns):  # as tl prints it: three decimals, cut (timefmt_ms)
    return "%d.%03d" % (ns // 1000000, ns % 1000000 // 1000)
def row(label, ns):
    want = "%s %6.1f%%" % (ms(ns), 100.0 * ns / length)
    return re.search(r"(^ |   )%s +%s" % (re.escape(label), re.escape(want.split()[0])) +
                     r" +%s" % re.escape(want.split()[1]), scr, re.M) is not None
for r, ns in sorted(ranks.items()):
    ok(row("rank %d" % r, ns), "rank %d: %.3f ms on the path" % (r, ns / 1e6))
for k, ns in kinds.items():
    ok(row(k, ns), "%s: %.3f ms on the path" % (k, ns / 1e6))
ok(len(re.findall(r" step +%s +100\.0%%" % ms(length), scr)) == 2,
   "the rank and kind lists each end in the step's %.3f ms" % (length / 1e6))
comp = kinds.get("compute", 0)
ok(row("compute", comp) and row("not compute", length - comp),
   "the operator list ends in compute and the rest, summing to the step")
top = st["operators"][0]
ok(top["name"][:20] in scr, "the top operator on the path (%s) is listed" % top["name"])
EOF
	tap "$size blame: " "$t_tmp/tap"
done
view "$PP" 120x40 E E q
check "q closes the blame panel, the path stays marked" sh -c "! grep -q 'Blame of' '$t_tmp/screen.txt' && grep -q '═' '$t_tmp/screen.txt'"

t_done
