#!/bin/bash
# `make bench-export`: figures, not assertions. tl export of one rank of TASKS device tasks
# (8,000,000 by default: about 16 M slices with their launches and sub-tasks), --no-cache, as
# Chrome traces: the peak RSS of a one-step window and of the whole rank, against the peak RSS
# of the load alone (tl query count(*)): the export streams, so the three should be the same
# to a few MB whatever the window's size. The output is removed after each run.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
TASKS=${BENCH_TASKS:-8000000}
PROFILE="$OUT/export-1x${TASKS}"
. "$(dirname "$0")/lib.sh"

generate_once "$PROFILE" "1 rank x $TASKS device tasks" \
	"$TLGEN" bench "$PROFILE" --ranks 1 --tasks "$TASKS" --steps 10
peak() { # label command...: prints the wall time and the peak RSS
	local label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$OUT/export-time" "$@" >/dev/null
	read -r secs kb <"$OUT/export-time"
	printf '%-34s %8.2f s  %8d KB peak RSS\n' "$label" "$secs" "$kb"
}
n=$("$TL_BIN" query "$PROFILE" --no-cache "SELECT count(*) FROM slices" --csv | sed -n 2p | tr -d '\r')
echo "== tl export, one rank of $TASKS tasks ($n slices), --no-cache ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
peak "the load alone (count(*))" "$TL_BIN" query "$PROFILE" --no-cache "SELECT count(*) FROM slices"
for w in "--step 5" ""; do
	rm -rf "$OUT/export-out"
	peak "export ${w:-the whole rank}" "$TL_BIN" export "$PROFILE" --no-cache -o "$OUT/export-out" $w
	echo "   written: $(du -sh "$OUT/export-out" | cut -f1)"
done
rm -rf "$OUT/export-out" "$OUT/export-time"
