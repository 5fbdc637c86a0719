#!/bin/sh
# End-to-end: `tl view` in a real terminal (tmux), driven by send-keys, read back with
# capture-pane -e, colours included: what a user over SSH would see.
. "$(dirname "$0")/lib_tui.sh"
if ! command -v tmux > /dev/null 2>&1; then
	skip "tmux absent"
	t_done
	exit 0
fi
if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
P=$t_tmp/two
n_server=0
T=
# a fresh tmux server per run (a killed server may still be exiting)
server() {
	[ -n "$T" ] && $T kill-server 2> /dev/null
	n_server=$((n_server + 1))
	T="tmux -L tl-test-$$-$n_server -f /dev/null"
}
trap '[ -n "$T" ] && $T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT

# start SIZE [ENV...]: tl view in a fresh session; after it exits the shell prints EXIT=status
start() {
	size=$1
	shift
	server
	$T new-session -d -x "${size%x*}" -y "${size#*x}" -s t \
		"env $* TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' sh -c 'echo \$\$ > \"$t_tmp/pid\"; exec \"$TL_BIN\" view \"$P\"'; echo EXIT=\$?; sleep 120"
	wait_for "rank 0"
}
cap() { $T capture-pane -p -e -t t > "$t_tmp/pane.e"; $T capture-pane -p -t t > "$t_tmp/pane"; }
# wait_for TEXT: up to 10 s for TEXT to appear on the pane
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		cap
		if grep -qF -- "$1" "$t_tmp/pane"; then
			sleep 0.3 # let the frame finish
			cap
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
keys() { $T send-keys -t t "$@"; }
esc=$(printf '\033')

start 120x40
check "the viewer opens in a 120x40 terminal" grep -q "rank 1" "$t_tmp/pane"
check "the alternate screen is in use" [ "$($T display -p -t t '#{alternate_on}')" = 1 ]
check "compute is drawn in the theme's 256-colour green" grep -q "38;5;114m\|48;5;114m" "$t_tmp/pane.e"
check "the cursor column is yellow" grep -q "48;5;226m" "$t_tmp/pane.e"
check "the status line is white on blue" grep -q "38;5;231m.*48;5;24m\|48;5;24m.*38;5;231m" "$t_tmp/pane.e"

keys b
wait_for "Bubbles:"
check "b: bubbles in the free colour" grep -q "38;5;131m\|48;5;131m" "$t_tmp/pane.e"

keys / m a t m u l Enter
wait_for "Match "
check "/matmul: the match count on the message line" grep -q "^Match [0-9]* of [0-9]*: aclnnMatmul" "$t_tmp/pane"
check "matches in the match colour" grep -q "48;5;201m\|38;5;201m" "$t_tmp/pane.e"
check "the status line counts matches" grep -q "| match [0-9]*/[0-9]*" "$t_tmp/pane"

keys Escape Escape : z o o m Space 3 0 m s Space 3 0 . 3 m s Enter
wait_for "30.3"
check ":zoom draws names on solid runs" grep -q "aclnn" "$t_tmp/pane"

# the mouse: a wheel notch over the lanes zooms in (X10 encoding, as tmux forwards it)
before=$(sed -n 1p "$t_tmp/pane" | cut -c1-12)
keys -l "${esc}[M\`P("
sleep 0.5
cap
after=$(sed -n 1p "$t_tmp/pane" | cut -c1-12)
check "mouse wheel zooms ($before -> $after)" [ "$before" != "$after" ]

$T resize-window -t t -x 80 -y 24
wait_for "rank 0"
sleep 0.3
cap
check "resized to 80x24: still drawn, status on row 23" sh -c "sed -n 23p '$t_tmp/pane' | grep -q 'cursor'"
$T resize-window -t t -x 30 -y 8
sleep 0.5
cap
check "30x8: terminal too small" grep -q "terminal too small" "$t_tmp/pane"
$T resize-window -t t -x 100 -y 30
sleep 0.5
cap
check "and back: recovers" grep -q "rank 0" "$t_tmp/pane"

# the panels of communication and slow ranks open over the timeline and close with q
keys X
wait_for "Communication"
check "X: the communication panel in a terminal" sh -c "sed -n 1p '$t_tmp/pane' | grep -q '^ Communication'"
keys q
wait_for "rank 0"
keys R
wait_for "Slow ranks"
check "R: the slow-rank panel in a terminal" sh -c "sed -n 1p '$t_tmp/pane' | grep -q '^ Slow ranks'"
keys q
wait_for "rank 0"
keys I
wait_for "Operators"
check "I: the operator panel in a terminal" sh -c "sed -n 1p '$t_tmp/pane' | grep -q '^ Operators of rank'"
keys q
wait_for "rank 0"
check "q: back to the timeline" grep -q "rank 0" "$t_tmp/pane"

# u: from a kernel to its launch call, the host lanes turned on, markers on both ends
keys : z o o m Space 3 3 . 5 2 m s Space 3 3 . 6 m s Enter
wait_for "33.5"
keys '^' j j j j j .
sleep 0.3
keys u
wait_for "Launch call"
check "u in a terminal: the launch call, how long before the task" sh -c "tail -1 '$t_tmp/pane' | grep -Eq '^Launch call launch, [0-9.]+ us before the task started'"
check "... the host lanes are on" grep -q "host CANN" "$t_tmp/pane"
check "... a link marker on each end, in the link colour" sh -c "[ \$(grep -o '◆' '$t_tmp/pane' | wc -l) -ge 2 ] && grep -q '38;5;226m' '$t_tmp/pane.e'"

keys '?'
wait_for "tl help"
check "? shows the help" grep -q "dp-panel" "$t_tmp/pane"
keys q
sleep 0.3
keys q
wait_for "EXIT="
check "q quits with status 0" grep -q "EXIT=0" "$t_tmp/pane"
check "the terminal is restored (no alternate screen)" [ "$($T display -p -t t '#{alternate_on}')" = 0 ]

# signals restore the terminal too
start 100x30
pid=$(cat "$t_tmp/pid" 2> /dev/null)
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	wait_for "EXIT="
	check "SIGTERM: the terminal is restored" [ "$($T display -p -t t '#{alternate_on}')" = 0 ]
	check "SIGTERM: exit status 143" grep -q "EXIT=143" "$t_tmp/pane"
else
	not_ok "find the tl process"
fi
start 100x30
keys C-c
wait_for "EXIT="
check "Ctrl-C quits and restores the terminal" [ "$($T display -p -t t '#{alternate_on}')" = 0 ]

# no colours when asked
start 100x30 NO_COLOR=1
check "NO_COLOR: no colour sequences" sh -c "! grep -q '38;5;\|48;5;\|\[3[0-7]m\|\[4[0-7]m' '$t_tmp/pane.e'"
check "NO_COLOR: attributes still mark the cursor (reverse)" grep -q "${esc}\[[0-9;]*7m" "$t_tmp/pane.e"
keys q
# 8-colour terminal
server
$T new-session -d -x 100 -y 30 -s t \
	"env TERM=xterm LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$TL_BIN' view '$P'; echo EXIT=\$?; sleep 120"
wait_for "rank 0"
check "8 colours: basic colours only" sh -c "grep -q '\[3[0-7]m\|\[4[0-7]m\|;3[0-7]m\|;4[0-7]m' '$t_tmp/pane.e' && ! grep -q '38;5;' '$t_tmp/pane.e'"
keys q
# LANG=C: ASCII drawing
server
$T new-session -d -x 100 -y 30 -s t \
	"env TERM=tmux-256color LC_ALL=C XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$TL_BIN' view '$P'; echo EXIT=\$?; sleep 120"
wait_for "rank 0"
check "LANG=C: ASCII lanes" sh -c "grep -q '^- rank 0' '$t_tmp/pane' && ! LC_ALL=C grep -q '[^ -~]' '$t_tmp/pane'"
keys q
wait_for "EXIT="

# the session killed under a running viewer (what every server() above does): it ends within
# 5 s, not left spinning (a sanitized build's exit-time leak scan used to hang there)
start 100x30
pid=$(cat "$t_tmp/pid" 2>/dev/null)
$T kill-session -t t 2>/dev/null
$T kill-server 2>/dev/null
T=
i=0
st=
while [ $i -lt 50 ]; do
	st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.1
	i=$((i + 1))
done
check "kill-session: the viewer ends within 5 s (state ${st:-gone})" sh -c "[ -n '$pid' ] && { [ -z '$st' ] || [ '$st' = Z ]; }"
[ -n "$st" ] && [ "$st" != Z ] && kill -9 "$pid" 2>/dev/null
t_done
