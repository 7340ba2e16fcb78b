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

# cell ARCH VARIANT: boots a built kernel and appends "arch variant build
# boot passed failed skipped build_s boot_s kib_per_thread reason" to $rows.
cell() {
	arch=$1 variant=$2 base=$results/$1-$2
	build=FAIL boot=- passed=0 failed=0 skipped=0 boot_s=- kib=- reason=
	build_s=$(cat "$base.build_s")
	if [ "$(cat "$base.build.status")" = 0 ]; then
		build=ok
	else
		reason="build failed: $(tail -n 3 "$base.build.log" | tr '\n' ' ')(log: $base.build.log)"
	fi
	if [ $build = ok ]; then
		t0=$(now)
		qstatus=0
		"$TOP/boot/qemu.sh" "$arch" "$(cat "$base.image")" \
			"$CACHE/initramfs/$arch.cpio" "$base.console.log" \
			$(cat "$TOP/tests/guest/$variant.cmdline") \
			>/dev/null 2>&1 || qstatus=$?
		boot_s=$(($(now) - t0))
		awk -v require=init_reached -f "$TOP/tests/ktap.awk" \
			"$base.console.log" >"$base.ktap"
		passed=$(sed -n 's/^passed //p' "$base.ktap")
		failed=$(sed -n 's/^failed //p' "$base.ktap")
		skipped=$(sed -n 's/^skipped //p' "$base.ktap")
		kib=$(sed -n 's/^metric kstack_kib_per_thread \([^ ]*\).*/\1/p' "$base.ktap")
		kib=${kib:--}
		reason=$(sed -n 's/^problem //p' "$base.ktap" | head -n 3 | tr '\n' ';')
		case $qstatus in
		0) ;;
		124) reason="hang: no end after ${TIMEOUT:-600}s; $reason" ;;
		*) reason="qemu exited $qstatus; $reason" ;;
		esac
		if [ -z "$reason" ] && [ "$passed" -gt 0 ]; then
			boot=ok
		else
			boot=FAIL
			reason="${reason:-no test passed} (log: $base.console.log)"
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$variant" \
		"$build" "$boot" "$passed" "$failed" "$skipped" "$build_s" \
		"$boot_s" "$kib" "$reason" >>"$rows"
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
			printf '%s\t%s\t-\tn/a\t0\t0\t1\t-\t-\t-\t%s\n' "$arch" \
				"$variant" "not enabled on $arch (boot/$arch.conf)" >>"$rows"
			continue
		fi
		echo "matrix: booting $arch/$variant" >&2
		cell "$arch" "$variant"
	done
done

{
	echo "| arch | variant | build | boot | passed | failed | skipped | build s | boot s | kstack KiB/thread |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$rows"
	awk -F '\t' '$11 != "" { printf "\n%s/%s: %s\n", $1, $2, $11 }' "$rows"
} >"$results/matrix.md"
awk -F '\t' 'function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
	function n(s) { return s == "-" ? "null" : s }
	BEGIN { printf "[" }
	{ printf "%s\n {\"arch\": %s, \"variant\": %s, \"build\": %s, \"boot\": %s, \"passed\": %s, \"failed\": %s, \"skipped\": %s, \"build_s\": %s, \"boot_s\": %s, \"kstack_kib_per_thread\": %s, \"reason\": %s}",
		(NR > 1 ? "," : ""), q($1), q($2), q($3), q($4), $5, $6, $7, n($8), n($9), n($10), q($11) }
	END { print "\n]" }' "$rows" >"$results/matrix.json"
cat "$results/matrix.md"

awk -F '\t' '{ p += $5; f += $6; s += $7 } $4 != "n/a" && ($3 != "ok" || $4 != "ok") { bad++ }
	END { printf "\nmatrix: %d passed, %d failed, %d skipped; %d of %d cells failed\n", p, f, s, bad, NR; exit bad > 0 }' "$rows"
