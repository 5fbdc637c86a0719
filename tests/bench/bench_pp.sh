#!/bin/bash
# `make bench`, the pipeline view without forward/backward ranges: figures, not assertions.
# Generates a 4-stage pipeline-parallel job whose blocks are marked only by forward/backward
# operator pairs (PYTORCH_API + CONNECTION_IDS), then adds to every rank's DB BENCH_PP_OPS
# other operators (half with an autograd sequence number) with three kernel links each, as a
# long capture has them. Times `tl summary` (which reads the pairs: tl_rank.fwdbwd) against the
# sqlite3 shell running MindStudio Insight's fwdbwd query (CONNECTION_IDS groups of more than
# one operator) on every DB. Machines are noisy: RUNS runs per side, medians reported.
set -e
: "${TL_BIN:?}" "${TLGEN:?}"
. "$(dirname "$0")/lib.sh"
OUT=${BENCH_OUT:-bench-out}
OPS=${BENCH_PP_OPS:-1000000}
RUNS=${BENCH_RUNS:-3}
PROFILE="$OUT/pp-ops-4x${OPS}"

# the generated job, then the other operators and their kernel links in every rank's DB
make_profile() {
	"$TLGEN" bench "$PROFILE" --ranks 4 --pp 4 --op-pairs --steps 2
	for db in $(find "$PROFILE" -name 'ascend_pytorch_profiler_*.db'); do
		sqlite3 "$db" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $OPS - 1)
INSERT INTO PYTORCH_API SELECT CAST(1736407000000000000 + i * 1000 AS TEXT),
  CAST(1736407000000000000 + i * 1000 + 600 AS TEXT), 123, 100000000 + i, 5,
  CASE WHEN i % 2 = 0 THEN 1000000 + i ELSE -1 END, 0, NULL, NULL, NULL, 50001 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 3 * $OPS - 1)
INSERT INTO CONNECTION_IDS SELECT 100000000 + i / 3, 500000000 + i FROM n;
COMMIT;
SQL
	done
}
generate_once "$PROFILE" "a 4-stage PP job with $OPS more operators per rank" make_profile
DBS=$(find "$PROFILE" -name 'ascend_pytorch_profiler_*.db' | sort)
INSIGHT="SELECT count(*) FROM (SELECT c.connectionId FROM CONNECTION_IDS c JOIN PYTORCH_API p
  ON p.connectionId = c.id WHERE p.type = 50001 GROUP BY c.connectionId HAVING count(*) > 1);"

run_tl() { TL_STATS=1 "$TL_BIN" summary "$PROFILE" --no-cache >"$OUT/pp-summary.txt" 2>"$OUT/pp-stats.txt"; }
run_insight() {
	for db in $DBS; do
		echo "$INSIGHT" | sqlite3 -readonly "$db" >/dev/null
	done
}
side_by_side "$RUNS" run_tl run_insight
sh_med=$base_med
sh_times=("${base_times[@]}")
rss_kb=$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$OUT/pp-stats.txt")
head=$(grep '^Pipeline parallelism' "$OUT/pp-summary.txt" || true)

echo "== the pipeline from operator pairs: 4 ranks, $OPS more operators and $((3 * OPS)) kernel links each ($(nproc) cores, $RUNS runs, medians)"
echo "$head"
printf 'tl summary wall time:            %8.3f s   (runs: %s)\n' "$tl_med" "${tl_times[*]}"
printf "sqlite3 shell, Insight's query:  %8.3f s   (runs: %s)\n" "$sh_med" "${sh_times[*]}"
printf 'ratio tl / Insight query:        %8.3f\n' "$(calc "$tl_med / $sh_med")"
printf 'peak resident memory:            %8.1f MB\n' "$(calc "$rss_kb / 1024")"
