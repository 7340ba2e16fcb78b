# Shared by the scripts: where things are, and the checks on ARCH/VARIANT.
# shellcheck shell=sh
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/dynstack}
ARCHES="x86_64 arm64"
VARIANTS="baseline dynamic dynamic32 fred"

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# usage_error MSG: bad input from the user, exit 2.
usage_error() {
	echo "$(basename "$0"): $*" >&2
	exit 2
}

check_arch() {
	case " $ARCHES " in
	*" $1 "*) ;;
	*) usage_error "unknown ARCH '$1' (valid: $ARCHES)" ;;
	esac
	# shellcheck source=/dev/null
	. "$TOP/boot/$1.conf"
}

# variant_tree VARIANT: the tree VARIANT builds from. Every variant but the
# baseline is the dynamic kernel, with configs/VARIANT.config on top of
# configs/dynamic.config, and boots with tests/guest/dynamic.cmdline.
variant_tree() {
	case $1 in
	baseline) echo baseline ;;
	*) echo dynamic ;;
	esac
}

check_variant() {
	case " $VARIANTS " in
	*" $1 "*) ;;
	*) usage_error "unknown VARIANT '$1' (valid: $VARIANTS)" ;;
	esac
}

# boot_guest ARCH IMAGE LOG AWK-VAR [KERNEL-ARGUMENT...]: boots IMAGE with
# ARCH's test initramfs, console to LOG, and parses it with tests/ktap.awk
# -v AWK-VAR into LOG's .ktap file, where a hang, a QEMU failure or
# anything the parser finds wrong is a "problem" line.
boot_guest() {
	bg_arch=$1 bg_image=$2 bg_log=$3 bg_var=$4 bg_status=0
	bg_ktap=${bg_log%.log}.ktap
	shift 4
	"$TOP/boot/qemu.sh" "$bg_arch" "$bg_image" "$CACHE/initramfs/$bg_arch.cpio" \
		"$bg_log" "$@" >/dev/null 2>&1 || bg_status=$?
	awk -v "$bg_var" -f "$TOP/tests/ktap.awk" "$bg_log" >"$bg_ktap"
	case $bg_status in
	0) ;;
	124) echo "problem hang: no end after ${TIMEOUT:-600}s" >>"$bg_ktap" ;;
	*) echo "problem qemu exited $bg_status" >>"$bg_ktap" ;;
	esac
	if grep -q '^problem' "$bg_ktap"; then
		echo "problem (log: $bg_log)" >>"$bg_ktap"
	fi
}
