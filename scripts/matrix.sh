#!/bin/sh
# usage: matrix.sh "ARCH..." "VARIANT..." RESULTS-DIR
#
# Builds, boots and tests every ARCH x VARIANT cell, prints one table and
# writes it to RESULTS-DIR/matrix.md and matrix.json. Each cell boots its
# kernel to run the tests (KUnit and /init), and once more for every crash
# test it expects (lkdtm.TYPE and crash.TYPE in tests/cases: LKDTM's TYPE,
# or the TYPE written to the series' debugfs file dynamic_stack/crash, must
# end in the report boot/ARCH.conf names in LKDTM_TYPE or CRASH_TYPE).
# tests/verdict.awk then decides: a cell is "ok" only if every case
# tests/cases expects of it passed and no boot had a problem (a hang, an
# oops, any kernel complaint, a broken KTAP document), "xfail" if the only
# failures are the known ones of tests/xfail. Exit 0 iff no cell failed.
#
# $TESTS (a glob over case names, as kunit.filter_glob takes it) runs only
# the cases it matches, and only the boots that run them.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 3 ] || usage_error 'usage: matrix.sh "ARCH..." "VARIANT..." RESULTS-DIR'
arches=$1 variants=$2 results=$3
[ -n "$(echo $arches)" ] || usage_error "no ARCH to run (valid: $ARCHES)"
[ -n "$(echo $variants)" ] || usage_error "no VARIANT to run (valid: $VARIANTS)"
for a in $arches; do (check_arch "$a"); done
for v in $variants; do check_variant "$v"; done
check_path RESULTS "$results"
tests=${TESTS:-}
mkdir -p "$results"
rows=$results/.rows
: >"$rows"

now() { date +%s; }

# expected ARCH VARIANT: the cases tests/cases expects of the cell (and
# $TESTS selects), one per line.
expected() {
	awk -v cell="$1/$2" -v tests="$tests" -v list=1 \
		-f "$TOP/tests/verdict.awk" "$TOP/tests/cases"
}

# build ARCH VARIANT TREE: builds one kernel from TREE, leaving base.image (its path),
# base.build.log, base.build_s and base.build.status behind.
build() {
	base=$results/$1-$2
	t0=$(now)
	status=0
	SRC=$3 "$TOP/scripts/build.sh" "$1" "$2" >"$base.image" 2>"$base.build.log" ||
		status=$?
	echo $(($(now) - t0)) >"$base.build_s"
	echo $status >"$base.build.status"
}

# guest ARCH VARIANT BOOT AWK-ARGS [KERNEL-ARGUMENT...]: boots the cell's
# kernel with its variant's command line; leaves base.BOOT.log and .ktap.
guest() {
	g_base=$results/$1-$2 g_cmdline=$TOP/tests/guest/$(variant_tree "$2").cmdline
	g_log=$results/$1-$2.$3.log g_awk=$4 g_arch=$1
	# The variant's own QEMU machine, if boot/ARCH.conf has one
	# (boot_guest reads it).
	# shellcheck disable=SC2034
	BOOT_VARIANT=$2
	shift 4
	# shellcheck disable=SC2046
	boot_guest "$g_arch" "$(cat "$g_base.image")" "$g_log" "$g_awk" \
		$(cat "$g_cmdline") "$@"
}

# cell ARCH VARIANT: boots a built kernel once for the tests, once more
# with tests/guest/off.cmdline (dynamic_stack=off) for the off.* cases if
# it has any, once with tests/guest/oom.cmdline for the oom.* cases (the
# OOM stress, whose OOM-killer reports tests/ktap.awk then expects) if it
# has any, and once for each crash test, takes the verdict, and appends
# "arch variant result build boots passed failed skipped xfail build_s
# boot_s kib reason" to $rows.
cell() {
	arch=$1 variant=$2 base=$results/$1-$2
	result=FAIL build=FAIL boots=0 boot_s=- kib=- reason=
	build_s=$(cat "$base.build_s")
	rm -f "$base".*.ktap "$base".*.log.ktap "$base.verdict"
	set -- 0 0 0 0
	if [ "$(cat "$base.build.status")" = 0 ]; then
		build=ok
		t0=$(now)
		cases=$(expected "$arch" "$variant")
		set -- ${tests:+"TESTS=$tests" "kunit.filter_glob=$tests"}
		if echo "$cases" | grep -qv -e '^lkdtm\.' -e '^crash\.' -e '^off\.' -e '^oom\.'; then
			guest "$arch" "$variant" tests "" "$@"
			boots=$((boots + 1))
		fi
		if echo "$cases" | grep -q '^off\.'; then
			# shellcheck disable=SC2046
			guest "$arch" "$variant" off "" "$@" $(cat "$TOP/tests/guest/off.cmdline")
			boots=$((boots + 1))
		fi
		if echo "$cases" | grep -q '^oom\.'; then
			# shellcheck disable=SC2046
			guest "$arch" "$variant" oom "oom=1" "$@" $(cat "$TOP/tests/guest/oom.cmdline")
			boots=$((boots + 1))
		fi
		for crash in $(echo "$cases" | grep -e '^lkdtm\.' -e '^crash\.'); do
			# LKDTM or CRASH, and the TYPE
			kind=$(echo "${crash%%.*}" | tr '[:lower:]' '[:upper:]') type=${crash#*.}
			report=$(check_arch "$arch" && eval "echo \"\${${kind}_$type:-}\"")
			[ -n "$report" ] || report="no ${kind}_$type in boot/$arch.conf"
			guest "$arch" "$variant" "${crash%%.*}-$type" \
				"crash=$crash
expect=$report" kunit.enable=0 "$kind=$type"
			boots=$((boots + 1))
		done
		boot_s=$(($(now) - t0))
		kib=$(sed -n 's/^metric kstack_kib_per_thread \([^ ]*\).*/\1/p' \
			"$base.tests.ktap" 2>/dev/null | head -n 1)
		kib=${kib:--}
		awk -v cell="$arch/$variant" -v tests="$tests" -f "$TOP/tests/verdict.awk" \
			"$TOP/tests/cases" "$TOP/tests/xfail" "$TOP/tests/skips" \
			"$base".*.ktap >"$base.verdict" 2>&1 || true
		result=$(sed -n 's/^verdict //p' "$base.verdict")
		result=${result:-FAIL}
		# shellcheck disable=SC2046
		set -- $(for k in passed failed skipped xfail; do
			sed -n "s/^$k //p" "$base.verdict"; done)
		[ $# = 4 ] || set -- 0 1 0 0
		reason=$(sed -n -e 's/^detail \(FAIL\|XPASS\) /\1 /p' -e 's/^problem //p' \
			"$base.verdict" | head -n 6 | tr '\n' ';')
	else
		reason="build failed: $(tail -n 3 "$base.build.log" | tr '\n' ' ')(log: $base.build.log)"
		set -- 0 1 0 0
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" \
		"$variant" "$result" "$build" "$boots" "$1" "$2" "$3" "$4" \
		"$build_s" "$boot_s" "$kib" "$reason" >>"$rows"
}

# Trees first, one at a time (they share a repository), all of them
# before any build starts: a build holds the tree lock shared, and
# tree.sh waits for it exclusively, so a tree prepared after a build had
# started would wait for that build, and the kernels would build in
# waves. Then every kernel at once (their serial phases overlap), then
# the boots one by one.
for tree in $(for v in $variants; do variant_tree "$v"; done | sort -u); do
	echo "matrix: preparing the $tree tree" >&2
	if "$TOP/scripts/tree.sh" "$tree" >"$results/tree-$tree.path" \
		2>"$results/tree-$tree.log"; then
		:
	else
		cat "$results/tree-$tree.log" >&2
		rm -f "$results/tree-$tree.path"
	fi
done
pids=
for variant in $variants; do
	tree=$(variant_tree "$variant")
	if [ -s "$results/tree-$tree.path" ]; then
		src=$(cat "$results/tree-$tree.path")
		for arch in $arches; do
			supported "$arch" "$variant" || continue
			echo "matrix: building $arch/$variant" >&2
			build "$arch" "$variant" "$src" &
			pids="$pids $!"
		done
	else
		for arch in $arches; do
			cp "$results/tree-$tree.log" "$results/$arch-$variant.build.log"
			echo 0 >"$results/$arch-$variant.build_s"
			echo 1 >"$results/$arch-$variant.build.status"
		done
	fi
done
for p in $pids; do
	wait "$p" || true
done
for arch in $arches; do
	for variant in $variants; do
		if ! supported "$arch" "$variant"; then
			printf '%s\t%s\tn/a\t-\t0\t0\t0\t1\t0\t-\t-\t-\t%s\n' "$arch" \
				"$variant" "not enabled on $arch (boot/$arch.conf)" >>"$rows"
			continue
		fi
		echo "matrix: booting $arch/$variant" >&2
		cell "$arch" "$variant"
	done
done

# The memory headline, held against what the series does not compute: per
# thread of the 2000 that kstack_kib_per_thread puts to sleep, the fall in
# free memory (MemFree and the per-CPU page lists) on a dynamic kernel must
# be less than on its baseline (its twin NAME-baseline if the arch has one,
# scripts/common.sh: variant_baseline) by what nr_kernel_stack says it saves
# (the difference of the two cells' kstack_kib_per_thread), within
# FREE_TOLERANCE KiB. One line each in
# $results/.checks: "name<TAB>ok|FAIL<TAB>detail". Measured on 2026-12-04
# (three runs of `make matrix TESTS=init.kstack_kib_per_thread`, 15
# comparisons): the difference was within 0.21 KiB; with MemFree alone
# (no per-CPU lists) it was off by up to 9.6 KiB. A thread that cost one
# page more than nr_kernel_stack says would be off by 4 KiB. The boot with
# dynamic_stack=off is held against the baseline the same way
# (free_memory_off.ARCH.VARIANT).
FREE_TOLERANCE=1.0
checks=$results/.checks
: >"$checks"
# metric ARCH VARIANT NAME BOOT: a metric of one boot (tests, off) of a cell.
metric() {
	sed -n "s/^metric $3 \([^ ]*\).*/\1/p" "$results/$1-$2.$4.ktap" 2>/dev/null | head -n 1
}
for arch in $arches; do
	for variant in $variants; do
		[ "$(variant_tree "$variant")" != baseline ] &&
			supported "$arch" "$variant" || continue
		# Held against its twin (debug against debug-baseline), if run.
		base=$(check_arch "$arch" && variant_baseline "$variant")
		case " $variants " in *" $base "*) ;; *) continue ;; esac
		expected "$arch" "$base" | grep -qx init.kstack_kib_per_thread || continue
		# The tests boot, and the boot with dynamic_stack=off if the
		# cell has one: there every stack is whole, and the free memory
		# a thread costs is the baseline's plus THREAD_SIZE - 16 KiB.
		for boot in tests off; do
			case $boot in
			tests) name=free_memory_saving.$arch.$variant kind=init ;;
			off) name=free_memory_off.$arch.$variant kind=off ;;
			esac
			expected "$arch" "$variant" | grep -qx "$kind.kstack_kib_per_thread" || continue
			bk=$(metric "$arch" "$base" kstack_kib_per_thread tests)
			bm=$(metric "$arch" "$base" free_kib_per_thread tests)
			vk=$(metric "$arch" "$variant" kstack_kib_per_thread $boot)
			vm=$(metric "$arch" "$variant" free_kib_per_thread $boot)
			awk -v name="$name" -v base="$base" -v bk="$bk" -v bm="$bm" \
			    -v vk="$vk" -v vm="$vm" -v tol="$FREE_TOLERANCE" 'BEGIN {
				if (bk == "" || bm == "" || vk == "" || vm == "") {
					printf "%s\tFAIL\tno kstack_kib_per_thread or free_kib_per_thread metric in both cells\n", name
					exit
				}
				counted = bk - vk; measured = bm - vm; d = measured - counted
				printf "%s\t%s\tfree memory falls by %.2f KiB less per thread than on %s (%.2f vs %.2f); nr_kernel_stack says %.2f KiB less (%.2f vs %.2f): %+.2f KiB, tolerance %.2f\n",
					name, (d <= tol && d >= -tol) ? "ok" : "FAIL", measured, base, vm, bm, counted, vk, bk, d, tol
			}' >>"$checks"
		done
	done
done

# Noinstr code of the series calls only noinstr code (scripts/noinstr.sh),
# in every dynamic kernel built for an arch whose boot/ARCH.conf lists
# NOINSTR_FUNCS. On x86 objtool checks all noinstr code, in every kernel
# built with CONFIG_NOINSTR_VALIDATION (scripts/objtool-noinstr.sh).
for arch in $arches; do
	for variant in $variants; do
		[ "$(variant_tree "$variant")" != baseline ] &&
			supported "$arch" "$variant" &&
			[ "$(cat "$results/$arch-$variant.build.status")" = 0 ] || continue
		(
			check_arch "$arch"
			[ -n "${NOINSTR_FUNCS:-}" ] || exit 0
			image=$(cat "$results/$arch-$variant.image")
			name=noinstr_calls.$arch.$variant
			# shellcheck disable=SC2086
			if out=$(CROSS_COMPILE=$CROSS_COMPILE NOINSTR_ALLOW=${NOINSTR_ALLOW:-} \
				"$TOP/scripts/noinstr.sh" "${image%/"$KERNEL_IMAGE"}/vmlinux" \
				$NOINSTR_FUNCS 2>&1); then
				printf '%s\tok\t%s call only noinstr code (and %s)\n' "$name" \
					"$NOINSTR_FUNCS" "${NOINSTR_ALLOW:-nothing else}"
			else
				printf '%s\tFAIL\t%s\n' "$name" "$(echo "$out" | tr '\n' ';')"
			fi
		) >>"$checks"
	done
done

for arch in $arches; do
	for variant in $variants; do
		supported "$arch" "$variant" &&
			[ "$(cat "$results/$arch-$variant.build.status")" = 0 ] || continue
		dir=$(cat "$results/$arch-$variant.image")
		dir=${dir%/arch/*}
		grep -qx CONFIG_NOINSTR_VALIDATION=y "$dir/.config" || continue
		name=noinstr_objtool.$arch.$variant
		if out=$("$TOP/scripts/objtool-noinstr.sh" "$dir" 2>&1); then
			printf '%s\tok\tobjtool --noinstr reports nothing\n' "$name"
		else
			printf '%s\tFAIL\t%s\n' "$name" "$(echo "$out" | tr '\n' ';')"
		fi >>"$checks"
	done
done

{
	echo "| arch | variant | result | build | boots | passed | failed | skipped | xfail | build s | boot s | kstack KiB/thread |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$rows"
	# What did not simply pass, by name: failures, skips, xfails, problems.
	while IFS="$(printf '\t')" read -r arch variant result rest; do
		v=$results/$arch-$variant.verdict
		[ -f "$v" ] || continue
		grep -q '^detail\|^problem' "$v" || continue
		printf '\n%s/%s (%s):\n' "$arch" "$variant" "$result"
		sed -n -e 's/^detail /- /p' -e 's/^diag /    /p' \
			-e 's/^problem /- problem: /p' "$v"
	done <"$rows"
	awk -F '\t' '$3 == "FAIL" && $4 != "ok" { printf "\n%s/%s: %s\n", $1, $2, $13 }' "$rows"
	if [ -s "$checks" ]; then
		printf '\nChecks across cells:\n'
		awk -F '\t' '{ printf "- %s %s: %s\n", $2, $1, $3 }' "$checks"
	fi
} >"$results/matrix.md"
awk -F '\t' 'function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
	function n(s) { return s == "-" ? "null" : s }
	BEGIN { printf "[" }
	{ printf "%s\n {\"arch\": %s, \"variant\": %s, \"result\": %s, \"build\": %s, \"boots\": %s, \"passed\": %s, \"failed\": %s, \"skipped\": %s, \"xfail\": %s, \"build_s\": %s, \"boot_s\": %s, \"kstack_kib_per_thread\": %s, \"reason\": %s}",
		(NR > 1 ? "," : ""), q($1), q($2), q($3), q($4), $5, $6, $7, $8, $9, n($10), n($11), n($12), q($13) }
	END { print "\n]" }' "$rows" >"$results/matrix.json"
cat "$results/matrix.md"

# The logs of failed cells outlive RESULTS, which a CI run removes with its
# clone: copied to CACHE/failed/TIME/, where the newest 5 runs are kept.
failed_dir=$CACHE/failed/$(date +%Y%m%dT%H%M%S)
awk -F '\t' '$3 == "FAIL" { print $1 "-" $2 }' "$rows" | while read -r cell; do
	mkdir -p "$failed_dir" && cp "$results/$cell".* "$failed_dir/" &&
		echo "matrix: $cell's logs kept in $failed_dir"
done
[ ! -d "$CACHE/failed" ] ||
	ls -1d "$CACHE"/failed/*/ | head -n -5 | while read -r old; do rm -rf "$old"; done

awk -F '\t' 'FILENAME ~ /checks$/ { if ($2 == "ok") cp++; else cf++; next }
	{ p += $6; f += $7; s += $8; x += $9 } $3 == "FAIL" { bad++ } $3 == "xfail" { xf++ }
	END { printf "\nmatrix: %d passed, %d failed, %d skipped, %d xfail; %d of %d cells failed, %d xfail; %d of %d checks across cells failed\n",
		p, f, s, x, bad, NR, xf, cf, cp + cf; exit bad + cf > 0 }' "$rows" "$checks"
