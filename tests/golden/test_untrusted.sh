#!/bin/sh
# Untrusted text never reaches the terminal raw: a generated profile whose every name carries
# escape sequences (OSC, CSI, C1), C0 controls, invalid UTF-8 or 100 KB of text, in a role
# directory that is itself an escape sequence. `tl info`, `tl summary` (text and JSON), the
# warnings and a scripted `tl view` must print them escaped, replaced or cut: no ESC, no C0
# but newline, no C1, valid UTF-8, valid JSON, screen lines of the screen's width.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"
unset NO_COLOR

if ! command -v python3 >/dev/null; then
	skip "python3 absent (tools/install-deps --test installs it): untrusted text not checked"
	t_done
	exit
fi
h=$t_tmp/h
if ! "$TLGEN" hostile "$h" >"$t_tmp/fixture.log" 2>&1; then
	cat "$t_tmp/fixture.log"
	not_ok "tlgen hostile builds the profile"
	t_done
	exit 1
fi
# one more source whose path is an escape sequence and whose content is not a DB: a warning
bad="$h/db/1/$(printf 'bad\033[31mEVIL')_ascend_pt/ASCEND_PROFILER_OUTPUT"
mkdir -p "$bad"
echo "not a database" >"$bad/ascend_pytorch_profiler_5.db"

# clean FILE [json]: no ESC, no C0 but \n (and \t), no C1, valid UTF-8 (and valid JSON)
cat >"$t_tmp/clean.py" <<'PY'
import json, sys
data = open(sys.argv[1], 'rb').read()
bad = [b for b in set(data) if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f]
if bad:
    sys.exit("raw control bytes %s at offset %d" % (sorted(bad), min(data.index(bytes([b])) for b in bad)))
try:
    text = data.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit("invalid UTF-8: %s" % e)
c1 = [c for c in text if 0x80 <= ord(c) < 0xa0]
if c1:
    sys.exit("C1 controls %s" % [hex(ord(c)) for c in set(c1)])
if len(sys.argv) > 2 and sys.argv[2] == 'json':
    json.loads(text)
if len(sys.argv) > 2 and sys.argv[2].startswith('width='):
    w = int(sys.argv[2][6:])
    for i, line in enumerate(text.split('\n')[:-1]):
        if len(line) != w:
            sys.exit("screen line %d is %d characters wide, not %d" % (i + 1, len(line), w))
if len(sys.argv) > 2 and sys.argv[2].startswith('maxline='):
    m = int(sys.argv[2][8:])
    longest = max(len(l) for l in text.split('\n'))
    if longest > m:
        sys.exit("a line of %d characters (a name not cut)" % longest)
PY
clean() { python3 "$t_tmp/clean.py" "$@" 2>"$t_tmp/why" || { sed 's/^/# /' "$t_tmp/why"; return 1; }; }

for kind in db json; do
	p=$h/$kind
	"$TL" info "$p" >"$t_tmp/info.out" 2>"$t_tmp/info.err"
	check "$kind: info exits 0" [ $? -eq 0 ]
	check "$kind: info output is clean" clean "$t_tmp/info.out"
	check "$kind: info warnings are clean" clean "$t_tmp/info.err"
	"$TL" summary "$p" >"$t_tmp/sum.out" 2>"$t_tmp/sum.err"
	check "$kind: summary exits 0" [ $? -eq 0 ]
	check "$kind: summary output is clean, long names cut (no line over 300 characters)" \
		clean "$t_tmp/sum.out" maxline=300
	check "$kind: summary warnings are clean" clean "$t_tmp/sum.err"
	"$TL" summary "$p" --json >"$t_tmp/sum.json" 2>"$t_tmp/sumj.err"
	check "$kind: summary --json exits 0" [ $? -eq 0 ]
	check "$kind: summary --json is valid JSON with no raw control bytes" clean "$t_tmp/sum.json" json
	check "$kind: summary --json warnings are clean" clean "$t_tmp/sumj.err"
	if [ $kind = db ]; then
		check "the role directory is shown escaped in info" \
			grep -qF '\x1b]0;PWNED\x07role' "$t_tmp/info.out"
		check "the role shows as a stage in summary, escaped" \
			grep -qF 'other:\x1b]0;PWNED' "$t_tmp/sum.out"
		check "the bad file's path is named escaped in a warning" \
			grep -qF 'bad\x1b[31mEVIL_ascend_pt' "$t_tmp/sum.err"
	fi
done

# the viewer: names on lanes, in the status line, in the detail pane (Enter), the help
# screen, the search prompt; the bytes a terminal would receive are kept (TL_SCRIPT_OUT)
cat >"$t_tmp/keys" <<'KEYS'
e
J
j
j
j
<Enter>
:dump SCREEN1
.
.
<Enter>
/.*
n
:dump SCREEN2
:goto 1s
<End>
<Enter>
:dump SCREEN3
D
:dump SCREEN4
]
:dump SCREEN5
KEYS
sed -i "s|SCREEN|$t_tmp/screen|" "$t_tmp/keys"
for kind in db json; do
	TL_SCRIPT_OUT=$t_tmp/term-$kind.out "$TL" view "$h/$kind" --script "$t_tmp/keys" \
		--size 120x40 >/dev/null 2>"$t_tmp/view.err"
	check "$kind: view runs the script (exit 0)" [ $? -eq 0 ]
	for n in 1 2 3 4 5; do
		check "$kind: screen $n is clean, every line 120 columns wide" \
			clean "$t_tmp/screen$n" width=120
	done
	python3 - "$t_tmp/term-$kind.out" <<'PY' >"$t_tmp/why" 2>&1
import re, sys
data = open(sys.argv[1], 'rb').read()
for pat in (rb'\x1b\]0;PWNED', rb'\x1b\[31mEVIL', rb'\x9b31mEVIL', rb'\x1b\[2J\x1b\[31m'):
    if re.search(pat, data):
        sys.exit("the terminal received %r" % pat)
if b'EVIL' not in data and b'PWNED' not in data:
    sys.exit("no hostile name was drawn at all (the test would prove nothing)")
PY
	check "$kind: no injected escape sequence reached the terminal" [ $? -eq 0 ]
	sed 's/^/# /' "$t_tmp/why"
	check "$kind: the detail pane showed a hostile name escaped" \
		grep -qE '\\x1b|\\x9b|\\x07|\\n' "$t_tmp/screen1" "$t_tmp/screen2" "$t_tmp/screen3"
	if [ $kind = db ]; then
		check "$kind: the DP panel names the hostile stage escaped" \
			grep -qE 'DP load imbalance: stage other:\\x1b' "$t_tmp/screen4" "$t_tmp/screen5"
	fi
done
t_done
