#!/bin/sh
# usage: initramfs.sh ARCH OUT.cpio
#
# Builds the test initramfs for ARCH: tests/guest/*.c linked statically
# into /init with ARCH's compiler, packed as a newc cpio archive.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
[ $# = 2 ] || usage_error "usage: initramfs.sh ARCH OUT.cpio"
check_arch "$1"
out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

$GUEST_CC -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
	-o "$stage/init" "$TOP"/tests/guest/*.c
init_cache
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && echo init | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
mv "$tmp" "$out"
echo "$out"
