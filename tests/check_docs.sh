#!/bin/sh
# docs/architecture.md names every source file of src/ (*.c, *.h), so that the page is a map of
# the whole code: a file is named when the page holds its path below src/ ("store/cache.c"), or
# its file name inside its module's paragraph ("- **load** ..." up to the next module's; a file
# in a folder of its module, load/json/json_scan.c, too), or,
# for main.c, anywhere. A header and the .c of the same name are one file for this: naming
# either names both. A new file that the page does not name fails here.
. "$TL_SRCDIR/tests/lib.sh"
doc=$TL_SRCDIR/docs/architecture.md
cd "$TL_SRCDIR/src" || exit 1
find . -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort >"$t_tmp/files"
n=$(wc -l <"$t_tmp/files")
if [ "$n" -lt 100 ]; then
	not_ok "found only $n source files under src/"
fi
missing=$(awk '
	# word w in s, not part of a longer name or path
	function has(s, w,   i, p, c, e) {
		p = 1
		while ((i = index(substr(s, p), w)) > 0) {
			i += p - 1
			c = i > 1 ? substr(s, i - 1, 1) : " "
			e = substr(s, i + length(w), 1)
			if (c !~ /[A-Za-z0-9_.\/-]/ && e !~ /[A-Za-z0-9_]/)
				return 1
			p = i + 1
		}
		return 0
	}
	FNR == NR { files[++nf] = $0; next }
	/^## / { sect = "" }
	/^- \*\*[a-z]+\*\* / { sect = $0; sub(/^- \*\*/, "", sect); sub(/\*\*.*/, "", sect) }
	{
		for (i = 1; i <= nf; i++) {
			f = files[i]
			if (f in named)
				continue
			# a file of a module may lie in a folder of its own (load/ascend/ascend_db.c)
			np = split(f, part, "/")
			mod = np > 1 ? part[1] : "main"
			base = part[np]
			dir = np > 1 ? substr(f, 1, length(f) - length(base) - 1) : ""
			stem = base
			sub(/\.[ch]$/, "", stem)
			other = base ~ /\.c$/ ? stem ".h" : stem ".c"
			if (index($0, "src/" f) || has($0, f) || (dir != "" && has($0, dir "/" other)) ||
			    (mod == "main" && has($0, base)) ||
			    (sect == mod && (has($0, base) || has($0, other))))
				named[f] = 1
		}
	}
	END {
		for (i = 1; i <= nf; i++)
			if (!(files[i] in named))
				print "src/" files[i]
	}' "$t_tmp/files" "$doc")
if [ -z "$missing" ]; then
	ok "docs/architecture.md names all $n source files of src/"
else
	for f in $missing; do
		not_ok "docs/architecture.md does not name $f: say in its module's paragraph what it holds"
	done
fi
t_done
