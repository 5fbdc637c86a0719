#!/bin/sh
# No `check` call in a shell test followed by `&&`, `||` or `|` on its logical line: in
# `check "msg" [ a ] && [ b ]` the shell runs `[ b ]` after check has already recorded its
# result (from `[ a ]` alone), so the test cannot fail on `[ b ]`; a pipeline `check "msg" a | b`
# hides check's TAP line in b's input. Such a condition goes to check_all (tests/lib.sh), or to
# `check "msg" sh -c '...'`. The scan knows the shell's quotes, $(...), ${...}, comments,
# line continuations and here-documents, and looks at the commands of the top level only.
. "$TL_SRCDIR/tests/lib.sh"

# prints FILE:LINE: TEXT for each check followed by && || or |
scan() {
	awk -v q="'" '
	function reset_cmd() { first = ""; word = ""; inword = 0 }
	function end_word() {
		if (inword && first == "") {
			if (word !~ /^(if|then|else|elif|do|while|until|!|\{|\(|time)$/)
				first = word
		}
		word = ""; inword = 0
	}
	function flag(op) {
		print FILENAME ":" startline ": check ... " op
		bad++
	}
	FNR == 1 { ns = 0; reset_cmd(); hd = ""; pendhd = ""; startline = 1 }
	{
		line = $0
		if (hd != "") {         # inside a here-document: skip to its delimiter
			t = line
			if (hdtab) sub(/^\t+/, "", t)
			if (t == hd) hd = ""
			next
		}
		if (ns == 0 && first == "" && !inword) startline = FNR
		n = length(line)
		cont = 0
		for (i = 1; i <= n; i++) {
			c = substr(line, i, 1)
			c2 = substr(line, i, 2)
			top = ns > 0 ? st[ns] : "T"
			if (top == "S") { if (c == q) ns--; continue }
			if (c == "\\") {
				if (i == n) { cont = 1; break }
				if (top == "T") { inword = 1; word = word c substr(line, i + 1, 1) }
				i++; continue
			}
			if (top == "D") {
				if (c == "\"") ns--
				else if (c2 == "$(") { st[++ns] = "P"; i++ }
				else if (c2 == "${") { st[++ns] = "V"; i++ }
				else if (c == "`") st[++ns] = "B"
				continue
			}
			if (top == "B") { if (c == "`") ns--; continue }
			# T, P (command substitution or subshell) or V (parameter expansion)
			if (c == q) { st[++ns] = "S"; if (top == "T") { inword = 1; word = word c }; continue }
			if (c == "\"") { st[++ns] = "D"; if (top == "T") { inword = 1; word = word c }; continue }
			if (c == "`") { st[++ns] = "B"; if (top == "T") { inword = 1; word = word c }; continue }
			if (c2 == "$(") { st[++ns] = "P"; i++; if (top == "T") { inword = 1; word = word c2 }; continue }
			if (c2 == "${") { st[++ns] = "V"; i++; if (top == "T") { inword = 1; word = word c2 }; continue }
			if (top == "V") { if (c == "}") ns--; continue }
			if (top == "P") {
				if (c == "(") st[++ns] = "P"
				else if (c == ")") ns--
				else if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;(]/)) break
				continue
			}
			# top level
			if (c == "#" && !inword) break
			if (substr(line, i, 3) == "<<<") { i += 2; continue }
			if (c2 == "<<") {
				r = substr(line, i + 2)
				match(r, /^-?[ \t]*/)
				hdtab = (r ~ /^-/)
				skip = RLENGTH
				r = substr(r, skip + 1)
				match(r, /^[^ \t;&|<>)]+/)
				d = substr(r, 1, RLENGTH)
				gsub("[\"" q "\\\\]", "", d)
				pendhd = d; pendtab = hdtab
				i += 1 + skip + RLENGTH; continue
			}
			if (c == " " || c == "\t") { end_word(); continue }
			if (c2 == "&&" || c2 == "||") {
				end_word(); if (first == "check") flag(c2)
				reset_cmd(); i++; continue
			}
			if (c == "|") { end_word(); if (first == "check") flag(c); reset_cmd(); continue }
			if (c == ";" || c == "&" || c == "(" || c == ")") { end_word(); reset_cmd(); continue }
			if ((c == "<" || c == ">") && !inword) { end_word(); continue }
			inword = 1; word = word c
		}
		if (!cont && ns == 0) {
			end_word(); reset_cmd()
			if (pendhd != "") { hd = pendhd; hdtab = pendtab; pendhd = "" }
		}
	}
	END { exit bad > 0 }' "$@"
}

cd "$TL_SRCDIR" || exit 1
files=$(find tests -name '*.sh' | LC_ALL=C sort)
# the scan itself: it must find what it is for, and pass what is right
cat >"$t_tmp/bad.sh" <<'EOF'
check "a" [ 1 = 1 ] && [ 1 = 2 ]
	check "b: it's" grep -q x "$f" || true
check "c" sh -c 'x' \
	| tail -1
if [ 1 ]; then check "d $(echo "(x)")" true | cat; fi
cat <<-'EOT'
	it's
	EOT
check "e" true || false
EOF
cat >"$t_tmp/good.sh" <<'EOF'
check "a && b" sh -c '[ 1 ] && [ 2 ] | cat'
check_all "b" '[ 1 ] &&
	[ 2 ]'
cat <<EOT
check "x" a && b
EOT
cat <<-'EOT'
	check "y" a && b
	EOT
[ -f x ] && check "c" true # check "d" a && b
check "e \" && " test "$(echo a | cat)" = a
ok=$(check "f" true) || exit
EOF
scan "$t_tmp/bad.sh" >"$t_tmp/bad.out"
got=$(cut -d: -f2 "$t_tmp/bad.out" | tr '\n' ' ')
check_all "the scan finds each check followed by && || or | ($got)" '[ "$got" = "1 2 3 5 9 " ]'
scan "$t_tmp/good.sh" >"$t_tmp/good.out"
check_all "the scan passes whole conditions, here-documents and comments" '[ ! -s "$t_tmp/good.out" ]'
# shellcheck disable=SC2086 # one word per file, no spaces in tests/
scan $files >"$t_tmp/found"
check_all "no check in tests/ is followed by && || or | ($(wc -l <"$t_tmp/found") found)" \
	'[ ! -s "$t_tmp/found" ] || { sed "s/^/# /" "$t_tmp/found"; false; }'
t_done
