#!/bin/bash
# `make bench`, the JSON case: figures, not assertions. Generates one rank of BENCH_JSON_TASKS
# device tasks as a DB and as trace_view.json (>= 1 GiB; kept in bench-out/), then times
# `tl summary` on the JSON file (a streaming, event-by-event load) against Python's
# json.load() of the same file, and compares tl's peak resident memory with the file size.
# Bars: at least 4x faster than the Python load, peak memory at most 0.5x the file.
# Machines are noisy: tl runs RUNS times and the median is reported; Python runs BENCH_PY_RUNS
# times (default once: it needs several GB of memory and tens of seconds per GB).
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
OUT=${BENCH_OUT:-bench-out}
TASKS=${BENCH_JSON_TASKS:-1100000}
RUNS=${BENCH_RUNS:-3}
PY_RUNS=${BENCH_PY_RUNS:-1}
PROFILE="$OUT/json-1x${TASKS}"
. "$(dirname "$0")/lib.sh"

generate_once "$PROFILE" "1 rank x $TASKS device tasks, DB and trace_view.json" \
	"$TLGEN" bench "$PROFILE" --ranks 1 --tasks "$TASKS" --steps 3 --slow -1 --json
FILE=$(find "$PROFILE" -name trace_view.json | head -n 1)
SIZE=$(stat -c %s "$FILE")
MB=$(calc "$SIZE / 1000000")
if [ "$SIZE" -lt 1073741824 ]; then
	echo "bench: note: $FILE is below 1 GiB ($SIZE bytes): raise BENCH_JSON_TASKS"
fi
cat "$FILE" >/dev/null # both sides read from the page cache

tl_times=()
for i in $(seq "$RUNS"); do
	t0=$(now)
	TL_STATS=1 "$TL_BIN" summary "$FILE" --no-cache >/dev/null 2>"$OUT/json-stats.txt"
	t1=$(now)
	tl_times+=("$(calc "$t1 - $t0")")
done
tl_med=$(printf '%s\n' "${tl_times[@]}" | median)
stats=$(grep '^stats:' "$OUT/json-stats.txt")
slices=$(echo "$stats" | sed 's/.*slices=\([0-9]*\).*/\1/')
rss_kb=$(echo "$stats" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
slice_bytes=$(echo "$stats" | sed 's/.*slice_bytes=\([0-9]*\).*/\1/')

echo "== tl summary on a generated trace_view.json: $MB MB, $slices slices ($(nproc) cores)"
printf 'tl summary wall time:            %8.3f s   (median of %d: %s)\n' "$tl_med" "$RUNS" "${tl_times[*]}"
printf 'load throughput:                 %8.1f MB/s\n' "$(calc "$MB / $tl_med")"
if command -v python3 >/dev/null 2>&1; then
	py_times=()
	for i in $(seq "$PY_RUNS"); do
		t0=$(now)
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$FILE"
		t1=$(now)
		py_times+=("$(calc "$t1 - $t0")")
	done
	py_med=$(printf '%s\n' "${py_times[@]}" | median)
	printf 'python3 json.load wall time:     %8.3f s   (runs: %s)\n' "$py_med" "${py_times[*]}"
	printf 'ratio python3 / tl:              %8.2f     (bar: >= 4)\n' "$(calc "$py_med / $tl_med")"
else
	echo "python3 not found: the ratio is not measured"
fi
printf 'peak resident memory:            %8.1f MB\n' "$(calc "$rss_kb / 1024")"
printf 'peak memory / file size:         %8.3f     (bar: <= 0.5)\n' "$(calc "$rss_kb * 1024 / $SIZE")"
printf 'slice arrays:                    %8.1f MB\n' "$(calc "$slice_bytes / 1048576")"
