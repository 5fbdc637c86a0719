#!/bin/sh
# The short triage paths of the viewer (steps, ...) and the fixes around them: each path is a
# script whose key count and final screen are checked.
. "$(dirname "$0")/lib_tui.sh"

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two

# ---- every action has a key in every built-in keymap ----------------------------------------
for km in default vim emacs; do
	"$TL_BIN" keys --keymap "$km" > "$t_tmp/keys" 2>&1
	# a line of an action whose key column (columns 3-24) is empty
	awk 'substr($0,1,2)=="  " && substr($0,3,21) ~ /^ *$/ { print; bad = 1 } END { exit bad }' \
		"$t_tmp/keys" > "$t_tmp/nokey"
	check "keymap $km: every action has a key" [ $? -eq 0 ]
	[ -s "$t_tmp/nokey" ] && sed 's/^/# no key: /' "$t_tmp/nokey"
done

# ---- Esc that clears the selection closes the pane it opened ------------------------------
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>"
check "Enter selects and shows the detail pane" has "Selected slice"
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>" "<Esc>"
check "Esc clears the selection and closes the empty pane" sh -c "! grep -q 'Selected slice\|Nothing selected' '$t_tmp/screen.txt'"

# ---- a key that does nothing says why -----------------------------------------------------
view "$P" 100x30 S
check "S outside a panel says where it works" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^stage-next does nothing here: In the DP panel'"
view "$P" 100x30 O
check "O outside a panel says where it works" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^sort-next does nothing here: In the DP panel'"
view "$P" 100x30 f
check "f without a selection says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Nothing selected'"

t_done
