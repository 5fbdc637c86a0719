#!/bin/sh
# Golden screen tests of `tl view` through script mode (the code path of a user at the
# keyboard) on profiles generated at test time.
. "$(dirname "$0")/lib_tui.sh"

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two

# ---- lanes at fit-all ---------------------------------------------------------------------------
view "$P" 100x30
check "view runs in script mode" [ $? -eq 0 ]
check "a group of lanes per rank" has "rank 0"
check "rank 1 too" has "rank 1"
for lane in step "mstx default" "compute (2)" "memcpy" Computing Communication \
	"Comm(Not Ovl)" Free; do
	check "lane '$lane' is shown" has "$lane"
done
check "the ruler counts from the profile start" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q '╵[0-9]*0ms'"
check "status line shows the window" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'cursor 0ns'"
check "compute lane is in the compute slot" sh -c "grep -q 'cccccccccc' '$t_tmp/screen.attr'"
check "rank title in the rank slot" sh -c "grep -q '^RRRRRRRR' '$t_tmp/screen.attr'"
golden lanes
# the first frame's footer names the triage panels by their keys, the findings first; it drops
# the least needed first when narrower (the findings before the five panels), help and quit
# always kept
check "the footer names the findings, the panels, help and quit" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  D imbalance  R slow rank  B worst bubble  V overview  P pipeline  ? help  q quit *\$'"
view "$P" 120x40
check "at 120 columns search and bubbles too" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  D imbalance  R slow rank  B worst bubble  V overview  P pipeline  / search  b bubbles  ? help  q quit *\$'"
view "$P" 130x40
check "at 130 columns the number of ranks too" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  .* q quit  (2 ranks) *\$'"
view "$P" 80x24
check "at 80 columns the findings, the five panels (short names), help and quit fit" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  D imbalance  R slow  B idle  V overview  P pipeline  ? help  q quit *\$'"
view "$P" 50x20
check "at 50 columns: the first panels, help and quit" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^D imbalance  R slow  B idle  ? help  q quit *\$'"

# ---- zoom and pan -------------------------------------------------------------------------------
view "$P" 100x30 ":goto 30ms" + + + + + + + "<gt>" "<gt>" a
check "zoomed view runs" [ $? -eq 0 ]
golden zoom
view "$P" 100x30 ":zoom 30ms 30.3ms"
check "names appear on solid runs when zoomed in" has "aclnn"
check "the ruler switches to finer steps" sh -c "sed -n 1p '$t_tmp/screen.txt' | grep -q 'us/col\|µs/col'"
view "$P" 100x30 ":zoom 30ms 31ms"
check ":zoom shows the range" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q ' 29\.9[0-9]*ms – 31\.0[0-9]*ms'"
view "$P" 100x30 ":goto 30ms" + + + 0
check "fit-all returns to the whole profile" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q '^ -'"

# ---- search -------------------------------------------------------------------------------------
view "$P" 100x30 ":goto 30ms" + + + + "/matmul"
check "search finds matches and says so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Match [0-9]* of [0-9]*: aclnnMatmul'"
check "matches are highlighted" attr_has M
check "the match is selected" attr_has S
golden search
view "$P" 100x30 "/matmul" n n N
check "n and N step through matches in time order" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Match 2 of'"
view "$P" 100x30 "/" "mat(" "<Enter>"
check "an invalid pattern shows pcre2's message and offset" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q 'missing closing parenthesis at offset 4'"
view "$P" 100x30 "/no_such_kernel_name"
check "no match is said" has "No slice name matches"

# ---- bubbles ------------------------------------------------------------------------------------
view "$P" 100x30 b
check "bubble toggle reports the bubbles" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bubbles: [0-9]* idle gaps'"
check "bubbles are painted in the free slot" attr_has f
view "$P" 100x30 B
check "B jumps to the largest bubble" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'Bubble #1 of [0-9]* by size: .* idle on rank'"
golden bubbles
view "$P" 120x30 B
check "the bubble message has the step, stage and reason of tl summary" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq ' idle on rank [0-9]+ at [0-9.]+ms, (step [0-9]+|between steps|no step), (stage [a-z_:]+|no stage), (collective_wait|host_launch_gap|nothing_scheduled) *\$'"
check "... B gives the bubbles inside steps first" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq ', step [0-9]+, '"
view "$P" 120x30 V S S S "<Enter>"
check "... the largest of all, between two steps, is said to be so" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q ', between steps, no stage, '"
view "$P" 100x30 B i
check "the detail pane of a bubble is titled so" has "Selected bubble"
for f in bubble rank start end duration step stage reason evidence; do
	check "bubble detail shows $f" sh -c "grep -q '^ $f ' '$t_tmp/screen.txt'"
done
golden bubble-detail
view "$P" 100x30 B B "<C-b>"
check "bubble-largest-prev goes back" sh -c "tail -3 '$t_tmp/screen.txt' | tr '\\n' ' ' | tr -s ' ' | grep -q 'Bubble #1 of'"
view "$P" 100x30 ":goto 20ms" "}" "}" "{"
check "bubble-next/prev walk one rank's bubbles" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Bubble [0-9]+/[0-9]+: .* idle on rank 0 at [0-9.]+ms, (step [0-9]+|between steps|no step), (stage [a-z_:]+|no stage), (collective_wait|host_launch_gap|nothing_scheduled) *\$'"

# ---- detail pane --------------------------------------------------------------------------------
view "$P" 100x30 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>"
check "Enter opens the detail pane" has "Selected slice"
for f in slice rank lane start end duration step stage; do
	check "detail shows $f" sh -c "grep -q '^ $f ' '$t_tmp/screen.txt'"
done
golden detail
view "$P" 100x50 ":goto 30ms" + + + + + + + + j j j j j . "<Enter>" ")" ")" ")" ")" ")" ")"
check "arguments are read from the profile" sh -c "grep -q '^ opType  *[A-Za-z]' '$t_tmp/screen.txt' && grep -q '^ inputShapes ' '$t_tmp/screen.txt'"
view "$P" 100x30 ":mark 10ms 60ms"
check "a marked range shows statistics per rank" sh -c "grep -q '^ rank 0 ' '$t_tmp/screen.txt' && grep -q '^ rank 1 ' '$t_tmp/screen.txt'"
check "range statistics have the overlap columns" has "comm.exp"
view "$P" 100x30 ":goto 10ms" m ":goto 20ms" m
check "mark twice marks a range" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'range 10.000 ms'"
check "the marked range is shown on the ruler" sh -c "sed -n 1p '$t_tmp/screen.attr' | grep -q K"

# ---- lanes: collapse, streams -------------------------------------------------------------------
view "$P" 100x30 "<Space>"
check "space collapses a rank" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '▸ rank 0' && sed -n 3p '$t_tmp/screen.txt' | grep -q 'rank 1'"
view "$P" 100x30 e
check "toggle-streams shows one lane per stream" has "Stream 2"
view "$P" 100x30 o
check "toggle-overlap hides the overlap lanes" sh -c "! grep -q 'Comm(Not' '$t_tmp/screen.txt'"

# ---- terminal sizes -----------------------------------------------------------------------------
view "$P" 30x8
check "a tiny terminal says so" has "terminal too small"
view "$P" 30x8 ":resize 80x24"
check "and recovers when it grows" has "rank 0"
golden narrow-80x24
view "$P" 120x40 ":resize 60x15" ":resize 200x50"
check "resizes at any moment" sh -c "[ \$(wc -l < '$t_tmp/screen.txt') -eq 50 ] && grep -q 'rank 1' '$t_tmp/screen.txt'"

# ---- help ---------------------------------------------------------------------------------------
view "$P" 100x30 "?"
check "? shows help generated from the action table" has "dp-panel"
check "help starts with the panels" sh -c "sed -n 2p '$t_tmp/screen.txt' | grep -q '^ Panels ' &&
	sed -n 3p '$t_tmp/screen.txt' | grep -q '^   D  *dp-panel '"
golden help
view "$P" 100x30 "?" "<PgDn>"
check "then movement: help lists keys" has "+ = w <WheelUp>"
check "... under Moving, after the panels" sh -c "grep -q '^ Moving ' '$t_tmp/screen.txt' && ! grep -q '^ Panels ' '$t_tmp/screen.txt'"
view "$P" 100x30 "?" q
check "q closes help" has "rank 0"
view "$P" 100x250 "?"
check "help lists every :-command of the table, bubbles and resize too" sh -c "
	for c in \$('$TL_BIN' keys | sed -n '/^:-commands/,\$s/^  :\([a-z-]*\).*/\1/p'); do
		grep -qF \":\$c\" '$t_tmp/screen.txt' || { echo \"# missing :\$c\"; exit 1; }
	done"

# the glossary: one name per idea, the same words in ? and in man tl's GLOSSARY
view "$P" 100x60 "?" ":last-lane"
sed -n '/^ Words (one name per idea)/,/^ Colours/p' "$t_tmp/screen.txt" | sed -n 's/^   \([^ ].\{0,14\}\)  .*/\1/p' | sed 's/ *$//' > "$t_tmp/gl.help"
awk '/^\.SH GLOSSARY/ { on = 1; next } /^\.SH / { on = 0 } on && prev == ".TP" && /^\.B / { sub(/^\.B /, ""); print } { prev = $0 }' \
	"$TL_SRCDIR/man/tl.1" | sed 's/\\-/-/g' > "$t_tmp/gl.man"
check "? has a glossary (bubble, comm.exposed, arrived last, others' wait, page ...)" sh -c "[ \$(wc -l < '$t_tmp/gl.help') -ge 8 ] && grep -qx 'comm.exposed' '$t_tmp/gl.help' && grep -qx 'arrived last' '$t_tmp/gl.help'"
check "... the same terms, in the same order, as man tl's GLOSSARY" cmp -s "$t_tmp/gl.help" "$t_tmp/gl.man"

# ---- :-commands ---------------------------------------------------------------------------------
# every command of the table (and alias) is dispatched: none is an unknown command
cmds=$("$TL_BIN" keys | sed -n '/^:-commands/,$s/^  :\([a-z-]*\).*(also \(.*\))$/\1 \2/p; /^:-commands/,$s/^  :\([a-z-]*\) .*/\1/p' | tr -d ':,' | tr ' ' '\n' | sort -u)
check "tl keys lists the commands" [ -n "$cmds" ]
# one run for the commands that leave the viewer open (each failing line is reported with its
# number), one per way to quit
: > "$t_tmp/cmds"
for c in $cmds; do
	case $c in q | q! | quit) ;; *) echo ":$c" >> "$t_tmp/cmds" ;; esac
done
view "$P" 60x20 $(cat "$t_tmp/cmds")
check "every command of the table runs: $(echo $(cat "$t_tmp/cmds"))" sh -c "
	[ \$(wc -l < '$t_tmp/cmds') -ge 10 ] && ! grep -q 'Unknown command' '$t_tmp/err'"
for c in q q! quit; do
	rm -f "$t_tmp/screen.txt"
	view "$P" 60x20 ":$c"
	check ":$c quits (the :dump after it never runs)" sh -c "[ $? -eq 0 ] && [ ! -f '$t_tmp/screen.txt' ]"
done
view "$P" 100x30 ":" "resi" "<Tab>" "80x25" "<Enter>"
check "Tab completes a command name at the : prompt" sh -c "[ \$(wc -l < '$t_tmp/screen.txt') -eq 25 ]"
view "$P" 100x30 ":" "bubb" "<Tab>" "s" "<Enter>"
check "Tab extends the line to what the names have in common" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Bubbles: [0-9]* idle gaps'"
view "$P" 100x30 ":" "toggle-ab" "<Tab>" "<Enter>"
check "Tab completes an action name too" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q ' [0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.'"

# ---- ASCII, themes, keymaps ---------------------------------------------------------------------
LC_ALL=C view "$P" 100x30 b ":goto 30ms" + + +
check "LANG=C draws ASCII only" sh -c "! LC_ALL=C grep -q '[^ -~]' '$t_tmp/screen.txt'"
check "LANG=C still shows the lanes" has "- rank 0"
VIEW_OPTS="--theme mono" view "$P" 100x30
check "--theme mono works" [ $? -eq 0 ]
VIEW_OPTS="--theme light" NO_COLOR=1 view "$P" 100x30
check "--theme light with NO_COLOR works" [ $? -eq 0 ]
"$TL_BIN" view "$P" --script "$t_tmp/script" --size 80x24 --theme no-such-theme 2> "$t_tmp/err"
check "an unknown theme is an error" sh -c "[ $? -eq 1 ] && grep -q \"no theme 'no-such-theme'\" '$t_tmp/err'"
mkdir -p "$XDG_CONFIG_HOME/tl"
printf 'bind x quit\ncolor compute 16/black 196/red\n' > "$XDG_CONFIG_HOME/tl/mine.keys"
printf 'color compute 16/black 196/red\n' > "$XDG_CONFIG_HOME/tl/mine.theme"
VIEW_OPTS="--keymap mine --theme mine" view "$P" 100x30 x ":dump $t_tmp/never"
check "user keymaps in \$XDG_CONFIG_HOME/tl (a bad line is reported, the rest applies)" sh -c "[ ! -f '$t_tmp/never' ]"
printf 'unbind D\nbind Z dp-panel\nunbind R\n' > "$XDG_CONFIG_HOME/tl/foot.keys"
VIEW_OPTS="--keymap foot" view "$P" 100x30
check "the footer names the keymap's keys and leaves out an unbound panel" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^! findings  Z imbalance  B worst bubble  V overview'"
VIEW_OPTS="--keymap vim" view "$P" 100x30 ":goto 30ms" + + + + + j j j j j w w
check "vim keymap: w steps to the next slice" has "| sel "
VIEW_OPTS="--keymap emacs" view "$P" 100x30 "<C-n>" "<C-n>" "<C-n>" "<C-f>"
check "emacs keymap: C-n moves down a lane" sh -c "sed -n 29p '$t_tmp/screen.txt' | grep -q 'rank 0 mstx'"
VIEW_OPTS="--keymap emacs" view "$P" 100x30 "<M-x>" "fit-all" "<Enter>"
check "emacs keymap: M-x opens the command line" [ $? -eq 0 ]
view "$P" 100x30 "<NoSuchKey>"
check "a bad script line fails the run" [ $? -eq 1 ]
view "$P" 100x30 ":frobnicate"
check "an unknown command fails the run" [ $? -eq 1 ]

# ---- shapes of jobs -----------------------------------------------------------------------------
if fixture one --ranks 1 --tasks 1500; then
	view "$t_tmp/one" 80x24
	check "one rank draws" sh -c "grep -q 'rank 0' '$t_tmp/screen.txt' && ! grep -q 'rank 1' '$t_tmp/screen.txt'"
	golden one-rank
else
	not_ok "generate the 1-rank fixture"
fi
if fixture odd --ranks 3 --tasks 1500 --no-device 1 --late 2 3600; then
	view "$t_tmp/odd" 100x40
	check "a rank without device data says so" has "rank 1 (no device)"
	check "a rank an hour late stretches the view to hours" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -q '(1\.0[0-9]* h\|(3[5-7][0-9][0-9]\.[0-9]* s'"
	golden odd-ranks
	view "$t_tmp/odd" 100x40 ":rank 2" "<Down>" "<Down>" "<Down>" "<Down>" "." f
	check "zoom to a slice of the late rank" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -q '3600'"
else
	not_ok "generate the odd fixture"
fi
if fixture many --ranks 64 --tasks 200 --slow 5; then
	view "$t_tmp/many" 120x40
	check "64 ranks: the first open, the rest collapsed" sh -c "grep -q '▾ rank 0' '$t_tmp/screen.txt' && grep -q '▸ rank 9' '$t_tmp/screen.txt'"
	view "$t_tmp/many" 120x40 ":rank 63" ":dump-attrs $t_tmp/x"
	check "64 ranks: jumping to the last rank opens it" has "▾ rank 63"
	golden many-ranks
else
	not_ok "generate the 64-rank fixture"
fi
t_done
