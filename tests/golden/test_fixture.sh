#!/bin/sh
# A committed, cut-down real-schema profile: tests/golden/fixture/rank{0,1}.sql build two torch_npu
# DBs (the tables and columns of a real Level0 capture; rows made up for these tests) with the
# sqlite3 shell. tl summary's numbers must equal those that plain SQL computes from the same tables
# by the definitions (tests/golden/fixture/overlap.sql), so the StepTraceTime numbers stay checked
# where ../shared/samples is absent (make distcheck, a fresh clone). Where the samples are there,
# overlap.sql itself is checked against torch_npu's own StepTraceTime.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"
FX=$TL_SRCDIR/tests/golden/fixture
if ! command -v sqlite3 >/dev/null; then
	skip "the sqlite3 shell is not installed (tools/install-deps --test)"
	t_done
	exit
fi
dbs=""
for r in 0 1; do
	d=$t_tmp/p/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d"
	sqlite3 "$d/ascend_pytorch_profiler_$r.db" <"$FX/rank$r.sql"
	check "rank$r.sql builds a DB" [ -s "$d/ascend_pytorch_profiler_$r.db" ]
	dbs="$dbs $d/ascend_pytorch_profiler_$r.db"
done

# the fixture still holds the cases it is there for
db0=$t_tmp/p/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db
n=$(sqlite3 -readonly "$db0" "SELECT count(*) FROM TASK t JOIN CANN_API a USING (connectionId)
	JOIN STEP_TIME s1 ON a.startNs >= s1.startNs AND a.startNs < s1.endNs
	JOIN STEP_TIME s2 ON t.startNs >= s2.startNs AND t.startNs < s2.endNs WHERE s1.id <> s2.id")
check "fixture: a kernel launched in one step runs in the next ($n)" [ "$n" -ge 1 ]
n=$(sqlite3 -readonly "$db0" "SELECT count(*) FROM COMMUNICATION_OP
	WHERE connectionId NOT IN (SELECT connectionId FROM CANN_API)")
check "fixture: a communication op has no launch record ($n)" [ "$n" -ge 1 ]
n=$(sqlite3 -readonly "$db0" "SELECT count(*) FROM TASK WHERE globalTaskId NOT IN
	(SELECT globalTaskId FROM COMPUTE_TASK_INFO)")
check "fixture: device tasks that are not compute (HCCL, memcpy: $n)" [ "$n" -ge 10 ]

"$TL_BIN" summary "$t_tmp/p" --json >"$t_tmp/sum.json" 2>"$t_tmp/err"
check "tl summary --json exits 0" [ $? -eq 0 ]
check "tl summary prints no warnings" [ ! -s "$t_tmp/err" ]
"$TL_BIN" summary "$t_tmp/p" >"$t_tmp/sum.txt" 2>/dev/null
# each step object's six StepTraceTime fields (read with python3's json); the
# cluster_time_summary fields that follow them and the members after "steps" are not compared here
SJ=$TL_SRCDIR/tests/golden/summary_json.py
for r in 0 1; do
	db=$t_tmp/p/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db
	want=$(sqlite3 -readonly "$db" <"$FX/overlap.sql")
	if python3 "$SJ" six "$t_tmp/sum.json" "$r" "$want"; then
		ok "rank $r: the six numbers of each step equal plain SQL's"
	else
		not_ok "rank $r: want {\"rank\":$r,$want}"
	fi
	# the text table: the same numbers in ms (ns / 10^6, six decimals), row by row
	echo "{$want}" >"$t_tmp/want.json"
	python3 "$SJ" rows "$t_tmp/want.json" >"$t_tmp/rows"
	while read -r step c m o x f p; do
		row=$(awk -v r="$r" -v s="$step" '$1 == r && $2 == s && NF == 8 { $1 = $1; print; exit }' "$t_tmp/sum.txt")
		exp=$(awk -v r="$r" -v s="$step" -v c="$c" -v m="$m" -v o="$o" -v x="$x" -v f="$f" -v p="$p" '
			function ms(ns) { return sprintf("%d.%06d", int(ns / 1000000), ns % 1000000) }
			BEGIN { print r, s, ms(c), ms(m), ms(o), ms(x), ms(f), ms(p) }')
		check "rank $r step $step: the text row shows the same numbers in ms ($row)" [ "$row" = "$exp" ]
	done <"$t_tmp/rows"
done

# where the real samples are, overlap.sql reproduces torch_npu's own StepTraceTime (analysis.db)
if [ -d "$SAMPLES/ascend-db" ]; then
	for level in level0 level2; do
		for r in 0 1; do
			dir=$SAMPLES/ascend-db/$level/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT
			got=$(sqlite3 -readonly "$dir/ascend_pytorch_profiler_$r.db" <"$FX/overlap.sql")
			want=$(sqlite3 -readonly "$dir/analysis.db" "SELECT '\"steps\":[' || group_concat(printf('{\"step\":%d,\"computing_ns\":%d,\"communication_ns\":%d,\"overlapped_ns\":%d,\"communication_not_overlapped_ns\":%d,\"free_ns\":%d,\"preparing_ns\":%d}', step, round(computing*1000), round(communication*1000), round(overlapped*1000), round(communication_not_overlapped*1000), round(free*1000), round(preparing*1000)), ',') || ']' FROM StepTraceTime")
			check "overlap.sql on $level rank $r equals torch_npu's StepTraceTime" [ "$got" = "$want" ]
		done
	done
else
	skip "$SAMPLES is absent: overlap.sql is not checked against StepTraceTime here"
fi
t_done
