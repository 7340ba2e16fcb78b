#!/bin/sh
# usage: bench.sh "ARCH..." RESULTS-DIR [SCALE]
#
# Boots, per ARCH, the baseline, the dynamic and, where boot/ARCH.conf
# lists it, the dynamic32 kernel $BENCH_BOOTS times each (default 5), and
# the baseline kernel $BENCH_BOOTS times more as "baseline2", a second
# series that shows the noise floor. The boots take turns: baseline,
# dynamic, dynamic32, baseline2, baseline, ... Every boot runs
# tests/guest/bench.c (BENCH=SCALE on the command line; SCALE multiplies
# the iteration counts, 1 for the report) in boot/ARCH.conf's
# QEMU_BENCH_MACHINE (one vCPU) under -icount shift=0, where a time in the
# guest is a count of guest instructions. Writes RESULTS-DIR/bench.md: per
# arch the median and range of every figure, the range of its ratio to the
# baseline, the goals, and what produced the figures; and an SVG plot
# (gnuplot). Exits non-zero if a boot failed or a figure is missing; a
# missed goal is reported, not an error.
set -eu
. "$(dirname "$0")/common.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || usage_error 'usage: bench.sh "ARCH..." RESULTS-DIR [SCALE]'
arches=$1 results=$2 scale=${3:-1} boots=${BENCH_BOOTS:-5}
[ -n "$arches" ] || usage_error "no ARCH (valid: $ARCHES)"
for a in $arches; do
	(check_arch "$a")
	(unset QEMU_BENCH_MACHINE && check_arch "$a" && [ -n "${QEMU_BENCH_MACHINE:-}" ]) ||
		die "boot/$a.conf has no QEMU_BENCH_MACHINE (the benchmark's machine)"
done
check_path RESULTS "$results"
case $boots in
'' | *[!0-9]* | 0*) usage_error "BENCH_BOOTS='$boots': want a whole number of boots, at least 1" ;;
esac
awk -v s="$scale" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s + 0 > 0) }' ||
	usage_error "SCALE='$scale': want a number above 0"

started=$(date +%s)
mkdir -p "$results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/initramfs"
export QEMU_EXTRA="-icount shift=0,sleep=off -rtc clock=vm" QEMU_MACHINE_VAR=QEMU_BENCH_MACHINE
report=$results/bench.md
status=0

# The goals, FIGURE=G: dynamic/baseline is at most G.
goals="idle_kstack_kib=0.26
sleeping_kib_per_thread=0.257
after_12k_reclaimed_kib_per_thread=0.257
thread_create_join=1.00
fork_exit_wait=1.00
pipe_round_trip=1.01
kernel_fault_per_page=1.01
irq_kernel_work_per_64k=1.01"

# kernel SERIES: the kernel that a series of boots boots.
kernel() {
	case $1 in
	baseline2) echo baseline ;;
	*) echo "$1" ;;
	esac
}

# The series: the names of the patches and their contents, hashed.
series_root=${SERIES_ROOT:-$TOP}
series_hash=$(cd "$series_root" && for dir in $SERIES_DIRS; do
	for p in $(sed -e 's/#.*//' "$dir/series"); do echo "$dir/$p"; cat "$dir/$p"; done
done | sha256sum | cut -d' ' -f1)

{
	echo "# make bench"
	echo
	echo "    BENCH_BOOTS=$boots ${SERIES_ROOT:+SERIES_ROOT=$SERIES_ROOT }scripts/bench.sh \"$arches\" $results $scale"
	echo
	echo "Each kernel was booted $boots time(s), the kernels taking turns"
	echo "(baseline, dynamic, dynamic32, baseline2, baseline, ...);"
	echo "**baseline2** boots the baseline kernel again: a second, independent"
	echo "series, compared with the first exactly as dynamic is, so its ratios"
	echo "show the noise floor. Every figure, time or memory, comes from these"
	echo "boots: tests/guest/bench.c, run by /init for \`BENCH=$scale\`."
	echo
	echo "- **Machine**: boot/ARCH.conf's \`QEMU_BENCH_MACHINE\` (one vCPU) with"
	echo "  \`$QEMU_EXTRA\`, and \`norandmaps\` on the kernel command line"
	echo "  (below: the exact command lines), for every figure: idle_stacks and"
	echo "  idle_kstack_kib count the kernel threads of one CPU, fewer than in"
	echo "  the two-vCPU test machine (QEMU_MACHINE) of make matrix."
	echo "- **insn**: under \`-icount shift=0\` QEMU's virtual clock advances 1 ns"
	echo "  per guest instruction (and, with \`sleep=off\`, jumps over idle time"
	echo "  to the next timer), so the guest's CLOCK_MONOTONIC times are counts"
	echo "  of guest instructions, not host or real-hardware time."
	echo "- **Figures**: median [min, max] over the boots of one kernel."
	echo "- **Ratio** of a kernel X to the baseline: median(X) / median(baseline)"
	echo "  [min(X) / max(baseline), max(X) / min(baseline)]: the range holds the"
	echo "  ratio of every boot of X to every boot of the baseline."
	echo "- **Goal** \"at most G\": *met* if the whole ratio range is at most G,"
	echo "  *MISSED* if the whole range is above G, otherwise *inconclusive*"
	echo "  (ratios rounded to 3 decimals first, as shown)."
	echo "- **One vCPU**: with the two vCPUs of the test machine, some x86_64"
	echo "  figures jumped between two levels from boot to boot of one kernel;"
	echo "  \"Two levels on x86_64\" below says why."
} >"$report"

versions=$work/versions
: >"$versions"
for arch in $arches; do
	series="baseline dynamic"
	! supported "$arch" dynamic32 || series="$series dynamic32"
	series="$series baseline2"
	rm -f "$results/bench-$arch-"*

	# This run's initramfs and kernels, copied: another run sharing CACHE
	# may rebuild them while this one boots.
	WITH_KSELFTESTS=0 "$TOP/boot/initramfs.sh" "$arch" "$work/initramfs/$arch.cpio" >/dev/null ||
		die "$arch: the initramfs did not build"
	for s in $series; do
		k=$(kernel "$s")
		[ ! -f "$work/$arch-$k" ] || continue
		image=$("$TOP/scripts/build.sh" "$arch" "$k") || die "$arch/$k: the kernel did not build"
		cp "$image" "$work/$arch-$k"
	done

	i=1
	while [ $i -le "$boots" ]; do
		for s in $series; do
			k=$(kernel "$s")
			base=$results/bench-$arch-$s-$i
			echo "bench: $arch/$s, boot $i of $boots" >&2
			args="$(cat "$TOP/tests/guest/$(variant_tree "$k").cmdline") kunit.enable=0 norandmaps BENCH=$scale"
			# boot_guest boots $CACHE/initramfs/ARCH.cpio: this run's.
			# shellcheck disable=SC2086 # $args: one kernel argument a word
			(CACHE=$work && boot_guest "$arch" "$work/$arch-$k" "$base.log" "" $args)
			sed -n 's/^metric //p' "$base.ktap" >"$base.metrics"
			if grep -qE '^(problem|case FAIL)' "$base.ktap" || [ ! -s "$base.metrics" ]; then
				echo "bench: $arch/$s boot $i failed (log: $base.log):" >&2
				sed -n -e 's/^problem /  /p' -e 's/^case FAIL /  failed: /p' "$base.ktap" >&2
				status=1
			fi
		done
		i=$((i + 1))
	done

	(
		check_arch "$arch"
		log=$results/bench-$arch-baseline-1.log
		echo
		echo "### $arch"
		echo
		echo "- QEMU: $($QEMU --version | head -n 1)"
		echo "- compiler: $("${CROSS_COMPILE}gcc" --version | head -n 1)"
		for k in $(for s in $series; do kernel "$s"; done | awk '!seen[$0]++'); do
			klog=$results/bench-$arch-$k-1.log
			echo "- $k: \`$(tr -d '\r' <"$klog" | grep -m 1 -a '^Linux version' ||
				echo "no Linux version in the log")\`, image sha256"
			echo "  $(sha256sum <"$work/$arch-$k" | cut -c 1-16)..., kernel command line:"
			echo "  \`$(tr -d '\r' <"$klog" | sed -n 's/^Kernel command line: //p' | head -n 1)\`"
		done
		echo "- initramfs: tests/guest of this tree, sha256 $(sha256sum <"$work/initramfs/$arch.cpio" | cut -c 1-16)..."
		echo "- QEMU command line (boot/qemu.sh), for the baseline:"
		echo
		echo "      $QEMU $QEMU_BENCH_MACHINE $QEMU_EXTRA -display none -monitor none"
		echo "        -serial stdio -no-reboot -kernel IMAGE -initrd INITRAMFS -append"
		echo "        \"$(tr -d '\r' <"$log" | sed -n 's/^Kernel command line: //p' | head -n 1)\""
	) >>"$versions"

	# shellcheck disable=SC2046 # the metrics files, in the order of the boots
	awk -v arch="$arch" -v series="$series" -v boots="$boots" -v goals="$goals" \
	    -v dat="$results/bench-$arch.dat" '
	function num_sort(a, n,	i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--)
				a[j + 1] = a[j]
			a[j + 1] = t
		}
	}
	# Sets lo, med, hi of figure f in series s; returns the count.
	function stats(f, s,	a, i, n) {
		n = split(vals[f, s], a, " ")
		for (i = 1; i <= n; i++)
			a[i] += 0
		num_sort(a, n)
		lo = a[1]; hi = a[n]
		med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		return n
	}
	function cell(f, s) {
		return stats(f, s) ? sprintf("%.2f [%.2f, %.2f]", med, lo, hi) : "-"
	}
	# Sets rmed, rlo, rhi (rounded as shown) of s against the baseline.
	function ratio(f, s,	blo, bmed, bhi) {
		if (!stats(f, "baseline") || lo <= 0)
			return 0
		blo = lo; bmed = med; bhi = hi
		if (!stats(f, s) || lo < 0)
			return 0
		rmed = sprintf("%.3f", med / bmed) + 0
		rlo = sprintf("%.3f", lo / bhi) + 0
		rhi = sprintf("%.3f", hi / blo) + 0
		return 1
	}
	function verdict(f, s) {
		if (!(f in goal))
			return ""
		if (!ratio(f, s))
			return "not measured"
		return rhi <= goal[f] + 0 ? "met" : rlo > goal[f] + 0 ? "**MISSED**" : "inconclusive"
	}
	function rcell(f, s) {
		return ratio(f, s) ? sprintf("%.3f [%.3f, %.3f]", rmed, rlo, rhi) : "-"
	}
	BEGIN {
		ns = split(series, ser, " ")
		n = split(goals, g, "\n")
		for (i = 1; i <= n; i++) {
			split(g[i], kv, "=")
			goal[kv[1]] = kv[2]
		}
	}
	FNR == 1 {
		n = split(FILENAME, p, "-")
		s = p[n - 1]
	}
	{
		if (!($1 in unit)) {
			order[++nf] = $1
			unit[$1] = $3 == "ns" ? "insn" : $3
		}
		vals[$1, s] = vals[$1, s] " " $2
		count[$1, s]++
	}
	END {
		bad = 0
		for (f in goal)
			if (!(f in unit)) {
				printf "bench: %s: no figure %s in any boot\n", arch, f >"/dev/stderr"
				bad = 1
			}
		for (i = 1; i <= nf; i++) {
			f = order[i]
			for (j = 1; j <= ns; j++) {
				s = ser[j]
				# baseline2 boots the baseline kernel: the same figures.
				need = count[f, s] || f in goal ||
				       s ~ /^baseline/ && (count[f, "baseline"] || count[f, "baseline2"])
				if (need && count[f, s] < boots) {
					printf "bench: %s/%s: figure %s missing in %d of %d boots\n",
						arch, s, f, boots - count[f, s], boots >"/dev/stderr"
					bad = 1
				}
			}
		}
		printf "\n## %s\n\n| figure | unit |", arch
		for (j = 1; j <= ns; j++)
			printf " %s |", ser[j]
		printf "\n|---|---|"
		for (j = 1; j <= ns; j++)
			printf "---|"
		print ""
		for (i = 1; i <= nf; i++) {
			f = order[i]
			printf "| %s | %s |", f, unit[f]
			for (j = 1; j <= ns; j++)
				printf " %s |", cell(f, ser[j])
			print ""
		}
		# The last series is baseline2: its ratio is the noise floor.
		printf "\nAgainst the baseline:\n\n| figure | goal |"
		for (j = 2; j < ns; j++)
			printf " %s / baseline | |", ser[j]
		printf " noise floor: baseline2 / baseline |\n|---|---|"
		for (j = 2; j < ns; j++)
			printf "---|---|"
		print "---|"
		for (i = 1; i <= nf; i++) {
			f = order[i]
			if (!ratio(f, "baseline"))
				continue
			printf "| %s | %s |", f, f in goal ? "at most " goal[f] : ""
			for (j = 2; j < ns; j++)
				printf " %s | %s |", rcell(f, ser[j]), verdict(f, ser[j])
			printf " %s |\n", rcell(f, ser[ns])
		}
		varied = ""
		for (i = 1; i <= nf; i++)
			for (j = 1; j <= ns; j++)
				if (stats(order[i], ser[j]) && lo != hi)
					varied = varied sprintf("%s %s on %s (%.2f to %.2f%s)", varied == "" ? "" : ",",
						order[i], ser[j], lo, hi,
						med > 0 ? sprintf(", %.2f%% of the median", 100 * (hi - lo) / med) : "")
		print ""
		if (varied == "")
			print "Every figure, memory (KiB) or not, was the same in every boot of each kernel."
		else
			print "Not the same in every boot of one kernel:" varied "."
		for (i = 1; i <= nf; i++) {
			printf "%s", order[i] >dat
			for (j = 1; j < ns; j++)
				printf " %s", (stats(order[i], ser[j]) ? med : "-") >dat
			print "" >dat
		}
		exit bad
	}' $(for i in $(seq 1 "$boots"); do for s in $series; do
		echo "$results/bench-$arch-$s-$i.metrics"
	done; done) >>"$report" || status=1

	if command -v gnuplot >/dev/null; then
		svg=$results/bench-$arch.svg dat=$results/bench-$arch.dat
		plot="using 2:xtic(1) title 'baseline', '' using 3 title 'dynamic'"
		case $series in *dynamic32*) plot="$plot, '' using 4 title 'dynamic32'" ;; esac
		gnuplot -e "set terminal svg size 900,420; set output '$svg';
			set datafile missing '-'; set style data histograms; set style fill solid;
			set key top left; set xtics rotate by -30;
			set multiplot layout 1,2 title '$arch: medians of $boots boots';
			set title 'kernel stack per thread (KiB)';
			plot '< grep _kib_per_thread $dat' $plot;
			set title 'kstack histogram (exits)';
			plot '< grep ^kstack_ $dat' $plot;
			unset multiplot" 2>>"$results/gnuplot.log" &&
			printf '\n![%s](%s)\n' "$arch" "$(basename "$svg")" >>"$report"
	fi
done

{
	echo
	echo "## Two levels on x86_64: why one vCPU"
	echo
	echo "Measured on 2026-12-04 while this script was written: x86_64 in the"
	echo "two-vCPU test machine (QEMU_MACHINE) under the same -icount, the"
	echo "kernels of the series at commit dfd6627, bench.c with its cases in the"
	echo "older order (bench_sleeping second)."
	echo
	echo "- One x86_64/dynamic kernel, four boots: irq_kernel_work 16535, 21556,"
	echo "  16535, 21838 insn per 64 KiB (baseline: 16509, 16885, 16886, 16508);"
	echo "  three more with norandmaps and -rtc clock=vm: pipe_round_trip 7193,"
	echo "  9265, 9307 insn."
	echo "- The slow boots are those where CPU 1, which runs nothing of the"
	echo "  benchmark (it is pinned to CPU 0), had lost its tick: 1-4 local timer"
	echo "  interrupts on CPU 1 during the 1.6 s fork test (/proc/interrupts LOC),"
	echo "  against 115-141 in the fast boots; /proc/timer_list of such a boot"
	echo "  lists no tick hrtimer on CPU 1 and 0 hrtimer events there. The"
	echo "  consoles of the four slow boots above also have \"clocksource: Long"
	echo "  readout interval\": the clocksource watchdog, whose timer takes turns"
	echo "  on the CPUs, ran 1.12-1.24 s after the last instead of 0.5 s."
	echo "- QEMU runs both vCPUs in one thread and counts the instructions of both"
	echo "  into one virtual clock, so CPU 0's times include whatever it waits"
	echo "  for on CPU 1. In the pipe test CPU 0 sent CPU 1 4 or 5 function-call"
	echo "  IPIs in every boot (CAL in /proc/interrupts: the flushes after the"
	echo "  4096 sleepers' stacks were freed). In six boots that timed each round"
	echo "  trip, 3-8 round trips took over 100000 insn each in the five slow"
	echo "  ones (23.2-23.3 M insn in all in four of them, 6.1 M in the fifth;"
	echo "  the whole difference was 23-24 M insn), none in the fast one."
	echo "- Which state a boot reaches is set early: the same kernel and"
	echo "  initramfs print different sched_clock figures at \"Marking stable\"."
	echo "- With one vCPU there is no CPU 1. Three boots each of x86_64 baseline"
	echo "  and dynamic (one vCPU, norandmaps, -rtc clock=vm) gave every figure"
	echo "  within 0.02%; with one vCPU but without norandmaps,"
	echo "  kernel_fault_per_page still varied by 1% and growth from 234 to 417"
	echo "  insn."
	echo "- fork_exit_wait was 3.24 M insn on x86_64 (0.32 M on arm64): it ran"
	echo "  after the 4096-thread case, and x86_64's glibc kept 481 of those"
	echo "  threads' 64 KiB stacks cached (974 mappings in /proc/self/maps, 16 on"
	echo "  arm64), which every fork copied. The timing cases now run first."
	echo
	echo "## What produced it"
	echo
	echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - started)) s (host wall clock)"
	echo "- linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo '(not installed?)')"
	echo "- the series in ${SERIES_ROOT:-this tree}: sha256 of its patches"
	echo "  (names and contents, in order) $series_hash; the dynamic tree"
	echo "  $CACHE/src/dynamic at $(git -C "$CACHE/src/dynamic" rev-parse HEAD 2>/dev/null || echo '(none)')"
	echo "- this tree: $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '(not a git tree)')"
	echo "- BENCH_BOOTS=$boots, BENCH=$scale; logs: $results/bench-ARCH-SERIES-BOOT.log"
	cat "$versions"
} >>"$report"
cat "$report"
exit $status
