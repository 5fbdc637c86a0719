#!/bin/bash
# `make bench`, host API tables: figures, not assertions. Generates BENCH_HOST_RANKS ranks of
# BENCH_HOST_TASKS device tasks with a PyTorch operator linked to every launch (so PYTORCH_API
# and CANN_API hold about one row per task each, CONNECTION_IDS one link per launch), then
#  - `tl summary` (text; reads no host table) and `tl summary --json` (adds "host": the launch
#    delays) against the sqlite3 shell running the same launch SELECT on every DB;
#  - the viewer opening and quitting, without and with `H` (the host lanes, read on demand):
#    wall time and peak resident memory, and what each host slice costs.
# Machines are noisy: RUNS runs per side, medians reported.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
RANKS=${BENCH_HOST_RANKS:-2}
TASKS=${BENCH_HOST_TASKS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/host-${RANKS}x${TASKS}"

generate_once "$PROFILE" "$RANKS ranks x $TASKS tasks with host operators" \
	"$TLGEN" bench "$PROFILE" --ranks "$RANKS" --tasks "$TASKS" --steps 3 --slow -1 --host-ops \
	--jitter
DBS=$(find "$PROFILE" -name 'ascend_pytorch_profiler_*.db' | sort)
LAUNCHES="SELECT a.startNs, min(t.startNs) FROM TASK t JOIN CANN_API a ON a.connectionId =
  t.connectionId WHERE t.globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO) OR
  t.globalTaskId IN (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO) GROUP BY t.connectionId;"
rows() { sqlite3 -readonly "$1" "SELECT count(*) FROM $2"; }
db0=$(echo "$DBS" | head -1)

run_text() { "$TL_BIN" summary "$PROFILE" >/dev/null 2>&1; }
run_json() { "$TL_BIN" summary --json "$PROFILE" >/dev/null 2>&1; }
run_shell() {
	for db in $DBS; do
		echo "$LAUNCHES" | sqlite3 -readonly "$db" >/dev/null
	done
}
side_by_side "$RUNS" run_text run_json
text_med=$tl_med
json_med=$base_med
side_by_side "$RUNS" run_json run_shell
sh_med=$base_med

# the viewer: open, (H,) quit; peak RSS from time(1)
printf ':quit\n' >"$OUT/host-noH.script"
printf 'H\n:quit\n' >"$OUT/host-H.script"
view() { /usr/bin/time -f '%e %M' -o "$OUT/host-time.txt" "$TL_BIN" view "$PROFILE" \
	--script "$OUT/host-$1.script" --size 200x50 >/dev/null 2>&1; cat "$OUT/host-time.txt"; }
v0=() v1=() r0=() r1=()
for _i in $(seq "$RUNS"); do
	read -r t m < <(view noH); v0+=("$t"); r0+=("$m")
	read -r t m < <(view H); v1+=("$t"); r1+=("$m")
done
v0m=$(printf '%s\n' "${v0[@]}" | median) v1m=$(printf '%s\n' "${v1[@]}" | median)
r0m=$(printf '%s\n' "${r0[@]}" | median) r1m=$(printf '%s\n' "${r1[@]}" | median)
pt=$(rows "$db0" PYTORCH_API) ca=$(rows "$db0" CANN_API) tk=$(rows "$db0" TASK)
host_rows=$(( (pt + ca) * RANKS ))

echo "== host API tables: $RANKS ranks x $TASKS tasks; PYTORCH_API $pt, CANN_API $ca, TASK $tk rows per rank ($(nproc) cores, $RUNS runs, medians)"
printf 'tl summary (text, no host table):  %8.3f s\n' "$text_med"
printf 'tl summary --json (with "host"):   %8.3f s\n' "$json_med"
printf 'sqlite3 shell, the launch SELECT:  %8.3f s   (ratio tl json / shell %.2f)\n' "$sh_med" \
	"$(calc "$json_med / $sh_med")"
printf 'viewer open + quit:                %8.3f s   %8.1f MB\n' "$v0m" "$(calc "$r0m / 1024")"
printf 'viewer open + H + quit:            %8.3f s   %8.1f MB\n' "$v1m" "$(calc "$r1m / 1024")"
printf 'host rows read by H:               %8d     (%.1f resident bytes each)\n' "$host_rows" \
	"$(calc "($r1m - $r0m) * 1024 / $host_rows")"
