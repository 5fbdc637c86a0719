#!/bin/sh
# The Debian package (make deb): what it holds, lintian at its default level, and the package
# unpacked into a scratch root (dpkg -x) works from there: tl --version, man -l of its page,
# tl summary with the build's answers.
. "$TL_SRCDIR/tests/lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
arch=$(dpkg --print-architecture)
deb=$TL_BUILDDIR/deb/tl_${TL_VERSION}_$arch.deb
if [ ! -f "$deb" ]; then
	not_ok "$deb is missing (make deb)"
	t_done
	exit 1
fi
check "the package's version is configure's ($TL_VERSION)" \
	[ "$(dpkg-deb -f "$deb" Version)" = "$TL_VERSION" ]
check "it depends on the shared libraries it links" sh -c \
	"dpkg-deb -f '$deb' Depends | grep -q 'libncursesw6.*libsqlite3-0\|libsqlite3-0.*libncursesw6'"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's,^\./,/,' >"$t_tmp/files"
for f in /usr/bin/tl /usr/share/man/man1/tl.1.gz /usr/share/man/man5/tl-keymap.5.gz \
	/usr/share/man/man5/tl-theme.5.gz /usr/share/tl/themes/default.theme \
	/usr/share/tl/themes/light.theme /usr/share/tl/themes/mono.theme \
	/usr/share/tl/keymaps/default.keys /usr/share/tl/keymaps/vim.keys \
	/usr/share/tl/keymaps/emacs.keys /usr/share/tl/stages.default /usr/share/doc/tl/copyright; do
	check "the package installs $f" grep -qx "$f" "$t_tmp/files"
done
if command -v lintian >/dev/null; then
	lintian --fail-on error,warning "$TL_BUILDDIR"/deb/tl_"$TL_VERSION"_"$arch".changes \
		>"$t_tmp/lintian" 2>&1
	rc=$?
	grep -v 'running with root privileges' "$t_tmp/lintian" | sed 's/^/# /'
	check "lintian: no error or warning" [ "$rc" -eq 0 ]
else
	skip "lintian absent"
fi

root=$t_tmp/root
dpkg -x "$deb" "$root"
check "dpkg -x unpacks it into a scratch root" [ -x "$root/usr/bin/tl" ]
"$root/usr/bin/tl" --version >"$t_tmp/v" 2>&1
check "tl --version from there" grep -q "^tl $TL_VERSION\$" "$t_tmp/v"
check "... a dynamic build with a revision" sh -c "grep -q '^dynamic ' '$t_tmp/v' && grep -q '^revision ' '$t_tmp/v'"
if command -v man >/dev/null; then
	MANPAGER=cat MANWIDTH=80 man -l "$root/usr/share/man/man1/tl.1.gz" >"$t_tmp/man" 2>"$t_tmp/man.err"
	check "man -l reads the installed tl(1)" grep -q "tl summary" "$t_tmp/man"
	check "... without a warning from groff" [ ! -s "$t_tmp/man.err" ]
	MANPAGER=cat man -l "$root/usr/share/man/man5/tl-theme.5.gz" >"$t_tmp/man5" 2>&1
	check "man -l reads the installed tl-theme(5)" grep -qi "theme" "$t_tmp/man5"
else
	skip "man absent (the Debian package man-db)"
fi
"$TLGEN" screens "$t_tmp/gen" --ranks 2 --tasks 1000 --seed 5 >/dev/null 2>&1
for d in "$t_tmp/gen" "$SAMPLES/ascend-db"; do
	[ -d "$d" ] || { skip "$d absent"; continue; }
	"$TL_BIN" summary "$d" --json >"$t_tmp/want.json" 2>&1
	"$root/usr/bin/tl" summary "$d" --json >"$t_tmp/got.json" 2>&1
	check "tl summary from the package = the build's (${d#"$t_tmp"/})" cmp -s "$t_tmp/want.json" "$t_tmp/got.json"
done
t_done
