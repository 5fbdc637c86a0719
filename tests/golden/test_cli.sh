#!/bin/sh
# Command-line behaviour of `tl info` and `tl summary`: the StepTraceTime oracle on the real
# samples, rank specs, bad inputs, read-only inputs, exit statuses.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN

# ---- the oracle: summary --json equals torch_npu's StepTraceTime to the nanosecond ----------
if [ -d "$SAMPLES/ascend-db" ] && command -v sqlite3 >/dev/null; then
	for level in level0 level2; do
		json=$("$TL" summary "$SAMPLES/ascend-db/$level" --json 2>"$t_tmp/err")
		check "summary $level exits 0" [ $? -eq 0 ]
		check "summary $level prints no warnings" [ ! -s "$t_tmp/err" ]
		for r in 0 1; do
			an="$SAMPLES/ascend-db/$level/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"
			want=$(sqlite3 -readonly "$an" "SELECT printf('{\"step\":%d,\"computing_ns\":%d,\"communication_ns\":%d,\"overlapped_ns\":%d,\"communication_not_overlapped_ns\":%d,\"free_ns\":%d,\"preparing_ns\":%d', step, round(computing*1000), round(communication*1000), round(overlapped*1000), round(communication_not_overlapped*1000), round(free*1000), round(preparing*1000)) FROM StepTraceTime")
			case "$json" in
			# (the cluster_time_summary fields follow the six, from step_ns on)
			*"{\"rank\":$r,\"steps\":[$want,\"step_ns\":"*) ok "$level rank $r: six numbers equal StepTraceTime to the ns" ;;
			*) not_ok "$level rank $r: want $want in $json" ;;
			esac
		done
	done
	out=$("$TL" summary "$SAMPLES/ascend-db/level0")
	check "text summary has a header with units" sh -c "echo '$out' | grep -q 'ms'"
	check "text summary has a row for rank 1 step 50" sh -c "echo '$out' | grep -Eq '^ +1 +50 '"
	check "text summary shows computing of rank 0 (8.843910 ms)" sh -c "echo '$out' | grep -q '8.843910'"

	# the communication sections: rank 0's transit summed over its ops is CommAnalyzerTime's to
	# the us (ms with 3 places), and the JSON members under their fixed names
	out2=$("$TL" summary "$SAMPLES/ascend-db/level2")
	want=$(sqlite3 -readonly "$SAMPLES/ascend-db/level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db" \
		"SELECT printf('%.3f', sum(transit_time)) FROM CommAnalyzerTime")
	check "text summary: rank 0's summed transit is CommAnalyzerTime's ($want ms)" \
		sh -c "echo '$out2' | grep -E '^ +0 +50 ' | grep -Eq ' $want[0-9]{3} '"
	json2=$("$TL" summary "$SAMPLES/ascend-db/level2" --json)
	for m in collectives p2p communication bandwidth comm_matrix comm_matrix_summary operators comm_operators; do
		case "$json2" in
		*",\"$m\":["*) ok "summary --json has \"$m\"" ;;
		*) not_ok "summary --json has no \"$m\"" ;;
		esac
	done

	# info: one line per source with rank, kind, path
	info=$("$TL" info "$SAMPLES/ascend-db/level2")
	check "info lists rank 0 as torch_npu DB" env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -Eq '^0 +torch_npu DB'"
	check "info lists rank 1" env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -Eq '^1 +torch_npu DB'"

	# CAPTURED: when the collection ended as the DB records it (SESSION_TIME_INFO endTimeNs),
	# to the millisecond, read here with plain SQL
	info=$(TZ=UTC "$TL" info "$SAMPLES/ascend-db/level2")
	for r in 0 1; do
		db="$SAMPLES/ascend-db/level2/rank${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db"
		want=$(sqlite3 -readonly "$db" "SELECT printf('%s.%03d', datetime(endTimeNs / 1000000000, 'unixepoch'), (endTimeNs / 1000000) % 1000) FROM SESSION_TIME_INFO")
		check "info: rank $r captured $want (SESSION_TIME_INFO)" env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -Eq '^$r +torch_npu DB +$want  '"
	done
	check "info: no (file time) where the DB says" env INFO="$info" sh -c "! printf '%s\\n' \"\$INFO\" | grep -q 'file time'"
else
	skip "samples or sqlite3 absent: $SAMPLES (StepTraceTime oracle via the CLI not checked)"
fi

# CAPTURED of a text export: profiler_info's end_info.collectionTimeEnd (ns), read by python3
if [ -d "$SAMPLES/ascend-text" ] && command -v python3 >/dev/null; then
	info=$(TZ=UTC "$TL" info "$SAMPLES/ascend-text" 2>/dev/null)
	for r in 0 1; do
		pi="$SAMPLES/ascend-text/level1/rank${r}_ascend_pt/profiler_info_$r.json"
		want=$(python3 -c 'import json, sys, datetime
ns = int(json.load(open(sys.argv[1]))["end_info"]["collectionTimeEnd"])
t = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
print(t.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ns // 10**6 % 1000))' "$pi")
		check "info: text rank $r captured $want (profiler_info collectionTimeEnd)" env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -Eq '^$r +[^ ].* +$want  '"
	done
	# without profiler_info: the stamp in the directory name (local time), else the file's time
	mkdir -p "$t_tmp/stamp/w_42_20240131235958123_ascend_pt/ASCEND_PROFILER_OUTPUT" "$t_tmp/loose"
	cp "$SAMPLES/ascend-text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json" \
		"$t_tmp/stamp/w_42_20240131235958123_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	cp "$SAMPLES/ascend-text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json" "$t_tmp/loose/"
	touch -d '2023-05-06 07:08:09.250' "$t_tmp/loose/trace_view.json"
	info=$(TZ=UTC "$TL" info "$t_tmp/stamp" 2>/dev/null)
	check "info: the directory's stamp when no profiler_info says (2024-01-31 23:59:58.123)" \
		env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -q ' 2024-01-31 23:59:58.123  ' && ! printf '%s\\n' \"\$INFO\" | grep -q 'file time'"
	info=$(TZ=UTC "$TL" info "$t_tmp/loose" 2>/dev/null)
	check "info: only the file's time: said so (2023-05-06 07:08:09.250 (file time))" \
		env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | grep -q ' 2023-05-06 07:08:09.250 (file time)  '"
	check "... under a CAPTURED column wide enough for it" \
		env INFO="$info" sh -c "printf '%s\\n' \"\$INFO\" | head -1 | grep -q 'CAPTURED                             ROLE'"
else
	skip "text samples or python3 absent: capture times of a text export not checked"
fi

if [ -d "$SAMPLES/ascend-db" ] && command -v sqlite3 >/dev/null; then
	# --rank filters before loading; a missing rank is named
	"$TL" summary "$SAMPLES/ascend-db/level0" --rank 1,3 --json >"$t_tmp/out" 2>"$t_tmp/err"
	check "--rank 1,3 loads rank 1 only" sh -c "grep -q '\"rank\":1' '$t_tmp/out' && ! grep -q '\"rank\":0' '$t_tmp/out'"
	check "--rank 1,3 warns that rank 3 is absent" grep -q "3" "$t_tmp/err"
	# no rank asked for exists: the ranks that do are listed (the sample has ranks 0 and 1)
	"$TL" summary "$SAMPLES/ascend-db/level0" --rank 5,7 >"$t_tmp/out" 2>"$t_tmp/err"
	check "--rank with no existing rank exits 2" [ $? -eq 2 ]
	check "... and lists the ranks there are" grep -q "the ranks there are: 0-1\$" "$t_tmp/err"

	# a single .db file as PATH
	one="$SAMPLES/ascend-db/level0/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db"
	check "a single .db path works" sh -c "'$TL' summary '$one' --json | grep -q '\"rank\":1'"

	# read-only copies (0444 files in 0555 dirs) load, and nothing appears beside them
	cp -r "$SAMPLES/ascend-db/level0" "$t_tmp/ro"
	find "$t_tmp/ro" -type f -exec chmod 0444 {} +
	find "$t_tmp/ro" -type d -exec chmod 0555 {} +
	before=$(cd "$t_tmp/ro" && find . | sort; find . -type f -exec cksum {} + | sort)
	"$TL" summary "$t_tmp/ro" --json >"$t_tmp/ro.json" 2>&1
	check "read-only profile loads" grep -q '"rank":1' "$t_tmp/ro.json"
	"$TL" info "$t_tmp/ro" >/dev/null 2>&1
	after=$(cd "$t_tmp/ro" && find . | sort; find . -type f -exec cksum {} + | sort)
	check "no file changed or appeared beside the inputs" [ "$before" = "$after" ]
	find "$t_tmp/ro" -type d -exec chmod 0755 {} +
else
	skip "samples or sqlite3 absent: $SAMPLES (StepTraceTime oracle via the CLI not checked)"
fi

# ---- usage errors --------------------------------------------------------------------------
"$TL" summary /nonexistent --rank 0-x >/dev/null 2>"$t_tmp/err"
check "bad rank spec exits 1" [ $? -eq 1 ]
check "bad rank spec names the position" grep -q "position" "$t_tmp/err"
"$TL" summary /nonexistent --rank 7-3 >/dev/null 2>"$t_tmp/err"
check "backwards range is refused" grep -q "backwards" "$t_tmp/err"
# a rank above the limit is out of range, not malformed
for spec in 99999999999 0-99999999999 2,1000001; do
	"$TL" summary /nonexistent --rank $spec >/dev/null 2>"$t_tmp/err"
	check "--rank $spec exits 1" [ $? -eq 1 ]
	check "--rank $spec is said to be out of range" grep -q "is out of range (0-1000000)" "$t_tmp/err"
	check "--rank $spec is not called malformed" sh -c "! grep -q 'expected' '$t_tmp/err'"
done
# a file that is not a profile and a directory without profiles: the same exit status
mkdir -p "$t_tmp/noprof"
printf 'not a profile\n' > "$t_tmp/noprof.txt"
"$TL" summary "$t_tmp/noprof" >/dev/null 2>&1
rc_dir=$?
"$TL" summary "$t_tmp/noprof.txt" >/dev/null 2>"$t_tmp/err"
rc_file=$?
check "not-a-profile and no-profiles exit alike (2)" [ "$rc_dir$rc_file" = 22 ]
check "... the file is named with its problem" grep -q "noprof.txt: neither a profiler DB" "$t_tmp/err"
"$TL" info "$t_tmp/noprof.txt" >/dev/null 2>&1
check "info on a file that is not a profile exits 2" [ $? -eq 2 ]
"$TL" frobnicate >/dev/null 2>&1
check "unknown command exits 1" [ $? -eq 1 ]
"$TL" --help | grep -q "tl summary PATH"
check "--help lists the summary command" [ $? -eq 0 ]
# help everywhere: tl --help, tl -h, tl help print the short usage on stdout with exit 0; tl
# help COMMAND, tl COMMAND --help and -h print the command's usage and options, exit 0
"$TL" --help > "$t_tmp/help" 2> "$t_tmp/err"
check "tl --help exits 0 and writes nothing to stderr" sh -c "[ $? -eq 0 ] && [ ! -s '$t_tmp/err' ]"
"$TL" -h > "$t_tmp/help.h"
check "tl -h prints what tl --help does" cmp -s "$t_tmp/help" "$t_tmp/help.h"
"$TL" help > "$t_tmp/help.help"
check "tl help exits 0 and prints what tl --help does" sh -c "[ $? -eq 0 ] && cmp -s '$t_tmp/help' '$t_tmp/help.help'"
check "tl --help is short (at most 30 lines)" [ "$(wc -l < "$t_tmp/help")" -le 30 ]
check "tl --help fits 80 columns" sh -c "! awk 'length > 80' '$t_tmp/help' | grep -q ."
check "tl --help names no tuning variable (they are in man tl)" sh -c "! grep -Eq 'TL_[A-Z]' '$t_tmp/help' && grep -q 'man tl' '$t_tmp/help'"
cmds=$(sed -n 's/^  tl \([a-z]*\) .*/\1/p' "$t_tmp/help" | grep -v '^help$')
check "tl --help lists the twelve commands" [ "$(echo $cmds)" = "demo view summary triage critical diff info query export index cache keys" ]
for cmd in $cmds; do
	"$TL" help "$cmd" > "$t_tmp/h.$cmd" 2> "$t_tmp/err"
	rc=$?
	check "tl help $cmd: exit 0, its usage first, nothing on stderr" sh -c "[ $rc -eq 0 ] &&
		head -1 '$t_tmp/h.$cmd' | grep -q '^usage: tl $cmd' && [ ! -s '$t_tmp/err' ]"
	for h in --help -h; do
		if [ "$cmd" = keys ] || [ "$cmd" = cache ] || [ "$cmd" = demo ]; then
			"$TL" "$cmd" $h > "$t_tmp/h2" 2>&1
		else # with a PATH that does not exist: --help is answered before the path is read
			"$TL" "$cmd" /nonexistent $h > "$t_tmp/h2" 2>&1
		fi
		rc=$?
		check "tl $cmd $h: exit 0, the same as tl help $cmd" sh -c "[ $rc -eq 0 ] && cmp -s '$t_tmp/h.$cmd' '$t_tmp/h2'"
	done
	check "tl help $cmd fits 80 columns" sh -c "! awk 'length > 80' '$t_tmp/h.$cmd' | grep -q ."
	# the options it lists are the ones the command takes, and every one it takes is listed
	for o in $(sed -n 's/^[[:space:]]*{"\([a-z-]*\)", [a-z_]*_argument.*/\1/p' "$TL_SRCDIR/src/main.c"); do
		case $o in help | version) continue ;; esac
		"$TL" "$cmd" /nonexistent --$o x > /dev/null 2> "$t_tmp/o.err"
		if grep -q "does not take --$o" "$t_tmp/o.err"; then
			check "tl help $cmd does not list --$o, which it does not take" sh -c "! grep -q -- '^  --$o\b' '$t_tmp/h.$cmd'"
		else
			check "tl help $cmd lists --$o" grep -q -- "^  --$o\b" "$t_tmp/h.$cmd"
		fi
	done
done
"$TL" help frobnicate > /dev/null 2> "$t_tmp/err"
check "tl help of an unknown command: exit 1, naming it" sh -c "[ $? -eq 1 ] && grep -q \"unknown command 'frobnicate'\" '$t_tmp/err'"
"$TL" > /dev/null 2> "$t_tmp/err"
check "tl alone: exit 1 and the usage on stderr" sh -c "[ $? -eq 1 ] && grep -q '^usage: tl COMMAND' '$t_tmp/err'"
# every TL_* variable tl reads is described in the man page
for v in $(grep -rhoE 'getenv\("TL_[A-Z0-9_]+"\)' "$TL_SRCDIR/src" | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	check "man tl describes $v" grep -q "^\.B[IR]* $v" "$TL_SRCDIR/man/tl.1"
done
# each command takes its own options: another command's is a usage error with one clear line
for bad in "keys --json" "keys --rank 0" "summary /nonexistent --theme x" \
	"summary /nonexistent --script s" "info /nonexistent --json" "info /nonexistent --pp 2" \
	"view /nonexistent --json" "view /nonexistent --man" "demo --json"; do
	set -- $bad
	"$TL" "$@" >/dev/null 2>"$t_tmp/err"
	rc=$?
	opt=$(printf '%s\n' "$@" | grep -- '^--')
	check "tl $bad: exit 1, '$1 does not take $opt' and the usage" sh -c "[ $rc -eq 1 ] &&
		grep -qx 'tl: $1 does not take $opt' '$t_tmp/err' && grep -q '^usage: tl $1' '$t_tmp/err'"
done
set --
"$TL" keys --keymap vim --markdown >/dev/null 2>"$t_tmp/err"
check "keys takes --keymap and --markdown" [ $? -eq 0 ]
"$TL" summary /nonexistent --pp 2 --json --rank 0 >/dev/null 2>"$t_tmp/err"
rc=$?
check "summary takes --pp, --json and --rank (the path is what fails)" sh -c "[ $rc -eq 1 ] &&
	grep -q 'nonexistent: No such file' '$t_tmp/err' && ! grep -q 'does not take' '$t_tmp/err'"

# ---- nothing loadable: exit 2 with a clear line ----------------------------------------------
mkdir -p "$t_tmp/junk/x_ascend_pt/ASCEND_PROFILER_OUTPUT"
echo "not a database" >"$t_tmp/junk/x_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
"$TL" summary "$t_tmp/junk" >/dev/null 2>"$t_tmp/err"
check "nothing loadable exits 2" [ $? -eq 2 ]
check "the bad file is named with its problem" grep -q "ascend_pytorch_profiler_0.db: not an SQLite database" "$t_tmp/err"
"$TL" summary "$t_tmp/empty-does-not-exist" >/dev/null 2>&1
check "a missing path exits non-zero" [ $? -ne 0 ]

# ---- tl diff on the real samples: two ranks against StepTraceTime, a profile against itself ----
if [ -d "$SAMPLES/ascend-db" ] && command -v sqlite3 >/dev/null; then
	l2="$SAMPLES/ascend-db/level2"
	out=$("$TL" diff "$l2" "$l2" 2>"$t_tmp/err")
	check "diff of a profile with itself: exit 0, verdict 'no changes'" sh -c "[ $? -eq 0 ] &&
		[ '$(printf '%s\n' "$out" | head -1)' = 'no changes' ]"
	json=$("$TL" diff "$l2" --rank 1 --vs 0 --json)
	# A is rank 1, B rank 0: each overlap category of step 50 is the ranks' StepTraceTime
	an() { echo "$l2/rank$1_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"; }
	for col in computing free; do
		a=$(sqlite3 -readonly "$(an 1)" "SELECT round($col*1000) FROM StepTraceTime WHERE step = 50" | sed 's/\.0$//')
		b=$(sqlite3 -readonly "$(an 0)" "SELECT round($col*1000) FROM StepTraceTime WHERE step = 50" | sed 's/\.0$//')
		want="{\"kind\":\"overlap\",\"name\":\"$col\",\"rank\":1,\"step\":50,\"step_b\":50,\"a_ns\":$a,\"b_ns\":$b,\"delta_ns\":$((b - a)),"
		case "$json" in
		*"$want"*) ok "diff --rank 1 --vs 0: $col of step 50 is StepTraceTime's (A $a, B $b)" ;;
		*) not_ok "diff --rank 1 --vs 0: want $want" ;;
		esac
	done
	case "$json" in
	'{"verdict":'*'"changes":['*'"stages":['*'"operators":['*'"overlap":['*) ok "diff --json has verdict, changes, stages, operators, overlap" ;;
	*) not_ok "diff --json members: $json" ;;
	esac
fi
"$TL" diff /nonexistent >/dev/null 2>"$t_tmp/err"
check "diff with one profile and no --vs: exit 1 and the usage" sh -c "[ $? -eq 1 ] && grep -q '^usage: tl diff' '$t_tmp/err'"
"$TL" diff /nonexistent --vs 0 >/dev/null 2>"$t_tmp/err"
check "diff --vs without --rank: exit 1, one line" sh -c "[ $? -eq 1 ] && grep -q 'needs --rank N' '$t_tmp/err'"
"$TL" diff /a /b --steps 3 >/dev/null 2>"$t_tmp/err"
check "diff --steps 3: exit 1, says A:B" sh -c "[ $? -eq 1 ] && grep -q 'takes A:B' '$t_tmp/err'"

# ---- one bad rank does not stop the others -----------------------------------------------------
if [ -d "$SAMPLES/ascend-db" ]; then
	cp -r "$SAMPLES/ascend-db/level0" "$t_tmp/mixed"
	chmod -R u+w "$t_tmp/mixed"
	head -c 3000 "$t_tmp/mixed/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db" >"$t_tmp/cut"
	mv "$t_tmp/cut" "$t_tmp/mixed/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db"
	"$TL" summary "$t_tmp/mixed" --json >"$t_tmp/out" 2>"$t_tmp/err"
	check "a truncated rank: the other rank still loads (exit 0)" [ $? -eq 0 ]
	check "a truncated rank: rank 0 present" grep -q '"rank":0' "$t_tmp/out"
	check "a truncated rank: one line names the file" [ "$(grep -c 'ascend_pytorch_profiler_1.db' "$t_tmp/err")" -ge 1 ]
fi
# ---- no HOME, no XDG_CACHE_HOME: no shared /tmp/.cache, one line -----------------------------
mkdir -p "$t_tmp/nohome-tmp"
env -u HOME -u XDG_CACHE_HOME TMPDIR="$t_tmp/nohome-tmp" "$TL" demo --no-view >"$t_tmp/out" 2>"$t_tmp/err"
check "demo without HOME: exit 0, the summary of 8 ranks" sh -c "[ $? -eq 0 ] && grep -Eq '^ +7 +1 ' '$t_tmp/out'"
check "demo without HOME: one warning line says so" \
	[ "$(grep -c 'neither XDG_CACHE_HOME nor HOME is set: the demo profile goes to a temporary directory' "$t_tmp/err")" -eq 1 ]
check "demo without HOME: generated in a private directory under TMPDIR" grep -q "in $t_tmp/nohome-tmp/tl-demo-" "$t_tmp/err"
check "demo without HOME: the directory is removed" [ -z "$(ls -A "$t_tmp/nohome-tmp")" ]
check "demo without HOME: nothing but those two lines" [ "$(wc -l <"$t_tmp/err")" -eq 2 ]
if [ -d "$SAMPLES/ascend-db" ]; then
	env -u HOME -u XDG_CACHE_HOME "$TL" summary "$SAMPLES/ascend-db/level0" >/dev/null 2>"$t_tmp/err"
	check "summary without HOME: exit 0" [ $? -eq 0 ]
	check "summary without HOME: no cache, nothing said (as the static build's env -i runs)" \
		[ ! -s "$t_tmp/err" ]
fi
t_done
