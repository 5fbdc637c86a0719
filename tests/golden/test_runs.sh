#!/bin/sh
# Several runs under one path are never merged silently: two jobs side by side, an Ascend
# profile next to a Kineto trace, each named with its path, ranks and capture time, exit 2;
# while verl's <step>/<role>/ layout and several captures of one rank still merge (exit 0).
. "$(dirname "$0")/../lib.sh"
TL=$TL_BIN
export TZ=UTC
gen() { mkdir -p "$(dirname "$1")" && "$TLGEN" bench "$1" --ranks "$2" --tasks 2000 --slow -1 ${3:+--t0 $3} > /dev/null 2>&1; }
N=--no-cache

# two jobs of ranks 0-1 side by side, captured a day apart
gen "$t_tmp/two/jobA" 2
gen "$t_tmp/two/jobB" 2 1736500000000000000
"$TL" summary "$t_tmp/two" $N > "$t_tmp/out" 2> "$t_tmp/err"
check "two jobs side by side: exit 2" [ $? -eq 2 ]
check "... nothing printed on stdout" [ ! -s "$t_tmp/out" ]
check "... one line says the path holds 2 runs" grep -q "two holds 2 runs, not one job: give tl the path of one of them" "$t_tmp/err"
for j in jobA jobB; do
	check "... names $j with its ranks and kind" grep -Eq "^  $t_tmp/two/$j  \(torch_npu DB, 2 files; ranks 0-1; captured 20[0-9-]+ [0-9:]+\)$" "$t_tmp/err"
done
# the capture times are the profiles' own (profiler_info's collectionTimeEnd, as tl info reads)
ta=$(grep "two/jobA " "$t_tmp/err" | sed 's/.*captured //; s/)$//')
tb=$(grep "two/jobB " "$t_tmp/err" | sed 's/.*captured //; s/)$//')
check "... the capture times differ by a day ($ta, $tb)" [ "${ta%% *}" != "${tb%% *}" ]
"$TL" view "$t_tmp/two" $N --script /dev/null > /dev/null 2> "$t_tmp/err"
check "tl view on them: exit 2, the same message" sh -c "[ $? -eq 2 ] && grep -q 'holds 2 runs' '$t_tmp/err'"
"$TL" diff "$t_tmp/two" "$t_tmp/two/jobB" $N > /dev/null 2> "$t_tmp/err"
check "tl diff with such a side: exit 2" sh -c "[ $? -eq 2 ] && grep -q 'holds 2 runs' '$t_tmp/err'"
"$TL" info "$t_tmp/two" > "$t_tmp/out" 2> "$t_tmp/err"
check "tl info lists them: exit 0, '2 runs, not one job'" sh -c "[ $? -eq 0 ] && grep -q '^2 runs, not one job' '$t_tmp/out'"
"$TL" summary "$t_tmp/two/jobA" $N > "$t_tmp/out" 2> "$t_tmp/err"
check "one of them named: exit 0, its summary" sh -c "[ $? -eq 0 ] && grep -q '^Overlap per rank and step' '$t_tmp/out'"
"$TL" summary "$t_tmp/two" --rank 1 $N > /dev/null 2> "$t_tmp/err"
check "--rank 1 of both: still two runs (exit 2)" sh -c "[ $? -eq 2 ] && grep -q 'holds 2 runs' '$t_tmp/err'"

# an Ascend DB next to a GPU (Kineto) trace of rank 0
mkdir -p "$t_tmp/mixed/gpu"
cp -r "$t_tmp/two/jobA" "$t_tmp/mixed/npu"
cat > "$t_tmp/mixed/gpu/trace.json" <<'J'
{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1700000000000000, "dur": 50, "args": {"device": 0, "stream": 7}}]}
J
"$TL" summary "$t_tmp/mixed" $N > /dev/null 2> "$t_tmp/err"
check "Ascend DBs next to a Kineto trace: exit 2" [ $? -eq 2 ]
check "... names the Kineto trace's run" grep -Eq "^  $t_tmp/mixed/gpu  \(Kineto JSON, 1 file; rank 0; " "$t_tmp/err"
check "... and the Ascend run" grep -Eq "^  $t_tmp/mixed/npu  \(torch_npu DB, 2 files; ranks 0-1; " "$t_tmp/err"

# verl's discrete layout: <step>/<role>/ captures of the same ranks merge on one timeline
mkdir -p "$t_tmp/verl/1"
cp -r "$t_tmp/two/jobA" "$t_tmp/verl/1/rollout_generate"
cp -r "$t_tmp/two/jobB" "$t_tmp/verl/1/actor_update"
"$TL" summary "$t_tmp/verl" $N > "$t_tmp/out" 2> "$t_tmp/err"
check "verl <step>/<role>/: exit 0, one run" sh -c "[ $? -eq 0 ] && ! grep -q 'runs' '$t_tmp/err'"
check "... both roles' captures on each rank (two steps per rank)" [ "$(awk '/^Overlap per rank and step/ { on = 1; next } on && NF == 0 { exit } on && $1 == 0' "$t_tmp/out" | wc -l)" -ge 2 ]

# several captures of one rank side by side (capture directories, no plain directory between)
mkdir -p "$t_tmp/one"
gen "$t_tmp/c1" 1
gen "$t_tmp/c2" 1 1736400000000000000
mv "$t_tmp"/c1/gen-r0_* "$t_tmp"/c2/gen-r0_* "$t_tmp/one/" 2> /dev/null
check "the setup: two captures of rank 0 in one directory" [ "$(ls "$t_tmp/one" | wc -l)" -eq 2 ]
"$TL" summary "$t_tmp/one" $N > "$t_tmp/out" 2> "$t_tmp/err"
check "several captures of one rank: exit 0, merged" sh -c "[ $? -eq 0 ] && ! grep -q 'runs' '$t_tmp/err'"

# one job's ranks spread over per-host directories (no rank repeats): one run
mkdir -p "$t_tmp/hosts/h1" "$t_tmp/hosts/h2"
mv "$t_tmp"/two/jobA/gen-r0_* "$t_tmp/hosts/h1/"
mv "$t_tmp"/two/jobA/gen-r1_* "$t_tmp/hosts/h2/"
"$TL" summary "$t_tmp/hosts" $N > "$t_tmp/out" 2> "$t_tmp/err"
check "ranks 0 and 1 under two host directories: exit 0, one run of 2 ranks" sh -c "[ $? -eq 0 ] && [ \$(awk '/^Overlap per rank and step/ { on = 1; next } on && NF == 0 { exit } on && \$1 ~ /^[0-9]+\$/ { print \$1 }' '$t_tmp/out' | sort -u | wc -l) -eq 2 ]"

if [ -d "$SAMPLES/ascend-db" ]; then
	"$TL" summary "$SAMPLES/ascend-db" $N > /dev/null 2> "$t_tmp/err"
	check "samples ascend-db (level0 and level2): exit 2, both named" sh -c "[ $? -eq 2 ] && grep -q 'ascend-db/level0  (' '$t_tmp/err' && grep -q 'ascend-db/level2  (' '$t_tmp/err'"
else
	skip "no samples ($SAMPLES)"
fi
t_done
