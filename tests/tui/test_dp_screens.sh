#!/bin/sh
# Screen tests of dp_analysis' numbers in the DP panel: the columns and the concurrency chart
# on generated profiles whose engine steps and marks are known (step_process ranges with JSON
# marks), compared with `tl summary --json`; the chart per rank and overlaid, at 80x24 and
# 200x50, in colour and mono; malformed marks; :export as SVG, validated as XML.
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
if ! rlfix dp --ranks 4 --steps 2 --seed 3 --slow 2 --decode dp ||
	! rlfix dpbad --ranks 4 --steps 1 --seed 3 --slow 2 --decode dp --dp-bad ||
	! rlfix dp16 --ranks 16 --steps 1 --seed 4 --slow 5 --tasks 1500 --decode dp ||
	! rlfix dponly --ranks 4 --steps 2 --seed 3 --slow 2 --decode dp --dp-only ||
	! rlfix decnone --ranks 3 --steps 1 --decode none; then
	not_ok "generate the fixtures"
	t_done
	exit 1
fi
if ! command -v python3 > /dev/null; then
	skip "python3 is needed to read the summary JSON"
	t_done
	exit 0
fi

# jdp PROFILE PYEXPR: PYEXPR over d (the summary JSON) and e(rank, step) (a dp entry)
jdp() {
	"$TL_BIN" summary "$1" --json 2> /dev/null > "$t_tmp/j.json"
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def e(rank, step):
    return [x for x in d['dp'] if x['rank'] == rank and x['step'] == step][0]
print($2)" "$t_tmp/j.json"
}

# ---- the columns ---------------------------------------------------------------------------------
view "$t_tmp/dp" 80x24 D
check "80x24: the columns that fit: decode, steps behind (bubble rate), throughput, tokens" \
	sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'rank +duration .* wait +decode +behind +tok/s +tokens'"
for r in 0 1 2 3; do
	want=$(jdp "$t_tmp/dp" "'%d %.1f%% %.1f %d' % (e($r,1)['decode_steps'], e($r,1)['bubble_rate_pct'], e($r,1)['throughput_tokens_per_s'], e($r,1)['out_tokens'])")
	got=$(sed -n "$((4 + r))p" "$t_tmp/screen.txt" | awk '{print $(NF-3), $(NF-2), $(NF-1), $NF}')
	if [ "$got" = "$want" ]; then
		ok "rank $r: decode, bubble, tok/s and tokens on screen are the summary's ($got)"
	else
		not_ok "rank $r: screen '$got', summary '$want'"
	fi
done
early=$(jdp "$t_tmp/dp" "min(e(r,1)['max_step'] for r in range(4))")
late=$(jdp "$t_tmp/dp" "max(e(r,1)['max_step'] for r in range(4))")
check "the chart's title: out_tokens, the earliest ($early) and latest ($late) end steps" \
	sh -c "grep -q 'out_tokens per step, max [0-9]* (c: next)   end steps: earliest $early, latest $late' '$t_tmp/screen.txt'"
check "one chart line per rank, in eighth blocks" \
	sh -c "[ \$(grep -Ec '^ +[0-3] [▁▂▃▄▅▆▇█]' '$t_tmp/screen.txt') -eq 4 ]"
check "the step axis marks and numbers the end steps" sh -c "grep -q '^        0─.*┴$early.*┴' '$t_tmp/screen.txt'"
check "the chart fits 80x24: its axis is on the screen" sh -c "sed -n 1,23p '$t_tmp/screen.txt' | grep -q '┴'"
golden dp-chart-80x24
VIEW_OPTS="--theme mono" view "$t_tmp/dp" 80x24 D
golden dp-chart-80x24-mono
view "$t_tmp/dp" 200x50 D
check "200x50: every column" sh -c "sed -n 3p '$t_tmp/screen.txt' | grep -Eq 'decode +last +behind +tok/s +tokens +run +queued +kv +idle'"
want=$(jdp "$t_tmp/dp" "'%d %.1f %.1f %.0f%%' % (e(0,1)['max_step'], e(0,1)['mean_running_reqs'], e(0,1)['mean_waiting_reqs'], 100 * e(0,1)['peak_gpu_cache_usage'])")
got=$(sed -n 4p "$t_tmp/screen.txt" | awk '{print $(NF-7), $(NF-3), $(NF-2), $(NF-1)}')
check "rank 0's last step, mean running and waiting, peak KV cache are the summary's ($want)" [ "$got" = "$want" ]
golden dp-chart-200x50
VIEW_OPTS="--theme mono" view "$t_tmp/dp" 200x50 D
golden dp-chart-200x50-mono

# ---- keys ------------------------------------------------------------------------------------------
view "$t_tmp/dp" 100x30 D c
check "c charts running requests" has "running requests per step"
view "$t_tmp/dp" 100x30 D c c c
check "... then waiting requests, then KV-cache use" has "KV-cache use per step"
view "$t_tmp/dp" 100x30 D c c c c
check "... and back to out_tokens" has "out_tokens per step"
view "$t_tmp/dp" 100x30 D O O O O O
check "O reaches the steps behind (bubble rate)" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q 'Sorted by steps behind (bubble rate)'"
check "... highest first" sh -c "sed -n 4,7p '$t_tmp/screen.txt' | awk '{for (i = 1; i <= NF; i++) if (\$i ~ /%\$/) { print \$i + 0; break }}' | sort -rn -c"
view "$t_tmp/dp" 100x30 D j
check "the selected rank's chart line is highlighted" sh -c "sed -n 5p '$t_tmp/screen.attr' | grep -q '^LLLLLLL' && sed -n 11p '$t_tmp/screen.attr' | grep -q '^.LLLLLL.LL'"
LANG=C LC_ALL=C view "$t_tmp/dp" 100x30 D
check "ASCII levels under LANG=C" sh -c "[ \$(grep -Ec '^ +[0-3] [.:=+*#%-]' '$t_tmp/screen.txt') -eq 4 ]"

# ---- malformed marks, more ranks than rows ------------------------------------------------------------
view "$t_tmp/dpbad" 100x30 D
check "malformed marks: ranks 1 and 2 show dashes for their stats" \
	sh -c "[ \$(sed -n 5,6p '$t_tmp/screen.txt' | grep -c ' – *– ') -eq 2 ]"
check "... their steps still count, with their bubble rates" \
	sh -c "[ \$(sed -n 5,6p '$t_tmp/screen.txt' | grep -Ec ' ms +[0-9]+ +[0-9.]+% +– ') -eq 2 ]"
check "... rank 2's steps in the chart as steps without stats" sh -c "grep -Eq '^ +2 ·+' '$t_tmp/screen.txt'"
check "... one line each in the viewer's stderr" sh -c "[ \$(grep -c 'step_process' '$t_tmp/err') -eq 2 ]"
view "$t_tmp/dp16" 80x24 D
check "16 ranks in 80x24: every rank overlaid in braille" python3 -c "
import sys
sys.exit(0 if any(0x2801 <= ord(c) <= 0x28ff for c in open(sys.argv[1], encoding='utf-8').read()) else 1)" "$t_tmp/screen.txt"
check "... the axis still on the screen" sh -c "sed -n 1,23p '$t_tmp/screen.txt' | grep -q '┴'"
golden dp-chart-overlay-80x24

# ---- no stage: the whole capture ---------------------------------------------------------------------
view "$t_tmp/dponly" 80x24 D
check "no RL stage: the panel shows the whole capture" has "DP load imbalance: whole capture (no RL stage)"
check "... without an idle column (no device time is measured for engine-step spans)" \
	sh -c "! sed -n 3p '$t_tmp/screen.txt' | grep -q idle"
want=$(jdp "$t_tmp/dponly" "' '.join('%.1f%%' % e(r,-1)['bubble_rate_pct'] for r in range(4))")
got=$(sed -n 4,7p "$t_tmp/screen.txt" | awk '{print $(NF-2)}' | tr '\n' ' ' | sed 's/ $//')
check "... bubble rates over the whole capture are the summary's ($want)" [ "$got" = "$want" ]
golden dp-chart-whole-80x24
view "$t_tmp/dponly" 80x24 D S
check "... S says there is nothing to cycle" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q 'No RL stage: the whole capture is one rollout'"
view "$t_tmp/dponly" 80x24 D ":export $t_tmp/whole.svg"
check "... and :export writes its chart" python3 -c "
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
assert any((t.text or '').startswith('out_tokens per engine step, stage (whole capture)') for t in root.iter(ns + 'text'))
assert len(root.findall('.//' + ns + 'polyline')) == 4
" "$t_tmp/whole.svg"

# ---- :export ---------------------------------------------------------------------------------------
jdp "$t_tmp/dp" 0 > /dev/null # $t_tmp/j.json: the summary of the profile exported
view "$t_tmp/dp" 100x30 D j ":export $t_tmp/chart.svg"
check ":export writes the file" test -s "$t_tmp/chart.svg"
check "... says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q 'Wrote the out_tokens chart to'"
check "the SVG is well-formed XML with an svg root, a line per rank and both end markers" python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
assert root.tag == ns + 'svg', root.tag
lines = root.findall('.//' + ns + 'polyline')
assert len(lines) == 4, len(lines)
texts = [t.text or '' for t in root.iter(ns + 'text')]
assert any('earliest end step' in t for t in texts) and any('latest end step' in t for t in texts)
assert any(t.startswith('out_tokens per engine step, stage rollout, step 1') for t in texts)
" "$t_tmp/chart.svg"
check "... the selected rank (1) drawn thicker" python3 -c "
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
g = [g for g in ET.parse(sys.argv[1]).getroot().iter(ns + 'g') if g.get('stroke-width') == '3']
assert len(g) == 1 and g[0].get('stroke') == '#ff7f0e'
" "$t_tmp/chart.svg"
check "... each line has a point per step of its rank" python3 -c "
import sys, json, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
pl = [p.get('points').split() for p in ET.parse(sys.argv[1]).getroot().iter(ns + 'polyline')]
d = json.load(open(sys.argv[2]))
want = sorted(x['decode_steps'] for x in d['dp'] if x['step'] == 1)
assert sorted(len(p) for p in pl) == want, (want, [len(p) for p in pl])
" "$t_tmp/chart.svg" "$t_tmp/j.json"
if command -v xmllint > /dev/null; then
	check "xmllint accepts the SVG" xmllint --noout "$t_tmp/chart.svg"
fi
view "$t_tmp/decnone" 100x30 D ":export $t_tmp/none.svg"
check ":export without engine steps: a message, no file" \
	sh -c "tail -1 '$t_tmp/screen.txt' | grep -q 'export: no engine steps' && [ ! -e '$t_tmp/none.svg' ]"
t_done
