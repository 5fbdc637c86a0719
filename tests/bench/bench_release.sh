#!/bin/sh
# make bench-release (part of make bench): the release files' sizes, and start-up time of the
# static binary beside the dynamic build (the baseline): tl --version, tl info on a sample.
# Environment: TL_BIN (dynamic tl), TL_BUILDDIR, TL_SRCDIR, TL_VERSION; BENCH_RUNS (20).
runs=${BENCH_RUNS:-20}
cpu=$(uname -m)
S=$TL_BUILDDIR/static/tl-linux-$cpu
A=$TL_BUILDDIR/static/tl-linux-aarch64
sample=${TL_SAMPLES:-$TL_SRCDIR/../shared/samples}/ascend-db
size() { [ -f "$1" ] && printf '%-44s %10d bytes  %6.2f MiB\n' "$2" "$(stat -c %s "$1")" \
	"$(awk "BEGIN { print $(stat -c %s "$1") / 1048576 }")"; }
echo "== release files =="
size "$TL_BIN" "dynamic tl (this build, not stripped)"
strip -o "$TL_BUILDDIR/static/tl-dynamic-stripped" "$TL_BIN" 2>/dev/null &&
	size "$TL_BUILDDIR/static/tl-dynamic-stripped" "dynamic tl, stripped"
size "$S" "static tl-linux-$cpu (not stripped)"
for a in x86_64 aarch64; do
	size "$TL_BUILDDIR/dist-bin/tl-$TL_VERSION-linux-$a" "dist-bin tl-$TL_VERSION-linux-$a (stripped)"
done
for d in "$TL_BUILDDIR"/deb/tl_*.deb; do
	[ -f "$d" ] && size "$d" "Debian package $(basename "$d")"
done

# pair LABEL -- DYNAMIC CMD... -- STATIC CMD...: the two run alternately RUNS times; prints the
# medians of their wall-clock times
elapsed() { t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%8.2f ms", a[int((NR + 1) / 2)] / 1000 }'; }
pair() {
	label=$1
	dyn=$2
	sta=$3
	: >"$tmp/d"
	: >"$tmp/s"
	i=0
	while [ $i -lt "$runs" ]; do
		# shellcheck disable=SC2086
		elapsed $dyn >>"$tmp/d"
		# shellcheck disable=SC2086
		elapsed $sta >>"$tmp/s"
		i=$((i + 1))
	done
	printf '%-40s dynamic %s   static %s\n' "$label" "$(median <"$tmp/d")" "$(median <"$tmp/s")"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== start-up, median of $runs alternate runs (the dynamic build is the baseline) =="
[ -x "$S" ] || { echo "bench: $S missing (make static)"; exit 0; }
pair "tl --version" "$TL_BIN --version" "$S --version"
if [ -d "$sample" ]; then
	pair "tl info samples/ascend-db" "$TL_BIN info $sample" "$S info $sample"
	pair "tl summary --json samples/ascend-db" "$TL_BIN summary $sample --json" \
		"$S summary $sample --json"
fi
if [ -x "$A" ] && command -v qemu-aarch64 >/dev/null && [ "$cpu" != aarch64 ]; then
	: >"$tmp/a"
	for i in 1 2 3 4 5; do elapsed qemu-aarch64 "$A" --version >>"$tmp/a"; done
	printf '%-40s %s (emulated: says nothing of aarch64 hardware)\n' \
		"aarch64 tl --version, qemu-aarch64" "$(median <"$tmp/a")"
fi
