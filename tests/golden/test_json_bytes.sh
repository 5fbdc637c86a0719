#!/bin/sh
# Every JSON document tl prints, byte for byte: `tl summary --json [--series]`, `tl triage
# --json`, `tl critical --json [--what-if]`, `tl diff --json`, `tl query --json` and `tl export`
# (chrome), over generated profiles and the samples (../shared/samples, skipped when absent). Each
# output (its profile's directory written as @P, so the place of the run does not count) is
# checked against its SHA-256 in tests/golden/json_bytes.sha256, which the JSON writer
# (util/jsonw.h) was converted against: any byte that changes fails. TL_UPDATE_GOLDEN=1 rewrites
# the sums of the outputs this run made (review why they changed first); TL_JSON_BASELINE=BIN
# compares with another build's outputs instead and shows the first difference. Every document
# must also parse as JSON (python3's json, an independent reader).
. "$TL_SRCDIR/tests/lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config" XDG_CACHE_HOME="$t_tmp/cache"
SUMS=$TL_SRCDIR/tests/golden/json_bytes.sha256
update=${TL_UPDATE_GOLDEN:-}
base=${TL_JSON_BASELINE:-}
out=$t_tmp/out
mkdir -p "$out"
: >"$t_tmp/made"
have_py=0
command -v python3 >/dev/null && have_py=1

# emit NAME DIR CMD...: runs CMD with tl as "$TL", keeps its stdout as out/NAME with DIR as @P
emit() {
	name=$1 dir=$2
	shift 2
	TL=$TL_BIN "$@" >"$t_tmp/raw" 2>"$t_tmp/err"
	rc=$?
	sed "s|$dir|@P|g" "$t_tmp/raw" >"$out/$name"
	echo "$name $rc" >>"$t_tmp/made"
	if [ -n "$base" ]; then
		TL=$base "$@" 2>/dev/null | sed "s|$dir|@P|g" >"$t_tmp/base"
		if cmp -s "$t_tmp/base" "$out/$name"; then
			ok "$name: as the baseline build's"
		else
			cmp "$t_tmp/base" "$out/$name" 2>&1 | sed 's/^/# /'
			not_ok "$name: differs from the baseline build's ($base)"
		fi
	fi
}
# the commands, each through $TL
run() { "$TL" "$@"; }
export_chrome() { # DIR: each rank's trace, concatenated in name order
	rm -rf "$t_tmp/exp"
	"$TL" export "$1" -o "$t_tmp/exp" --no-cache >/dev/null 2>&1 || return 1
	for f in "$t_tmp/exp"/*; do
		echo "== ${f##*/}"
		cat "$f"
	done
}

# all NAME DIR: every JSON output of one profile
all() {
	n=$1 d=$2
	emit "$n.summary" "$d" run summary "$d" --json --no-cache
	emit "$n.summary-series" "$d" run summary "$d" --json --series --no-cache
	emit "$n.triage" "$d" run triage "$d" --json --no-cache
	emit "$n.critical" "$d" run critical "$d" --json --no-cache
	emit "$n.critical-whatif" "$d" run critical "$d" --json --no-cache --what-if '*=-10%' \
		--what-if 'rank:1=+5%'
	emit "$n.query-slices" "$d" run query "$d" --json --no-cache \
		'SELECT * FROM slices ORDER BY rank, start_ns, lane, name LIMIT 400'
	emit "$n.query-mixed" "$d" run query "$d" --json --no-cache \
		"SELECT rank, step, computing_ns / 3.0 AS f, NULL AS n, x'00ff' AS b, 'a\"b\\c' AS s FROM steps"
	emit "$n.query-links" "$d" run query "$d" --json --no-cache 'SELECT * FROM links LIMIT 50'
	emit "$n.query-empty" "$d" run query "$d" --json --no-cache 'SELECT * FROM steps WHERE 0'
	emit "$n.export" "$d" export_chrome "$d"
}

# ---- generated profiles -----------------------------------------------------------------------
g=$t_tmp/gen
mkdir -p "$g"
if "$TLGEN" rl "$g/grpo" >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/slow" --slow-stage 1 --slow-factor 1300 --slow-ranks 5 >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/pp" --pp 2 --microbatches 4 >/dev/null 2>&1 &&
	"$TLGEN" screens "$g/scr" --ranks 2 --tasks 400 --json >/dev/null 2>&1 &&
	find "$g/scr" -name '*.db' -exec rm {} + &&
	"$TLGEN" kineto "$g/kin.json" --comm --steps 3 >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/mem" --memory --host-ops --with-stack >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/mod" --modules >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/hosts" --ranks 4 --hosts 2 --steps 2 --tasks 300 --memory \
		--decode dp --host-clock 1 3700000 30 >/dev/null 2>&1 &&
	"$TLGEN" rl "$g/hpp" --ranks 4 --pp 2 --hosts 2 --steps 2 --tasks 300 \
		--host-clock 1 -2500000 40 >/dev/null 2>&1 &&
	"$TLGEN" msprof "$g/oa" --seed 3 --overlap-table --steps 3 >/dev/null 2>&1; then
	all grpo "$g/grpo"
	all pp "$g/pp"
	all screens-json "$g/scr"
	all kineto "$g/kin.json"
	# the memory, counter, host and module sections
	emit mem.summary "$g/mem" run summary "$g/mem" --json --no-cache
	emit mem.export "$g/mem" export_chrome "$g/mem"
	emit mod.summary "$g/mod" run summary "$g/mod" --json --no-cache
	# several hosts (and the dp series with the engine's stats): the clock section, estimated from collectives, from P2P pairs (drift) and
	# set by hand (a doubtful offset: P2P receives before their sends)
	emit hosts.summary "$g/hosts" run summary "$g/hosts" --json --series --no-cache
	emit hpp.summary "$g/hpp" run summary "$g/hpp" --json --no-cache
	emit hpp.summary-offset "$g/hpp" run summary "$g/hpp" --json --no-cache \
		--clock-offset gen-node1=-1500000
	# the DB's own OVERLAP_ANALYSIS: the overlap_table member
	emit oa.summary "$g/oa" run summary "$g/oa" --json --no-cache
	emit gen.diff "$g" run diff "$g/grpo" "$g/slow" --json --no-cache
	emit gen.diff-ranks "$g" run diff "$g/slow" --rank 1 --vs 2 --json --no-cache
else
	not_ok "generate the profiles"
fi

# ---- the samples ------------------------------------------------------------------------------
if [ -d "$SAMPLES/ascend-db" ]; then
	s=$(cd "$SAMPLES" && pwd -P)
	all level0 "$s/ascend-db/level0"
	all level2 "$s/ascend-db/level2"
	[ -d "$s/ascend-text/level1" ] && all text1 "$s/ascend-text/level1"
	[ -d "$s/kineto" ] && all kineto-sample "$s/kineto"
	emit sample.diff "$s" run diff "$s/ascend-db/level0" "$s/ascend-db/level2" --json --no-cache
	emit sample.diff-ranks "$s" run diff "$s/ascend-db/level2" --rank 0 --vs 1 --json --no-cache
else
	skip "samples absent: $SAMPLES (generated profiles only)"
fi

# ---- against the sums -------------------------------------------------------------------------
if [ -n "$update" ]; then
	# keep the sums of outputs this run did not make (the samples, on a machine without them)
	: >"$t_tmp/new"
	[ -f "$SUMS" ] && while read -r name _; do
		grep -q "^$name " "$t_tmp/made" || grep "^$name " "$SUMS" >>"$t_tmp/new"
	done <"$SUMS"
	while read -r name _; do
		echo "$name $(sha256sum <"$out/$name" | cut -d' ' -f1)" >>"$t_tmp/new"
	done <"$t_tmp/made"
	sort "$t_tmp/new" >"$SUMS"
	echo "# wrote tests/golden/json_bytes.sha256"
fi
while read -r name rc; do
	check "$name: exits 0" [ "$rc" -eq 0 ]
	want=$(grep "^$name " "$SUMS" | cut -d' ' -f2)
	got=$(sha256sum <"$out/$name" | cut -d' ' -f1)
	if [ -z "$want" ]; then
		not_ok "$name: no sum in tests/golden/json_bytes.sha256 (TL_UPDATE_GOLDEN=1 adds it)"
	elif [ "$want" = "$got" ]; then
		ok "$name: byte-identical ($(wc -c <"$out/$name") bytes)"
	else
		not_ok "$name: its bytes changed (TL_JSON_BASELINE=OLD_TL shows where)"
	fi
	if [ $have_py = 1 ]; then
		# the export is several documents, each after its "== NAME" line
		if python3 - "$out/$name" <<'PY'; then ok "$name: parses as JSON"; else not_ok "$name: does not parse as JSON"; fi
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
parts = text.split("\n== ") if text.startswith("== ") else [text]
for p in parts:
    if p.startswith("== "):
        p = p[3:]
    if text.startswith("== "):
        p = p.split("\n", 1)[1]
    json.loads(p)
PY
	fi
done <"$t_tmp/made"
t_done
