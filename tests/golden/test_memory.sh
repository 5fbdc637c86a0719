#!/bin/sh
# Out of memory, said in words: before loading, tl estimates what the requested ranks need
# (row counts, file sizes) and, when it exceeds the memory available, refuses with one line
# naming how much they need and a --rank that fits, instead of being killed by the OOM killer.
# TL_MEM_AVAILABLE stands in for the machine's free memory.
. "$TL_SRCDIR/tests/lib.sh"
TL=$TL_BIN
export LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$t_tmp/config"

if ! "$TLGEN" screens "$t_tmp/both" --ranks 4 --tasks 60000 --json >/dev/null 2>&1; then
	not_ok "generate the fixture"
	t_done
	exit 1
fi
cp -r "$t_tmp/both" "$t_tmp/json" && find "$t_tmp/json" -name '*.db' -exec rm {} +
find "$t_tmp/both" -name trace_view.json -exec rm {} +
mv "$t_tmp/both" "$t_tmp/db"
printf ':quit\n' >"$t_tmp/keys"

for kind in db json; do
	p=$t_tmp/$kind
	TL_MEM_AVAILABLE=4G "$TL" summary "$p" >/dev/null 2>"$t_tmp/err"
	check "$kind: 4 GiB available: summary loads" [ $? -eq 0 ]
	# (--no-cache: the run above stored its output, which tl summary prints again without
	# loading anything, so without needing the memory)
	TL_MEM_AVAILABLE=1M "$TL" summary "$p" --no-cache >"$t_tmp/out" 2>"$t_tmp/err"
	rc=$?
	check "$kind: 1 MiB available: summary refuses with exit status 2, prints nothing" \
		sh -c "[ $rc -eq 2 ] && [ ! -s '$t_tmp/out' ]"
	check "$kind: one line saying how much memory the ranks need and how much is there" \
		sh -c "[ \$(wc -l <'$t_tmp/err') -eq 1 ] && grep -Eq 'needs? about [0-9.]+ [MG]iB of memory.*only 1 MiB is available' '$t_tmp/err'"
	sed 's/^/# /' "$t_tmp/err"
	# between the two: some ranks fit. The suggested --rank must load within the same figure.
	found=""
	for m in 96 80 64 56 48 40 36 32 28 26 24 22 20 19 18 17; do
		for cmd in summary view; do
			if [ $cmd = view ]; then
				TL_MEM_AVAILABLE=${m}M "$TL" view "$p" --script "$t_tmp/keys" --size 80x24 \
					>/dev/null 2>"$t_tmp/err"
			else
				TL_MEM_AVAILABLE=${m}M "$TL" summary "$p" >/dev/null 2>"$t_tmp/err"
			fi
			spec=$(sed -n 's/.*e\.g\. --rank \([0-9,-]*\)$/\1/p' "$t_tmp/err")
			if [ -n "$spec" ]; then
				found="$cmd $m $spec"
				break 2
			fi
		done
	done
	if [ -z "$found" ]; then
		not_ok "$kind: some budget lets some ranks but not all load"
		continue
	fi
	set -- $found
	check "$kind: $1 with $2 MiB: the line suggests --rank $3" grep -q "load fewer ranks at a time with --rank" "$t_tmp/err"
	if [ "$1" = view ]; then
		TL_MEM_AVAILABLE=${2}M "$TL" view "$p" --rank "$3" --script "$t_tmp/keys" --size 80x24 >/dev/null 2>"$t_tmp/err"
	else
		TL_MEM_AVAILABLE=${2}M "$TL" summary "$p" --rank "$3" >/dev/null 2>"$t_tmp/err"
	fi
	check "$kind: $1 --rank $3 with $2 MiB loads" [ $? -eq 0 ]
done
# With the model cache written as the ranks are read, each rank leaves anonymous memory once
# its file is mapped in its place: only the ranks read at once (one per core) must fit. At a
# budget where --no-cache refuses and names the memory all four ranks need, writing the cache
# either loads or names less (the largest ranks that load together); on 4 cores or more all
# four load together and the figure is the same.
mib() { # "12.5 GiB" / "300 MiB" -> MiB
	awk -v v="$1" -v u="$2" 'BEGIN { printf "%d\n", u == "GiB" ? v * 1024 : v }'
}
need_of() { # the figure of "need about X of memory" in file $1, in MiB
	set -- $(sed -n 's/.* need about \([0-9.]*\) \([MG]iB\) of memory.*/\1 \2/p' "$1")
	[ $# -eq 2 ] && mib "$1" "$2"
}
p=$t_tmp/db
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
found=""
for m in 96 80 64 56 48 40 36 32 28 26 24 22 20; do
	TL_MEM_AVAILABLE=${m}M "$TL" summary "$p" --no-cache >/dev/null 2>"$t_tmp/err"
	if grep -q 'e\.g\. --rank' "$t_tmp/err"; then
		found=$m
		break
	fi
done
if [ -z "$found" ]; then
	not_ok "cache: some budget refuses the four ranks without the cache"
else
	all=$(need_of "$t_tmp/err")
	rm -rf "$t_tmp/mcache"
	TL_MEM_AVAILABLE=${found}M "$TL" summary "$p" --cache-dir "$t_tmp/mcache" >/dev/null 2>"$t_tmp/err"
	rc=$?
	some=$(need_of "$t_tmp/err")
	sed 's/^/# cache: /' "$t_tmp/err"
	echo "# $found MiB, $cores cores: all ranks need $all MiB; writing the cache: rc $rc, ${some:-no figure}"
	if [ "$cores" -ge 4 ]; then
		check "cache, $cores cores: the four ranks load together and need as much ($all MiB)" \
			sh -c "[ $rc -eq 2 ] && [ '$some' = '$all' ]"
	else
		check "cache, $cores cores: only the ranks read at once must fit in $found MiB" \
			sh -c "[ $rc -eq 0 ] || { [ -n '$some' ] && [ '$some' -lt '$all' ]; }"
	fi
fi
# and the viewer, with enough memory
TL_MEM_AVAILABLE=4G "$TL" view "$t_tmp/db" --script "$t_tmp/keys" --size 80x24 >/dev/null 2>&1
check "db: 4 GiB available: view loads" [ $? -eq 0 ]
t_done
