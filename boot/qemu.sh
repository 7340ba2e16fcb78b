#!/bin/sh
# usage: qemu.sh ARCH KERNEL INITRD LOG [KERNEL-ARGUMENT...]
#
# Boots KERNEL with INITRD in ARCH's QEMU machine (boot/ARCH.conf), copies
# the console to stdout and to LOG, and exits with QEMU's status: 124 when
# the guest did not end within $TIMEOUT seconds (default 600).
# Extra kernel arguments of the form NAME=VALUE reach /init as environment.
# $QEMU_EXTRA is appended to the QEMU command line (e.g. -icount shift=0),
# $QEMU_MACHINE_VAR names the boot/ARCH.conf variable that holds the
# machine (default QEMU_MACHINE). $VARIANT, if set, boots the variant's own
# machine and kernel arguments where boot/ARCH.conf has them:
# QEMU_MACHINE_NAME and KERNEL_ARGS_NAME, NAME the variant in upper case
# without -baseline (a variant's twin boots the same machine).
set -eu
. "$(dirname "$0")/../scripts/common.sh"
[ $# -ge 4 ] || usage_error "usage: qemu.sh ARCH KERNEL INITRD LOG [KERNEL-ARGUMENT...]"
check_arch "$1"
arch=$1
kernel=$2 initrd=$3 log=$4
shift 4
[ -f "$kernel" ] || die "kernel image $kernel missing"
[ -f "$initrd" ] || die "initramfs $initrd missing"
timeout=${TIMEOUT:-600}
machine=$QEMU_MACHINE kargs=
name=$(echo "${VARIANT:-}" | sed 's/-baseline$//' | tr 'a-z-' 'A-Z_')
case $name in
'') ;;
*[!A-Z0-9_]*) usage_error "VARIANT='$VARIANT': not a variant name" ;;
*)	# Only what boot/ARCH.conf sets, never the environment's.
	! grep -q "^QEMU_MACHINE_$name=" "$TOP/boot/$arch.conf" ||
		eval "machine=\$QEMU_MACHINE_$name"
	! grep -q "^KERNEL_ARGS_$name=" "$TOP/boot/$arch.conf" ||
		eval "kargs=\$KERNEL_ARGS_$name" ;;
esac
# A machine named by QEMU_MACHINE_VAR comes without the variant's arguments.
[ -z "${QEMU_MACHINE_VAR:-}" ] || eval "machine=\$$QEMU_MACHINE_VAR kargs="

# oops=panic and panic=-1: a crashed guest reboots, so QEMU ends at once.
append="console=$CONSOLE panic=-1 oops=panic${kargs:+ $kargs} $*"
status=0
# --foreground keeps QEMU in this process group: Ctrl-C reaches it.
# shellcheck disable=SC2086
timeout --foreground -k 10 "$timeout" $QEMU $machine ${QEMU_EXTRA:-} \
	-display none -monitor none -serial stdio -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null >"$log" 2>&1 &
pid=$!
tail -n +1 -f --pid=$pid "$log" 2>/dev/null || true
wait $pid || status=$?
[ $status != 124 ] || echo "qemu: no end after ${timeout}s, killed" >>"$log"
exit $status
