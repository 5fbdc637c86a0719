#!/bin/sh
# The background populate of the mapped cache files (store/prefault.c): after the first frame of a
# warm open, a thread fills the page tables of every rank's cache file (its level of detail
# first), so that later keys do not fault the pages in one by one. --stats says what it did
# ("prefault MODE ranks N mapped M bytes_mapped B todo T done D ms MS STATE") and how many minor
# faults the viewer's own thread took per frame (the frame lines' last column). Checked: it runs
# on a warm open and script mode waits for it, and on --no-cache's spilled ranks; it does
# nothing for ranks that are not mapped (--no-cache with TL_SPILL=0) or with TL_PREFAULT=0; only the level of detail with TL_PREFAULT=lod (what it
# does when the files are larger than the memory available); q quits at once while it runs (the test hook TL_TEST_PREFAULT_DELAY_MS
# holds it before each range); the screen is the same with and without it.
. "$(dirname "$0")/lib_tui.sh"
export XDG_CACHE_HOME="$t_tmp/cache"
# --no-cache spills into the cache directory, which a tmpfs cannot be (its files are memory)
[ "$(stat -f -c %T "$t_tmp" 2>/dev/null)" = tmpfs ] && export TL_TEST_SPILL_ANY_FS=1

if ! fixture three --ranks 3 --tasks 3000 --seed 5; then
	not_ok "generate the 3-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/three
ST=$t_tmp/stats
# pf [ENV...] -- [VIEW OPTIONS]: a scripted view (a few keys, then q) with --stats
pf() {
	envs=
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	printf 'j\n<Tab>\n}\n<gt>\n:dump %s\nq\n' "$t_tmp/screen.txt" > "$t_tmp/script"
	env $envs "$TL_BIN" view "$P" --script "$t_tmp/script" --size 120x40 --stats "$ST" "$@" \
		2> "$t_tmp/err"
}
field() { awk -v k="$1" '$1 == "prefault" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$ST"; }
says() { grep -q "^prefault $1" "$ST"; }

"$TL_BIN" index "$P" > /dev/null 2>&1
check "tl index wrote the cache" [ "$(find "$XDG_CACHE_HOME/tl" -name '*.tlc' | wc -l)" -eq 3 ]

# ---- warm: the three files, whole -----------------------------------------------------------
pf --
check "a warm view runs with the populate" [ $? -eq 0 ]
cp "$t_tmp/screen.txt" "$t_tmp/with.txt"
check "warm: the whole files are populated (mode full, 3 of 3 ranks mapped)" says "full ranks 3 mapped 3 "
check "script mode waited until every range was asked for (done = todo, finished)" \
	sh -c "[ '$(field todo)' = '$(field done)' ] && grep -q '^prefault .* finished' '$ST'"
check "the level of detail and the files: more than the files' bytes" \
	[ "$(field todo)" -gt "$(field bytes_mapped)" ]
check "each frame line carries the viewer thread's minor faults" \
	sh -c "awk '\$1 == \"frame\" && NF != 6 { bad = 1 } END { exit bad }' '$ST'"

# ---- off: TL_PREFAULT=0, and ranks that are not mapped ---------------------------------------
pf TL_PREFAULT=0 --
check "TL_PREFAULT=0: nothing populated (mode off, though 3 ranks are mapped)" \
	sh -c "grep -q '^prefault off ranks 3 mapped 3 .* todo 0 done 0 ' '$ST'"
check "the screen is the same with and without it" cmp -s "$t_tmp/with.txt" "$t_tmp/screen.txt"
pf TL_SPILL=0 -- --no-cache
check "--no-cache kept in memory (TL_SPILL=0): no rank is mapped, nothing is populated" \
	sh -c "grep -q '^prefault off ranks 3 mapped 0 .* todo 0 done 0 ' '$ST'"
pf -- --no-cache
check "--no-cache spilled: its unnamed files are mapped and populated like a cache's" \
	sh -c "grep -q '^prefault full ranks 3 mapped 3 ' '$ST'"

# ---- the level of detail only (as when the files are larger than the memory available) ------
pf TL_PREFAULT=lod --
check "TL_PREFAULT=lod: the level of detail only (mode lod)" says "lod ranks 3 mapped 3 "
check_all "which is less than the files" '[ "$(field todo)" -gt 0 ] && [ "$(field todo)" -lt "$(field bytes_mapped)" ]'

# ---- q while it runs: at once ---------------------------------------------------------------
t0=$(date +%s%N)
pf TL_TEST_PREFAULT_DELAY_MS=600000 --
rc=$?
t1=$(date +%s%N)
check "q quits while the populate is held (exit 0)" [ $rc -eq 0 ]
check "at once: in under 5 s, not after the hook's ten minutes ($(((t1 - t0) / 1000000)) ms)" \
	[ $(((t1 - t0) / 1000000)) -lt 5000 ]
check "the populate was stopped before it was done" \
	sh -c "grep -q '^prefault full .* done 0 .* stopped' '$ST'"
check "and the keys before q were drawn as without it" cmp -s "$t_tmp/with.txt" "$t_tmp/screen.txt"
t_done
