# Shared by the scripts: where things are, the checks on ARCH/VARIANT and
# on paths, the lock on CACHE and the handling of Ctrl-C.
# shellcheck shell=sh
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/dynstack}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# usage_error MSG: bad input from the user, exit 2.
usage_error() {
	echo "$(basename "$0"): $*" >&2
	exit 2
}

# The arches are the machines in boot/ (one ARCH.conf each, as kunit.py
# keeps one qemu_configs/ARCH.py); the variants, those the arches list.
ARCHES=$(cd "$TOP/boot" && ls -- *.conf | sed 's/\.conf$//' | tr '\n' ' ' | sed 's/ $//')
VARIANTS=$(sed -n 's/^ARCH_VARIANTS="\(.*\)"/\1/p' "$TOP"/boot/*.conf |
	tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//')

# The series, in the order it applies: the generic patches, then each
# arch's (SERIES_DIR in boot/ARCH.conf; an arch's patches may only follow
# another's where they touch the same file, as MAINTAINERS).
# shellcheck disable=SC2034
SERIES_DIRS="generic arch-x86 arch-arm64"

# check_path NAME VALUE: a path the tools can use (make and the kernel's
# build cannot take whitespace in it).
check_path() {
	case $2 in
	'') usage_error "$1 is empty" ;;
	*[[:space:]]*) usage_error "$1='$2' contains whitespace, which the kernel build cannot take; choose another path" ;;
	esac
}
check_path CACHE "$CACHE"
case $CACHE in /*) ;; *) CACHE=$(pwd)/$CACHE ;; esac

check_arch() {
	case " $ARCHES " in
	*" $1 "*) ;;
	*) usage_error "unknown ARCH '$1' (valid: $ARCHES)" ;;
	esac
	# shellcheck source=/dev/null
	. "$TOP/boot/$1.conf"
}

check_variant() {
	case " $VARIANTS " in
	*" $1 "*) ;;
	*) usage_error "unknown VARIANT '$1' (valid: $VARIANTS)" ;;
	esac
}

# variant_tree VARIANT: the tree VARIANT builds from. The baseline and
# NAME-baseline (the twin of variant NAME, with configs/NAME.config) are
# the unpatched kernel; every other variant is the dynamic kernel, with
# configs/VARIANT.config on top of configs/dynamic.config. A variant boots
# with tests/guest/TREE.cmdline.
variant_tree() {
	case $1 in
	baseline | *-baseline) echo baseline ;;
	*) echo dynamic ;;
	esac
}

# variant_baseline VARIANT: the baseline a dynamic variant is held against:
# its twin NAME-baseline where boot/ARCH.conf has one, else the baseline.
variant_baseline() {
	case " $ARCH_VARIANTS " in
	*" $1-baseline "*) echo "$1-baseline" ;;
	*) echo baseline ;;
	esac
}

# supported ARCH VARIANT: whether boot/ARCH.conf lists VARIANT.
supported() {
	(check_arch "$1" && case " $ARCH_VARIANTS " in *" $2 "*) ;; *) exit 1 ;; esac)
}

# The cache directory: created with a mark, so that distclean removes only
# a directory these tools made.
init_cache() {
	[ -f "$CACHE/.dynstack-cache" ] && return 0
	# A cache of an earlier version of the tools has their layout.
	if [ ! -d "$CACHE" ] || [ -f "$CACHE/src/baseline.version" ]; then
		mkdir -p "$CACHE" || die "cannot create CACHE=$CACHE"
		echo "made by the dynamic-stack tools; make distclean removes it" \
			>"$CACHE/.dynstack-cache"
	fi
}

# with_lock FILE shared|exclusive COMMAND...: runs COMMAND holding a lock
# on FILE (flock(1)), so that two runs sharing one CACHE wait for each
# other instead of rewriting a tree or a build the other one is using.
with_lock() {
	wl_file=$1 wl_mode=$2
	shift 2
	init_cache
	mkdir -p "$(dirname "$wl_file")"
	if [ "$wl_mode" = shared ]; then
		flock -s "$wl_file" "$@"
	else
		flock -x "$wl_file" "$@"
	fi
}

# Ctrl-C (or TERM, HUP) stops everything this run started. The terminal's
# SIGINT reaches make's process group, but background jobs of a shell
# ignore it, and so do what they run: each script stops its own
# descendants (QEMU, timeout, builds) before it exits.
kill_tree() {
	kt_children=$(pgrep -P "$1" 2>/dev/null)
	[ "$1" = $$ ] || kill -TERM "$1" 2>/dev/null
	for kt_child in $kt_children; do
		kill_tree "$kt_child"
	done
}
on_interrupt() {
	trap - INT TERM HUP
	echo "$(basename "$0"): interrupted: stopping what it started" >&2
	kill_tree $$
	exit 130
}
trap on_interrupt INT TERM HUP

# boot_guest ARCH IMAGE LOG AWK-ARGS [KERNEL-ARGUMENT...]: boots IMAGE with
# ARCH's test initramfs, console to LOG, and parses it with tests/ktap.awk
# (AWK-ARGS: its -v assignments, separated by newlines) into LOG's .ktap
# file, where a hang, a QEMU failure or anything the parser finds wrong is
# a "problem" line. $BOOT_VARIANT, if set, is the variant whose machine
# boots (boot/qemu.sh's $VARIANT).
boot_guest() {
	bg_arch=$1 bg_image=$2 bg_log=$3 bg_awk=$4 bg_status=0
	bg_ktap=${bg_log%.log}.ktap
	shift 4
	VARIANT=${BOOT_VARIANT:-} "$TOP/boot/qemu.sh" "$bg_arch" "$bg_image" \
		"$CACHE/initramfs/$bg_arch.cpio" "$bg_log" "$@" >/dev/null 2>&1 ||
		bg_status=$?
	parse_console "$bg_log" "$bg_awk" >"$bg_ktap"
	case $bg_status in
	0) ;;
	124) echo "problem hang: no end after ${TIMEOUT:-600}s" >>"$bg_ktap" ;;
	*) echo "problem qemu exited $bg_status" >>"$bg_ktap" ;;
	esac
	if grep -q '^problem' "$bg_ktap"; then
		echo "problem (log: $bg_log)" >>"$bg_ktap"
	fi
}

# parse_console LOG AWK-ARGS: tests/ktap.awk on LOG, with AWK-ARGS (-v
# assignments without the -v, one per line).
parse_console() {
	pc_log=$1 pc_args=$2
	set -- -v "complaints=$TOP/tests/complaints"
	while IFS= read -r pc_a; do
		[ -n "$pc_a" ] && set -- "$@" -v "$pc_a"
	done <<EOF
$pc_args
EOF
	awk "$@" -f "$TOP/tests/ktap.awk" "$pc_log"
}
