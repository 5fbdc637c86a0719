#!/bin/sh
# A trace that does not say its rank (a Kineto trace without distributedInfo, a file name without
# a number): "?" in every text output and null in the JSON, never -1. The trace is tlgen nccl's
# one-rank job with its distributedInfo taken out (by python3, not tl), so the file itself is
# the answer: it holds no rank.
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null; then
	skip "python3 missing"
	t_done
	exit 0
fi
"$TLGEN" nccl "$t_tmp/g" --ranks 1 --steps 2 --seed 3 >"$t_tmp/gen.log" 2>&1 ||
	{ cat "$t_tmp/gen.log"; not_ok "generate"; t_done; exit 1; }
mkdir -p "$t_tmp/p"
python3 - "$t_tmp/g/rank0.pt.trace.json" "$t_tmp/p/trace.pt.trace.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d['distributedInfo']
json.dump(d, open(sys.argv[2], 'w'))
PY
"$TL_BIN" info "$t_tmp/p" >"$t_tmp/info.txt" 2>&1
check "tl info: the rank is ?" grep -q '^?  *Kineto JSON' "$t_tmp/info.txt"
"$TL_BIN" summary --no-cache "$t_tmp/p" >"$t_tmp/s.txt" 2>"$t_tmp/s.err"
check "tl summary: the overlap rows' rank is ?" \
	sh -c "grep -Eq '^ +\\? +[0-9]+ ' '$t_tmp/s.txt' && [ \$(grep -Ec '^ +\\? +[0-9]+ ' '$t_tmp/s.txt') -ge 2 ]"
check "tl summary: no -1 rank in any table" sh -c "! grep -Eq '^ +-1 ' '$t_tmp/s.txt'"
check "tl summary: the host launches table too" sh -c "sed -n '/^Host launches/,/^\$/p' '$t_tmp/s.txt' | grep -Eq '^ +\\? '"
"$TL_BIN" summary --no-cache --json "$t_tmp/p" >"$t_tmp/s.json" 2>/dev/null
check "tl summary --json: every rank field is null, none is -1" python3 - "$t_tmp/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seen = {'null': 0, 'bad': []}
def walk(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            if k.endswith('rank') and not isinstance(v, (dict, list)):
                if v is None:
                    seen['null'] += 1
                elif not isinstance(v, int) or v < 0:
                    seen['bad'].append((path + '.' + k, v))
            walk(v, path + '.' + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, '%s[%d]' % (path, i))
walk(d, '')
print('# %d null ranks, bad: %s' % (seen['null'], seen['bad'][:3]))
sys.exit(0 if seen['null'] > 0 and not seen['bad'] and d['ranks'][0]['rank'] is None else 1)
PY
t_done
