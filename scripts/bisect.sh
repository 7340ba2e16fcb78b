#!/bin/sh
# usage: bisect.sh full|quick
#
# Every prefix of the series (SERIES_DIRS: generic/, then each arch's)
# must build for x86_64 and arm64 with the dynamic configuration; on an
# arch without HAVE_ARCH_DYNAMIC_STACK that is the generic code with the
# feature off. "full" builds each prefix's kernel image. "quick" compiles,
# at each prefix, the files the patch touches, the users of the headers
# the series changes (kernel/fork, exit, sched/core, mm/vmalloc, vmstat,
# and kernel/dynamic_stack once it exists) and the arch's hook files,
# with -Werror: every changed line is compiled at every prefix, on both
# arches, in a fraction of the time. And it
# checks the link by symbol resolution (scripts/symbols.sh): vmlinux is
# built at the baseline, and again where a patch changes the configuration
# (an arch's patch that turns the feature on); at each other prefix the
# objects compiled replace their symbols, and every reference must still
# be defined, once. A patch
# that removes or renames a global symbol still in use, or calls one a
# later patch adds, fails where it is, as the link would. What it cannot
# see: a header change that makes an object it did not compile reference
# a new symbol; the matrix links the whole series, and "full" links every
# prefix. Prints KTAP; exits non-zero on a failure, naming the patch.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 1 ] && case $1 in full|quick) ;; *) false ;; esac ||
	usage_error "usage: bisect.sh full|quick"
mode=$1
# One bisect at a time per CACHE: it has one worktree and two build dirs.
if [ -z "${DYNSTACK_BISECT_LOCKED:-}" ]; then
	init_cache
	export DYNSTACK_BISECT_LOCKED=1
	exec flock -x "$CACHE/.bisect.lock" "$0" "$@"
fi
ALWAYS="kernel/fork.o kernel/exit.o kernel/sched/core.o mm/vmalloc.o mm/vmstat.o"
# And each arch's hooks (BISECT_OBJS in boot/ARCH.conf): the patch that
# turns the feature on for an arch touches only its Kconfig.

# enabled TREE CONFIG FILE: whether CONFIG builds FILE (.c or .S), going
# by the obj-$(CONFIG_...) line for it in its directory's Makefile or
# Kbuild, and for each directory on the way up in its parent's (a file of
# arch/arm64/kvm/hyp/vhe/ is built only with CONFIG_KVM).
enabled() {
	name=$(basename "${3%.[cS]}").o dir=$(dirname "$3")
	while :; do
		sym=$(cat "$1/$dir/Makefile" "$1/$dir/Kbuild" 2>/dev/null |
			sed -n "s|^obj-\$(\(CONFIG_[A-Z0-9_]*\))[[:space:]]*+=.*\<$name\([[:space:]].*\)*$|\1|p" |
			head -n 1)
		[ -z "$sym" ] || grep -q "^$sym=y" "$2" || return 1
		case $dir in */*) ;; *) return 0 ;; esac
		name=$(basename "$dir")/ dir=$(dirname "$dir")
	done
}

"$TOP/scripts/tree.sh" dynamic >/dev/null
repo=$CACHE/src/baseline
wt=$CACHE/src/bisect
[ -d "$wt" ] || git -C "$repo" worktree add -q --detach "$wt" baseline
commits=$(git -C "$repo" rev-list --reverse baseline..dynamic)
export CCACHE_DIR="$CACHE/ccache" KBUILD_BUILD_TIMESTAMP="@0"

# step ARCH COMMIT: configures and builds ARCH at COMMIT (checked out in
# $wt), as $mode says; with COMMIT = baseline, only records the global
# symbols of the objects quick mode always compiles. Its callers test its
# status, which turns set -e off in it: every command that can fail
# returns from it.
step() {
	check_arch "$1"
	out=$CACHE/build/bisect-$1
	kmake() {
		make -s -C "$wt" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
			CC="$TOP/scripts/ccache-cc.sh ${CROSS_COMPILE}gcc" KCFLAGS=-Werror "$@"
	}
	mkdir -p "$out"
	# The configuration of the last step holds unless this patch changed
	# a Kconfig file (quick mode goes through the commits in order).
	relink=
	if [ "$mode" = full ] || [ "$2" = baseline ] || [ ! -f "$out/.config" ] ||
		! git -C "$wt" diff --quiet HEAD~1 -- '*Kconfig*'; then
		grep '^CONFIG_' "$out/.config" >"$out/.config.last" 2>/dev/null || :
		kmake tinyconfig >/dev/null || return
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
			"$TOP/configs/common.config" "$TOP/configs/$1.config" \
			"$TOP/configs/dynamic.config" >/dev/null || return
		kmake olddefconfig >/dev/null || return
		# A new configuration (an arch's patch that turns the feature
		# on) changes what every object defines: link, and start over
		# from the symbols of that vmlinux. A new option that is not set
		# changes nothing.
		grep '^CONFIG_' "$out/.config" | cmp -s - "$out/.config.last" || relink=1
	fi
	if [ "$mode" = full ]; then
		kmake -j"$(nproc)" "$KERNEL_TARGET"
		return
	fi
	objs="$ALWAYS $BISECT_OBJS"
	if [ "$2" != baseline ]; then
		# The mechanism's own file, once a patch has added it, uses
		# the arch headers the arch patches change.
		for f in $(git -C "$wt" diff --name-only HEAD~1 -- '*.c' '*.S') \
			kernel/dynamic_stack.c; do
			case $f in
			arch/*) [ "${f#arch/"$SRCARCH"/}" != "$f" ] || continue ;;
			esac
			[ -f "$wt/$f" ] || continue
			enabled "$wt" "$out/.config" "$f" || continue
			case " $objs " in *" ${f%.[cS]}.o "*) continue ;; esac
			objs="$objs ${f%.[cS]}.o"
		done
	fi
	if [ "$2" = baseline ] || [ -n "$relink" ]; then
		[ "$2" = baseline ] || echo "bisect: the configuration changed: linking vmlinux" >&2
		kmake -j"$(nproc)" vmlinux || return
		CROSS_COMPILE=$CROSS_COMPILE "$TOP/scripts/symbols.sh" baseline "$out"
		return
	fi
	kmake prepare || return
	# shellcheck disable=SC2086
	kmake -j"$(nproc)" $objs || return
	# shellcheck disable=SC2086
	CROSS_COMPILE=$CROSS_COMPILE "$TOP/scripts/symbols.sh" check "$out" $objs
}

echo "KTAP version 1"
echo "1..$(($(echo "$commits" | wc -w) * $(echo "$ARCHES" | wc -w)))"
n=0 failed=0
if [ "$mode" = quick ]; then
	git -C "$wt" checkout -q --detach baseline
	for arch in $ARCHES; do
		(step "$arch" baseline) >"$CACHE/bisect.log" 2>&1 ||
			die "the baseline does not compile for $arch: $CACHE/bisect.log"
	done
fi
for c in $commits; do
	git -C "$wt" checkout -q --detach "$c"
	subject=$(git -C "$wt" log -1 --format=%s)
	for arch in $ARCHES; do
		n=$((n + 1))
		(step "$arch" "$c") >"$CACHE/bisect.log" 2>&1 && status=0 || status=$?
		if [ $status = 0 ]; then
			echo "ok $n $arch: $subject"
		else
			echo "not ok $n $arch: $subject"
			tail -n 20 "$CACHE/bisect.log" | sed 's/^/# /'
			failed=$((failed + 1))
		fi
	done
done
echo "# bisect ($mode): $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
