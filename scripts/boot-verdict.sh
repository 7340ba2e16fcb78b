#!/bin/sh
# usage: boot-verdict.sh LOG QEMU-STATUS
#
# For make boot: reads the console LOG of one boot as the matrix does
# (tests/ktap.awk, into LOG's name with .ktap for .log), prints every
# failed case and every problem (a panic, an oops, any kernel complaint
# of tests/complaints, a broken KTAP stream, QEMU's status 124 for a
# hang or any other non-zero status), then "boot: N passed, N failed, N
# skipped" alone on its line. Exits 1 if a case failed or there was a
# problem; a boot that ran no case at all is a problem too.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 2 ] || usage_error "usage: boot-verdict.sh LOG QEMU-STATUS"
log=$1 status=$2
[ -f "$log" ] || die "console log $log missing"
ktap=${log%.log}.ktap
parse_console "$log" "" >"$ktap"
case $status in
0) ;;
124) echo "problem hang: no end after ${TIMEOUT:-600}s" >>"$ktap" ;;
*) echo "problem qemu exited $status" >>"$ktap" ;;
esac
grep -q '^case ' "$ktap" || echo "problem no test result in the console log" >>"$ktap"
sed -n -e 's/^case FAIL /failed: /p' -e 's/^problem /problem: /p' "$ktap"
awk '$1 == "case" { n[$2]++ }
	END { printf "boot: %d passed, %d failed, %d skipped\n", n["PASS"], n["FAIL"], n["SKIP"] }' "$ktap"
! grep -q -e '^case FAIL' -e '^problem' "$ktap"
