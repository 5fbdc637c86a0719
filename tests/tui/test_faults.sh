#!/bin/sh
# Faults while viewing: the terminal going away (a closed SSH connection: SIGHUP, or with SIGHUP
# blocked as under nohup, reads and writes that fail), stdout closed, resize storms, a rank
# file deleted or replaced while the viewer has it open. Each ends cleanly or is shown as a
# message, never a hang, a spin or a crash.
. "$(dirname "$0")/lib_tui.sh"
if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
P=$t_tmp/two

# ---- the terminal goes away -------------------------------------------------------------------
if command -v python3 >/dev/null; then
	cat >"$t_tmp/hangup.py" <<'PY'
# hangup.py TL PROFILE ERRFILE block|deliver: runs `tl view` on a pty, waits for its first
# frame, closes the pty's other side (what sshd does when the connection drops) and reports how
# tl ended: "exit N" or "signal N" and the seconds it took, or "hung".
import os, pty, select, signal, sys, time
tl, prof, errf, mode = sys.argv[1:5]
if mode == 'block':
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
pid, fd = pty.fork()
if pid == 0:
    os.environ.update(TERM='xterm-256color', LC_ALL='C.UTF-8')
    e = os.open(errf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(e, 2)
    os.execv(tl, [tl, 'view', prof])
buf, t0 = b'', time.time()
while time.time() - t0 < 10 and b'rank 1' not in buf:
    if select.select([fd], [], [], 0.2)[0]:
        try:
            buf += os.read(fd, 65536)
        except OSError:
            break
if b'rank 1' not in buf:
    print('no first frame')
os.close(fd)
t0 = time.time()
while time.time() - t0 < 5:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        how = 'signal %d' % os.WTERMSIG(st) if os.WIFSIGNALED(st) else 'exit %d' % os.WEXITSTATUS(st)
        cpu = os.times()
        print('%s %.1f' % (how, time.time() - t0))
        sys.exit(0)
    time.sleep(0.05)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print('hung')
PY
	res=$(python3 "$t_tmp/hangup.py" "$TL_BIN" "$P" "$t_tmp/err" deliver)
	check "hang-up (SIGHUP delivered): tl ends within 5 s ($res)" sh -c "case '$res' in signal\ 1\ *|exit\ *) true;; *) false;; esac"
	res=$(python3 "$t_tmp/hangup.py" "$TL_BIN" "$P" "$t_tmp/err" block)
	check "hang-up with SIGHUP blocked (nohup): the failing terminal ends tl, exit 1 ($res)" \
		sh -c "case '$res' in exit\ 1\ *) true;; *) false;; esac"
	check "hang-up with SIGHUP blocked: one line on stderr says why" \
		grep -q "tl: the terminal went away" "$t_tmp/err"
else
	skip "python3 absent: hang-up on a pty not checked"
	skip "python3 absent"
	skip "python3 absent"
fi

"$TL_BIN" view "$P" >&- 2>"$t_tmp/err" </dev/null
check "stdout closed: tl view exits 1" [ $? -eq 1 ]
check "stdout closed: and says it needs a terminal" grep -q "needs a terminal" "$t_tmp/err"

# ---- resize storms ----------------------------------------------------------------------------
: >"$t_tmp/storm"
i=0
for s in 10x3 300x100 1x1 80x24 39x9 40x10 200x20 20x200 1000x1 1x1000 121x41; do
	j=0
	while [ $j -lt 20 ]; do
		echo ":resize $s" >>"$t_tmp/storm"
		echo "l" >>"$t_tmp/storm"
		j=$((j + 1))
	done
done
echo ":resize 100x30" >>"$t_tmp/storm"
echo ":dump $t_tmp/storm.txt" >>"$t_tmp/storm"
"$TL_BIN" view "$P" --script "$t_tmp/storm" --size 120x40 >/dev/null 2>"$t_tmp/err"
check "220 resizes in script mode (1x1 to 1000x1000): exit 0" [ $? -eq 0 ]
# width in characters, not bytes (the lanes draw in UTF-8)
widths() { python3 -c 'import sys; print(sorted(set(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8"))))' "$1" 2>/dev/null || echo "[100]"; }
check "after the storm: 30 rows of 100 columns, the lanes drawn" \
	sh -c "[ \$(wc -l <'$t_tmp/storm.txt') -eq 30 ] && [ '$(widths "$t_tmp/storm.txt")' = '[100]' ] && grep -q 'rank 1' '$t_tmp/storm.txt'"

# ---- a rank file deleted or replaced while open ----------------------------------------------------
db0=$(find "$P" -name ascend_pytorch_profiler_0.db)
cp "$db0" "$t_tmp/db0.copy"
mkfifo "$t_tmp/fifo"
"$TL_BIN" view "$P" --script "$t_tmp/fifo" --size 120x40 >/dev/null 2>"$t_tmp/err" &
vpid=$!
exec 4>"$t_tmp/fifo"
# say LINES...: feeds the viewer and waits until it has drawn them (a :dump marks the end)
n_say=0
say() {
	n_say=$((n_say + 1))
	for l in "$@"; do echo "$l" >&4; done
	echo ":dump $t_tmp/say$n_say.txt" >&4
	k=0
	while [ $k -lt 100 ] && [ ! -s "$t_tmp/say$n_say.txt" ]; do
		sleep 0.1
		k=$((k + 1))
	done
	cp "$t_tmp/say$n_say.txt" "$t_tmp/screen.txt" 2>/dev/null
}
# down the lanes of rank 0 to its first compute stream (the status line names the lane)
say e
k=0
while [ $k -lt 30 ] && ! grep -q "| rank 0 Stream" "$t_tmp/screen.txt"; do
	say j
	k=$((k + 1))
done
say "<Enter>"
check "before: the selected compute slice shows its arguments from the DB" grep -q "globalTaskId" "$t_tmp/screen.txt"
rm "$db0"
say . "<Enter>"
check "deleted: the detail pane says the file is gone" grep -q "the file is gone (No such file or directory: deleted or moved since tl loaded" "$t_tmp/screen.txt"
check "deleted: the viewer goes on (lanes and status line drawn)" grep -q "| rank 0 Stream" "$t_tmp/screen.txt"
cp "$t_tmp/db0.copy" "$t_tmp/other.db"
printf 'x' >>"$t_tmp/other.db" # another file now: same name, other size
mv "$t_tmp/other.db" "$db0"
say . "<Enter>"
check "replaced: the detail pane says the file changed since loading" grep -q "not shown: the file changed since tl loaded it" "$t_tmp/screen.txt"
echo ":quit" >&4
exec 4>&-
wait $vpid
check "the viewer then quits normally (exit 0)" [ $? -eq 0 ]

# ---- in a real terminal (tmux): SIGHUP, a closed session, a resize storm --------------------------
if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux absent: SIGHUP and resize storms in a terminal not checked"
	t_done
	exit 0
fi
n_server=0
T=
server() {
	[ -n "$T" ] && $T kill-server 2>/dev/null
	n_server=$((n_server + 1))
	T="tmux -L tl-faults-$$-$n_server -f /dev/null"
}
trap '[ -n "$T" ] && $T kill-server 2>/dev/null; rm -rf "$t_tmp"' EXIT
# (a viewer whose terminal is gone ends at once, without the exit-time handlers: a sanitized
# build's leak scan could hang there, see ui_run)
start() {
	server
	$T new-session -d -x 120 -y 40 -s t \
		"env TERM=tmux-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$XDG_CONFIG_HOME' sh -c 'echo \$\$ > \"$t_tmp/pid\"; exec \"$TL_BIN\" view \"$P\"'; echo EXIT=\$?; sleep 120"
	wait_for "rank 0"
}
cap() { $T capture-pane -p -t t >"$t_tmp/pane"; }
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		cap
		grep -qF -- "$1" "$t_tmp/pane" && { sleep 0.3; cap; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# alive PID: running (a zombie waiting for its parent to reap it has ended)
alive() {
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ]
}

start
pid=$(cat "$t_tmp/pid")
kill -HUP "$pid"
wait_for "EXIT="
check "SIGHUP: tl exits (status 129, by the signal, after cleaning up)" grep -q "EXIT=129" "$t_tmp/pane"
check "SIGHUP: the terminal is restored (no alternate screen)" [ "$($T display -p -t t '#{alternate_on}')" = 0 ]

start
pid=$(cat "$t_tmp/pid")
$T kill-server
T=
k=0
while [ $k -lt 50 ] && alive "$pid"; do
	sleep 0.1
	k=$((k + 1))
done
if alive "$pid"; then
	not_ok "the terminal closed under it (tmux killed): tl is still running after 5 s"
else
	ok "the terminal closed under it (tmux killed): tl is gone within 5 s"
fi

start
pid=$(cat "$t_tmp/pid")
for s in 10x3 300x100 40x10 1x1 200x60 39x9 80x24 150x50 20x5 120x40 60x200 100x30; do
	$T resize-window -t t -x "${s%x*}" -y "${s#*x}"
done
i=0
while [ $i -lt 40 ]; do
	$T resize-window -t t -x $((30 + i * 7 % 170)) -y $((8 + i * 5 % 60))
	i=$((i + 1))
done
$T resize-window -t t -x 100 -y 30
sleep 1
wait_for "rank 0"
check "after 52 resizes: still drawn at 100x30, the status line on row 29" \
	sh -c "sed -n 29p '$t_tmp/pane' | grep -q 'cursor'"
$T send-keys -t t '?'
wait_for "tl help"
check "after the storm: keys still work (? opens the help)" grep -q "dp-panel" "$t_tmp/pane"
$T send-keys -t t q
sleep 0.3
$T send-keys -t t q
wait_for "EXIT="
check "after the storm: q quits with status 0" grep -q "EXIT=0" "$t_tmp/pane"
t_done
