#!/bin/sh
# End-to-end in a real terminal (tmux): E marks a step's critical path and n walks its segments
# one by one, in order, across ranks; each message is checked against tl critical --json's
# segments for the same step (rank, kind, name, position).
. "$(dirname "$0")/lib_tui.sh"
if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux absent"
	t_done
	exit 0
fi
# a 4-stage pipeline: the path crosses ranks 0 -> 1 -> 2 -> 3 in its first 30 segments
if ! "$TLGEN" rl "$t_tmp/pp" --pp 4 --clean >"$t_tmp/gen.log" 2>&1; then
	not_ok "generate the pp profile"
	t_done
	exit 1
fi
"$TL_BIN" critical "$t_tmp/pp" --json >"$t_tmp/cp.json"
T="tmux -L tl-path-$$ -f /dev/null"
trap '$T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
$T new-session -d -x 160 -y 40 -s t \
	"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$TL_BIN' view '$t_tmp/pp'; sleep 60"
cap() { $T capture-pane -p -t t >"$t_tmp/pane"; }
# wait_for TEXT: up to 10 s for TEXT on the pane's last three rows
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		cap
		if tail -3 "$t_tmp/pane" | tr '\n' ' ' | grep -qF -- "$1"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_for "findings"
check "the viewer opens with the verdict line" grep -q '^Verdict: ' "$t_tmp/pane"
$T send-keys -t t E
check "E: the critical path of step 1 is marked" wait_for "Critical path of step 1"
: >"$t_tmp/walk"
k=1
while [ $k -le 32 ]; do
	$T send-keys -t t n
	if ! wait_for "Path segment $k of "; then
		not_ok "n number $k: no 'Path segment $k of' on the message line"
		break
	fi
	msg=$(tail -3 "$t_tmp/pane" | tr '\n' ' ' | sed -n 's/.*\(Path segment [0-9]* of [0-9]*: rank [0-9]*, [a-z_]*[^,]*\), .*/\1/p')
	printf '%s\n' "$msg" >>"$t_tmp/walk"
	k=$((k + 1))
done
{
python3 - "$t_tmp/cp.json" "$t_tmp/walk" <<'PY'
import json, re, sys
st = json.load(open(sys.argv[1]))["critical_path"][0]
seg = st["segments"]
walk = [l.strip() for l in open(sys.argv[2]) if l.strip()]
def ok(c, w):
    print(("ok - " if c else "not ok - ") + w)
ok(len(walk) == 32, "32 presses of n gave 32 segments")
ranks = []
for k, line in enumerate(walk, 1):
    m = re.match(r"Path segment (\d+) of (\d+): rank (\d+), ([a-z_]+) ?(.*)$", line)
    if not m:
        ok(False, "message %d parses: %r" % (k, line))
        continue
    i, n, rank, kind, name = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
    g = seg[i - 1]
    ok(i == k and n == len(seg) and rank == g["rank"] and kind == g["kind"] and name == g["name"],
       "n #%d: segment %d of %d, rank %d %s %s (tl critical: rank %d %s %s)" %
       (k, i, n, rank, kind, name, g["rank"], g["kind"], g["name"]))
    ranks.append(rank)
changes = [ranks[j] for j in range(1, len(ranks)) if ranks[j] != ranks[j - 1]]
want = [seg[j]["rank"] for j in range(1, min(32, len(seg))) if seg[j]["rank"] != seg[j - 1]["rank"]]
ok(len(changes) >= 3 and changes == want,
   "the walk crossed ranks as the path does: %s (tl critical: %s)" % (changes, want))
PY
} >"$t_tmp/tap"
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) not_ok "${line#not ok - }" ;;
	esac
done <"$t_tmp/tap"
$T send-keys -t t N
check "N goes back one segment" wait_for "Path segment 31 of "
$T send-keys -t t q
t_done
