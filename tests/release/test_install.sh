#!/bin/sh
# make install / make uninstall: with DESTDIR into a staging root (this build), and with
# ./configure --prefix (a build from a `make distdir` copy); the installed tl runs and gives the
# build's answers; uninstall leaves no file behind.
. "$TL_SRCDIR/tests/lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
prefix=$(sed -n 's/^prefix = //p' "$TL_BUILDDIR/Makefile")
"$TLGEN" screens "$t_tmp/gen" --ranks 2 --tasks 1000 --seed 5 >/dev/null 2>&1
"$TL_BIN" summary "$t_tmp/gen" --json >"$t_tmp/want.json" 2>&1

# installed ROOT PREFIX LABEL: the files make install puts under ROOT/PREFIX, and they work
installed() {
	r=$1$2
	check "$3: bin/tl" [ -x "$r/bin/tl" ]
	for m in man1/tl.1 man5/tl-keymap.5 man5/tl-theme.5; do
		check "$3: share/man/$m" [ -f "$r/share/man/$m" ]
	done
	for f in themes/default.theme themes/light.theme themes/mono.theme keymaps/default.keys \
		keymaps/vim.keys keymaps/emacs.keys stages.default; do
		check "$3: share/tl/$f" [ -f "$r/share/tl/$f" ]
	done
	"$r/bin/tl" --version >"$t_tmp/v" 2>&1
	check "$3: the installed tl --version" grep -q "^tl $TL_VERSION\$" "$t_tmp/v"
	"$r/bin/tl" summary "$t_tmp/gen" --json >"$t_tmp/got.json" 2>&1
	check "$3: the installed tl gives the build's summary --json" cmp -s "$t_tmp/want.json" "$t_tmp/got.json"
}
left() { [ -z "$(find "$1" -type f 2>/dev/null)" ]; }

# ---- DESTDIR ----------------------------------------------------------------------------------
dest=$t_tmp/dest
make -s -C "$TL_BUILDDIR" install DESTDIR="$dest" >"$t_tmp/install.log" 2>&1
check "make install DESTDIR=... succeeds" [ $? -eq 0 ]
installed "$dest" "$prefix" "DESTDIR"
check "DESTDIR: nothing is installed outside DESTDIR$prefix" sh -c \
	"[ -z \"\$(find '$dest' -type f ! -path '$dest$prefix/*')\" ]"
make -s -C "$TL_BUILDDIR" uninstall DESTDIR="$dest" >"$t_tmp/uninstall.log" 2>&1
check "make uninstall DESTDIR=... succeeds" [ $? -eq 0 ]
check "DESTDIR: uninstall leaves no file" left "$dest"

# ---- ./configure --prefix ------------------------------------------------------------------------
p=$t_tmp/prefix
mkdir -p "$t_tmp/copy"
make -s -C "$TL_BUILDDIR" distdir distdir="$t_tmp/copy/src" >/dev/null 2>&1
mkdir -p "$t_tmp/copy/build"
(cd "$t_tmp/copy/build" && ../src/configure --quiet --prefix="$p" >"$t_tmp/configure.log" 2>&1 &&
	make -s -j2 install >"$t_tmp/pinstall.log" 2>&1)
check "./configure --prefix=DIR && make install succeeds" [ $? -eq 0 ]
installed "" "$p" "--prefix"
check "--prefix: the man page reads with man -l" sh -c \
	"! command -v man >/dev/null || MANPAGER=cat man -l '$p/share/man/man1/tl.1' 2>/dev/null | grep -q 'timeline'"
(cd "$t_tmp/copy/build" && make -s uninstall >"$t_tmp/puninstall.log" 2>&1)
check "--prefix: make uninstall succeeds" [ $? -eq 0 ]
check "--prefix: uninstall leaves no file" left "$p"
t_done
