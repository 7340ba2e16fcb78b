#!/bin/sh
# usage: review.sh ARCH
#
# Prints, for a reviewer, ARCH's dynamic-stack hooks as they stand in the
# patched tree: the arch patches (log and diff, oldest first), then the
# generic interface they call (the Kconfig contract and task_stack.h).
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 1 ] || usage_error "usage: review.sh ARCH"
check_arch "$1"
series=$SERIES_DIR path=$SERIES_PATHS
src=$("$TOP/scripts/tree.sh" dynamic)

echo "=== $series: the patches of $path, as applied on branch dynamic"
git -C "$src" --no-pager log --reverse --stat -p baseline..dynamic -- "$path"
echo
echo "=== The generic interface: arch/Kconfig"
sed -n '/^config HAVE_ARCH_DYNAMIC_STACK/,/^config DYNAMIC_STACK_KUNIT/p' \
	"$src/arch/Kconfig"
echo "=== The generic interface: include/linux/sched/task_stack.h"
sed -n '/^#ifdef CONFIG_DYNAMIC_STACK$/,/^#endif \/\* CONFIG_DYNAMIC_STACK \*\//{
	p
	/^#endif \/\* CONFIG_DYNAMIC_STACK \*\//q
}' "$src/include/linux/sched/task_stack.h"
