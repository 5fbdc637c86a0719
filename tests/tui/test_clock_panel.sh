#!/bin/sh
# The clocks panel (:clocks): a profile of four hosts whose clocks the generator set apart
# (tlgen --host-clock), one row per host with the offset and drift it was written with, the
# host and ranks of each row as the profile's own HOST_INFO tables name them; Enter goes to the
# host's first rank; one host and --clock raw say why there is no table. Golden screens at 80x24
# (nothing cut) and 120x40.
. "$(dirname "$0")/lib_tui.sh"

P=$t_tmp/hosts
# hosts 1 and 2 without drift (the offset holds everywhere), host 3 drifting 30 ppm
if ! "$TLGEN" rl "$P" --ranks 8 --hosts 4 --steps 2 --tasks 3000 --host-clock 1 3700000 0 \
	--host-clock 2 -1250000 0 --host-clock 3 500000 30 >"$t_tmp/gen.log" 2>&1 ||
	! "$TLGEN" rl "$t_tmp/one" --ranks 4 --steps 2 --tasks 3000 >>"$t_tmp/gen.log" 2>&1; then
	cat "$t_tmp/gen.log"
	not_ok "generate the profiles"
	t_done
	exit 1
fi
VIEW_OPTS=--no-cache

# host -> ranks from each rank's DB (plain SQL over HOST_INFO), as "host 0-1"
python3 - "$P" >"$t_tmp/truth" <<'PY'
import glob, re, sqlite3, sys
hosts = {}
for db in glob.glob(sys.argv[1] + "/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db"):
    rank = int(re.search(r"_(\d+)\.db$", db).group(1))
    name = sqlite3.connect(db).execute("SELECT hostName FROM HOST_INFO").fetchone()[0]
    hosts.setdefault(name, []).append(rank)
for name, r in sorted(hosts.items(), key=lambda h: min(h[1])):
    r.sort()
    assert r == list(range(r[0], r[-1] + 1))
    print(name, "%d-%d" % (r[0], r[-1]))
PY
check "HOST_INFO names 4 hosts of 2 ranks" [ "$(wc -l <"$t_tmp/truth")" = 4 ]
# t0_ns of host 3: where tl's offset of a drifting clock holds (tl summary --json's clock)
t0=$("$TL_BIN" summary "$P" --json --no-cache 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["clock"][3]["t0_ns"])')

view "$P" 80x24 ":clocks"
golden clock-panel-80x24
check "80x24: the title names the reference (rank 0's host)" \
	grep -q "all times on $(head -1 "$t_tmp/truth" | cut -d' ' -f1)'s clock" "$t_tmp/screen.txt"
check "80x24: no line cut" sh -c "! grep -q '…' '$t_tmp/screen.txt'"
# every row against the generator: host 0 the reference, hosts 1 and 2 their offsets to the
# ns (no drift), host 3 30 ppm and its offset at t0: OFF + (t0 - OFF - T0) x PPM / 1e6, T0 the
# generator's start on host 0's clock
python3 - "$t_tmp/screen.txt" "$t_tmp/truth" "$t0" <<'PY' >"$t_tmp/rows"
import sys
screen = open(sys.argv[1]).read().splitlines()
truth = [l.split() for l in open(sys.argv[2])]
t0 = int(sys.argv[3])
want = [(0, 0, "reference"), (3700000, 0, "estimated"), (-1250000, 0, "estimated"),
        (500000, 30, "estimated")]
T0 = 1736407067000000000
for (host, ranks), (off, ppm, how) in zip(truth, want):
    row = [l[1:].split() for l in screen if l[1:].split()[:1] == [host]]
    if len(row) != 1:
        print("missing", host); continue
    name, rk, off_ms, drift, resid, samples, shown_how = row[0][:7]
    exp = off + round((t0 - off - T0) * ppm / 1e6) if ppm else off
    good = (rk == ranks and abs(float(off_ms) * 1e6 - exp) <= 1000
            and abs(float(drift) - ppm) <= 1.0 and shown_how == how)
    print("ok" if good else "bad", host, rk, off_ms, "want", exp / 1e6, drift, "want", ppm, shown_how)
PY
sed 's/^/# /' "$t_tmp/rows"
check "80x24: 4 rows, each host's ranks, offset (1 us) and drift (1 ppm) the generator's" \
	sh -c "[ \$(grep -c '^ok' '$t_tmp/rows') = 4 ]"
# the reference's "reference" in another colour slot than an estimated host's "estimated"
slots=$(python3 -c '
import sys
t = open(sys.argv[1]).read().splitlines(); a = open(sys.argv[2]).read().splitlines()
c = t[3].index("reference")
print(a[3][c], a[4][t[4].index("estimated")])' "$t_tmp/screen.txt" "$t_tmp/screen.attr")
check "80x24: the reference marked: its how in slot ${slots% *}, an estimated one's ${slots#* }" \
	[ "${slots% *}" != "${slots#* }" ]

view "$P" 120x40 ":clocks"
golden clock-panel-120x40

# Enter on the third host: the lanes at its first rank, the panel closed
view "$P" 120x40 ":clocks" j j "<Enter>"
first=$(sed -n 3p "$t_tmp/truth" | cut -d' ' -f2 | cut -d- -f1)
check "Enter on host 3 of 4: the cursor on rank $first" grep -q "| rank $first " "$t_tmp/screen.txt"
check "Enter: the panel closed" sh -c "! grep -q 'Host clocks' '$t_tmp/screen.txt'"

# q and Esc: back to the timeline
view "$P" 80x24 ":clocks" q
check "q closes it" sh -c "! grep -q 'Host clocks' '$t_tmp/screen.txt'"

view "$t_tmp/one" 80x24 ":clocks"
golden clock-panel-one-host
check "one host: no correction" grep -q "One host: no correction" "$t_tmp/screen.txt"
VIEW_OPTS="--no-cache --clock raw"
view "$P" 80x24 ":clocks"
check "--clock raw: not aligned" grep -q -- "--clock raw: not aligned" "$t_tmp/screen.txt"
check "--clock raw: no table" sh -c "! grep -q 'gen-node' '$t_tmp/screen.txt'"
t_done
