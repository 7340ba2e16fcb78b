#!/bin/sh
# Host-side checks, as KTAP: the scripts parse (and pass shellcheck), the
# series files are consistent, the console parser and the verdict read
# good and bad logs right (one fixture per kernel complaint), and bad
# input gets a clear error. Exits non-zero if any check failed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAB=$(printf '\t')

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

shellcheck_clean() {
	shellcheck -s sh -S warning -e SC1090,SC1091 scripts/*.sh boot/*.sh tests/host/*.sh
}

# Every arch's SERIES_DIR is in the series; every patch is in its
# series file and every series file's patch exists.
series_consistent() {
	SERIES_DIRS=$(sed -n 's/^SERIES_DIRS="\(.*\)"/\1/p' scripts/common.sh)
	for conf in boot/*.conf; do
		dir=$(. "./$conf" && echo "$SERIES_DIR")
		case " $SERIES_DIRS " in
		*" $dir "*) ;;
		*) echo "$conf: SERIES_DIR=$dir is not in SERIES_DIRS ($SERIES_DIRS)"; return 1 ;;
		esac
	done
	for dir in $SERIES_DIRS; do
		listed=$(sed -e 's/#.*//' "$dir/series") || return 1
		for p in $listed; do
			[ -f "$dir/$p" ] || { echo "$dir/series: $p missing"; return 1; }
		done
		for f in "$dir"/*.patch; do
			[ -e "$f" ] || continue
			case $f in */0000-cover-letter.patch) continue ;; esac
			echo "$listed" | grep -qx "$(basename "$f")" ||
				{ echo "$f is not in $dir/series"; return 1; }
		done
	done
}

# Every relative link in the README names a file of the repository.
readme_links() {
	grep -o '](\([^)]*\))' README.md | sed -e 's/^](//' -e 's/)$//' -e 's/#.*//' |
		while read -r target; do
			case $target in ''|*://*) continue ;; esac
			[ -e "$target" ] || { echo "README.md links to $target, which does not exist"; return 1; }
		done
}

# parse LOG: tests/ktap.awk on LOG, as for a tests boot.
parse() {
	awk -v "complaints=tests/complaints" -f tests/ktap.awk "$1"
}

# ktap_case LOG: the parser's verdict on LOG is LOG's .expected file;
# crash-*.log are crash boots, which must show the x86 guard-page report;
# oom-*.log are boots of the oom suite, which provoke the OOM killer.
ktap_case() {
	case $(basename "$1") in
	crash-*) awk -v "complaints=tests/complaints" -v crash=lkdtm.EXHAUST_STACK \
		-v "expect=stack guard page was hit" -f tests/ktap.awk "$1" ;;
	oom-*) awk -v "complaints=tests/complaints" -v oom=1 -f tests/ktap.awk "$1" ;;
	*) parse "$1" ;;
	esac | diff -u "${1%.log}.expected" -
}

# complaint NAME SAMPLE: the sample line, between two results of a good
# log, fails the boot with a "problem kernel:" line naming it.
complaint() {
	{
		sed -n '1,/ok 1 init_reached/p' tests/host/ktap/good.log &&
			echo "[    1.150000] $2" &&
			sed -n '/ok 1 init_reached/,$p' tests/host/ktap/good.log | sed 1d
	} >"$tmp/c.log" || return 1
	parse "$tmp/c.log" >"$tmp/c.ktap" || return 1
	cat "$tmp/c.ktap"
	grep -qxF "problem kernel: $2" "$tmp/c.ktap" &&
		[ "$(grep -c '^problem' "$tmp/c.ktap")" = 1 ]
}

# verdict CELL EXPECTED-VERDICT KTAP...: tests/verdict.awk on the cases,
# xfail and skip lists of $tmp/v.
verdict() {
	vcell=$1 want=$2
	shift 2
	awk -v "cell=$vcell" -f tests/verdict.awk "$tmp/v.cases" "$tmp/v.xfail" \
		"$tmp/v.skips" "$@" >"$tmp/v.out" || return 1
	cat "$tmp/v.out"
	grep -qx "verdict $want" "$tmp/v.out"
}

verdict_setup() {
	cat >"$tmp/v.cases" <<-EOF || return 1
	# comment
	*/*${TAB}init.a
	*/*,!*/baseline${TAB}init.b
	x86_64/*${TAB}kunit.c
	EOF
	: >"$tmp/v.xfail" || return 1
	: >"$tmp/v.skips" || return 1
	printf 'case PASS init.a\ncase PASS init.b\ncase PASS kunit.c\n' >"$tmp/all.tests.ktap"
}

verdict_all_passed() {
	verdict_setup || return 1
	verdict x86_64/dynamic ok "$tmp/all.tests.ktap" && grep -qx 'passed 3' "$tmp/v.out"
}

# A console that holds only init.a: the other expected cases never ran.
verdict_missing_case() {
	verdict_setup || return 1
	printf 'case PASS init.a\n' >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/x.tests.ktap" &&
		grep -q '^detail FAIL init.b: no result' "$tmp/v.out"
}

verdict_excluded_cell() {
	verdict_setup || return 1
	printf 'case PASS init.a\n' >"$tmp/x.tests.ktap" || return 1
	verdict arm64/baseline ok "$tmp/x.tests.ktap"
}

verdict_unexpected_case() {
	verdict_setup || return 1
	printf 'case PASS init.a\ncase PASS init.b\n' >"$tmp/x.tests.ktap" || return 1
	verdict arm64/baseline FAIL "$tmp/x.tests.ktap" &&
		grep -q '^detail FAIL init.b: ran but is not in tests/cases' "$tmp/v.out"
}

verdict_problem() {
	verdict_setup || return 1
	{ cat "$tmp/all.tests.ktap" && echo "problem kernel: WARNING: CPU: 0"; } >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/x.tests.ktap"
}

verdict_skip_not_allowed() {
	verdict_setup || return 1
	sed 's/PASS init.b/SKIP init.b/' "$tmp/all.tests.ktap" >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/x.tests.ktap"
}

verdict_skip_allowed() {
	verdict_setup || return 1
	printf '*/dynamic\tinit.b\tthe machine has no such thing\n' >"$tmp/v.skips" || return 1
	sed 's/PASS init.b/SKIP init.b/' "$tmp/all.tests.ktap" >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic ok "$tmp/x.tests.ktap" &&
		grep -q '^detail SKIP init.b: the machine has no such thing' "$tmp/v.out" &&
		grep -qx 'skipped 1' "$tmp/v.out"
}

verdict_xfail() {
	verdict_setup || return 1
	printf 'x86_64/*\tkunit.c\ta known defect (the x issue)\tBUG: unable\n' >"$tmp/v.xfail" || return 1
	{ sed 's/PASS kunit.c/FAIL kunit.c/' "$tmp/all.tests.ktap" &&
	  echo "problem kernel: BUG: unable to handle page fault"; } >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic xfail "$tmp/x.tests.ktap" &&
		grep -q '^detail XFAIL kunit.c: a known defect' "$tmp/v.out"
}

verdict_xfail_other_problem() {
	verdict_setup || return 1
	printf 'x86_64/*\tkunit.c\ta known defect (the x issue)\tBUG: unable\n' >"$tmp/v.xfail" || return 1
	{ sed 's/PASS kunit.c/FAIL kunit.c/' "$tmp/all.tests.ktap" &&
	  echo "problem kernel: WARNING: something else"; } >"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/x.tests.ktap"
}

# A failed case's diagnostic lines follow its detail line, and only its.
verdict_failed_diag() {
	verdict_setup || return 1
	{ sed 's/PASS init.b/FAIL init.b/' "$tmp/all.tests.ktap" &&
	  printf 'diag init.b # 9 KiB, expected 0 to 4\ndiag init.a # not init.a\n'; } \
		>"$tmp/x.tests.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/x.tests.ktap" &&
		grep -A1 '^detail FAIL init.b: not ok (tests)$' "$tmp/v.out" |
		sed 1d | grep -qx 'diag # 9 KiB, expected 0 to 4' &&
		! grep -q 'not init.a' "$tmp/v.out"
}

verdict_xpass() {
	verdict_setup || return 1
	printf 'x86_64/*\tkunit.c\ta known defect (the x issue)\n' >"$tmp/v.xfail" || return 1
	verdict x86_64/dynamic FAIL "$tmp/all.tests.ktap" &&
		grep -q '^detail XPASS kunit.c' "$tmp/v.out"
}

verdict_reported_twice() {
	verdict_setup || return 1
	printf 'case PASS init.a\n' >"$tmp/y.other.ktap" || return 1
	verdict x86_64/dynamic FAIL "$tmp/all.tests.ktap" "$tmp/y.other.ktap"
}

# expect_usage_error WORD COMMAND...: exit 2 and a message naming WORD.
expect_usage_error() {
	word=$1
	shift
	status=0
	"$@" >"$tmp/err" 2>&1 </dev/null || status=$?
	cat "$tmp/err"
	[ $status = 2 ] && grep -q -- "$word" "$tmp/err"
}

# distclean removes a CACHE only if these tools made it.
distclean_foreign() {
	mkdir -p "$tmp/foreign"
	echo precious >"$tmp/foreign/file"
	status=0
	make -s distclean CACHE="$tmp/foreign" RESULTS="$tmp/r" >"$tmp/err" 2>&1 || status=$?
	cat "$tmp/err"
	[ $status != 0 ] && [ -f "$tmp/foreign/file" ] && grep -q 'not made by' "$tmp/err"
}

# A stand-in for the kernel tarball and a series, for tree.sh.
standin() {
	mkdir -p "$tmp/t/linux/kernel" "$tmp/s/generic" "$tmp/s/arch-x86" "$tmp/s/arch-arm64" || return 1
	printf 'one\ntwo\n' >"$tmp/t/linux/kernel/fork.c" || return 1
	tar -cJf "$tmp/linux.tar.xz" -C "$tmp/t" linux || return 1
	cat >"$tmp/s/generic/0001-x.patch" <<PATCH || return 1
From: Some One <one@example.com>
Subject: [PATCH] x

---
diff --git a/kernel/fork.c b/kernel/fork.c
--- a/kernel/fork.c
+++ b/kernel/fork.c
@@ -1,2 +1,2 @@
 one
-$1
+four
PATCH
	echo 0001-x.patch >"$tmp/s/generic/series" || return 1
	: >"$tmp/s/arch-x86/series" || return 1
	: >"$tmp/s/arch-arm64/series"
}

tree() {
	CACHE=$1 LINUX_TARBALL=$tmp/linux.tar.xz SERIES_ROOT=$tmp/s \
		scripts/tree.sh dynamic
}

# A series that does not apply names the patch and the file.
series_does_not_apply() {
	standin three || return 1
	status=0
	tree "$tmp/cache" >"$tmp/err" 2>&1 || status=$?
	cat "$tmp/err"
	[ $status != 0 ] && grep -q 'generic/0001-x.patch does not apply.*fails on: kernel/fork.c' "$tmp/err"
}

# Two runs that prepare the trees of one CACHE at once both succeed.
tree_lock() {
	rm -rf "$tmp/t" "$tmp/s" || return 1
	standin two || return 1
	tree "$tmp/cache2" >"$tmp/a" 2>&1 &
	a=$!
	tree "$tmp/cache2" >"$tmp/b" 2>&1 &
	b=$!
	sa=0 sb=0
	wait $a || sa=$?
	wait $b || sb=$?
	cat "$tmp/a" "$tmp/b"
	[ $sa = 0 ] && [ $sb = 0 ] && grep -q four "$tmp/cache2/src/dynamic/kernel/fork.c"
}

# The quick bisect's link check (scripts/symbols.sh) on two objects: a
# rename of a symbol still in use, and a second definition, fail it.
symbols_link_check() {
	o=$tmp/sym
	mkdir -p "$o"
	printf 'int foo(void) { return 1; }\n' >"$o/a.c"
	printf 'int foo(void);\nint main(void) { return foo(); }\n' >"$o/b.c"
	(cd "$o" && cc -c a.c b.c && ar rcs vmlinux.a a.o b.o) || return 1
	scripts/symbols.sh baseline "$o" || return 1
	(cd "$o" && cc -c a.c) && scripts/symbols.sh check "$o" a.o || return 1
	printf 'int bar(void) { return 1; }\n' >"$o/a.c"
	(cd "$o" && cc -c a.c) || return 1
	! scripts/symbols.sh check "$o" a.o 2>"$tmp/err" || return 1
	cat "$tmp/err"
	grep -q 'undefined reference to `foo'"'"' in b.o' "$tmp/err" || return 1
	printf 'int foo(void) { return 1; }\n' >"$o/a.c"
	printf 'int foo(void) { return 2; }\n' >"$o/c.c"
	(cd "$o" && cc -c a.c c.c) && scripts/symbols.sh check "$o" a.o || return 1
	! scripts/symbols.sh check "$o" c.o 2>"$tmp/err" || return 1
	cat "$tmp/err"
	grep -q '`foo'"'"' defined more than once' "$tmp/err"
}

# scripts/noinstr.sh on a small aarch64 program laid out as vmlinux is:
# calls into .noinstr.text, .entry.text and NOINSTR_ALLOW pass; a call to
# .text, an indirect call and a missing function are reported, and so are
# a call to .text from a noinstr function that the one checked calls, and
# a call to noinstr code that no function symbol covers.
noinstr_calls() {
	cat >"$tmp/n.S" <<-EOF || return 1
	.macro	fn name
	.type	\\name, %function
	\\name:
	.endm
	.macro	endfn name
	.size	\\name, . - \\name
	.endm
	.section .noinstr.text, "ax"
	__noinstr_text_start:
	fn good
		bl	helper
		bl	_printk
		bl	entry
		b	good
		ret
	endfn good
	fn bad
		bl	out_of_line
		blr	x0
		ret
	endfn bad
	fn outer
		bl	inner
		ret
	endfn outer
	fn inner
		bl	out_of_line
		ret
	endfn inner
	fn to_label
		bl	label
		ret
	endfn to_label
	label:	ret
	fn helper
		ret
	endfn helper
	__noinstr_text_end:
	.section .entry.text, "ax"
	__entry_text_start:
	fn entry
		ret
	endfn entry
	__entry_text_end:
	.text
	fn out_of_line
		ret
	endfn out_of_line
	fn _printk
		ret
	endfn _printk
	.globl	_start
	_start:	ret
	EOF
	aarch64-linux-gnu-gcc -nostdlib -static -o "$tmp/n.elf" "$tmp/n.S" || return 1
	export CROSS_COMPILE=aarch64-linux-gnu- NOINSTR_ALLOW=_printk
	scripts/noinstr.sh "$tmp/n.elf" good || return 1
	! scripts/noinstr.sh "$tmp/n.elf" bad >"$tmp/n.out" || return 1
	cat "$tmp/n.out"
	grep -q '^bad: calls out_of_line .*not noinstr' "$tmp/n.out" &&
		grep -q '^bad: indirect call' "$tmp/n.out" || return 1
	! scripts/noinstr.sh "$tmp/n.elf" outer >"$tmp/n.out" || return 1
	cat "$tmp/n.out"
	grep -q '^outer > inner: calls out_of_line .*not noinstr' "$tmp/n.out" || return 1
	! scripts/noinstr.sh "$tmp/n.elf" to_label >"$tmp/n.out" || return 1
	cat "$tmp/n.out"
	grep -q '^to_label: calls label .*no function symbol covers' "$tmp/n.out" || return 1
	! scripts/noinstr.sh "$tmp/n.elf" nosuch >"$tmp/n.out" &&
		grep -q '^nosuch: not in the kernel' "$tmp/n.out"
}

# scripts/objtool-noinstr.sh with a stand-in objtool: what the kernel
# build needs is checked, a report fails, silence passes.
objtool_noinstr() {
	d=$tmp/ob
	mkdir -p "$d/tools/objtool" || return 1
	scripts/objtool-noinstr.sh "$d" 2>"$tmp/err" && return 1
	grep -q "no $d/.config" "$tmp/err" || return 1
	: >"$d/.config" && : >"$d/vmlinux.o" || return 1
	printf '#!/bin/sh\nfor f; do :; done\n[ -z "$OUT" ] || echo "$f: $OUT"\n' \
		>"$d/tools/objtool/objtool" && chmod +x "$d/tools/objtool/objtool" || return 1
	scripts/objtool-noinstr.sh "$d" 2>"$tmp/err" && return 1
	grep -q "not built with CONFIG_NOINSTR_VALIDATION" "$tmp/err" || return 1
	echo CONFIG_NOINSTR_VALIDATION=y >"$d/.config"
	OUT='' scripts/objtool-noinstr.sh "$d" || return 1
	OUT="warning: objtool: f+0x1: call to g() leaves .noinstr.text section" \
		scripts/objtool-noinstr.sh "$d" >"$tmp/n.out" && return 1
	cat "$tmp/n.out"
	grep -qx "warning: objtool: f+0x1: call to g() leaves .noinstr.text section" "$tmp/n.out"
}

logs=$(ls tests/host/ktap/*.log | wc -l)
complaints=$(grep -c "^[^#].*$TAB" tests/complaints)
echo "KTAP version 1"
echo "1..$((32 + logs + complaints))"
# Each variant's tree, fragments and baseline: NAME-baseline is the
# baseline with configs/NAME.config, the twin NAME is held against.
variant_roles() {
	# common.sh finds the tree from $0: run as a script of scripts/.
	# shellcheck disable=SC2016
	sh -c '. "$0.sh" || exit 1
	for v in $VARIANTS; do
		t=$(variant_tree "$v")
		[ -f "configs/$t.config" ] || { echo "$v: no configs/$t.config"; exit 1; }
		[ "$v" = "$t" ] || [ -f "configs/${v%-baseline}.config" ] ||
			{ echo "$v: no configs/${v%-baseline}.config"; exit 1; }
	done
	t=$(variant_tree debug-baseline)
	b=$(check_arch x86_64 && variant_baseline debug)
	d=$(check_arch x86_64 && variant_baseline dynamic)
	[ "$t $b $d" = "baseline debug-baseline baseline" ] || {
		echo "debug-baseline tree, debug and dynamic baselines: $t $b $d"
		exit 1
	}' "$TOP/scripts/common"
}

# boot/qemu.sh boots a variant's own machine and kernel arguments
# (QEMU_MACHINE_NAME, KERNEL_ARGS_NAME in boot/ARCH.conf), for the variant
# and its twin, and the arch's machine for the others: QEMU stands in.
qemu_variant_machine() {
	mkdir -p "$tmp/bin" && : >"$tmp/kernel" && : >"$tmp/initrd" || return 1
	printf '#!/bin/sh\necho "$*"\n' >"$tmp/bin/qemu-system-aarch64" &&
		chmod +x "$tmp/bin/qemu-system-aarch64" || return 1
	for v in debug debug-baseline dynamic ""; do
		VARIANT=$v PATH=$tmp/bin:$PATH boot/qemu.sh arm64 "$tmp/kernel" \
			"$tmp/initrd" "$tmp/q-$v.log" >/dev/null || return 1
	done
	for v in debug debug-baseline; do
		grep -q 'gic-version=3 .*irqchip.gicv3_pseudo_nmi=1 PSEUDO_NMI=1' \
			"$tmp/q-$v.log" || { cat "$tmp/q-$v.log"; return 1; }
	done
	for v in dynamic ""; do
		! grep -q 'gic-version=3\|pseudo_nmi' "$tmp/q-$v.log" ||
			{ cat "$tmp/q-$v.log"; return 1; }
	done
	expect_usage_error "not a variant name" env VARIANT='$(x)' \
		boot/qemu.sh arm64 "$tmp/kernel" "$tmp/initrd" "$tmp/q.log"
}

# tests/guest/kselftest.c, on the host, on stand-in selftests: a pass, a
# "not ok" or "[FAIL]" despite exit 0, totals of skips only, exit 4, a
# hang (killed at CASE_TIMEOUT less 30 s, at least 10 s), a signal, an
# orphan left running, an exit status 3. Linked without /init, its
# mounts, its /dev/kmsg and its watchdog (which reboots).
kselftest_runner() {
	mkdir -p "$tmp/kd/ks" || return 1
	cat >"$tmp/kd/driver.c" <<'EOF'
#include "ktap.h"
#include "tests.h"
#include "watchdog.h"
void watchdog_case(const char *name) { (void)name; }
int main(void)
{
	ktap_plan(1);
	return kselftest_run() ? 1 : 0;
}
EOF
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -Itests/guest \
		-o "$tmp/kd/run" "$tmp/kd/driver.c" tests/guest/kselftest.c \
		tests/guest/ktap.c tests/guest/kstat.c || return 1
	k=$tmp/kd/ks
	printf '#!/bin/sh\necho "ok 1 x"\n' >"$k/a_pass"
	printf '#!/bin/sh\necho "not ok 1 x"\n' >"$k/b_notok"
	printf '#!/bin/sh\necho "[FAIL] x"\n' >"$k/c_fail"
	printf '#!/bin/sh\necho "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:3 error:0"\n' >"$k/d_allskip"
	printf '#!/bin/sh\nexit 4\n' >"$k/e_skip"
	printf '#!/bin/sh\nsleep 100\n' >"$k/f_hang"
	printf '#!/bin/sh\nkill -SEGV $$\n' >"$k/g_signal"
	printf '#!/bin/sh\n(sleep 100 &)\n' >"$k/h_orphan"
	printf '#!/bin/sh\nexit 3\n' >"$k/i_exit3"
	chmod +x "$k"/* || return 1
	KSELFTEST_DIR=$k CASE_TIMEOUT=40 "$tmp/kd/run" >"$tmp/kd/out" 2>&1
	cat "$tmp/kd/out"
	[ "$(grep -E '^    (not )?ok ' "$tmp/kd/out" | tr '\n' '|')" = \
"    ok 1 a_pass|    not ok 2 b_notok|    not ok 3 c_fail|    ok 4 d_allskip # SKIP |    ok 5 e_skip # SKIP |    not ok 6 f_hang|    not ok 7 g_signal|    ok 8 h_orphan|    not ok 9 i_exit3|" ]
}

# make boot's verdict (scripts/boot-verdict.sh): 0 for a good log, 1 for
# a failed case, an oops or a QEMU status that is not 0, with one summary
# line.
boot_verdict() {
	for c in "good 0 0" "failed-case 0 1" "oops 0 1" "good 124 1" "no-ktap 0 1"; do
		set -- $c
		cp "tests/host/ktap/$1.log" "$tmp/bv.log"
		st=0
		scripts/boot-verdict.sh "$tmp/bv.log" "$2" >"$tmp/bv.out" 2>&1 || st=$?
		[ "$st" = "$3" ] || { echo "$1, qemu status $2: exit $st, want $3"; cat "$tmp/bv.out"; return 1; }
		tail -n 1 "$tmp/bv.out" | grep -qx 'boot: [0-9]* passed, [0-9]* failed, [0-9]* skipped' ||
			{ echo "$1: no summary line"; cat "$tmp/bv.out"; return 1; }
		[ -f "$tmp/bv.ktap" ] || { echo "$1: no $tmp/bv.ktap"; return 1; }
	done
	st=0
	scripts/boot-verdict.sh "$tmp/missing.log" 0 >"$tmp/bv.out" 2>&1 || st=$?
	[ "$st" = 1 ] && grep -q 'missing' "$tmp/bv.out"
}

check shell_syntax shell_syntax
check variant_roles variant_roles
check shellcheck shellcheck_clean
check series_consistent series_consistent
check readme_links readme_links
for log in tests/host/ktap/*.log; do
	check "ktap_parser_$(basename "$log" .log)" ktap_case "$log"
done
while IFS="$TAB" read -r name rest; do
	case $name in '#'*|'') continue ;; esac
	sample=$(printf '%s\n' "$rest" | sed "s/^$TAB*[^$TAB]*$TAB*//")
	check "complaint_$name" complaint "$name" "$sample"
done <tests/complaints
check verdict_all_passed verdict_all_passed
check verdict_missing_case verdict_missing_case
check verdict_excluded_cell verdict_excluded_cell
check verdict_unexpected_case verdict_unexpected_case
check verdict_problem verdict_problem
check verdict_skip_not_allowed verdict_skip_not_allowed
check verdict_skip_allowed verdict_skip_allowed
check verdict_xfail verdict_xfail
check verdict_xfail_other_problem verdict_xfail_other_problem
check boot_verdict boot_verdict
check verdict_failed_diag verdict_failed_diag
check noinstr_calls noinstr_calls
check objtool_noinstr objtool_noinstr
check verdict_xpass verdict_xpass
check verdict_reported_twice verdict_reported_twice
check unknown_arch expect_usage_error "valid: $(cd boot && ls -- *.conf | sed 's/\.conf$//' | tr '\n' ' ' | sed 's/ $//')" \
	make -s kernel ARCH=sparc VARIANT=baseline
check unknown_variant expect_usage_error "unknown VARIANT 'fast'" make -s kernel ARCH=x86_64 VARIANT=fast
check empty_matrix expect_usage_error "no ARCH" scripts/matrix.sh "" baseline "$tmp/r"
check empty_matrix_make expect_usage_error "no ARCH" make -s matrix ARCHES=" "
check cache_whitespace expect_usage_error "whitespace" make -s matrix CACHE="$tmp/a b"
check results_whitespace expect_usage_error "whitespace" scripts/matrix.sh x86_64 baseline "$tmp/a b"
check distclean_foreign distclean_foreign
check series_does_not_apply series_does_not_apply
check tree_lock tree_lock
check qemu_variant_machine qemu_variant_machine
check kselftest_runner kselftest_runner
check symbols_link_check symbols_link_check
echo "# host: $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
