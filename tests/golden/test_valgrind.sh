#!/bin/sh
# valgrind memcheck: zero errors and no leaks (definitely, indirectly or possibly lost) for
# `tl summary` and a scripted `tl view` session over the samples and generated fixtures (DB and
# JSON). Memory that ncurses, SQLite and PCRE2 keep until exit by design ("still reachable") is
# not a leak. Skipped, saying why, without valgrind or when tl is built with AddressSanitizer
# (the two do not run together; `make check-sanitizers` covers that build).
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"

if ! command -v valgrind >/dev/null; then
	skip "valgrind absent (tools/install-deps --test installs it): memcheck not run"
	t_done
	exit 0
fi
if grep -qa "__asan_init" "$TL"; then
	skip "tl is built with AddressSanitizer: valgrind cannot run it (see make check-sanitizers)"
	t_done
	exit 0
fi

profiles=""
if "$TLGEN" screens "$t_tmp/both" --ranks 2 --tasks 800 --json >/dev/null 2>&1; then
	cp -r "$t_tmp/both" "$t_tmp/json" && find "$t_tmp/json" -name '*.db' -exec rm {} +
	find "$t_tmp/both" -name trace_view.json -exec rm {} +
	mv "$t_tmp/both" "$t_tmp/db"
	profiles="$t_tmp/db $t_tmp/json"
else
	not_ok "generate the fixtures"
fi
for d in ascend-db/level0 ascend-db/level2 ascend-text/level1; do
	[ -d "$SAMPLES/$d" ] && profiles="$profiles $SAMPLES/$d"
done
[ -d "$SAMPLES" ] || skip "samples absent: $SAMPLES (generated fixtures only)"

# a session: lanes, streams, a selection with its arguments (read from the DB), the detail
# pane, a search, bubbles, a marked range with its statistics, the help, the RL panels
cat >"$t_tmp/keys" <<'KEYS'
e
j
j
j
<Enter>
.
<Enter>
/Matmul|allReduce
n
b
B
m
>
>
>
m
?
q
:zoom 1ms 5ms
:quit
KEYS

# vg NAME COMMAND...: under memcheck; the verdict from its log
vg() {
	what=$1
	shift
	valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --num-callers=30 \
		--log-file="$t_tmp/vg.log" "$@" >/dev/null 2>"$t_tmp/err"
	rc=$?
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$t_tmp/vg.log" | tail -1)
	lost=$(grep -E "(definitely|indirectly|possibly) lost: [1-9]" "$t_tmp/vg.log" | head -3)
	if [ "$rc" -ne 99 ] && [ "${errs:-x}" = 0 ] && [ -z "$lost" ]; then
		ok "valgrind: $what: 0 errors, no leaks (exit $rc)"
	else
		not_ok "valgrind: $what: ${errs:-?} errors, exit $rc"
		grep -E "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|[0-9,]+ bytes in|   (at|by) )|lost:" \
			"$t_tmp/vg.log" | head -30 | sed 's/^/# /'
	fi
}

for p in $profiles; do
	name=${p#"$t_tmp/"}
	name=${name#"$SAMPLES/"}
	vg "$name: tl summary" "$TL" summary "$p"
	vg "$name: tl summary --json" "$TL" summary "$p" --json
	vg "$name: scripted tl view" "$TL" view "$p" --script "$t_tmp/keys" --size 120x40
done
# the JSON loader reading into a buffer instead of a mapping, so memcheck sees every byte read
TL_JSON_NO_MMAP=1 vg "json (read, not mapped): tl summary" "$TL" summary "$t_tmp/json"
# tl query: every table, the formats, and the error paths (a refusal, the work budget)
all="SELECT (SELECT count(*) FROM slices WHERE rank = 0 AND start_ns > 0), (SELECT sum(dur_ns)
	FROM ops), (SELECT count(*) FROM steps), (SELECT count(*) FROM stages), (SELECT sum(bytes)
	FROM comm_ops), (SELECT count(*) FROM links), (SELECT count(*) FROM bubbles),
	(SELECT count(*) FROM counters), (SELECT group_concat(DISTINCT stage) FROM slices)"
vg "db: tl query, every table" "$TL" query "$t_tmp/db" "$all"
vg "json: tl query --json, every table" "$TL" query "$t_tmp/json" "$all" --json
vg "tl query --csv of slices" "$TL" query "$t_tmp/db" "SELECT * FROM slices LIMIT 300" --csv
vg "tl query, a refused statement" "$TL" query "$t_tmp/db" "ATTACH '$t_tmp/x' AS x"
TL_QUERY_BUDGET=2 vg "tl query stopped by its work budget" "$TL" query "$t_tmp/db" \
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
# tl export: Chrome traces and CSV, and the viewer's :query panel
vg "db: tl export (Chrome traces)" "$TL" export "$t_tmp/db" -o "$t_tmp/vg-export"
vg "json: tl export --step 1 --format csv" "$TL" export "$t_tmp/json" -o "$t_tmp/vg-export.csv" \
	--step 1 --format csv
printf ':query SELECT rank, step, start_ns FROM steps\n<Enter>\n:query SELEC\n' >"$t_tmp/qkeys"
vg "db: scripted :query panel" "$TL" view "$t_tmp/db" --script "$t_tmp/qkeys" --size 120x40
vg "tl info" "$TL" info "$t_tmp/db"
vg "tl keys --keymap default" "$TL" keys --keymap default
t_done
