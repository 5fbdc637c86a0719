#!/bin/bash
# `make bench`, host API tables: figures, not assertions. Generates BENCH_HOST_RANKS ranks of
# BENCH_HOST_TASKS device tasks with a PyTorch operator linked to every launch (so PYTORCH_API
# and CANN_API hold about one row per task each, CONNECTION_IDS one link per launch), then
#  - `tl summary` and `tl summary --json` (both with the host table: launch delays and the
#    host-bound idle time) against the sqlite3 shell running the same launch SELECT on every
#    DB;
#  - the viewer opening and quitting, without and with `H` (the host lanes, read on demand):
#    wall time and peak resident memory, and what each host slice costs;
#  - the link keys on top of H: an operator, v (its kernel), u twice (the kernel's launch
#    call, its operator), v again; each a lookup in the DB: what the four jumps add.
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
printf 'H\n/aclnnMatmul\nv\nu\nu\nv\n:quit\n' >"$OUT/host-links.script"
view() { /usr/bin/time -f '%e %M' -o "$OUT/host-time.txt" "$TL_BIN" view "$PROFILE" \
	--script "$OUT/host-$1.script" --size 200x50 >/dev/null 2>&1; cat "$OUT/host-time.txt"; }
v0=() v1=() r0=() r1=() v2=() r2=()
for _i in $(seq "$RUNS"); do
	read -r t m < <(view noH); v0+=("$t"); r0+=("$m")
	read -r t m < <(view H); v1+=("$t"); r1+=("$m")
	read -r t m < <(view links); v2+=("$t"); r2+=("$m")
done
v0m=$(printf '%s\n' "${v0[@]}" | median) v1m=$(printf '%s\n' "${v1[@]}" | median)
r0m=$(printf '%s\n' "${r0[@]}" | median) r1m=$(printf '%s\n' "${r1[@]}" | median)
v2m=$(printf '%s\n' "${v2[@]}" | median) r2m=$(printf '%s\n' "${r2[@]}" | median)
pt=$(rows "$db0" PYTORCH_API) ca=$(rows "$db0" CANN_API) tk=$(rows "$db0" TASK)
host_rows=$(( (pt + ca) * RANKS ))

echo "== host API tables: $RANKS ranks x $TASKS tasks; PYTORCH_API $pt, CANN_API $ca, TASK $tk rows per rank ($(nproc) cores, $RUNS runs, medians)"
printf 'tl summary (text, host table):     %8.3f s\n' "$text_med"
printf 'tl summary --json (with "host"):   %8.3f s\n' "$json_med"
printf 'sqlite3 shell, the launch SELECT:  %8.3f s   (ratio tl json / shell %.2f)\n' "$sh_med" \
	"$(calc "$json_med / $sh_med")"
printf 'viewer open + quit:                %8.3f s   %8.1f MB\n' "$v0m" "$(calc "$r0m / 1024")"
printf 'viewer open + H + quit:            %8.3f s   %8.1f MB\n' "$v1m" "$(calc "$r1m / 1024")"
printf 'host rows read by H:               %8d     (%.1f resident bytes each)\n' "$host_rows" \
	"$(calc "($r1m - $r0m) * 1024 / $host_rows")"
printf 'viewer open + H + search + v u u v: %7.3f s   %8.1f MB   (%.3f s a jump over H)\n' \
	"$v2m" "$(calc "$r2m / 1024")" "$(calc "($v2m - $v1m) / 4")"

# selecting kernels with the detail pane open: each selection asks for its launch call and
# operator; the session answers from its link index of the rank (built on the first one), where
# the sqlite3 shell runs the per-selection statement over the unindexed connectionId columns
{ printf '/aclnnMatmul\n<Enter>\n'; for _i in $(seq 20); do printf '.\n'; done; printf ':quit\n'; } \
	>"$OUT/host-sel.script"
printf '/aclnnMatmul\n<Enter>\n:quit\n' >"$OUT/host-sel0.script"
s0=() s1=() m0=() m1=()
for _i in $(seq "$RUNS"); do
	read -r t m < <(view sel0); s0+=("$t"); m0+=("$m")
	read -r t m < <(view sel); s1+=("$t"); m1+=("$m")
done
s0m=$(printf '%s\n' "${s0[@]}" | median) s1m=$(printf '%s\n' "${s1[@]}" | median)
m0m=$(printf '%s\n' "${m0[@]}" | median) m1m=$(printf '%s\n' "${m1[@]}" | median)
sel_shell() {
	for row in $(seq 1 20); do
		echo "SELECT count(*) FROM PYTORCH_API p WHERE p.connectionId IN (SELECT c.id FROM
		  CONNECTION_IDS c WHERE c.connectionId = (SELECT connectionId FROM TASK WHERE
		  rowid = $row));"
	done | sqlite3 -readonly "$db0" >/dev/null
}
sh_t=()
for _i in $(seq "$RUNS"); do
	a=$(date +%s.%N); sel_shell; b=$(date +%s.%N); sh_t+=("$(calc "$b - $a")")
done
shm=$(printf '%s\n' "${sh_t[@]}" | median)
printf 'viewer select a kernel + 20 next:  %8.3f s   %8.1f MB   (%.4f s a selection; the index: %.1f MB)\n' \
	"$s1m" "$(calc "$m1m / 1024")" "$(calc "($s1m - $s0m) / 20")" "$(calc "($m0m - $r0m) / 1024")"
printf 'sqlite3 shell, 20 launcher lookups: %7.3f s   (%.4f s a lookup)\n' "$shm" "$(calc "$shm / 20")"
