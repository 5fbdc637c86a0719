#!/bin/sh
# A profile still being written: a DB another process holds in a write transaction (a
# -journal beside it), a DB whose writer keeps its changes in a -wal file, a trace_view.json
# that grows while tl reads it. Each loads what is complete, says in one line that it may be
# incomplete, never waits for the writer's lock and never touches the writer's files.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
W=$TL_TESTBIN/golden/profile_writer
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"

if ! "$TLGEN" screens "$t_tmp/both" --ranks 2 --tasks 600 --json >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
cp -r "$t_tmp/both" "$t_tmp/json" && find "$t_tmp/json" -name '*.db' -exec rm {} +
find "$t_tmp/both" -name trace_view.json -exec rm {} +
mv "$t_tmp/both" "$t_tmp/db"
"$TL" summary "$t_tmp/db" --json >"$t_tmp/want.json" 2>/dev/null
db0=$(find "$t_tmp/db" -name ascend_pytorch_profiler_0.db)

# hold MODE: starts the writer on rank 0's DB; it keeps its transaction until fd 3 closes
hold() {
	rm -f "$t_tmp/fifo" "$t_tmp/w.out"
	mkfifo "$t_tmp/fifo"
	"$W" "$1" "$db0" <"$t_tmp/fifo" >"$t_tmp/w.out" 2>&1 &
	wpid=$!
	exec 3>"$t_tmp/fifo"
	i=0
	while [ $i -lt 100 ] && ! grep -q ready "$t_tmp/w.out" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q ready "$t_tmp/w.out"
}
release() {
	exec 3>&-
	wait "$wpid"
}

for mode in rollback wal; do
	side=journal
	[ $mode = wal ] && side=wal
	if ! hold $mode; then
		sed 's/^/# /' "$t_tmp/w.out"
		not_ok "$mode: the writer holds its transaction"
		release
		continue
	fi
	check "$mode: the writer's -$side file lies beside the DB" [ -s "$db0-$side" ]
	start=$(date +%s)
	"$TL" summary "$t_tmp/db" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
	rc=$?
	took=$(($(date +%s) - start))
	check "$mode: summary exits 0 while the writer holds the DB" [ $rc -eq 0 ]
	check "$mode: no wait for the writer's lock (${took}s)" [ "$took" -le 5 ]
	check "$mode: what the database file holds is loaded (the committed numbers)" \
		cmp -s "$t_tmp/got.json" "$t_tmp/want.json"
	check "$mode: one line says the profile is still being written" \
		sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'ascend_pytorch_profiler_0.db: a -$side file lies beside it: the profile is still being written' '$t_tmp/err'"
	sed 's/^/# /' "$t_tmp/err"
	printf 'j\n<Enter>\n:quit\n' >"$t_tmp/keys"
	"$TL" view "$t_tmp/db" --script "$t_tmp/keys" --size 100x30 >/dev/null 2>&1
	check "$mode: the viewer opens it too" [ $? -eq 0 ]
	release
	check "$mode: the writer's transaction was never disturbed (it ends normally)" [ $? -eq 0 ]
done

# a trace_view.json that grows while it is read
j0=$(find "$t_tmp/json" -name trace_view.json | head -1)
cp "$j0" "$t_tmp/full.json"
"$TL" summary "$t_tmp/json" --json >"$t_tmp/want.json" 2>/dev/null
"$W" grow "$t_tmp/full.json" "$j0" >"$t_tmp/w.out" 2>&1 &
wpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q ready "$t_tmp/w.out" 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
"$TL" summary "$t_tmp/json" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
rc=$?
wait "$wpid"
check "growing JSON: summary exits 0 (both ranks load)" \
	sh -c "[ $rc -eq 0 ] && grep -q '\"rank\":0' '$t_tmp/got.json' && grep -q '\"rank\":1' '$t_tmp/got.json'"
check "growing JSON: one line says where the file ends and that the events before it are kept" \
	sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'trace_view.json: .*file ends.*keeping the [0-9]* events before it' '$t_tmp/err'"
sed 's/^/# /' "$t_tmp/err"
check "growing JSON: fewer numbers than the complete file (only what was complete)" \
	sh -c "! cmp -s '$t_tmp/got.json' '$t_tmp/want.json'"
"$TL" summary "$t_tmp/json" --json >"$t_tmp/got.json" 2>"$t_tmp/err"
check "growing JSON: once complete, all of it and no message" \
	sh -c "cmp -s '$t_tmp/got.json' '$t_tmp/want.json' && [ ! -s '$t_tmp/err' ]"

# a trace_view.json cut short while tl reads it (rewritten by its writer): the loader maps the
# file, and the pages past the new end fault (SIGBUS). strace holds tl for a second right after
# it maps the file (a delay injected into its madvise call); the file is cut meanwhile. Rank 0
# is that JSON file, rank 1 a DB: rank 0 says what happened, rank 1 still loads.
# TL_JSON_PIPE=1: the scan runs in a thread of its own, which then takes the fault.
for pipe in 0 1; do
rm -rf "$t_tmp/mixed"
mkdir -p "$t_tmp/mixed"
cp -r "$t_tmp/json"/*r0_*_ascend_pt "$t_tmp/mixed/"
cp -r "$t_tmp/db"/*r1_*_ascend_pt "$t_tmp/mixed/"
cut=$(find "$t_tmp/mixed" -name trace_view.json)
what="JSON cut while read (TL_JSON_PIPE=$pipe)"
if command -v strace >/dev/null &&
	strace -qq -e trace=madvise -e inject=madvise:delay_enter=1 -o /dev/null true 2>/dev/null; then
	# (a sanitized build: AddressSanitizer's own madvise calls would be delayed too)
	rm -f "$t_tmp/strace"
	(TL_JSON_PIPE=$pipe ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_sigbus=0:detect_leaks=0:use_madv_dontdump=0:no_huge_pages_for_shadow=0" \
		strace -f -qq -e trace=madvise -e inject=madvise:delay_enter=1000000 -o "$t_tmp/strace" \
		"$TL" summary "$t_tmp/mixed" --json >"$t_tmp/got.json" 2>"$t_tmp/err"; echo $? >"$t_tmp/rc") &
	i=0
	while [ $i -lt 1200 ] && ! grep -q MADV_SEQUENTIAL "$t_tmp/strace" 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	caught=0
	grep -q MADV_SEQUENTIAL "$t_tmp/strace" 2>/dev/null && caught=1
	truncate -s 100 "$cut"
	wait
	# (strace's own complaints share the stream: only tl's lines count)
	grep -v '^strace: ' "$t_tmp/err" >"$t_tmp/err.tl"
	mv "$t_tmp/err.tl" "$t_tmp/err"
	if [ $caught = 0 ]; then
		skip "$what: tl did not reach the file within a minute under strace"
	else
		check "$what: tl goes on, exit status 0, not a crash (got $(cat "$t_tmp/rc"))" \
			[ "$(cat "$t_tmp/rc")" = 0 ]
		check "$what: one line names the file and what happened" \
			sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -q 'trace_view.json: the file shrank while tl was reading it' '$t_tmp/err'"
		check "$what: the other rank loads" grep -q '"rank":1' "$t_tmp/got.json"
		sed 's/^/# /' "$t_tmp/err"
	fi
else
	skip "strace absent or without fault injection: a JSON cut while read not checked"
fi
done
t_done
