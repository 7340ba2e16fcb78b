#!/bin/sh
# usage: test.sh "ARCH..." "VARIANT..." RESULTS-DIR
#
# What `make test` and CI run: the host-side checks, then the matrix. Ends
# with one line "N passed, N failed, N skipped": host checks, the in-guest
# and KUnit test cases of every cell, and each cell itself (built and
# booted cleanly, or not).
set -u
. "$(dirname "$0")/common.sh"
[ $# = 3 ] || usage_error 'usage: test.sh "ARCH..." "VARIANT..." RESULTS-DIR'
results=$3
mkdir -p "$results"

"$TOP/tests/host/run.sh" | tee "$results/host.ktap"
"$TOP/scripts/matrix.sh" "$1" "$2" "$results"
matrix_status=$?

host_passed=$(grep -c '^ok ' "$results/host.ktap")
host_failed=$(grep -c '^not ok ' "$results/host.ktap")
if [ -f "$results/.rows" ] && [ $matrix_status != 2 ]; then
	set -- $(awk -F '\t' '{ p += $5; f += $6; s += $7 }
		$4 == "n/a" { next } $3 == "ok" && $4 == "ok" { p++; next } { f++ }
		END { print p + 0, f + 0, s + 0 }' "$results/.rows")
else
	set -- 0 1 0
fi
echo
echo "$((host_passed + $1)) passed, $((host_failed + $2)) failed, $3 skipped"
[ $((host_failed + $2)) = 0 ] && [ $matrix_status = 0 ]
