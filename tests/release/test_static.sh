#!/bin/sh
# The static tl (make static) against the dynamic one built beside it: no shared libraries, runs
# with an empty environment and no terminfo database (built-in entries), and gives the same
# answers, byte for byte.
. "$TL_SRCDIR/tests/lib.sh"
S=$TL_BUILDDIR/static/tl-linux-$TL_BUILD_CPU
if [ ! -x "$S" ]; then
	not_ok "$S is missing (make static)"
	t_done
	exit 1
fi
export TZ=UTC LC_ALL=C.UTF-8
empty=$t_tmp/empty-terminfo
mkdir -p "$empty"

# ---- no shared libraries -------------------------------------------------------------------
check "readelf: no dynamic section (no NEEDED entry)" sh -c "LC_ALL=C readelf -d '$S' | grep -q 'no dynamic section'"
check "readelf: no program interpreter" sh -c "! LC_ALL=C readelf -l '$S' | grep -q INTERP"
if command -v file >/dev/null; then
	check "file: statically linked" sh -c "file -L '$S' | grep -q 'statically linked'"
else
	skip "file(1) absent"
fi
check "no NSS or iconv function is linked in" sh -c \
	"! nm '$S' 2>/dev/null | grep -qE ' (getpwnam|getpwuid|getgrnam|getaddrinfo|gethostbyname|iconv_open)\$'"

# ---- --version ------------------------------------------------------------------------------
env -i "$S" --version >"$t_tmp/v" 2>&1
check "--version runs under env -i" [ $? -eq 0 ]
check "--version: the version" grep -q "^tl $TL_VERSION\$" "$t_tmp/v"
check "--version: a git revision" grep -qE '^revision ([0-9a-f]{7,}|v?[0-9][^ ]*)' "$t_tmp/v"
check "--version: says static, and the built-in terminals" grep -q "^static $TL_BUILD_CPU build: .*xterm-256color.*vt100" "$t_tmp/v"
"$TL_BIN" --version >"$t_tmp/vd"
check "the dynamic build says dynamic" grep -q "^dynamic " "$t_tmp/vd"
check "both name the same revision" [ "$(sed -n 2p "$t_tmp/v")" = "$(sed -n 2p "$t_tmp/vd")" ]

# ---- the same answers -----------------------------------------------------------------------
same_json() { # same_json LABEL PATH: tl summary --json and tl info, static vs dynamic
	"$TL_BIN" summary "$2" --json >"$t_tmp/d.json" 2>"$t_tmp/d.err"
	rd=$?
	env -i "$S" summary "$2" --json >"$t_tmp/s.json" 2>"$t_tmp/s.err"
	rs=$?
	check "$1: summary --json, same exit status ($rd)" [ "$rd" = "$rs" ]
	check "$1: summary --json is byte for byte the dynamic build's" cmp -s "$t_tmp/d.json" "$t_tmp/s.json"
	check "$1: the same warnings" cmp -s "$t_tmp/d.err" "$t_tmp/s.err"
	"$TL_BIN" info "$2" >"$t_tmp/d.info" 2>&1
	env -i "$S" info "$2" >"$t_tmp/s.info" 2>&1
	check "$1: tl info is the same" cmp -s "$t_tmp/d.info" "$t_tmp/s.info"
}
if [ -d "$SAMPLES" ]; then
	for d in "$SAMPLES"/*/ "$SAMPLES"/*/*/; do
		[ -d "$d" ] || continue
		same_json "sample ${d#"$SAMPLES"/}" "$d"
	done
else
	skip "samples absent ($SAMPLES)"
fi
if "$TLGEN" screens "$t_tmp/gen" --ranks 4 --tasks 2000 --seed 3 >"$t_tmp/gen.log" 2>&1; then
	same_json "generated 4-rank profile" "$t_tmp/gen"
else
	not_ok "generate a profile"
fi
printf 'not json' >"$t_tmp/bad.json"
mkdir -p "$t_tmp/bad" && cp "$t_tmp/bad.json" "$t_tmp/bad/trace_view.json"
same_json "a bad input" "$t_tmp/bad"

# ---- terminals: built-in entries when no terminfo database is found ---------------------------
# $TERMINFO only comes first: ncurses then still reads ~/.terminfo, $TERMINFO_DIRS and the system
# directories. nodb runs a command with those hidden (empty directories mounted over them in a
# private user and mount namespace), as on a host that has no terminfo database at all.
cat >"$t_tmp/nodb" <<NODB
#!/bin/sh
exec unshare -rm sh -c 'for d in /etc/terminfo /lib/terminfo /usr/share/terminfo; do
	[ -d "\$d" ] && { mount --bind "$empty" "\$d" || exit 99; }; done; exec "\$@"' sh "\$@"
NODB
chmod +x "$t_tmp/nodb"
nodb=$t_tmp/nodb
if "$nodb" sh -c '! ls /lib/terminfo/* /usr/share/terminfo/* >/dev/null 2>&1' 2>/dev/null; then
	hide=$nodb
	"$nodb" env -i TERM=vt100 infocmp vt100 >/dev/null 2>&1
	check "without a database, infocmp finds no vt100 (the database is hidden)" [ $? -ne 0 ]
else
	hide=
	skip "no user namespaces here: the system terminfo directories cannot be hidden"
fi
script=$t_tmp/script
printf '+\n+\n:dump %s/screen.txt\n:dump-attrs %s/screen.attr\n' "$t_tmp" "$t_tmp" >"$script"
for term in xterm-256color xterm screen-256color screen tmux-256color tmux linux vt100; do
	TL_SCRIPT_TERM=$term TL_SCRIPT_OUT=$t_tmp/d.out "$TL_BIN" view "$t_tmp/gen" \
		--script "$script" --size 100x30 >/dev/null 2>&1
	mv "$t_tmp/screen.txt" "$t_tmp/d.txt"
	mv "$t_tmp/screen.attr" "$t_tmp/d.attr"
	$hide env -i LC_ALL=C.UTF-8 TERM=$term TL_SCRIPT_TERM=$term TERMINFO="$empty" \
		TL_SCRIPT_OUT="$t_tmp/s.out" "$S" view "$t_tmp/gen" --script "$script" \
		--size 100x30 >/dev/null 2>"$t_tmp/s.err"
	check "$term, no terminfo database, no HOME: script mode runs" [ $? -eq 0 ]
	check "$term: the same screen as the dynamic build's with the database" \
		cmp -s "$t_tmp/d.txt" "$t_tmp/screen.txt"
	check "$term: the same colours" cmp -s "$t_tmp/d.attr" "$t_tmp/screen.attr"
	check "$term: the same bytes to the terminal" cmp -s "$t_tmp/d.out" "$t_tmp/s.out"
done

# the database is still read first: $TERMINFO, then ~/.terminfo
if command -v tic >/dev/null; then
	mkdir -p "$t_tmp/ti" "$t_tmp/home/.terminfo"
	printf 'tltest|a terminal only this test knows,\n\tuse=vt100,\n' >"$t_tmp/tltest.src"
	tic -o "$t_tmp/ti" "$t_tmp/tltest.src" 2>/dev/null
	tic -o "$t_tmp/home/.terminfo" "$t_tmp/tltest.src" 2>/dev/null
else
	skip "tic absent: the database lookups are not tested"
fi

# ---- a real terminal: tmux ------------------------------------------------------------------
if command -v tmux >/dev/null && [ -d "$t_tmp/ti" ]; then
	n=0
	T=
	trap '[ -n "$T" ] && $T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
	# run ENV...: the static tl view in a fresh tmux with only ENV; the pane in $t_tmp/pane
	run() {
		[ -n "$T" ] && $T kill-server 2>/dev/null
		n=$((n + 1))
		T="tmux -L tl-static-$$-$n -f /dev/null"
		$T new-session -d -x 100 -y 30 -s t \
			"$hide env -i $* '$S' view '$t_tmp/gen'; echo EXIT=\$?; sleep 60"
		i=0
		while [ $i -lt 100 ]; do
			$T capture-pane -p -t t >"$t_tmp/pane"
			grep -q "rank 0\|EXIT=" "$t_tmp/pane" && break
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.3
		$T capture-pane -p -t t >"$t_tmp/pane"
	}
	quit() {
		$T send-keys -t t q
		i=0
		while [ $i -lt 50 ] && ! grep -q "EXIT=" "$t_tmp/pane"; do
			sleep 0.1
			$T capture-pane -p -t t >"$t_tmp/pane"
			i=$((i + 1))
		done
		grep -q "EXIT=0" "$t_tmp/pane"
	}
	run "TERM=tmux-256color TERMINFO='$empty'"
	check "tmux, TERM=tmux-256color, no terminfo database, no HOME: the viewer opens" grep -q "rank 0" "$t_tmp/pane"
	check "... and q quits with status 0" quit
	run "TERM=screen TERMINFO='$empty' LANG=C"
	check "tmux, TERM=screen, C locale: the viewer opens" grep -q "rank 0" "$t_tmp/pane"
	check "... and q quits with status 0" quit
	run "TERM=tltest"
	check "an unknown terminal fails with one line" grep -q "^tl: cannot set up the terminal (TERM=tltest)" "$t_tmp/pane"
	run "TERM=tltest TERMINFO='$t_tmp/ti'"
	check "a terminal described in \$TERMINFO is found" grep -q "rank 0" "$t_tmp/pane"
	check "... and q quits with status 0" quit
	run "TERM=tltest HOME='$t_tmp/home'"
	check "a terminal described in ~/.terminfo is found" grep -q "rank 0" "$t_tmp/pane"
	check "... and q quits with status 0" quit
	if [ -n "$hide" ]; then
		hide=
		run "TERM=tmux-256color"
		check "with the database: the viewer opens" grep -q "rank 0" "$t_tmp/pane"
		check "... and q quits with status 0" quit
	fi
	$T kill-server 2>/dev/null
	T=
else
	skip "tmux or tic absent"
fi
t_done
