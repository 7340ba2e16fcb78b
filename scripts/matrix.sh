#!/bin/sh
# usage: matrix.sh "ARCH..." "VARIANT..." RESULTS-DIR
#
# Builds, boots and tests every ARCH x VARIANT cell, prints one table and
# writes it to RESULTS-DIR/matrix.md and matrix.json. A cell passes only if
# its kernel built, its guest ended by itself, the console has complete
# KTAP with no failure and no oops/BUG/WARNING/panic. Exit 0 iff all passed.
set -eu
. "$(dirname "$0")/common.sh"
[ $# = 3 ] || usage_error 'usage: matrix.sh "ARCH..." "VARIANT..." RESULTS-DIR'
arches=$1 variants=$2 results=$3
for a in $arches; do (check_arch "$a"); done
for v in $variants; do check_variant "$v"; done
mkdir -p "$results"
rows=$results/.rows
: >"$rows"

now() { date +%s; }

# supported ARCH VARIANT: whether boot/ARCH.conf lists VARIANT.
supported() {
	(check_arch "$1" && case " $ARCH_VARIANTS " in *" $2 "*) ;; *) exit 1 ;; esac)
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

# guest ARCH VARIANT NAME AWK-VAR [KERNEL-ARGUMENT...]: boots the cell's
# kernel with its variant's command line; leaves base.NAME.log and .ktap.
guest() {
	g_base=$results/$1-$2 g_cmdline=$TOP/tests/guest/$(variant_tree "$2").cmdline
	g_log=$results/$1-$2.$3.log g_var=$4 g_arch=$1
	shift 4
	boot_guest "$g_arch" "$(cat "$g_base.image")" "$g_log" "$g_var" \
		$(cat "$g_cmdline") "$@"
}

# cell ARCH VARIANT: boots a built kernel twice, once to run the tests and
# once to overflow a stack (LKDTM EXHAUST_STACK, which must end in the
# report boot/ARCH.conf names), and appends "arch variant build boot
# overflow passed failed skipped build_s boot_s kib_per_thread reason"
# to $rows.
cell() {
	arch=$1 variant=$2 base=$results/$1-$2
	build=FAIL boot=- overflow=- passed=0 failed=0 skipped=0 boot_s=- kib=- reason=
	build_s=$(cat "$base.build_s")
	if [ "$(cat "$base.build.status")" = 0 ]; then
		build=ok
	else
		reason="build failed: $(tail -n 3 "$base.build.log" | tr '\n' ' ')(log: $base.build.log)"
	fi
	if [ $build = ok ]; then
		report=$(check_arch "$arch" && echo "$STACK_OVERFLOW_REPORT")
		t0=$(now)
		guest "$arch" "$variant" console require=init_reached
		guest "$arch" "$variant" overflow "expect=$report" \
			kunit.enable=0 LKDTM=EXHAUST_STACK
		boot_s=$(($(now) - t0))
		kib=$(sed -n 's/^metric kstack_kib_per_thread \([^ ]*\).*/\1/p' "$base.console.ktap")
		kib=${kib:--}
		cat "$base.console.ktap" "$base.overflow.ktap" >"$base.ktap"
		passed=$(awk '/^passed / { n += $2 } END { print n + 0 }' "$base.ktap")
		failed=$(awk '/^failed / { n += $2 } END { print n + 0 }' "$base.ktap")
		skipped=$(awk '/^skipped / { n += $2 } END { print n + 0 }' "$base.ktap")
		reason=$(sed -n 's/^problem //p' "$base.console.ktap" "$base.overflow.ktap" |
			head -n 4 | tr '\n' ';')
		boot=ok overflow=ok
		if grep -q '^problem' "$base.console.ktap" ||
		   ! grep -q '^passed [1-9]' "$base.console.ktap"; then
			boot=FAIL
			reason=${reason:-"no test passed (log: $base.console.log)"}
		fi
		grep -q '^problem' "$base.overflow.ktap" && overflow=FAIL
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" \
		"$variant" "$build" "$boot" "$overflow" "$passed" "$failed" \
		"$skipped" "$build_s" "$boot_s" "$kib" "$reason" >>"$rows"
}

# Trees first (one at a time: they share a repository), then every kernel
# at once (their serial phases overlap), then the boots one by one.
for variant in $variants; do
	echo "matrix: preparing the $variant tree" >&2
	if src=$("$TOP/scripts/tree.sh" "$variant" 2>"$results/tree-$variant.log"); then
		for arch in $arches; do
			supported "$arch" "$variant" || continue
			echo "matrix: building $arch/$variant" >&2
			build "$arch" "$variant" "$src" &
		done
	else
		for arch in $arches; do
			cp "$results/tree-$variant.log" "$results/$arch-$variant.build.log"
			echo 0 >"$results/$arch-$variant.build_s"
			echo 1 >"$results/$arch-$variant.build.status"
		done
	fi
done
wait
for arch in $arches; do
	for variant in $variants; do
		if ! supported "$arch" "$variant"; then
			printf '%s\t%s\t-\tn/a\tn/a\t0\t0\t1\t-\t-\t-\t%s\n' "$arch" \
				"$variant" "not enabled on $arch (boot/$arch.conf)" >>"$rows"
			continue
		fi
		echo "matrix: booting $arch/$variant" >&2
		cell "$arch" "$variant"
	done
done

{
	echo "| arch | variant | build | boot | overflow | passed | failed | skipped | build s | boot s | kstack KiB/thread |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$rows"
	awk -F '\t' '$12 != "" { printf "\n%s/%s: %s\n", $1, $2, $12 }' "$rows"
} >"$results/matrix.md"
awk -F '\t' 'function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
	function n(s) { return s == "-" ? "null" : s }
	BEGIN { printf "[" }
	{ printf "%s\n {\"arch\": %s, \"variant\": %s, \"build\": %s, \"boot\": %s, \"overflow\": %s, \"passed\": %s, \"failed\": %s, \"skipped\": %s, \"build_s\": %s, \"boot_s\": %s, \"kstack_kib_per_thread\": %s, \"reason\": %s}",
		(NR > 1 ? "," : ""), q($1), q($2), q($3), q($4), q($5), $6, $7, $8, n($9), n($10), n($11), q($12) }
	END { print "\n]" }' "$rows" >"$results/matrix.json"
cat "$results/matrix.md"

awk -F '\t' '{ p += $6; f += $7; s += $8 } $4 != "n/a" && ($3 != "ok" || $4 != "ok" || $5 != "ok") { bad++ }
	END { printf "\nmatrix: %d passed, %d failed, %d skipped; %d of %d cells failed\n", p, f, s, bad, NR; exit bad > 0 }' "$rows"
