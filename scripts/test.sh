#!/bin/sh
# usage: test.sh "ARCH..." "VARIANT..." RESULTS-DIR
#
# What `make test` and CI run: the host-side checks, checkpatch on the
# series, the quick bisect build of every prefix of the series, the
# matrix, then one short run of the benchmarks. Ends with one line
# "N passed, N failed, N skipped": the checks, the test cases of every
# cell, and each cell itself (ok, or not). A known failure (tests/xfail)
# and an allowed skip (tests/skips) count as skipped, an n/a cell too.
set -u
. "$(dirname "$0")/common.sh"
[ $# = 3 ] || usage_error 'usage: test.sh "ARCH..." "VARIANT..." RESULTS-DIR'
results=$3
check_path RESULTS "$results"
mkdir -p "$results"

status=0
echo "test: host checks" >&2
"$TOP/tests/host/run.sh" >"$results/host.ktap" 2>&1 || status=1
grep -v '^ok' "$results/host.ktap"
echo "test: checkpatch --strict on the series" >&2
"$TOP/scripts/checkpatch.sh" >"$results/checkpatch.ktap" 2>&1 || status=1
grep -v '^ok' "$results/checkpatch.ktap"
echo "test: quick bisect build of every prefix of the series" >&2
"$TOP/scripts/bisect.sh" quick >"$results/bisect.ktap" 2>&1 || status=1
grep -v '^ok' "$results/bisect.ktap"
rm -f "$results/.rows"
"$TOP/scripts/matrix.sh" "$1" "$2" "$results" || status=1
echo "test: benchmark smoke run (make bench BENCH_SCALE=0.01 BENCH_BOOTS=1)" >&2
if BENCH_BOOTS=1 "$TOP/scripts/bench.sh" "$1" "$results/bench-smoke" 0.01 \
	>"$results/bench-smoke.log" 2>&1; then
	echo "ok 1 bench_smoke" >"$results/bench.ktap"
else
	echo "not ok 1 bench_smoke (log: $results/bench-smoke.log)" >"$results/bench.ktap"
fi
cat "$results/bench.ktap"

# Checks across cells (scripts/matrix.sh) count as checks.
checks=$(cat "$results"/host.ktap "$results"/checkpatch.ktap \
	"$results"/bisect.ktap "$results"/bench.ktap
	awk -F '\t' '{ print ($2 == "ok" ? "ok " : "not ok ") NR " " $1 }' \
		"$results/.checks" 2>/dev/null)
checks_passed=$(echo "$checks" | grep -c '^ok ')
checks_failed=$(echo "$checks" | grep -c '^not ok ')
# Rows: arch variant result build boots passed failed skipped xfail ...
if [ -s "$results/.rows" ]; then
	# shellcheck disable=SC2046
	set -- $(awk -F '\t' '{ p += $6; f += $7; s += $8 + $9 }
		$3 == "n/a" { s++; next } $3 == "ok" { p++; next } $3 == "xfail" { s++; next } { f++ }
		END { print p + 0, f + 0, s + 0 }' "$results/.rows")
else
	set -- 0 1 0
fi
failed=$((checks_failed + $2))
[ $failed = 0 ] || status=1
# A check that failed without a "not ok" line (a crash of its script).
[ $status = 0 ] || [ $failed != 0 ] || failed=1
echo
echo "$((checks_passed + $1)) passed, $failed failed, $3 skipped"
exit $status
