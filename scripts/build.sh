#!/bin/sh
# usage: build.sh ARCH VARIANT
#
# Configures tinyconfig + configs/{common,ARCH,TREE}.config and, for a
# VARIANT that is not its TREE (scripts/common.sh: variant_tree),
# configs/VARIANT.config (NAME.config for NAME-baseline) and, if there is
# one, configs/ARCH-VARIANT.config (ARCH-NAME.config), and builds
# the kernel out of tree in $CACHE/build/ARCH-VARIANT with ccache; prints
# the image path. Nothing is rebuilt when the source commit and its
# uncommitted changes (a SRC tree being edited), the fragments and the
# compiler are what the last successful build used.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 2 ] || usage_error "usage: build.sh ARCH VARIANT"
check_arch "$1"
check_variant "$2"
arch=$1 variant=$2

# $SRC: the tree, when the caller prepared it already.
tree=$(variant_tree "$variant")
src=${SRC:-$("$TOP/scripts/tree.sh" "$variant")}
out=$CACHE/build/$arch-$variant
# The tree may not change while it builds (shared lock, see tree.sh), and
# one run at a time builds in $out.
if [ -z "${DYNSTACK_BUILD_LOCKED:-}" ]; then
	init_cache
	mkdir -p "$CACHE/build"
	export DYNSTACK_BUILD_LOCKED=1 SRC="$src"
	exec flock -s "$CACHE/.tree.lock" flock -x "$out.lock" "$0" "$@"
fi
unset DYNSTACK_BUILD_LOCKED
frags="$TOP/configs/common.config $TOP/configs/$arch.config $TOP/configs/$tree.config"
if [ "$variant" != "$tree" ]; then
	frags="$frags $TOP/configs/${variant%-baseline}.config"
	f=$TOP/configs/$arch-${variant%-baseline}.config
	[ ! -f "$f" ] || frags="$frags $f"
fi
cc=${CROSS_COMPILE}gcc
key=$( (git -C "$src" rev-parse HEAD; git -C "$src" diff HEAD; cat $frags
	$cc --version | head -n 1) |
	sha256sum | cut -d' ' -f1)

if [ -f "$out/$KERNEL_IMAGE" ] && [ "$(cat "$out/.dynstack-key" 2>/dev/null)" = "$key" ]; then
	echo "$out/$KERNEL_IMAGE"
	exit 0
fi

# ccache-cc.sh: depend mode, but not for assembler (see there).
export CCACHE_DIR="$CACHE/ccache" KBUILD_BUILD_TIMESTAMP="@0"
export KBUILD_BUILD_USER=dynstack KBUILD_BUILD_HOST=qemu
kmake() {
	make -s -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="$TOP/scripts/ccache-cc.sh $cc" "$@"
}

echo "build: $arch/$variant in $out" >&2
mkdir -p "$out"
rm -f "$out/.dynstack-key"
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null
kmake olddefconfig >/dev/null

# Every option a fragment asks for must be in the final .config.
bad=
for f in $frags; do
	for line in $(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' \
			     -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1=n/p' "$f"); do
		case "$line" in
		*=n) grep -q "^${line%=n}=" "$out/.config" && bad="$bad $line" ;;
		*) grep -qx "$line" "$out/.config" || bad="$bad $line" ;;
		esac
	done
done
[ -z "$bad" ] || die "$arch/$variant: not in the final .config (unmet dependencies?):$bad"

kmake -j"$(nproc)" "$KERNEL_TARGET" >&2 || die "$arch/$variant: kernel build failed"
echo "$key" >"$out/.dynstack-key"
echo "$out/$KERNEL_IMAGE"
