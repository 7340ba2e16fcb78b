#!/bin/sh
# usage: bench.sh "ARCH..." RESULTS-DIR [SCALE]
#
# Boots the baseline, the dynamic and, where boot/ARCH.conf lists it, the
# dynamic32 kernel of every ARCH with the same initramfs and BENCH=SCALE
# on the command line (tests/guest/bench.c; SCALE multiplies the
# iteration counts, 1 for the report), under QEMU's -icount, so that
# guest time follows executed instructions. Writes RESULTS-DIR/bench.md:
# a table per arch with every figure, its ratio to the baseline, the
# goals, the commands and kernels, and plots of baseline and dynamic
# (gnuplot, SVG). Exits non-zero if a boot failed or a figure is
# missing; a missed goal is reported, not an error.
set -eu
. "$(dirname "$0")/common.sh"
[ $# -ge 2 ] || usage_error 'usage: bench.sh "ARCH..." RESULTS-DIR [SCALE]'
arches=$1 results=$2 scale=${3:-1}
for a in $arches; do (check_arch "$a"); done
mkdir -p "$results"
icount="-icount shift=0,sleep=off"
export QEMU_EXTRA="$icount"
report=$results/bench.md
status=0
: >"$results/bench-versions"

# goal METRIC: the most dynamic/baseline may be, or nothing.
goal() {
	case $1 in
	idle_kstack_kib) echo 0.26 ;;
	sleeping_kib_per_thread | after_12k_reclaimed_kib_per_thread) echo 0.257 ;;
	thread_create_join_ns | fork_exit_wait_ns) echo 1.00 ;;
	pipe_round_trip_ns | kernel_fault_ns_per_page | irq_kernel_work_ns_per_64k) echo 1.01 ;;
	esac
}

{
	echo "# make bench"
	echo
	echo "Each kernel booted in its QEMU machine (boot/ARCH.conf) with"
	echo "\`$icount\` and \`BENCH=$scale\`; the figures are what"
	echo "tests/guest/bench.c printed. Ratio = dynamic / baseline."
} >"$report"

for arch in $arches; do
	variants="baseline dynamic"
	(check_arch "$arch" && case " $ARCH_VARIANTS " in *" dynamic32 "*) ;; *) exit 1 ;; esac) &&
		variants="$variants dynamic32"
	rm -f "$results/bench-$arch-dynamic32.metrics"
	for variant in $variants; do
		base=$results/bench-$arch-$variant
		echo "bench: $arch/$variant" >&2
		image=$("$TOP/scripts/build.sh" "$arch" "$variant")
		boot_guest "$arch" "$image" "$base.log" require= \
			$(cat "$TOP/tests/guest/$(variant_tree "$variant").cmdline") kunit.enable=0 \
			BENCH="$scale"
		sed -n 's/^metric //p' "$base.ktap" >"$base.metrics"
		if grep -q '^problem' "$base.ktap" || [ ! -s "$base.metrics" ]; then
			echo "bench: $arch/$variant failed (log: $base.log):" >&2
			sed -n 's/^problem /  /p' "$base.ktap" >&2
			status=1
		fi
		version=$(sed -n 's/.*\(Linux version [^ ]*\).*/\1/p' "$base.log" | head -n 1)
		echo "$arch/$variant: ${version:-no kernel version in the log}" >>"$results/bench-versions"
	done

	b=$results/bench-$arch-baseline.metrics d=$results/bench-$arch-dynamic.metrics
	d32=$results/bench-$arch-dynamic32.metrics
	[ -f "$d32" ] || d32=/dev/null
	{
		echo
		echo "## $arch"
		echo
		grep -h "^$arch/" "$results/bench-versions" | sed 's/^/    /'
		echo
		echo "| figure | unit | baseline | dynamic | ratio | dynamic32 | ratio | goal |"
		echo "|---|---|---|---|---|---|---|---|"
		awk '{ print $1 }' "$b" "$d" "$d32" | awk '!seen[$0]++' | while read -r m; do
			bv=$(awk -v m="$m" '$1 == m { print $2 }' "$b")
			dv=$(awk -v m="$m" '$1 == m { print $2 }' "$d")
			d32v=$(awk -v m="$m" '$1 == m { print $2 }' "$d32")
			unit=$(awk -v m="$m" '$1 == m { print $3 }' "$b" "$d" "$d32" | head -n 1)
			g=$(goal "$m")
			awk -v m="$m" -v u="$unit" -v b="${bv:--}" -v d="${dv:--}" \
			    -v d32="${d32v:--}" -v g="$g" -v has32="$([ "$d32" != /dev/null ] && echo 1)" '
			function ratio(x) { return (b != "-" && x != "-" && b + 0 != 0) ? sprintf("%.3f", x / b) : "-" }
			function verdict(r) { return r == "-" ? "not measured" : r + 0 <= g + 0 ? "met" : "MISSED" }
			BEGIN {
				r = ratio(d); r32 = ratio(d32)
				v = g == "" ? "" : "at most " g ": " verdict(r) (has32 ? ", " verdict(r32) : "")
				printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", m, u, b, d, r, d32, r32, v }'
		done
	} >>"$report"

	if command -v gnuplot >/dev/null; then
		svg=$results/bench-$arch.svg
		for f in "$b" "$d"; do
			grep -E '_kib_per_thread|^kstack_' "$f" | awk '{ print $1, $2 }' |
				sort -k1,1 >"$f.plot"
		done
		join "$b.plot" "$d.plot" >"$results/bench-$arch.dat" 2>/dev/null || true
		gnuplot -e "set terminal svg size 900,420; set output '$svg';
			set style data histograms; set style fill solid; set key top left;
			set xtics rotate by -30; set multiplot layout 1,2 title '$arch: baseline vs dynamic';
			set title 'kernel stack per thread (KiB)';
			plot '< grep _kib_ $results/bench-$arch.dat' using 2:xtic(1) title 'baseline', '' using 3 title 'dynamic';
			set title 'kstack histogram (exits)';
			plot '< grep ^kstack_ $results/bench-$arch.dat' using 2:xtic(1) title 'baseline', '' using 3 title 'dynamic';
			unset multiplot" 2>>"$results/gnuplot.log" &&
			printf '\n![%s](%s)\n' "$arch" "$(basename "$svg")" >>"$report"
	fi
done
rm -f "$results/bench-versions"
cat "$report"
exit $status
