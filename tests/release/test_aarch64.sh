#!/bin/sh
# The aarch64 static build (make static-aarch64) run under qemu-aarch64 user emulation: its unit
# tests, the same tl summary --json as this machine's dynamic build on the samples and on
# generated profiles (generated on aarch64 too), and a subset of the suite's scripts - script-mode
# screens, the command line, bad inputs - with the aarch64 tl in place of the native one.
# aarch64's char is unsigned and it enforces no alignment that x86 forgives in the same places,
# so this is where such bugs show.
. "$TL_SRCDIR/tests/lib.sh"
A=$TL_BUILDDIR/static/tl-linux-aarch64
ABUILD=$TL_BUILDDIR/static/aarch64/build
if [ ! -x "$A" ]; then
	not_ok "$A is missing (make static-aarch64)"
	t_done
	exit 1
fi
if [ "$(uname -m)" = aarch64 ]; then
	qemu=
elif command -v qemu-aarch64 >/dev/null; then
	qemu=qemu-aarch64
else
	skip "qemu-aarch64 absent (the Debian package qemu-user): the aarch64 build is not run"
	t_done
	exit 0
fi
export TZ=UTC LC_ALL=C.UTF-8
check "file: an aarch64 executable, statically linked" sh -c \
	"file -L '$A' | grep -q 'ARM aarch64.*statically linked'"
check "readelf: no dynamic section" sh -c "LC_ALL=C readelf -d '$A' | grep -q 'no dynamic section'"
env -i $qemu "$A" --version >"$t_tmp/v" 2>&1
check "--version under qemu, empty environment" grep -q "^static aarch64 build" "$t_tmp/v"

# ---- unit tests, built for aarch64 --------------------------------------------------------------
nunit=0
for t in "$ABUILD"/tests/unit/*/test_*; do
	case "$t" in *.c | *.h | *.o | *.log | *.trs) continue ;; esac
	[ -x "$t" ] || continue
	nunit=$((nunit + 1))
	n=$(basename "$t")
	TL_TESTBIN=$ABUILD/tests TL_BIN=$A $qemu "$t" >"$t_tmp/unit" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$t_tmp/unit"; then
		ok "aarch64 unit/$n: $(grep -c '^ok' "$t_tmp/unit") checks pass"
	else
		grep '^not ok\|^#' "$t_tmp/unit" | head -20 | sed 's/^/# /'
		not_ok "aarch64 unit/$n (status $rc)"
	fi
done
check "aarch64: unit test programs were found and run ($nunit)" test "$nunit" -ge 10

# ---- the same numbers as the native dynamic build ---------------------------------------------
same_json() { # same_json LABEL PATH
	"$TL_BIN" summary "$2" --json >"$t_tmp/d.json" 2>"$t_tmp/d.err"
	rd=$?
	$qemu "$A" summary "$2" --json >"$t_tmp/a.json" 2>"$t_tmp/a.err"
	ra=$?
	check "$1: same exit status ($rd)" [ "$rd" = "$ra" ]
	check "$1: summary --json is byte for byte the x86 build's" cmp -s "$t_tmp/d.json" "$t_tmp/a.json"
	check "$1: the same warnings" cmp -s "$t_tmp/d.err" "$t_tmp/a.err"
}
if [ -d "$SAMPLES" ]; then
	for d in "$SAMPLES"/*/ "$SAMPLES"/*/*/; do
		[ -d "$d" ] || continue
		same_json "sample ${d#"$SAMPLES"/}" "$d"
	done
else
	skip "samples absent ($SAMPLES)"
fi
"$TLGEN" screens "$t_tmp/gen" --ranks 4 --tasks 2000 --seed 3 >/dev/null 2>&1
same_json "generated 4-rank profile" "$t_tmp/gen"
# the generator itself on aarch64: tl demo writes the 8-rank GRPO profile
XDG_CACHE_HOME=$t_tmp/cache-x86 "$TL_BIN" demo --no-view >"$t_tmp/demo.x86" 2>&1
XDG_CACHE_HOME=$t_tmp/cache-a64 $qemu "$A" demo --no-view >"$t_tmp/demo.a64" 2>&1
check "tl demo on aarch64 prints the same summary" sh -c \
	"sed 's,$t_tmp/cache-[a-z0-9]*,CACHE,g' '$t_tmp/demo.x86' >'$t_tmp/d1'; sed 's,$t_tmp/cache-[a-z0-9]*,CACHE,g' '$t_tmp/demo.a64' >'$t_tmp/d2'; cmp -s '$t_tmp/d1' '$t_tmp/d2'"
"$TL_BIN" summary "$t_tmp/cache-x86/tl/demo-v3" --json >"$t_tmp/g1.json" 2>&1
"$TL_BIN" summary "$t_tmp/cache-a64/tl/demo-v3" --json >"$t_tmp/g2.json" 2>&1
check "the profile generated on aarch64 reads the same (x86 summary --json)" \
	sh -c "[ -s '$t_tmp/g1.json' ] && cmp -s '$t_tmp/g1.json' '$t_tmp/g2.json'"
same_json "the aarch64-generated profile" "$t_tmp/cache-a64/tl/demo-v3"

# ---- the suite's scripts with the aarch64 tl ----------------------------------------------------
cat >"$t_tmp/tl" <<WRAP
#!/bin/sh
exec $qemu "$A" "\$@"
WRAP
chmod +x "$t_tmp/tl"
for s in golden/test_cli.sh tui/test_screens.sh tui/test_rl_screens.sh golden/test_untrusted.sh; do
	TL_BIN=$t_tmp/tl sh "$TL_SRCDIR/tests/$s" >"$t_tmp/script.out" 2>&1
	rc=$?
	p=$(grep -c '^ok' "$t_tmp/script.out")
	if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$t_tmp/script.out"; then
		ok "aarch64 $s: $p checks pass"
	else
		grep '^not ok\|^#' "$t_tmp/script.out" | head -20 | sed 's/^/# /'
		not_ok "aarch64 $s (status $rc)"
	fi
done
t_done
