#!/bin/sh
# A second build of tl from a pristine copy of the sources, for the fuzz and sanitizer builds:
#   variant.sh DIR [configure arguments...] -- [make targets...]
# DIR/src holds the copy (`make distdir distdir=DIR/src`); the build goes to DIR/build,
# configured once (again when the configure arguments change), then made incrementally.
set -e
dir=$1
shift
args=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	args="$args '$(printf '%s' "$1" | sed "s/'/'\\\\''/g")'"
	shift
done
[ "$1" = "--" ] && shift
mkdir -p "$dir/build"
cd "$dir/build"
if [ ! -f Makefile ] || [ "$(cat .variant-args 2>/dev/null)" != "$args" ]; then
	echo "variant: configuring $dir/build:$args"
	eval "../src/configure --quiet $args" >configure.out 2>&1 || {
		cat configure.out
		exit 1
	}
	printf '%s' "$args" >.variant-args
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
make -s -j"$jobs" "$@"
