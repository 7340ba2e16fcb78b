#!/bin/sh
# usage: tree.sh VARIANT
#
# Prints the path of VARIANT's kernel source tree (see variant_tree). The Debian tree is
# extracted once into a git repository whose first commit, on branch
# "baseline", is the pristine tree; "dynamic" is a worktree whose branch is
# that commit plus the series applied with git am, one commit per patch.
# Trees are only rewritten when the installed tree or the series changed,
# so that out-of-tree builds stay incremental.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 1 ] || usage_error "usage: tree.sh VARIANT"
check_variant "$1"
# One run at a time rewrites the trees; builds hold the lock shared.
if [ -z "${DYNSTACK_TREE_LOCKED:-}" ]; then
	init_cache
	export DYNSTACK_TREE_LOCKED=1
	exec flock -x "$CACHE/.tree.lock" "$0" "$@"
fi
unset DYNSTACK_TREE_LOCKED

TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SERIES_ROOT=${SERIES_ROOT:-$TOP}
src=$CACHE/src
repo=$src/baseline
export GIT_COMMITTER_NAME=dynstack GIT_COMMITTER_EMAIL=dynstack@localhost
export GIT_AUTHOR_NAME=dynstack GIT_AUTHOR_EMAIL=dynstack@localhost

[ -f "$TARBALL" ] || die "$TARBALL missing (apt-get install linux-source-6.12)"
if [ -n "${LINUX_TARBALL:-}" ]; then
	version="$(basename "$TARBALL") $(stat -c %Y "$TARBALL")"
else
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
fi

if [ "$(cat "$src/baseline.version" 2>/dev/null)" != "$version" ]; then
	echo "tree: extracting $TARBALL ($version) into $repo" >&2
	rm -rf "$src"
	mkdir -p "$repo"
	tar -xJf "$TARBALL" -C "$repo" --strip-components=1
	git -C "$repo" init -q -b baseline
	# Debian's top-level .gitignore ignores the whole tree: force.
	git -C "$repo" add -f -A
	git -C "$repo" commit -q -m "Debian linux-source-6.12 $version"
	echo "$version" >"$src/baseline.version"
fi

if [ "$(variant_tree "$1")" = baseline ]; then
	echo "$repo"
	exit 0
fi

# The series, in order: every patch named by a series file must exist.
patches=
for dir in $SERIES_DIRS; do
	[ -f "$SERIES_ROOT/$dir/series" ] || die "$dir/series missing"
	for p in $(sed -e 's/#.*//' "$SERIES_ROOT/$dir/series"); do
		[ -f "$SERIES_ROOT/$dir/$p" ] || die "$dir/series names $p, which does not exist"
		patches="$patches $dir/$p"
	done
done

wt=$src/dynamic
key=$( (echo "$version"; cd "$SERIES_ROOT" && for p in $patches; do
	echo "$p"; cat "$p"; done) | sha256sum | cut -d' ' -f1)
[ -d "$wt" ] || git -C "$repo" worktree add -q -B dynamic "$wt" baseline
if [ "$(cat "$src/dynamic.key" 2>/dev/null)" != "$key" ]; then
	rm -f "$src/dynamic.key"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" reset -q --hard baseline
	for p in $patches; do
		if ! out=$(git -C "$wt" am -q "$SERIES_ROOT/$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			files=$(echo "$out" | sed -n \
				-e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
				-e 's/^error: \(.*\): does not exist in index$/\1/p' \
				-e 's/^error: \(.*\): already exists in index$/\1/p' |
				sort -u | tr '\n' ' ')
			echo "$out" >&2
			die "$p does not apply to linux-source-6.12 $version${files:+ (fails on: $files)}"
		fi
	done
	echo "$key" >"$src/dynamic.key"
	echo "tree: applied $(echo "$patches" | wc -w) patches on branch dynamic in $wt" >&2
fi
echo "$wt"
