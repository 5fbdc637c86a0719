#!/bin/sh
# make dist-bin: the release files, and the README's way to use one: copy the file, chmod +x,
# run it as a user without root and without a HOME.
. "$TL_SRCDIR/tests/lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
out=$TL_BUILDDIR/dist-bin
for a in x86_64 aarch64; do
	f=tl-$TL_VERSION-linux-$a
	check "$f is there" [ -f "$out/$f" ]
	check "$f.sha256 is there and checks" sh -c "cd '$out' && sha256sum -c --quiet '$f.sha256'"
	check "$f is stripped" sh -c "file '$out/$f' | grep -q ', stripped'"
	check "$f is statically linked" sh -c "file '$out/$f' | grep -q 'statically linked'"
done
for m in tl.1 tl-keymap.5 tl-theme.5 THIRD-PARTY-LICENSES.txt; do
	check "$m is there" [ -s "$out/$m" ]
done
check "the licences name every library linked in" sh -c \
	"for p in libc6 libncursesw6 libtinfo6 libsqlite3-0 libpcre2-8-0 zlib1g cJSON; do grep -q \"==== \$p\" '$out/THIRD-PARTY-LICENSES.txt' || exit 1; done"

# the README's first lines, as a user with no root: one file, chmod +x, run
arch=$(uname -m)
u=$t_tmp/user
mkdir -p "$u"
cp "$out/tl-$TL_VERSION-linux-$arch" "$u/tl"
chmod +x "$u/tl"
as_user=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chown -R 65534:65534 "$u"
	chmod 755 "$t_tmp"
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
"$TLGEN" screens "$t_tmp/gen" --ranks 2 --tasks 1000 --seed 5 >/dev/null 2>&1
chmod -R a+rX "$t_tmp/gen"
$as_user env -i "$u/tl" --version >"$t_tmp/v" 2>&1
check "the copied file runs as an unprivileged user with an empty environment" \
	grep -q "^static $arch build" "$t_tmp/v"
"$TL_BIN" summary "$t_tmp/gen" --json >"$t_tmp/want.json" 2>&1
$as_user env -i "$u/tl" summary "$t_tmp/gen" --json >"$t_tmp/got.json" 2>&1
check "... and gives the dynamic build's summary --json" cmp -s "$t_tmp/want.json" "$t_tmp/got.json"
$as_user env -i XDG_CACHE_HOME="$u/cache" "$u/tl" demo --no-view >"$t_tmp/demo" 2>&1
check "tl demo generates its profile and prints the summary" grep -q "^ *7 *2 " "$t_tmp/demo"
"$TL_BIN" summary "$u/cache/tl/demo-v3" --json >"$t_tmp/d1.json" 2>&1
$as_user env -i "$u/tl" summary "$u/cache/tl/demo-v3" --json >"$t_tmp/d2.json" 2>&1
check "... which both builds read alike" sh -c "[ -s '$t_tmp/d1.json' ] && cmp -s '$t_tmp/d1.json' '$t_tmp/d2.json'"
t_done
