#!/bin/sh
# Runs the baseline tree's scripts/checkpatch.pl --strict on every patch of
# the series, in order. Fails if it reports anything.
set -eu
. "$(dirname "$0")/common.sh"
src=$("$TOP/scripts/tree.sh" baseline)
# checkpatch runs scripts/spdxcheck.py, which needs Debian's python3-ply and python3-git.
PATH=/usr/bin:$PATH
bad=0
for dir in $SERIES_DIRS; do
	for p in $(sed -e 's/#.*//' "$TOP/$dir/series"); do
		if out=$(cd "$src" && perl scripts/checkpatch.pl --strict --quiet \
				--no-summary "$TOP/$dir/$p" 2>&1) && [ -z "$out" ]; then
			echo "ok $dir/$p"
		else
			echo "not ok $dir/$p"
			echo "$out" | sed 's/^/# /'
			bad=1
		fi
	done
done
exit $bad
