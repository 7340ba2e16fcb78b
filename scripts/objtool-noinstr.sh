#!/bin/sh
# usage: objtool-noinstr.sh BUILD_DIR
#
# x86's check of noinstr code: objtool's, in a kernel built in BUILD_DIR
# with CONFIG_NOINSTR_VALIDATION (DEBUG_ENTRY). The build runs it on
# vmlinux.o (scripts/Makefile.vmlinux_o) but only warns: this runs it
# again, with the same arguments, on a copy of vmlinux.o, prints what it
# reports and exits 1 if it reports anything, 2 on bad input.
set -eu
[ $# = 1 ] || { echo "usage: objtool-noinstr.sh BUILD_DIR" >&2; exit 2; }
dir=$1
for f in .config vmlinux.o tools/objtool/objtool; do
	[ -r "$dir/$f" ] || { echo "objtool-noinstr.sh: no $dir/$f" >&2; exit 2; }
done
grep -qx CONFIG_NOINSTR_VALIDATION=y "$dir/.config" ||
	{ echo "objtool-noinstr.sh: $dir was not built with CONFIG_NOINSTR_VALIDATION" >&2; exit 2; }
args="--noinstr --link"
grep -Eqx 'CONFIG_MITIGATION_(UNRET_ENTRY|SRSO)=y' "$dir/.config" && args="$args --unret"

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cp "$dir/vmlinux.o" "$tmp"
# shellcheck disable=SC2086
out=$("$dir/tools/objtool/objtool" $args "$tmp" 2>&1) ||
	{ echo "objtool-noinstr.sh: objtool failed: $out" >&2; exit 2; }
[ -z "$out" ] && exit 0
echo "$out" | sed "s|^$tmp: ||"
exit 1
