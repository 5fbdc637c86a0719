#!/bin/sh
# One clock for the cluster: profiles whose hosts' clocks disagree (tlgen
# --host-clock: an offset and a drift per host, the truth on host 0's clock) give every
# cross-rank number of `tl summary --json` (stage imbalance rows and waits, collective arrivals
# and waits, slow-rank votes, P2P waits and PP blocks, the DP panel's steps, bubbles, memory
# peaks) within 20 us of the same profile written with agreeing clocks. Also: 2 and 4 hosts,
# a pipeline whose stages share only P2P ops, a rank that missed its first collective, a host
# without a shared collective (kept, one warning), --clock raw, --clock-offset, the cache, and
# a single-host profile unchanged byte for byte; the clock member's t0_ns, where the offset holds.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/xdg"

# every number and string of A's summary in B's, numbers within $3 ns; the clock member aside;
# the numbers inside a finding's evidence sentence within what it prints
cat >"$t_tmp/near.py" <<'EOF'
import json, re, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); tol = int(sys.argv[3])
NUM = r"(\d+(?:\.\d+)?)"
bad = []; worst = [0, ""]; n = [0]
def walk(x, y, p):
    if isinstance(x, dict):
        if not isinstance(y, dict): bad.append(p); return
        for k in x:
            if k == "clock": continue
            if k not in y: bad.append(p + "/" + k); continue
            walk(x[k], y[k], p + "/" + k)
    elif isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y): bad.append(p + " (length)"); return
        for i, (u, v) in enumerate(zip(x, y)): walk(u, v, "%s[%d]" % (p, i))
    elif isinstance(x, str) and p.endswith("/evidence"):
        # a finding's sentence prints its times rounded (26.68 ms): the words the same, each
        # number within the printed precision and the 20 us
        nx, ny = re.split(NUM, x), re.split(NUM, y)
        if len(nx) != len(ny) or nx[0::2] != ny[0::2]: bad.append(p); return
        for u, v in zip(nx[1::2], ny[1::2]):
            step = 10 ** -len(u.split(".")[1]) if "." in u else 1
            if abs(float(u) - float(v)) > step + tol / 1e6 + 1e-3 * abs(float(u)): bad.append(p)
    elif isinstance(x, bool) or x is None or isinstance(x, str):
        if x != y: bad.append(p)
    else:
        n[0] += 1
        d = abs(x - y)
        # ratios and percentages (printed to 1e-4): their parts move by at most tol
        lim = tol if isinstance(x, int) else max(1e-3 * abs(x), 1.5e-4)
        if d > worst[0] and isinstance(x, int): worst[0] = d; worst[1] = p
        if d > lim: bad.append("%s: %r vs %r" % (p, x, y))
walk(a, b, "")
print("%d numbers, largest difference %d ns at %s" % (n[0], worst[0], worst[1]))
for p in bad[:5]: print("differs:", p)
sys.exit(1 if bad or n[0] == 0 else 0)
EOF
# host H's clock member: offset, drift, samples, how, residual, ranks, reference, t0
cat >"$t_tmp/host.py" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])).get("clock", [])
for h in c:
    if h["host"] == sys.argv[2]:
        print(h["offset_ns"], h["drift_ppm"], h["samples"], h["how"], h["residual_ns"],
              ",".join(map(str, h["ranks"])), str(h["reference"]).lower(), h["t0_ns"])
EOF

gen() { # NAME TLGEN-ARGS...: the profile twice, agreeing clocks (NAME.a) and as asked (NAME.b)
	name=$1
	shift
	args=$(echo "$*" | sed 's/ *--host-clock [0-9]* -*[0-9]* -*[0-9.]*//g')
	"$TLGEN" rl "$t_tmp/$name.a" $args >/dev/null 2>"$t_tmp/$name.gen" &&
		"$TLGEN" rl "$t_tmp/$name.b" "$@" >/dev/null 2>>"$t_tmp/$name.gen"
}

near() { # NAME what: NAME.b's summary equals NAME.a's within 20 us
	"$TL" summary "$t_tmp/$1.a" --json --no-cache >"$t_tmp/$1.a.json" 2>"$t_tmp/$1.a.err"
	"$TL" summary "$t_tmp/$1.b" --json --no-cache $3 >"$t_tmp/$1.b.json" 2>"$t_tmp/$1.b.err"
	out=$(python3 "$t_tmp/near.py" "$t_tmp/$1.a.json" "$t_tmp/$1.b.json" 20000)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "$1: $2: every number within 20 us of the agreeing clocks' ($(echo "$out" | head -1))" [ $rc -eq 0 ]
}

drift_ok() { # NAME HOST OFF PPM: the host's estimate, against the generator's clock
	set -- "$1" "$2" "$3" "$4" $(python3 "$t_tmp/host.py" "$t_tmp/$1.b.json" "$2")
	# the generator's host clock reads t + OFF + (t - T0) x PPM / 1e6 at host 0's time t (T0:
	# its t0, 1736407067000000000): at t0_ns on the host's own clock, where tl's offset holds,
	# the clocks differ by OFF and the drift since T0, to the us (the generator's collectives
	# end together exactly; a t0_ns 30 ms off would move it by 1 us at 30 ppm)
	set -- "$@" $(python3 -c "
off, ppm, eoff, eppm, t0 = $3, $4, $5, $6, ${12}
want = round(off + (t0 - off - 1736407067000000000) * ppm / 1e6)
print(want, 1 if abs(eoff - want) <= 1000 and abs(eppm - ppm) <= 1.0 and '$8' == 'estimated' else 0)")
	check "$1: host $2's clock: offset $5 ns at t0 ${12} (written $3, there ${13}), drift $6 ppm (written $4), $7 collectives, $8" [ "${14}" = 1 ]
}

# ---- two hosts, 3.7 ms apart and drifting 30 ppm ---------------------------------------------
if gen two --ranks 8 --hosts 2 --steps 2 --tasks 3000 --slow 2 --decode dp --memory --host-ops \
	--host-clock 1 3700000 30; then
	near two "2 hosts, +3.7 ms, 30 ppm"
	drift_ok two gen-node1 3700000 30
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/two.b.json" gen-node0)
	check "two: the reference is gen-node0 with ranks 0-3, offset 0 ($*)" \
		[ "$1 $4 $6 $7" = "0 reference 0,1,2,3 true" ]
	# the same numbers without the correction are off by the clock: the test can fail
	"$TL" summary "$t_tmp/two.b" --json --no-cache --clock raw >"$t_tmp/two.raw.json" 2>/dev/null
	check "two: --clock raw keeps each host's clock (numbers off by ms, no clock member)" \
		sh -c "! python3 '$t_tmp/near.py' '$t_tmp/two.a.json' '$t_tmp/two.raw.json' 1000000 >/dev/null && ! grep -q '\"clock\"' '$t_tmp/two.raw.json'"
	# agreeing clocks on two hosts: nothing moves, the summary is what it was
	"$TL" info "$t_tmp/two.a" >"$t_tmp/two.a.info" 2>&1
	check "two, agreeing clocks: no clock member in the summary; tl info says the hosts agree" \
		sh -c "! grep -q '\"clock\"' '$t_tmp/two.a.json' && grep -q '^gen-node1 .*agrees' '$t_tmp/two.a.info'"
	# the text summary and tl info say it
	"$TL" info "$t_tmp/two.b" >"$t_tmp/two.info" 2>&1
	check "two: tl info has one line per host (ranks, offset ms, drift, how)" \
		sh -c "grep -q '^gen-node0  *0-3  *0.000000 .*reference' '$t_tmp/two.info' && grep -Eq '^gen-node1 +4-7 +3\.70[0-9]+ +(29\.9|30\.0)[0-9]* .*estimated' '$t_tmp/two.info'"
	"$TL" summary "$t_tmp/two.b" --no-cache >"$t_tmp/two.txt" 2>&1
	check "two: the text summary says whose clock its times are on" \
		grep -q "^Clocks: 2 hosts, all times on gen-node0's clock" "$t_tmp/two.txt"
	# the model cache keeps raw times: a warm summary moves them the same way
	"$TL" summary "$t_tmp/two.b" --json >"$t_tmp/two.cold.json" 2>/dev/null
	TL_CACHE_RESULTS=0 "$TL" summary "$t_tmp/two.b" --json >"$t_tmp/two.warm.json" 2>/dev/null
	check "two: cold and warm (from the model cache) summaries are the --no-cache one" \
		sh -c "cmp -s '$t_tmp/two.cold.json' '$t_tmp/two.b.json' && cmp -s '$t_tmp/two.warm.json' '$t_tmp/two.b.json'"
	# the estimate is kept with the model: a warm load reads it (TL_STATS clock_kept), the
	# same bytes; another set of ranks or an offset by hand is another estimate
	kept() { TL_STATS=1 TL_CACHE_RESULTS=0 "$TL" summary "$t_tmp/two.b" --json "$@" 2>&1 >"$t_tmp/two.k.json" | sed -n 's/.*clock_kept=\([0-9]*\).*/\1/p'; }
	k1=$(kept)
	check "two: a warm load reads the kept estimate (clock_kept $k1) and prints the same bytes" \
		sh -c "[ '$k1' = 1 ] && cmp -s '$t_tmp/two.k.json' '$t_tmp/two.b.json'"
	k2=$(kept --rank 0-5)
	k3=$(kept --rank 0-5)
	"$TL" summary "$t_tmp/two.b" --json --rank 0-5 --no-cache >"$t_tmp/two.r.json" 2>/dev/null
	check "two: ranks 0-5 are another estimate, computed then kept ($k2 then $k3), as --no-cache's" \
		sh -c "[ '$k2 $k3' = '0 1' ] && cmp -s '$t_tmp/two.k.json' '$t_tmp/two.r.json'"
	k4=$(kept --clock-offset gen-node1=3000000)
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/two.k.json" gen-node1)
	check "two: --clock-offset is another estimate too ($k4: $1 $4)" [ "$k4 $1 $4" = "0 3000000 manual" ]
	# a kept estimate that is not one (rewritten in place: the file's checksum no longer holds)
	for f in "$t_tmp"/xdg/tl/models/*.tlr; do printf 'x' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null; done
	k5=$(kept)
	check "two: a spoiled kept estimate is computed again ($k5), the same bytes" \
		sh -c "[ '$k5' = 0 ] && cmp -s '$t_tmp/two.k.json' '$t_tmp/two.b.json'"
else
	not_ok "generate the two-host profiles: $(head -3 "$t_tmp/two.gen")"
fi

# ---- the viewer: a slice of a moved rank shows its raw start beside the aligned one ---------
if gen view --ranks 8 --hosts 2 --steps 2 --tasks 3000 --host-clock 1 3700000 30; then
	printf '%s\n' ":goto 30ms" >"$t_tmp/keys"
	for i in $(seq 75); do echo j >>"$t_tmp/keys"; done # down to a lane of rank 6
	printf '%s\n' "." "<Enter>" ":dump $t_tmp/view.txt" ":quit" >>"$t_tmp/keys"
	"$TL" view "$t_tmp/view.b" --script "$t_tmp/keys" --size 140x50 --no-cache 2>"$t_tmp/view.err"
	grep -E '^ (rank|start|raw start) ' "$t_tmp/view.txt" | sed 's/ *$//; s/^/# /'
	check "view: the detail pane of a slice of rank 6 shows its raw start, 3.70 ms later" \
		sh -c "grep -Eq '^ rank +6 ' '$t_tmp/view.txt' && grep -Eq '^ raw start +2025-[0-9 :.-]+ +\(its host.s clock, 3\.70[0-9] ms from the reference\)' '$t_tmp/view.txt'"
	"$TL" view "$t_tmp/view.a" --script "$t_tmp/keys" --size 140x50 --no-cache 2>/dev/null
	check "view: with agreeing clocks no raw start is shown" sh -c "! grep -q '^ raw start' '$t_tmp/view.txt'"
else
	not_ok "generate the viewer's profiles"
fi

# ---- four hosts: +-0.05 to 10 ms, drift up to 50 ppm either way ----------------------------
if gen four --ranks 8 --hosts 4 --steps 2 --tasks 3000 --host-clock 1 -50000 50 \
	--host-clock 2 10000000 -50 --host-clock 3 -7300000 0; then
	near four "4 hosts"
	drift_ok four gen-node1 -50000 50
	drift_ok four gen-node2 10000000 -50
	drift_ok four gen-node3 -7300000 0
else
	not_ok "generate the four-host profiles: $(head -3 "$t_tmp/four.gen")"
fi

# ---- warm-up: rank 5's capture misses the first collective; pairing by sequence holds ------
if gen warm --ranks 8 --hosts 4 --steps 2 --tasks 3000 --drop-first-coll 5 \
	--host-clock 1 2000000 20 --host-clock 2 -900000 -10 --host-clock 3 60000 45; then
	near warm "rank 5 without its first collective"
	drift_ok warm gen-node2 -900000 -10
else
	not_ok "generate the warm-up profiles: $(head -3 "$t_tmp/warm.gen")"
fi

# ---- a pipeline whose two stages run on two hosts: only P2P ops tie them -------------------
if gen pp --ranks 4 --pp 2 --hosts 2 --steps 2 --tasks 3000 --host-clock 1 -2500000 40; then
	near pp "PP stages on two hosts"
	drift_ok pp gen-node1 -2500000 40
	# "a receive cannot end before its send began": the estimate keeps every pair; an offset
	# 1 ms off the generator's breaks some, and is flagged (kept: it was set by hand)
	p2p() { python3 -c "import json,sys; h=[h for h in json.load(open(sys.argv[1]))['clock'] if h['host']=='gen-node1'][0]; print(h['p2p_pairs'], h['p2p_broken'], h['p2p_worst_ns'], h['how'])" "$1"; }
	set -- $(p2p "$t_tmp/pp.b.json")
	check "pp: the estimate is held to $1 P2P pairs, breaks $2" sh -c "[ $1 -gt 0 ] && [ $2 = 0 ]"
	"$TL" summary "$t_tmp/pp.b" --json --no-cache --clock-offset gen-node1=-2500000 >"$t_tmp/pp.t.json" 2>"$t_tmp/pp.t.err"
	set -- $(p2p "$t_tmp/pp.t.json")
	check "pp: the generator's offset by hand breaks no pair ($2 of $1), no warning" sh -c "[ $2 = 0 ] && ! grep -q 'P2P\|receives' '$t_tmp/pp.t.err'"
	"$TL" summary "$t_tmp/pp.b" --json --no-cache --clock-offset gen-node1=-1500000 >"$t_tmp/pp.w.json" 2>"$t_tmp/pp.w.err"
	set -- $(p2p "$t_tmp/pp.w.json")
	sed 's/^/# /' "$t_tmp/pp.w.err"
	check "pp: an offset 1 ms off breaks $2 of $1 pairs (up to $3 ns), said in one line" \
		sh -c "[ $2 -gt 0 ] && [ $3 -gt 0 ] && [ $3 -le 1000000 ] && [ \$(grep -c '^tl: host gen-node1: its clock offset set by hand has $2 of the $1 receives .* end before their sends began' '$t_tmp/pp.w.err') = 1 ]"
else
	not_ok "generate the pipeline profiles: $(head -3 "$t_tmp/pp.gen")"
fi

# ---- Kineto: an NCCL job on two hosts, the traces named as torch names them -------------------
# ({hostname}_{pid}.{time}.pt.trace.json: the host is the file name's, as the real PyTorch
# profiler writes it; the traces themselves name none), the second host 4.2 ms ahead, 25 ppm
if "$TLGEN" nccl "$t_tmp/kin.a" --hosts 2 --ranks 4 --steps 3 --rounds 4 >/dev/null 2>"$t_tmp/kin.gen" &&
	"$TLGEN" nccl "$t_tmp/kin.b" --hosts 2 --ranks 4 --steps 3 --rounds 4 \
		--host-clock 1 4200000 25 >/dev/null 2>>"$t_tmp/kin.gen"; then
	near kin "Kineto, 2 hosts, +4.2 ms, 25 ppm"
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/kin.b.json" gen-node1)
	good=$(python3 -c "print(1 if abs($1 - 4200000) <= 20000 + 25 * 0.25e3 and abs($2 - 25) <= 1 and '$4 $6' == 'estimated 2,3' else 0)")
	check "kin: gen-node1 (ranks $6, from the file names) estimated at $1 ns (written 4200000), $2 ppm, $3 samples" [ "$good" = 1 ]
	# the same traces under names that say nothing, each giving its host in a "hostname" member
	mkdir -p "$t_tmp/kinh"
	for f in "$t_tmp"/kin.b/*.pt.trace.json; do
		b=$(basename "$f")
		sed "2s/^/\"hostname\": \"${b%%_*}\",\n/" "$f" >"$t_tmp/kinh/rank$(( $(echo "$b" | sed 's/^[^_]*_\([0-9]*\)\..*/\1/') - 1000 )).pt.trace.json"
	done
	"$TL" summary "$t_tmp/kinh" --json --no-cache >"$t_tmp/kinh.json" 2>"$t_tmp/kinh.err"
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/kinh.json" gen-node1)
	check "kin: a trace's own \"hostname\" groups its rank the same (gen-node1: ranks $6, $1 ns)" \
		sh -c "[ '$6 $4' = '2,3 estimated' ] && python3 '$t_tmp/near.py' '$t_tmp/kin.b.json' '$t_tmp/kinh.json' 0 >/dev/null"
	"$TL" info "$t_tmp/kinh" >"$t_tmp/kinh.info" 2>&1
	"$TL" info "$t_tmp/kin.b" >"$t_tmp/kin.info" 2>&1
	check "kin: tl info lists both hosts' clocks, from the names and from the \"hostname\" members" \
		sh -c "grep -Eq '^gen-node1 +2-3 +4\.20[0-9]+ .*estimated' '$t_tmp/kinh.info' && grep -Eq '^gen-node1 +2-3 +4\.20[0-9]+ .*estimated' '$t_tmp/kin.info'"
else
	not_ok "generate the Kineto profiles: $(head -3 "$t_tmp/kin.gen")"
fi

# ---- --clock-offset fixes a host's offset by hand ------------------------------------------
if gen hand --ranks 4 --hosts 2 --steps 1 --tasks 2000 --host-clock 1 1500000 0; then
	near hand "--clock-offset gen-node1=1500000" "--clock-offset gen-node1=1500000"
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/hand.b.json" gen-node1)
	check "hand: gen-node1 is set by hand ($*)" [ "$1 $4" = "1500000 manual" ]
	"$TL" summary "$t_tmp/hand.b" --json --no-cache --clock-offset nowhere=5 \
		>/dev/null 2>"$t_tmp/hand.err"
	check "hand: an offset for a host the profile does not have is named in one line" \
		grep -q "^tl: --clock-offset nowhere: no rank of the profile is on that host" "$t_tmp/hand.err"
	check "hand: --clock takes raw or align only" sh -c "! '$TL' summary '$t_tmp/hand.b' --clock wall >/dev/null 2>&1"
else
	not_ok "generate the hand profiles"
fi

# ---- a host that shares no collective keeps its clock, and says so (host 1 is moved) --------
if "$TLGEN" rl "$t_tmp/lone" --ranks 4 --hosts 4 --steps 1 --tasks 2000 --no-device 3 \
	--host-clock 1 800000 0 --host-clock 3 5000000 0 >/dev/null 2>&1; then
	"$TL" summary "$t_tmp/lone" --json --no-cache >"$t_tmp/lone.json" 2>"$t_tmp/lone.err"
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/lone.json" gen-node3)
	check "lone: gen-node3 (no collective) keeps its clock ($*)" [ "$1 $3 $4" = "0 0 kept" ]
	check "lone: one warning names it" \
		sh -c "[ \$(grep -c 'host gen-node3 shares no collective with the other hosts: its clock is kept' '$t_tmp/lone.err') = 1 ]"
else
	not_ok "generate the lone-host profile"
fi

# ---- no host named anywhere (JSON traces in plain directories): one host, unless asked -------
if "$TLGEN" rl "$t_tmp/anon" --ranks 2 --steps 1 --tasks 2000 --json >/dev/null 2>&1; then
	find "$t_tmp/anon" -name '*.db' -exec rm {} +
	for d in "$t_tmp"/anon/*_ascend_pt; do # rank{N}_ascend_pt: no host in the name
		mv "$d" "$t_tmp/anon/rank$(ls "$d" | sed -n 's/^profiler_info_\([0-9]*\)\.json$/\1/p')_ascend_pt"
	done
	"$TL" summary "$t_tmp/anon" --json --no-cache >"$t_tmp/anon.json" 2>&1
	"$TL" summary "$t_tmp/anon" --json --no-cache --clock raw >"$t_tmp/anon.raw.json" 2>&1
	check "anon: ranks of no named host are one host (no clock member, as --clock raw)" \
		sh -c "! grep -q '\"clock\"' '$t_tmp/anon.json' && cmp -s '$t_tmp/anon.json' '$t_tmp/anon.raw.json'"
	"$TL" summary "$t_tmp/anon" --json --no-cache --clock-offset 'rank 1=40000' \
		>"$t_tmp/anon.hand.json" 2>&1
	set -- $(python3 "$t_tmp/host.py" "$t_tmp/anon.hand.json" "rank 1")
	check "anon: --clock-offset 'rank 1=40000' makes each rank its own host and moves rank 1 ($*)" \
		[ "$1 $4" = "40000 manual" ]
else
	not_ok "generate the anonymous profile"
fi

# ---- one host: nothing changes, byte for byte ----------------------------------------------
if "$TLGEN" rl "$t_tmp/one" --ranks 4 --steps 2 --tasks 3000 >/dev/null 2>&1; then
	"$TL" summary "$t_tmp/one" --json --no-cache >"$t_tmp/one.json" 2>&1
	"$TL" summary "$t_tmp/one" --json --no-cache --clock raw >"$t_tmp/one.raw.json" 2>&1
	"$TL" summary "$t_tmp/one" --no-cache >"$t_tmp/one.txt" 2>&1
	"$TL" summary "$t_tmp/one" --no-cache --clock raw >"$t_tmp/one.raw.txt" 2>&1
	check "one host: no clock member, and --clock raw changes no byte (JSON and text)" \
		sh -c "! grep -q '\"clock\"' '$t_tmp/one.json' && cmp -s '$t_tmp/one.json' '$t_tmp/one.raw.json' && cmp -s '$t_tmp/one.txt' '$t_tmp/one.raw.txt' && ! grep -q '^Clocks' '$t_tmp/one.txt'"
	"$TL" info "$t_tmp/one" >"$t_tmp/one.info" 2>&1
	check "one host: tl info lists no clocks" sh -c "! grep -q '^Clocks' '$t_tmp/one.info'"
else
	not_ok "generate the one-host profile"
fi
t_done
