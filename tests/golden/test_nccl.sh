#!/bin/sh
# Kineto traces of an NCCL job (tlgen nccl: ncclDevKernel_Generic kernels with their args, typed
# only by their record_param_comms, torch < 2.2's ncclKernel_SendRecv in nccl:all_to_all, kernels
# named by their collective, send/recv pairs) against a python3 script that reads the traces
# itself: each kernel's collective (its "Collective name" arg, else the nccl:* range or
# record_param_comms around the cudaLaunchKernel of the same correlation, else its name), the
# k-th call of a type in a process group (else stream) as one instance on every rank, its
# arrival skew and last arriver, and the communication ops per rank and type. Then the same job
# gzip-compressed (*.pt.trace.json.gz): the same summary byte for byte; a truncated stream and
# a bomb past TL_GZIP_MAX fail their rank alone with one line.
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null; then
	skip "python3 missing"
	t_done
	exit 0
fi
"$TLGEN" nccl "$t_tmp/plain" --ranks 4 --steps 2 --rounds 2 --seed 7 >"$t_tmp/gen.log" 2>&1 &&
	"$TLGEN" nccl "$t_tmp/gz" --ranks 4 --steps 2 --rounds 2 --seed 7 --gzip >>"$t_tmp/gen.log" 2>&1 ||
	{ cat "$t_tmp/gen.log"; not_ok "generate"; t_done; exit 1; }
"$TL_BIN" summary --no-cache "$t_tmp/plain" --json >"$t_tmp/plain.json" 2>"$t_tmp/plain.err" ||
	not_ok "tl summary --json"
check "no warning on the generated traces" test ! -s "$t_tmp/plain.err"

cat >"$t_tmp/expect.py" <<'PY'
import gzip, json, sys, glob, collections, decimal

def norm(s):
    """The collective a name or "Collective name" says (our own reading of the spellings)."""
    k = ''.join(ch for ch in s.split('(')[0].lower() if ch.isalpha())
    words = [('alltoall', 'all_to_all'), ('allreduce', 'allreduce'), ('allgather', 'allgather'),
             ('reducescatter', 'reduce_scatter'), ('broadcast', 'broadcast'),
             ('barrier', 'barrier'), ('sendrecv', 'sendrecv'), ('send', 'send'),
             ('receive', 'recv'), ('recv', 'recv'), ('reduce', 'reduce'),
             ('gather', 'gather'), ('scatter', 'scatter')]
    best = None
    for w, t in words:
        i = k.find(w)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, t)
    return best[1] if best else ''

def load(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return json.load(f, parse_float=decimal.Decimal)

ranks = {}
for path in sorted(glob.glob(sys.argv[1] + '/rank*.pt.trace.json*')):
    d = load(path)
    rank = d['distributedInfo']['rank']
    ev = [e for e in d['traceEvents'] if e.get('ph') == 'X']
    runtime = {e['args']['correlation']: e for e in ev if e.get('cat') == 'cuda_runtime'}
    host = [e for e in ev if e.get('cat') in ('cpu_op', 'user_annotation')]
    steps = sorted((e['ts'], e['ts'] + e['dur'], int(e['name'].split('#')[1]))
                   for e in host if e['name'].startswith('ProfilerStep#'))
    ops = []
    for e in ev:
        if e.get('cat') != 'kernel' or not e['name'].lower().startswith('nccl'):
            continue
        a = e.get('args', {})
        ty = norm(a.get('Collective name', ''))
        group = 'pg ' + a['Process Group Name'] if 'Process Group Name' in a else 'stream %d' % a['stream']
        launch = runtime.get(a.get('correlation'))
        step = -1
        if launch is not None:
            t = launch['ts']
            for s0, s1, sid in steps:
                if s0 <= t <= s1:
                    step = sid
            around = [h for h in host if h['pid'] == launch['pid'] and h['tid'] == launch['tid']
                      and h['ts'] <= t <= h['ts'] + h['dur']]
            if not ty:
                for h in sorted(around, key=lambda h: h['dur']):
                    if h['name'].startswith(('nccl:', 'c10d::', 'gloo:')) and norm(h['name']):
                        ty = norm(h['name'])
                        break
            if not ty:
                for h in around:
                    if h['name'] == 'record_param_comms':
                        ty = norm(h['args'].get('Collective name', ''))
                        if 'Process Group Name' in h['args']:
                            group = 'pg ' + h['args']['Process Group Name']
        if not ty:
            ty = norm(e['name'])
        ops.append((e['ts'], e['ts'] + e['dur'], ty, group, step))
    ranks[rank] = sorted(ops)

what = sys.argv[2]
if what == 'comm':
    for r in sorted(ranks):
        for ty, n in sorted(collections.Counter(o[2] for o in ranks[r]).items()):
            print(r, ty, n)
elif what == 'coll':
    inst = collections.defaultdict(list)
    for r, ops in ranks.items():
        seen = collections.Counter()
        for s, e, ty, g, step in ops:
            if ty in ('send', 'recv', 'sendrecv'):
                continue
            k = seen[(g, ty, step)]
            seen[(g, ty, step)] += 1
            inst[(g, ty, step, k)].append((s, r))
    out = []
    for (g, ty, step, k), v in inst.items():
        first = min(s for s, r in v)
        last = max(s for s, r in v)
        last_rank = min(r for s, r in v if s == last)
        # us with three decimals -> ns, exactly
        skew = int((last - first) * 1000)
        out.append((ty, step, len(v), last_rank, skew))
    for x in sorted(out):
        print(*x)
PY

cat >"$t_tmp/got.py" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
if sys.argv[2] == 'comm':
    c = collections.Counter((o['rank'], o['op_type']) for o in d['communication'])
    for (r, ty), n in sorted(c.items()):
        print(r, ty, n)
else:
    out = [(c['op_type'], c['step'], len(c['ranks']), c['last_rank'], c['skew_ns'])
           for c in d['collectives']]
    for x in sorted(out):
        print(*x)
PY
python3 "$t_tmp/expect.py" "$t_tmp/plain" coll >"$t_tmp/coll.want" &&
	python3 "$t_tmp/got.py" "$t_tmp/plain.json" coll >"$t_tmp/coll.got"
check "collectives: type, step, ranks, last arriver and skew of every instance as the script finds them ($(wc -l <"$t_tmp/coll.want") instances)" \
	cmp -s "$t_tmp/coll.want" "$t_tmp/coll.got"
cmp -s "$t_tmp/coll.want" "$t_tmp/coll.got" || diff "$t_tmp/coll.want" "$t_tmp/coll.got" | head -10 | sed 's/^/# /'
check "the script finds every type the generator writes (a test that can fail)" \
	sh -c "for t in allreduce allgather reduce_scatter all_to_all broadcast barrier; do grep -q \"^\$t \" '$t_tmp/coll.want' || exit 1; done"
python3 "$t_tmp/expect.py" "$t_tmp/plain" comm >"$t_tmp/comm.want" &&
	python3 "$t_tmp/got.py" "$t_tmp/plain.json" comm >"$t_tmp/comm.got"
check "communication ops per rank and normalised type as the script finds them" \
	cmp -s "$t_tmp/comm.want" "$t_tmp/comm.got"
check "send and recv are ops, not collectives" \
	sh -c "grep -q ' send ' '$t_tmp/comm.got' && grep -q ' recv ' '$t_tmp/comm.got' && ! grep -Eq '^(send|recv) ' '$t_tmp/coll.got'"
check "op_name keeps the kernel's name" \
	python3 -c "import json,sys; d=json.load(open('$t_tmp/plain.json')); sys.exit(0 if {'ncclDevKernel_Generic','ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t'} <= {c['op_name'] for c in d['collectives']} else 1)"
"$TL_BIN" summary --no-cache "$t_tmp/plain" >"$t_tmp/plain.txt" 2>/dev/null
check "slow ranks examine each call (one instance per collective, not one per kernel name)" \
	sh -c "n=\$(wc -l < '$t_tmp/coll.want'); grep -Eq \"[ (]\$n (collective )?instances examined\" '$t_tmp/plain.txt'"
check "the text names a Generic kernel's collective" grep -Eq "ncclDevKernel_Generic \((allreduce|allgather|reduce_scatter|all_to_all|broadcast|barrier)\)" "$t_tmp/plain.txt"

# eight ranks, rank 1 the generator's slow one (it arrives 300 us after the others at every
# collective): the slow-rank votes find it, call by call
"$TLGEN" nccl "$t_tmp/eight" --ranks 8 --steps 2 --seed 5 >>"$t_tmp/gen.log" 2>&1
"$TL_BIN" summary --no-cache "$t_tmp/eight" --json >"$t_tmp/eight.json" 2>/dev/null
check "8 ranks: slow-rank votes go to rank 1, the generator's slow rank, in most instances" \
	python3 -c "import json,sys; d=json.load(open('$t_tmp/eight.json')); s=d['slow_ranks']; n=len(d['collectives']); print('# votes', s, 'of', n); sys.exit(0 if s and s[0]['rank'] == 1 and s[0]['votes'] * 2 > n else 1)"

# ---- gzip ----------------------------------------------------------------------------------
check "the generator wrote gzip files" sh -c "for f in '$t_tmp'/gz/*.gz; do gzip -t \"\$f\" || exit 1; done"
"$TL_BIN" info "$t_tmp/gz" >"$t_tmp/info.txt" 2>&1
check "tl info lists the four .json.gz as Kineto traces" \
	sh -c "[ \$(grep -c 'Kineto JSON.*\.pt\.trace\.json\.gz' '$t_tmp/info.txt') -eq 4 ]"
for fmt in text json; do
	opt=""
	[ $fmt = json ] && opt=--json
	"$TL_BIN" summary --no-cache "$t_tmp/plain" $opt >"$t_tmp/p.$fmt" 2>"$t_tmp/p.err"
	"$TL_BIN" summary --no-cache "$t_tmp/gz" $opt >"$t_tmp/g.$fmt" 2>"$t_tmp/g.err"
	check "gzip: tl summary $opt is the plain files' byte for byte" cmp -s "$t_tmp/p.$fmt" "$t_tmp/g.$fmt"
done
check "gzip: no warning" test ! -s "$t_tmp/g.err"
# the real Kineto sample, compressed by gzip(1)
s="${TL_SAMPLES:-$TL_SRCDIR/../shared/samples}/kineto/trace_filter__sampled_rank-0.json"
if [ -f "$s" ]; then
	mkdir -p "$t_tmp/sp" "$t_tmp/sg"
	cp "$s" "$t_tmp/sp/rank0.pt.trace.json"
	gzip -c "$s" >"$t_tmp/sg/rank0.pt.trace.json.gz"
	"$TL_BIN" summary --no-cache --json "$t_tmp/sp" >"$t_tmp/sp.json" 2>/dev/null
	"$TL_BIN" summary --no-cache --json "$t_tmp/sg" >"$t_tmp/sg.json" 2>/dev/null
	check "gzip: the HTA sample's summary is the same compressed" cmp -s "$t_tmp/sp.json" "$t_tmp/sg.json"
else
	skip "samples absent: $s"
fi

# a truncated stream fails its rank alone, in one line
mkdir -p "$t_tmp/cut"
cp "$t_tmp"/gz/*.gz "$t_tmp/cut/"
f="$t_tmp/cut/rank3.pt.trace.json.gz"
head -c $(($(wc -c <"$f") / 2)) "$f" >"$f.tmp" && mv "$f.tmp" "$f"
"$TL_BIN" summary --no-cache "$t_tmp/cut" --json >"$t_tmp/cut.json" 2>"$t_tmp/cut.err"
check "truncated: one line naming the file" \
	sh -c "[ \$(wc -l < '$t_tmp/cut.err') -eq 1 ] && grep -q 'rank3.pt.trace.json.gz: truncated gzip stream' '$t_tmp/cut.err'"
check "truncated: the other ranks load" \
	python3 -c "import json,sys; d=json.load(open('$t_tmp/cut.json')); sys.exit(0 if [r['rank'] for r in d['ranks']] == [0,1,2] else 1)"
# a bomb: past the limit, each rank fails with the limit named
TL_GZIP_MAX=20K "$TL_BIN" summary --no-cache "$t_tmp/gz" >/dev/null 2>"$t_tmp/bomb.err"
rc=$?
check "TL_GZIP_MAX=20K: every rank refused with the limit named, tl exits non-zero" \
	sh -c "[ $rc -ne 0 ] && [ \$(grep -c 'passes the limit of 20480 bytes' '$t_tmp/bomb.err') -eq 4 ]"
t_done
