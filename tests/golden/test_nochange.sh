#!/bin/sh
# Nothing lost, nothing changed: over every sample (../shared/samples, never written to) and
# generated fixtures (DB and JSON), `tl info`, `tl summary`, `tl summary --json` and a scripted
# `tl view` (which reads slice arguments back from the DBs) leave every input byte-identical,
# with the same mtime and mode, and no file (journal, -wal, -shm, cache) appears beside them.
# Under strace, no write-capable open and no mutating call touches an input path (CI runs as
# root, where file modes prove nothing). Read-only copies (0444 files, 0555 directories) and a
# read-only filesystem (a tmpfs remounted read-only in a private mount namespace) load with the
# same numbers.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"

# ---- the inputs -------------------------------------------------------------------------------
profiles=""
gen=$t_tmp/gen
mkdir -p "$gen"
if "$TLGEN" screens "$gen/both" --ranks 2 --tasks 600 --json >/dev/null 2>&1; then
	cp -r "$gen/both" "$gen/db" && find "$gen/db" -name trace_view.json -exec rm {} +
	cp -r "$gen/both" "$gen/json" && find "$gen/json" -name '*.db' -exec rm {} +
	rm -rf "$gen/both"
	profiles="$gen/db $gen/json"
	# WAL-mode DBs: SQLite's own read-only open would create -wal and -shm beside them
	if command -v sqlite3 >/dev/null; then
		cp -r "$gen/db" "$gen/wal"
		find "$gen/wal" -name '*.db' -exec sqlite3 {} 'PRAGMA journal_mode=WAL;' \; >/dev/null
		profiles="$profiles $gen/wal"
	else
		skip "sqlite3 absent: no WAL-mode fixture"
	fi
else
	not_ok "generate the fixtures"
fi
if [ -d "$SAMPLES" ]; then
	for d in ascend-db/level0 ascend-db/level2 ascend-text/level1 kineto; do
		[ -d "$SAMPLES/$d" ] && profiles="$profiles $(cd "$SAMPLES/$d" && pwd -P)"
	done
else
	skip "samples absent: $SAMPLES (only generated fixtures checked)"
fi

# the viewer: select slices on several lanes (their arguments are read from the DB again)
cat >"$t_tmp/keys" <<'KEYS'
e
j
j
<Enter>
j
<Enter>
J
j
j
j
<Enter>
b
B
:quit
KEYS

# snapshot DIR: every path below DIR with its type, size, mode, mtime and content checksum
snapshot() {
	(cd "$1" && find . -printf '%y %s %m %T@ %p\n' | sort && find . -type f -exec sha256sum {} + | sort)
}

# the mutating calls strace may show on an input path
mutating='(unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|rmdir|chmod|fchmodat|chown|lchown|fchownat|truncate|utime|utimes|utimensat|futimesat|link|linkat|symlink|symlinkat|mknod|mknodat|setxattr|lsetxattr|removexattr|lremovexattr)\('
have_strace=0
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	have_strace=1
else
	skip "strace absent or not permitted (tools/install-deps --test installs it): no syscall proof"
fi

# run NAME COMMAND...: under strace when there is one (its log in $t_tmp/trace; LeakSanitizer
# cannot work under ptrace, so a sanitized build checks leaks in the other tests)
run() {
	if [ $have_strace = 1 ]; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -qq -e trace=%file -o "$t_tmp/trace" "$@"
	else
		"$@"
	fi
}

# writes_to DIR: the strace log shows a write-capable open or a mutating call on a path in DIR
writes_to() {
	grep -E "\"$1[/\"]" "$t_tmp/trace" | grep -E "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|(^|[0-9] )$mutating" \
		>"$t_tmp/writes"
	if [ -s "$t_tmp/writes" ]; then
		sed 's/^/# /' "$t_tmp/writes" | head -5
		return 0
	fi
	return 1
}

for p in $profiles; do
	name=${p#"$t_tmp/"}
	name=${name#"$(cd "$SAMPLES" 2>/dev/null && pwd -P)/"}
	snapshot "$p" >"$t_tmp/before"
	for cmd in info summary json view; do
		case $cmd in
		info) run "$TL" info "$p" >"$t_tmp/out" 2>"$t_tmp/err" ;;
		summary) run "$TL" summary "$p" >"$t_tmp/out" 2>"$t_tmp/err" ;;
		json) run "$TL" summary "$p" --json >"$t_tmp/out.json" 2>"$t_tmp/err" ;;
		view) run "$TL" view "$p" --script "$t_tmp/keys" --size 120x40 >"$t_tmp/out" 2>"$t_tmp/err" ;;
		esac
		rc=$?
		check "$name: tl $cmd exits 0" [ $rc -eq 0 ]
		[ $rc -ne 0 ] && sed 's/^/# /' "$t_tmp/err" | head -3
		if [ $have_strace = 1 ]; then
			if writes_to "$p"; then
				not_ok "$name: tl $cmd opened an input for writing or changed one"
			else
				ok "$name: tl $cmd: no write-capable open, no mutating call on an input (strace)"
			fi
		fi
	done
	cp "$t_tmp/out.json" "$t_tmp/want.json"
	snapshot "$p" >"$t_tmp/after"
	if cmp -s "$t_tmp/before" "$t_tmp/after"; then
		ok "$name: every input byte-identical (same mtime and mode), no file appeared or went"
	else
		diff "$t_tmp/before" "$t_tmp/after" | head -10 | sed 's/^/# /'
		not_ok "$name: the inputs changed"
	fi

	# a read-only copy: 0444 files in 0555 directories
	ro=$t_tmp/ro
	rm -rf "$ro"
	cp -r "$p" "$ro"
	find "$ro" -type f -exec chmod 0444 {} +
	find "$ro" -type d -exec chmod 0555 {} +
	snapshot "$ro" >"$t_tmp/before"
	"$TL" summary "$ro" --json >"$t_tmp/ro.json" 2>"$t_tmp/err"
	check "$name: a 0444/0555 copy loads with the same numbers" cmp -s "$t_tmp/ro.json" "$t_tmp/want.json"
	"$TL" view "$ro" --script "$t_tmp/keys" --size 120x40 >/dev/null 2>&1
	snapshot "$ro" >"$t_tmp/after"
	check "$name: the 0444/0555 copy is unchanged" cmp -s "$t_tmp/before" "$t_tmp/after"
	find "$ro" -type d -exec chmod 0755 {} +
	rm -rf "$ro"
done

# ---- a read-only filesystem ---------------------------------------------------------------------
# a tmpfs remounted read-only in a private mount namespace: root in CI, an unprivileged user
# namespace elsewhere; skipped where neither is allowed (a container without CAP_SYS_ADMIN)
userns=""
[ "$(id -u)" -ne 0 ] && userns="-r"
if command -v unshare >/dev/null && unshare $userns -m --propagation private true 2>/dev/null; then
	for p in $profiles; do
		name=${p#"$t_tmp/"}
		name=${name#"$(cd "$SAMPLES" 2>/dev/null && pwd -P)/"}
		mnt=$t_tmp/mnt
		mkdir -p "$mnt"
		"$TL" summary "$p" --json >"$t_tmp/want.json" 2>/dev/null
		unshare $userns -m --propagation private sh -c '
			mount -t tmpfs tl-test "$1" && cp -r "$2/." "$1/" &&
			mount -o remount,ro "$1" &&
			if touch "$1/.probe" 2>/dev/null; then echo writable; exit 3; fi &&
			"$3" summary "$1" --json >"$4" 2>"$5" &&
			"$3" view "$1" --script "$6" --size 120x40 >/dev/null 2>&1' \
			sh "$mnt" "$p" "$TL" "$t_tmp/rofs.json" "$t_tmp/err" "$t_tmp/keys" >"$t_tmp/rofs.out" 2>&1
		rc=$?
		if [ $rc -eq 3 ]; then
			skip "$name: the remounted tmpfs still took a write"
		else
			check "$name: on a read-only filesystem: loads (summary and view exit 0)" [ $rc -eq 0 ]
			check "$name: on a read-only filesystem: the same numbers" cmp -s "$t_tmp/rofs.json" "$t_tmp/want.json"
		fi
	done
else
	skip "no private mount namespace here (unshare -m refused): read-only filesystem not checked"
fi
t_done
