#!/bin/sh
# usage: initramfs.sh ARCH OUT.cpio
#
# Builds the test initramfs for ARCH: tests/guest/*.c linked statically
# into /init with ARCH's compiler and, for an arch with a compat user mode
# (GUEST_CC_COMPAT in boot/ARCH.conf), tests/compat/*.c into /compat_tls
# with that compiler, and the kernel's own selftests that boot/ARCH.conf
# lists (KSELFTESTS) into /kselftest, packed as a newc cpio archive.
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
# KSELFTESTS: DIR/PROGRAM under tools/testing/selftests of the unpatched
# tree, built statically with ARCH's compiler by their own Makefiles: on a
# copy of tools/ and of the arch's headers, which some include by relative
# path (and some build in their source directory), against the tree's UAPI
# headers (make headers), with the flags a parent Makefile exports to its
# subdirectories (as arm64's does). /kselftest/DIR_PROGRAM ('/' and '-'
# become '_') runs as the case kselftest.DIR_PROGRAM
# (tests/guest/kselftest.c). WITH_KSELFTESTS=0 leaves them out (make
# bench, which does not run them).
if [ -n "${KSELFTESTS:-}" ] && [ "${WITH_KSELFTESTS:-1}" != 0 ]; then
	src=$("$TOP/scripts/tree.sh" baseline) || die "no baseline tree for the selftests"
	mkdir -p "$stage/tools/testing" "$stage/arch/$SRCARCH" "$stage/kselftest"
	# The tree may not change meanwhile (a shared lock, as build.sh holds).
	with_lock "$CACHE/.tree.lock" shared sh -c '
		cp -R "$1/tools/testing/selftests" "$2/tools/testing/" &&
		cp -R "$1/tools/include" "$1/tools/arch" "$2/tools/" &&
		cp -R "$1/arch/$3/include" "$2/arch/$3/"' sh "$src" "$stage" "$SRCARCH" ||
		die "cannot copy the selftests' sources from $src"
	with_lock "$CACHE/.tree.lock" shared make -s -C "$src" ARCH="$KARCH" \
		O="$stage/hdr" headers >"$stage/ks.log" 2>&1 || {
		tail -n 20 "$stage/ks.log" >&2
		die "make headers in $src failed"
	}
	kst=$stage/tools/testing/selftests
	hdr="-isystem $stage/hdr/usr/include"
	for dir in $(for t in $KSELFTESTS; do dirname "$t"; done | sort -u); do
		progs=
		mkdir -p "$stage/ks/$dir"
		for t in $KSELFTESTS; do
			[ "$(dirname "$t")" != "$dir" ] || progs="$progs $stage/ks/$t"
		done
		# Stripped, and without the stage's name (the same bytes each
		# time). CFLAGS in the environment: what arm64's Makefile
		# exports to its subdirectories.
		# shellcheck disable=SC2086
		CFLAGS="-Wall -O2 -g -I$kst -I$stage/tools/include $hdr" \
		make -s -C "$kst/$dir" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
			CC="$GUEST_CC -static -s -ffile-prefix-map=$stage/=" \
			KHDR_INCLUDES="$hdr" OUTPUT="$stage/ks/$dir" $progs \
			>"$stage/ks.log" 2>&1 || {
			tail -n 20 "$stage/ks.log" >&2
			die "selftests $dir:$progs: build failed"
		}
	done
	for t in $KSELFTESTS; do
		name=$(echo "$t" | tr '/-' '__')
		cp "$stage/ks/$t" "$stage/kselftest/$name"
		files="$files kselftest/$name"
	done
	files="kselftest $files"
fi
init_cache
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && printf '%s\n' $files | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
mv "$tmp" "$out"
echo "$out"
