#!/bin/sh
# The layers, checked by #include: a file of src/MODULE/ includes headers of its own module and of
# modules below it, never of a module above it or beside it, so the code reads top-down:
#
#   main.c, static               the command line; the static build's built-in terminfo
#   report, ui, sql              what a user reads (text and JSON; the viewer; tl query's tables)
#   query                        what report and ui ask of a loaded trace
#   loading                      the load's driver: threads, progressive loading, gathering
#   store                        the model cache, stored results, spill files, the populate
#   profile, load, analysis      discovery of files and ranks; the readers (each owns its file
#                                format); analyses over the model
#   model, gen                   the in-memory trace and its sources; the profile generator
#   util                         allocation, strings, times, messages
#
# docs/architecture.md explains the layers. libtl_core.a / libtl_ui.a enforce the report-ui
# split at link time as well (Makefile.am). Then, from the built objects: report/ and ui/ call
# nothing below the query session, and no two files of src/ call each other, directly or round a
# longer cycle. Output is TAP, one line per module, then one per check (one per cycle found).
. "$TL_SRCDIR/tests/lib.sh"
src=$TL_SRCDIR/src

rank() {
	case $1 in
	util) echo 0 ;;
	model | gen) echo 1 ;;
	profile | load | analysis) echo 2 ;;
	store) echo 3 ;;
	loading) echo 4 ;;
	query) echo 5 ;;
	report | ui | sql) echo 6 ;;
	main | static) echo 7 ;; # static/: the static build's terminfo entries, linked into tl only
	*) echo "" ;;
	esac
}

for dir in "$src"/*/ "$src/main.c"; do
	case $dir in
	*/main.c) mod=main files=$dir ;;
	*) mod=$(basename "$dir") files=$(find "$dir" -name '*.[ch]' | LC_ALL=C sort) ;;
	esac
	mine=$(rank "$mod")
	if [ -z "$mine" ]; then
		not_ok "src/$mod/ has no place in the layers: add it to tests/check_layers.sh and docs/architecture.md"
		continue
	fi
	bad=""
	for f in $files; do
		# the module of every #include "module/file.h"
		for dep in $(sed -n 's|^#[ 	]*include[ 	]*"\([a-z_]*\)/[^"]*".*|\1|p' "$f" | sort -u); do
			[ "$dep" = "$mod" ] && continue
			theirs=$(rank "$dep")
			if [ -z "$theirs" ] || [ "$theirs" -ge "$mine" ]; then
				bad="$bad ${f#"$TL_SRCDIR"/}->$dep"
			fi
		done
	done
	if [ -z "$bad" ]; then
		ok "src/$mod includes only modules below it"
	else
		for b in $bad; do
			echo "# $b"
		done
		not_ok "src/$mod includes a module above or beside it:$bad"
	fi
done

# What the includes cannot see (query/ headers declare analysis/ and load/ types): the report, the
# viewer and tl query's tables call no function of analysis/, load/, store/, loading/ or
# profile/; they ask the query session. The one exception is the store's populate thread
# (store/prefault.o), which the session starts and the viewer waits for and stops itself.
# Read from the built objects' symbols.
obj=${TL_TESTBIN%/tests}/src
# The built objects under the given modules whose source is there now (in the source tree, or a
# generated one in the build tree): an object a build left behind for a file since moved or
# removed is not read.
objs() {
	for m in "$@"; do
		[ -d "$obj/$m" ] && find "$obj/$m" -name '*.o'
	done | LC_ALL=C sort | while read -r o; do
		r=${o#"$obj"/}
		r=${r%.o}.c
		if [ -f "$src/$r" ] || [ -f "$obj/$r" ]; then
			echo "$o"
		fi
	done
}
if ! command -v nm >/dev/null 2>&1 || ! ls "$obj"/analysis/*.o >/dev/null 2>&1; then
	skip "no nm or no built objects under $obj"
else
	objs analysis load store loading profile | grep -v '/store/prefault\.o$' |
		xargs nm -g --defined-only |
		awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | LC_ALL=C sort -u >"$t_tmp/lower"
	bad=""
	for o in $(objs report ui sql); do
		for s in $(nm -u "$o" | awk '{ print $NF }' | LC_ALL=C sort -u |
			LC_ALL=C comm -12 - "$t_tmp/lower"); do
			bad="$bad ${o#"$obj"/}:$s"
		done
	done
	if [ -z "$bad" ]; then
		ok "src/report, src/ui and src/sql call no function of analysis/, load/, store/, loading/ or profile/"
	else
		not_ok "src/report, src/ui or src/sql calls below the query session:$bad"
	fi
fi
# No cycles between files: from the built objects, file A depends on file B when A uses a
# function or data B defines (nm: A's undefined symbols, B's defined ones). The graph must have
# no cycle, so every file can be read after the ones it calls, as the modules are; a cycle is
# named with one symbol per step. Break one by moving what both sides use to a file below them
# (an _int.h and a leaf .c), or by handing the upper file's function down at run time as the
# view stack does (ui/view_list.c).
if ! command -v nm >/dev/null 2>&1 || ! ls "$obj"/util/*.o >/dev/null 2>&1; then
	skip "no nm or no built objects under $obj"
else
	for o in $(cd "$obj" && find . -name '*.o' | LC_ALL=C sort); do
		f=src/${o#./}
		f=${f%.o}.c
		[ -f "$TL_SRCDIR/$f" ] || [ -f "$obj/${f#src/}" ] || continue # left by a moved file
		nm -g --defined-only "$obj/$o" | awk -v f="$f" 'NF == 3 && $2 ~ /[TDBRCG]/ { print "D", f, $3 }'
		nm -u "$obj/$o" | awk -v f="$f" '{ print "U", f, $NF }'
	done >"$t_tmp/syms"
	awk '
	$1 == "D" { def[$3] = $2; node[$2] = 1; next }
	$1 == "U" { node[$2] = 1; nu++; uf[nu] = $2; us[nu] = $3 }
	# Tarjan: the strongly connected components; one of two or more files holds a cycle
	function strong(v, w, i, k) {
		idx[v] = low[v] = ++counter
		stk[++sp] = v
		on[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in idx)) {
				strong(w)
				if (low[w] < low[v])
					low[v] = low[w]
			} else if (on[w] && idx[w] < low[v])
				low[v] = idx[w]
		}
		if (low[v] == idx[v]) {
			ncomp++
			k = 0
			do {
				w = stk[sp--]
				on[w] = 0
				comp[w] = ncomp
				k++
			} while (w != v)
			csize[ncomp] = k
		}
	}
	END {
		for (i = 1; i <= nu; i++) {
			a = uf[i]
			if (!(us[i] in def) || def[us[i]] == a)
				continue
			b = def[us[i]]
			if ((a, b) in via)
				continue
			via[a, b] = us[i]
			out[a, ++nout[a]] = b
		}
		n = 0
		for (v in node)
			names[++n] = v
		for (i = 2; i <= n; i++) { # insertion sort: a stable report
			x = names[i]
			for (j = i - 1; j >= 1 && names[j] > x; j--)
				names[j + 1] = names[j]
			names[j + 1] = x
		}
		for (i = 1; i <= n; i++)
			if (!(names[i] in idx))
				strong(names[i])
		for (i = 1; i <= n; i++) {
			v = names[i]
			c = comp[v]
			if (csize[c] < 2 || (c in shown))
				continue
			shown[c] = 1
			# the shortest cycle through v (breadth first inside its component)
			split("", prev)
			qh = 1
			qt = 1
			q[1] = v
			last = ""
			while (qh <= qt && last == "") {
				u = q[qh++]
				for (k = 1; k <= nout[u]; k++) {
					w = out[u, k]
					if (comp[w] != c)
						continue
					if (w == v) {
						last = u
						break
					}
					if (!(w in prev) && w != v) {
						prev[w] = u
						q[++qt] = w
					}
				}
			}
			path = " -> " v " (" via[last, v] ")"
			for (u = last; u != v; u = prev[u])
				path = " -> " u " (" via[prev[u], u] ")" path
			members = ""
			for (j = 1; j <= n; j++)
				if (comp[names[j]] == c)
					members = members " " names[j]
			print v path "\t" csize[c] " files:" members
		}
	}' "$t_tmp/syms" >"$t_tmp/cycles"
	if [ ! -s "$t_tmp/cycles" ]; then
		ok "no cycles between the files of src/ (by the objects' symbols)"
	else
		while IFS="	" read -r cycle members; do
			echo "# $members"
			not_ok "a cycle between files: $cycle"
		done <"$t_tmp/cycles"
	fi
fi
t_done
