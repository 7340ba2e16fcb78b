# Shared by the scripts: where things are, and the checks on ARCH/VARIANT.
# shellcheck shell=sh
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/dynstack}
ARCHES="x86_64 arm64"
VARIANTS="baseline dynamic"

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

check_variant() {
	case " $VARIANTS " in
	*" $1 "*) ;;
	*) usage_error "unknown VARIANT '$1' (valid: $VARIANTS)" ;;
	esac
}
