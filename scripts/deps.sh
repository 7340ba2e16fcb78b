#!/bin/sh
# Install the Debian packages the build and the QEMU machines need, if any
# is missing. Each entry: package, then the file that shows it is there.
set -eu

missing=
while read -r pkg probe; do
	case "$pkg" in ''|'#'*) continue ;; esac
	case "$probe" in
	/*) [ -e "$probe" ] ;;
	*) command -v "$probe" >/dev/null 2>&1 ;;
	esac || missing="$missing $pkg"
done <<'LIST'
linux-source-6.12	/usr/src/linux-source-6.12.tar.xz
make			make
gcc			gcc
libc6-dev		/usr/include/stdio.h
gcc-aarch64-linux-gnu	aarch64-linux-gnu-gcc
libc6-dev-arm64-cross	/usr/aarch64-linux-gnu/lib/libc.a
gcc-arm-linux-gnueabihf	arm-linux-gnueabihf-gcc
libc6-dev-armhf-cross	/usr/arm-linux-gnueabihf/lib/libc.a
flex			flex
bison			bison
bc			bc
cpio			cpio
ccache			ccache
xz-utils		xz
libelf-dev		/usr/include/libelf.h
libssl-dev		/usr/include/openssl/ssl.h
perl			perl
python3-ply		/usr/lib/python3/dist-packages/ply
python3-git		/usr/lib/python3/dist-packages/git
gnuplot-nox		gnuplot
git			git
procps			pgrep
util-linux		flock
shellcheck		shellcheck
qemu-system-x86		qemu-system-x86_64
qemu-system-arm		qemu-system-aarch64
LIST

[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: not root; install them with: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "deps: installed:$missing"
