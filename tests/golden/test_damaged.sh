#!/bin/sh
# Damaged cells in a real-schema profile (tests/golden/fixture/rank0.sql): a time that is TEXT
# but no integer, a REAL, a BLOB, an id that is no integer, a time out of range. Each case adds
# or spoils a few rows of one table; tl summary --json must then give the six StepTraceTime
# numbers that plain SQL (tests/golden/fixture/overlap.sql) computes over the rows that are
# valid, with exactly one warning line naming the file, the table and the count. Validity is
# defined below in SQL (the DELETEs), not taken from tl: a time is an INTEGER (TASK's columns
# are declared INTEGER, so SQLite has already turned any text or real that is an integer into
# one), within +-(2^62 - 1) ns; an id an INTEGER or NULL.
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"
FX=$TL_SRCDIR/tests/golden/fixture
if ! command -v sqlite3 >/dev/null; then
	skip "the sqlite3 shell is not installed (tools/install-deps --test)"
	t_done
	exit
fi

# the rows that are valid, in plain SQL
VALID="
DELETE FROM TASK WHERE NOT (typeof(startNs) = 'integer' AND typeof(endNs) = 'integer'
	AND typeof(deviceId) IN ('integer', 'null') AND typeof(streamId) IN ('integer', 'null')
	AND typeof(globalTaskId) IN ('integer', 'null')
	AND typeof(connectionId) IN ('integer', 'null'));
DELETE FROM TASK WHERE abs(startNs) > 4611686018427387903 OR abs(endNs) > 4611686018427387903
	OR endNs < startNs;
DELETE FROM COMMUNICATION_OP WHERE NOT (typeof(startNs) = 'integer'
	AND typeof(endNs) = 'integer' AND typeof(connectionId) IN ('integer', 'null'));
DELETE FROM STEP_TIME WHERE NOT (typeof(startNs) = 'integer' AND typeof(endNs) = 'integer'
	AND typeof(id) IN ('integer', 'null'));
DELETE FROM CANN_API WHERE typeof(startNs) <> 'integer';
"
# A compute task of step 1 (globalTaskId 0, launched by connectionId 300)
C0S=1767225600002724907
C0E=1767225600002870904

n=0
# damage SQL, then the warning (a grep -E pattern after "tl: FILE: ")
case_() {
	n=$((n + 1))
	what=$1 damage=$2 warn=$3
	d=$t_tmp/c$n/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d" "$t_tmp/v$n"
	db=$d/ascend_pytorch_profiler_0.db
	sqlite3 "$db" <"$FX/rank0.sql"
	printf '%s\n' "$damage" | sqlite3 "$db"
	cp "$db" "$t_tmp/v$n/valid.db"
	printf '%s\n' "$VALID" | sqlite3 "$t_tmp/v$n/valid.db"
	want=$(sqlite3 -readonly "$t_tmp/v$n/valid.db" <"$FX/overlap.sql")
	"$TL_BIN" summary "$t_tmp/c$n" --json >"$t_tmp/sum$n.json" 2>"$t_tmp/err$n"
	check "$what: tl summary --json exits 0" [ $? -eq 0 ]
	# each step object's six StepTraceTime fields (as test_fixture.sh reads them: python3's json)
	if python3 "$TL_SRCDIR/tests/golden/summary_json.py" six "$t_tmp/sum$n.json" 0 "$want"; then
		ok "$what: the six numbers of each step equal plain SQL's over the valid rows"
	else
		not_ok "$what: the six numbers of each step equal plain SQL's over the valid rows"
	fi
	lines=$(wc -l <"$t_tmp/err$n")
	if [ -z "$warn" ] && [ "$lines" -eq 0 ]; then
		ok "$what: no warning"
	elif [ "$lines" -eq 1 ] && grep -qE "^tl: $db: $warn\$" "$t_tmp/err$n"; then
		ok "$what: one warning line naming the file, the table and the count"
	else
		sed 's/^/# /' "$t_tmp/err$n"
		not_ok "$what: one warning line ($lines) matching: $warn"
	fi
}

# the fixture holds what the cases need
d=$t_tmp/clean/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT
mkdir -p "$d"
sqlite3 "$d/ascend_pytorch_profiler_0.db" <"$FX/rank0.sql"
n0=$(sqlite3 -readonly "$d/ascend_pytorch_profiler_0.db" "SELECT count(*) FROM TASK
	WHERE startNs = $C0S AND endNs = $C0E AND globalTaskId = 0 AND connectionId = 300")
check "fixture: the compute task the cases copy ($n0)" [ "$n0" -eq 1 ]
"$TL_BIN" summary "$t_tmp/clean" --json >/dev/null 2>"$t_tmp/err0"
check "fixture: no warning undamaged" [ ! -s "$t_tmp/err0" ]

taskbad() { echo "TASK: $1 rows with a startNs, endNs, deviceId, streamId, globalTaskId or connectionId that is not an integer skipped"; }
# The bug that showed a step's computing as 1 736 407 067 001 ms: 'x' was read as 0.
case_ "TASK.startNs 'x'" \
	"INSERT INTO TASK VALUES('x',$C0E,0,300,1,3055835,3,4294967295,2,20100,4294967295);" \
	"$(taskbad 1)"
case_ "TASK times REAL, BLOB, '12abc', '0x10'" \
	"INSERT INTO TASK VALUES($C0S,2.5,0,300,1,3055835,3,4294967295,2,20101,4294967295);
	 INSERT INTO TASK VALUES(1e19,$C0E,0,300,1,3055835,3,4294967295,2,20102,4294967295);
	 INSERT INTO TASK VALUES(X'31',$C0E,0,300,1,3055835,3,4294967295,2,20103,4294967295);
	 INSERT INTO TASK VALUES($C0S,'${C0E}abc',0,300,1,3055835,3,4294967295,2,20104,4294967295);
	 INSERT INTO TASK VALUES('0x10',$C0E,0,300,1,3055835,3,4294967295,2,20105,4294967295);" \
	"$(taskbad 5)"
# a globalTaskId 'x' was task 0's (a compute kernel), a deviceId 'x' device 0
case_ "TASK ids 'x', REAL, BLOB" \
	"INSERT INTO TASK VALUES(100+$C0E,200+$C0E,0,300,'x',3055835,3,4294967295,2,20106,4294967295);
	 INSERT INTO TASK VALUES(100+$C0E,200+$C0E,'x',300,0,3055835,3,4294967295,2,20107,4294967295);
	 INSERT INTO TASK VALUES(100+$C0E,200+$C0E,0,300,0,3055835,3,4294967295,1.5,20108,4294967295);
	 INSERT INTO TASK VALUES(100+$C0E,200+$C0E,0,X'00',0,3055835,3,4294967295,2,20109,4294967295);" \
	"$(taskbad 4)"
case_ "TASK time out of range" \
	"INSERT INTO TASK VALUES($C0S,4611686018427387904,0,300,1,3055835,3,4294967295,2,20110,4294967295);" \
	"TASK: 1 rows with a time out of range; skipped"
case_ "TASK time negative, in range" \
	"INSERT INTO TASK VALUES(-5,$C0E,0,300,1,3055835,3,4294967295,2,20111,4294967295);
	 UPDATE STEP_TIME SET startNs = -10 WHERE id = (SELECT min(id) FROM STEP_TIME);" \
	""
case_ "STEP_TIME a step 'x'" \
	"INSERT INTO STEP_TIME VALUES(9,'x',$C0E);" \
	"STEP_TIME: 1 rows with a NULL time, a cell that is not an integer, an end before the start or a time out of range skipped"
# its kernel then takes the step of its own start
case_ "CANN_API.startNs 'x'" \
	"UPDATE CANN_API SET startNs = 'x' WHERE connectionId = 300;" \
	"CANN_API: 1 calls without a usable startNs skipped"
case_ "COMMUNICATION_OP times and connectionId" \
	"UPDATE COMMUNICATION_OP SET startNs = 'x' WHERE opId = (SELECT min(opId) FROM COMMUNICATION_OP);
	 UPDATE COMMUNICATION_OP SET connectionId = 'y' WHERE opId = (SELECT max(opId) FROM COMMUNICATION_OP);" \
	"COMMUNICATION_OP: 2 rows with a startNs, endNs or connectionId that is not an integer skipped"
t_done
