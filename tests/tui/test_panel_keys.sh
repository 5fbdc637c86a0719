#!/bin/sh
# The view stack's dispatch rule (src/ui/views.c), generated from the viewer's own tables so that
# a new panel or action is covered by construction: from every panel, every panel's opening
# action opens that panel; q and Esc take it back to the panel it was opened from, then to the
# timeline; while ranks load, an action or :-command runs or waits exactly as its
# UI_WHILE_LOADING flag in TL_ACTIONS / TL_COMMANDS says. The test hook TL_TEST_VIEWS=FILE
# lists the panels and the flags, then the stack and the message line after each script step.
. "$(dirname "$0")/lib_tui.sh"
export XDG_CACHE_HOME="$t_tmp/cache"

if ! fixture two --ranks 2 --tasks 2000 --seed 5; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two
H=$t_tmp/hook

# stepped PROFILE LINE...: runs the script, the hook's lines in $H
stepped() {
	rm -f "$H"
	TL_TEST_VIEWS=$H view "$@" > /dev/null
}

# ---- the tables, as the viewer has them ------------------------------------------------------
stepped "$P" 100x30 ":fit-all"
panels=$(sed -n 's/^views: //p' "$H")
npanels=$(echo "$panels" | wc -w)
check "the hook lists the panels with an opening action ($npanels)" [ "$npanels" -ge 10 ]
check "... the DP panel and the operator panel among them" sh -c "echo '$panels' | grep -q 'dp-panel=dp-panel' && echo '$panels' | grep -q 'ops=ops'"

# ---- every panel's action from every panel, and back ----------------------------------------
# one run: for each pair (A, B), :A :B q <Esc>; after them the stack must be
# "timeline A", "timeline B", "timeline A" (B's parent), "timeline"
: > "$t_tmp/want"
set --
back=q
for a in $panels; do
	an=${a%%=*} aa=${a#*=}
	for b in $panels; do
		bn=${b%%=*} ba=${b#*=}
		[ "$an" = "$bn" ] && continue
		set -- "$@" ":$aa" ":$ba" "$back" "<Esc>"
		printf 'timeline %s\ntimeline %s\ntimeline %s\ntimeline\n' "$an" "$bn" "$an" >> "$t_tmp/want"
		back=$([ "$back" = q ] && echo "<Esc>" || echo q)
	done
done
stepped "$P" 100x30 "$@"
grep -v '^[a-z]*:' "$H" | sed 's/|.*//' | head -n "$(wc -l < "$t_tmp/want")" > "$t_tmp/got"
npairs=$((npanels * (npanels - 1)))
check "every panel's action opens it from every other panel, and q or Esc goes back to the first ($npairs pairs)" cmp -s "$t_tmp/want" "$t_tmp/got"
diff "$t_tmp/want" "$t_tmp/got" | head -8 | sed 's/^/# /'

# the case the issue names: the operator panel opened from the DP panel returns to it
stepped "$P" 100x30 D I q q
check "I in the DP panel, then q: back to the DP panel, q again: the timeline" \
	sh -c "grep -v '^[a-z]*:' '$H' | sed 's/|.*//' | head -4 | tr '\n' ,  | grep -qx 'timeline dp-panel,timeline ops,timeline dp-panel,timeline,'"
# a panel left for the timeline (Enter on a row) has no parent any more: opened again from the
# timeline, q returns there
stepped "$P" 100x30 D :comm "<Enter>" :comm q
check "the comm panel from the DP panel, Enter, the comm panel again, q: the timeline" \
	sh -c "grep -v '^[a-z]*:' '$H' | sed 's/|.*//' | head -5 | tr '\n' , | grep -qx 'timeline dp-panel,timeline comm,timeline,timeline comm,timeline,'"

# ---- while ranks load: each action and command as its flag says ------------------------------
# rank 1 held (TL_TEST_LOAD_DELAY_MS, as test_progressive.sh); each action by name, then Esc
# (which closes what it opened: the help, a prompt). quit and the names that are :-commands too
# are left out of the actions (the commands' part runs them).
actions=$(sed -n 's/^actions: //p' "$H")
commands=$(sed -n 's/^commands: //p' "$H")
set --
: > "$t_tmp/flags"
for x in $actions; do
	n=${x%%=*} f=${x#*=}
	[ "$n" = quit ] && continue
	echo " $commands" | grep -q " $n=" && continue
	set -- "$@" ":$n" "<Esc>"
	echo "$n $f" >> "$t_tmp/flags"
done
for x in $commands; do
	n=${x%%=*} f=${x#*=}
	[ "$n" = quit ] && continue
	set -- "$@" ":$n" "<Esc>"
	echo "$n $f" >> "$t_tmp/flags"
done
rm -f "$H"
TL_TEST_VIEWS=$H TL_TEST_LOAD_DELAY_MS=600000:1 view "$P" 100x30 "$@" > /dev/null
check "the viewer ran with rank 1 held" sh -c "grep -q 'loading… 1/2 ranks' '$t_tmp/screen.txt'"
grep -v '^[a-z]*:' "$H" | awk 'NR % 2 == 1' | head -n "$(wc -l < "$t_tmp/flags")" > "$t_tmp/after"
bad=$(paste -d '\n' "$t_tmp/flags" "$t_tmp/after" | awk '
	NR % 2 == 1 { n = $1; f = $2; next }
	{ waits = index($0, ": " n " works once every rank is in") > 0
	  if (waits == (f == 1)) printf "%s(flag %d) ", n, f }')
nflags=$(wc -l < "$t_tmp/flags")
check "each of $nflags actions and commands waits for the load exactly when it has no UI_WHILE_LOADING flag" [ -z "$bad" ]
[ -n "$bad" ] && echo "# not as flagged: $bad"
check "... some of them work while loading, some wait" sh -c "grep -q ' 1\$' '$t_tmp/flags' && grep -q ' 0\$' '$t_tmp/flags'"

t_done
