#!/bin/sh
# usage: export-series.sh TREE
#
# For the people who change the series: writes the commits on top of the
# pristine tree in the git repository TREE (a clone of $CACHE/src/baseline
# with the series applied and edited, e.g. by git rebase -i) back into
# the series directories (SERIES_DIRS) as git format-patch files, with
# their series files. A commit goes to an arch's SERIES_DIR if its subject
# starts with the arch's SERIES_SUBJECT (boot/ARCH.conf), or with "KVM: "
# and that (KVM's convention), to generic/ otherwise; they must come in the order of SERIES_DIRS. The comment lines
# of each series file stay before the patch of the same position.
# generic/0000-cover-letter.patch (no series file lists it) keeps its
# subject and text; its patch count, shortlog and diffstat are regenerated.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 1 ] || usage_error "usage: export-series.sh TREE"
tree=$1
git -C "$tree" rev-parse -q --verify baseline >/dev/null 2>&1 ||
	git -C "$tree" rev-parse -q --verify origin/baseline >/dev/null 2>&1 ||
	die "$tree has no branch baseline (a clone of $CACHE/src/baseline)"
base=$(git -C "$tree" rev-parse -q --verify baseline 2>/dev/null ||
	git -C "$tree" rev-parse origin/baseline)

dir_of() {
	for a in $ARCHES; do
		(check_arch "$a"
		case $1 in "$SERIES_SUBJECT"*|"KVM: $SERIES_SUBJECT"*) echo "$SERIES_DIR" ;; esac)
	done | head -n 1 | grep . || echo generic
}

# position DIR: its place in SERIES_DIRS.
position() {
	echo "$SERIES_DIRS" | tr ' ' '\n' | grep -nx "$1" | cut -d: -f1
}

# The commits, and the directory each goes to, in order.
list=$(git -C "$tree" log --reverse --format='%H %s' "$base..HEAD")
[ -n "$list" ] || die "no commit on top of baseline in $tree"
last=1
echo "$list" | while read -r sha subject; do
	d=$(dir_of "$subject")
	p=$(position "$d")
	[ "$p" -ge "$last" ] ||
		die "$sha ($subject) goes to $d after a commit of a later directory: reorder the commits"
	last=$p
	echo "$sha $d"
done >"$tree/.export-order" || exit 1

for d in $SERIES_DIRS; do
	shas=$(sed -n "s/^\([0-9a-f]*\) $d\$/\1/p" "$tree/.export-order")
	old=$TOP/$d/series
	tmp=$(mktemp -d)
	if [ -n "$shas" ]; then
		first=$(echo "$shas" | head -n 1)
		lastsha=$(echo "$shas" | tail -n 1)
		git -C "$tree" format-patch -q --no-signature --zero-commit --numbered \
			-o "$tmp" "$first^..$lastsha"
	fi
	# The series file: each comment block stays before the patch of its
	# position in the old file.
	{
		awk -v dir="$tmp" '
			BEGIN { cmd = "ls " dir; while ((cmd | getline f) > 0) if (f ~ /\.patch$/) new[++n] = f; close(cmd) }
			/^#/ { pending = pending $0 "\n"; next }
			NF { i++; printf "%s", pending; pending = ""; if (i <= n) print new[i]; next }
			END { printf "%s", pending; for (i = i + 1; i <= n; i++) print new[i] }
		' "$old"
	} >"$tmp/series"
	for f in "$TOP/$d"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$f" ] || continue
		case $f in */0000-cover-letter.patch) continue ;; esac
		rm -f "$f"
	done
	cp "$tmp"/*.patch "$TOP/$d/" 2>/dev/null || true
	cp "$tmp/series" "$old"
	rm -rf "$tmp"
	echo "export: $d: $(echo "$shas" | grep -c .) patches" >&2
done
rm -f "$tree/.export-order"

cover=$TOP/generic/0000-cover-letter.patch
if [ -f "$cover" ]; then
	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q --cover-letter --no-signature --zero-commit \
		-o "$tmp" "$base..HEAD"
	n=$(git -C "$tree" rev-list --count "$base..HEAD")
	# The text ends where git's shortlog begins: "Author Name (N):".
	shortlog='^[^ \t].* \([0-9]+\):$'
	{
		awk -v re="$shortlog" '$0 ~ re { exit } { print }' "$cover" |
			sed "s|^Subject: \[PATCH [0-9]*/[0-9]*\]|Subject: [PATCH 00/$n]|"
		awk -v re="$shortlog" '$0 ~ re { f = 1 } f' "$tmp/0000-cover-letter.patch"
	} >"$tmp/cover"
	grep -qE "$shortlog" "$tmp/cover" || die "no shortlog in git's cover letter"
	cp "$tmp/cover" "$cover"
	rm -rf "$tmp"
	echo "export: generic/0000-cover-letter.patch: $n patches" >&2
fi
