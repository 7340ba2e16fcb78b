#!/bin/sh
# usage: initramfs.sh ARCH OUT.cpio
#
# Builds the test initramfs for ARCH: tests/guest/*.c linked statically
# into /init with ARCH's compiler and, for an arch with a compat user mode
# (GUEST_CC_COMPAT in boot/ARCH.conf), tests/compat/*.c into /compat_tls
# with that compiler, packed as a newc cpio archive.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
[ $# = 2 ] || usage_error "usage: initramfs.sh ARCH OUT.cpio"
check_arch "$1"
out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

$GUEST_CC -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
	-o "$stage/init" "$TOP"/tests/guest/*.c
files=init
if [ -n "${GUEST_CC_COMPAT:-}" ]; then
	$GUEST_CC_COMPAT -std=gnu11 -O2 -Wall -Wextra -Werror -static \
		-o "$stage/compat_tls" "$TOP"/tests/compat/*.c
	files="$files compat_tls"
fi
init_cache
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && printf '%s\n' $files | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
mv "$tmp" "$out"
echo "$out"
