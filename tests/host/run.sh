#!/bin/sh
# Host-side checks, as KTAP: the scripts parse, the series files are
# consistent, the KTAP parser reads good and bad logs right, and bad input
# gets a clear error. Exits non-zero if any check failed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME COMMAND...: one KTAP result; the command's output on failure.
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' "$tmp/out"
		failed=$((failed + 1))
	fi
}

shell_syntax() {
	for f in scripts/*.sh boot/*.sh tests/host/*.sh; do
		sh -n "$f" || { echo "$f"; return 1; }
	done
	bash -n .ci/run
}

series_consistent() {
	for dir in generic arch-x86 arch-arm64; do
		listed=$(sed -e 's/#.*//' "$dir/series") || return 1
		for p in $listed; do
			[ -f "$dir/$p" ] || { echo "$dir/series: $p missing"; return 1; }
		done
		for f in "$dir"/*.patch; do
			[ -e "$f" ] || continue
			echo "$listed" | grep -qx "$(basename "$f")" ||
				{ echo "$f is not in $dir/series"; return 1; }
		done
	done
}

# ktap_case LOG: the parser's verdict on LOG is LOG's .expected file;
# overflow-*.log are crash boots, which must show the x86 guard-page report.
ktap_case() {
	case $(basename "$1") in
	overflow-*) var="expect=stack guard page was hit" ;;
	*) var=require=init_reached ;;
	esac
	awk -v "$var" -f tests/ktap.awk "$1" | diff -u "${1%.log}.expected" -
}

# expect_usage_error WORD COMMAND...: exit 2 and a message naming WORD.
expect_usage_error() {
	word=$1
	shift
	status=0
	"$@" >"$tmp/err" 2>&1 || status=$?
	cat "$tmp/err"
	[ $status = 2 ] && grep -q "$word" "$tmp/err"
}

# A series that does not apply names the patch and the file, on a small
# stand-in for the kernel tarball.
series_does_not_apply() {
	mkdir -p "$tmp/t/linux/kernel" "$tmp/s/generic" "$tmp/s/arch-x86" "$tmp/s/arch-arm64"
	printf 'one\ntwo\n' >"$tmp/t/linux/kernel/fork.c"
	tar -cJf "$tmp/linux.tar.xz" -C "$tmp/t" linux
	cat >"$tmp/s/generic/0001-x.patch" <<'PATCH'
From: Some One <one@example.com>
Subject: [PATCH] x

---
diff --git a/kernel/fork.c b/kernel/fork.c
--- a/kernel/fork.c
+++ b/kernel/fork.c
@@ -1,2 +1,2 @@
 one
-three
+four
PATCH
	echo 0001-x.patch >"$tmp/s/generic/series"
	: >"$tmp/s/arch-x86/series"
	: >"$tmp/s/arch-arm64/series"
	status=0
	CACHE=$tmp/cache LINUX_TARBALL=$tmp/linux.tar.xz SERIES_ROOT=$tmp/s \
		scripts/tree.sh dynamic >"$tmp/err" 2>&1 || status=$?
	cat "$tmp/err"
	[ $status != 0 ] && grep -q 'generic/0001-x.patch does not apply.*fails on: kernel/fork.c' "$tmp/err"
}

echo "KTAP version 1"
echo "1..$((5 + $(ls tests/host/ktap/*.log | wc -l)))"
check shell_syntax shell_syntax
check series_consistent series_consistent
for log in tests/host/ktap/*.log; do
	check "ktap_parser_$(basename "$log" .log)" ktap_case "$log"
done
check unknown_arch expect_usage_error "valid: x86_64 arm64" make -s kernel ARCH=sparc VARIANT=baseline
check unknown_variant expect_usage_error "valid: baseline dynamic dynamic32 fred" make -s kernel ARCH=x86_64 VARIANT=fast
check series_does_not_apply series_does_not_apply
echo "# host: $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
