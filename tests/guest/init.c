// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the test initramfs: mounts the pseudo file systems, runs the
 * in-guest tests, then the kernel's own selftests that the initramfs holds
 * (suite "kselftest", tests/guest/kselftest.c), as one KTAP document on the
 * console and reboots, which ends QEMU (it runs with -no-reboot).
 *
 * Expectations come from the kernel command line, which the kernel hands
 * to init as environment variables (tests/guest/VARIANT.cmdline). TESTS=GLOB
 * runs only the cases whose name (init.CASE) matches, SEED=N repeats the
 * random choices of an earlier boot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"
#include "tests.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct ktap_case cases[] = {
	{ "init_reached",		test_init_reached },
	{ "vmstat_kstack_counters",	test_vmstat_counters },
	{ "kstack_kib_per_thread",	test_kstack_per_thread },
	{ "kstack_returns_after_exit",	test_kstack_returns },
	{ "threads_max",		test_threads_max },
	{ "memcg_kernel_stack",		test_memcg_kernel_stack },
	{ "cpu_hotplug_under_load",	test_cpu_hotplug },
};

/* Run when the command line says DYNAMIC_STACK=1 (the dynamic variant). */
static const struct ktap_case dynamic_cases[] = {
	{ "consume_bad_input",		test_consume_bad_input },
	{ "consume_many_threads",	test_consume_many_threads },
	{ "no_stale_data",		test_no_stale_data },
	{ "copy_to_user_at_floor",	test_copy_to_user_at_floor },
	{ "user_read_kernel_stack",	test_user_read_kernel_stack },
	{ "reclaim_sleeping_threads",	test_reclaim_sleeping },
	{ "memcg_kernel_stack_reclaim",	test_memcg_reclaim },
	{ "reclaim_under_stress",	test_reclaim_stress },
	{ "reclaim_tlb_window",		test_reclaim_tlb_window },
	{ "reclaim_stack_reader",	test_reclaim_stack_reader },
	{ "reclaim_second_chance",	test_reclaim_second_chance },
	{ "reclaim_many_sleepers",	test_reclaim_many_sleepers },
	{ "growth_under_irq_storm",	test_irq_storm },
	{ "switch_at_stack_floor",	test_switch_at_floor },
#ifdef __aarch64__
	/* An AArch32 task (configs/arm64.config has CONFIG_COMPAT). */
	{ "compat_tls_after_fault",	test_compat_tls },
#endif
};

/*
 * Run, as suite "off", when the command line says DYNAMIC_STACK_OFF=1: a
 * dynamic kernel booted with dynamic_stack=off (tests/guest/off.cmdline).
 */
static const struct ktap_case off_cases[] = {
	{ "dynamic_stack_off",		test_dynamic_stack_off },
	{ "kstack_kib_per_thread",	test_kstack_per_thread },
	{ "kstack_returns_after_exit",	test_kstack_returns },
	{ "threads_max",		test_threads_max_off },
};

/*
 * Run when the command line says PSEUDO_NMI=1 (boot/arm64.conf's debug
 * machine, booted with irqchip.gicv3_pseudo_nmi=1): the kernel masks
 * interrupts by priority, and the PMU's interrupt is a pseudo-NMI, which
 * the other cases rely on (switch_at_stack_floor samples with it).
 */
static enum ktap_result test_pseudo_nmi(void)
{
	static const char *const logs[] = {
		"Pseudo-NMIs enabled",
		"counters available, using NMIs",
	};
	enum ktap_result r = KTAP_PASS;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(logs); i++) {
		if (klog_has(logs[i]))
			continue;
		ktap_diag("no \"%s\" in the kernel log (a GICv3, CONFIG_ARM64_PSEUDO_NMI and a PMU needed)",
			  logs[i]);
		r = KTAP_FAIL;
	}
	return r;
}

static const struct ktap_case pseudo_nmi_cases[] = {
	{ "pseudo_nmi_enabled",		test_pseudo_nmi },
};

/* Run on a kernel with kmemleak (the debug variants). */
static const struct ktap_case kmemleak_cases[] = {
	{ "kmemleak_scan",		test_kmemleak_scan },
};

/* Run on the dynamic kernels with fail_page_alloc (the debug variant). */
static const struct ktap_case fail_page_alloc_cases[] = {
	{ "refill_from_reserve",		test_refill_reserve },
	{ "cpu_hotplug_enomem",			test_hotplug_enomem },
};

/*
 * Run alone, as suite "oom", when the command line says OOM_STRESS=1
 * (tests/guest/oom.cmdline, a dynamic kernel): the OOM killer's reports
 * that it provokes are expected there, and only there (tests/ktap.awk).
 */
static const struct ktap_case oom_cases[] = {
	{ "oom_stress",			test_oom_stress },
};

/*
 * Run alone when the command line says LKDTM=<crash type> (LKDTM's) or
 * CRASH=<crash type> (the series' own, debugfs dynamic_stack/crash): the
 * kernel must not survive it. The harness passes the boot only if it finds
 * the crash report it expects on the console (boot/ARCH.conf), then a
 * panic, and neither that report again nor a second oops (tests/ktap.awk).
 */
static void test_crash(const char *kind, const char *type, const char *file)
{
	int err;

	ktap_diag("%s %s: expecting the kernel's report, then a panic", kind, type);
	err = write_file(file, type);
	ktap_diag("the kernel survived %s %s (%s)", kind, type,
		  err ? strerror(err) : "write succeeded");
}

static void setup_console(void)
{
	int fd;

	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL))
		ktap_diag("mount %s on %s: %m", type, dir);
}

/*
 * The seed of every random test of this boot: SEED= on the command line,
 * or one of its own, printed so that SEED= can repeat the run.
 */
static void init_seed(void)
{
	const char *v = getenv("SEED");
	unsigned int seed;

	if (v && *v) {
		seed = strtoul(v, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned int)(ts.tv_nsec ^ ts.tv_sec ^ getpid()) & 0x7fffffff;
	}
	test_seed_set(seed);
}

int main(void)
{
	struct ktap_case all[ARRAY_SIZE(cases) + ARRAY_SIZE(dynamic_cases) +
			     ARRAY_SIZE(kmemleak_cases) +
			     ARRAY_SIZE(pseudo_nmi_cases) +
			     ARRAY_SIZE(fail_page_alloc_cases)];
	size_t n = ARRAY_SIZE(cases);

	setup_console();
	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	/* The pseudo-terminals of the selftests (/dev/ptmx is devtmpfs's). */
	mount_fs("devpts", "/dev/pts", "devpts");
	ktap_init();
	init_seed();

	memcpy(all, cases, sizeof(cases));
	if (env_double("DYNAMIC_STACK", 0) == 1) {
		memcpy(all + n, dynamic_cases, sizeof(dynamic_cases));
		n += ARRAY_SIZE(dynamic_cases);
		/*
		 * No case may leave a page of a task stack unaccounted, or
		 * accounted after it was freed.
		 */
		ktap_check_after_each(stack_pages_check);
		if (!access("/sys/kernel/debug/fail_page_alloc", F_OK)) {
			memcpy(all + n, fail_page_alloc_cases,
			       sizeof(fail_page_alloc_cases));
			n += ARRAY_SIZE(fail_page_alloc_cases);
		}
	}
	if (env_double("PSEUDO_NMI", 0) == 1) {
		memcpy(all + n, pseudo_nmi_cases, sizeof(pseudo_nmi_cases));
		n += ARRAY_SIZE(pseudo_nmi_cases);
	}
	if (!access("/sys/kernel/debug/kmemleak", F_OK)) {
		memcpy(all + n, kmemleak_cases, sizeof(kmemleak_cases));
		n += ARRAY_SIZE(kmemleak_cases);
	}
	if (getenv("LKDTM") || getenv("CRASH")) {
		const char *kind = getenv("LKDTM") ? "lkdtm" : "crash";
		const char *type = getenv("LKDTM") ? getenv("LKDTM") : getenv("CRASH");

		/* Nothing follows: the report the harness expects is the result. */
		ktap_plan(1);
		ktap_subtest(kind, 1);
		if (getenv("LKDTM"))
			test_crash("LKDTM", type, "/sys/kernel/debug/provoke-crash/DIRECT");
		else
			test_crash("CRASH", type, "/sys/kernel/debug/dynamic_stack/crash");
		ktap_result(type, KTAP_FAIL, NULL);
		ktap_end_subtest(kind, KTAP_FAIL);
	} else if (getenv("BENCH")) {
		bench_run();
	} else if (env_double("OOM_STRESS", 0) == 1) {
		ktap_plan(ktap_count_selected("oom", oom_cases,
					      ARRAY_SIZE(oom_cases)) ? 1 : 0);
		ktap_run_suite("oom", oom_cases, ARRAY_SIZE(oom_cases));
	} else if (env_double("DYNAMIC_STACK_OFF", 0) == 1) {
		ktap_plan(ktap_count_selected("off", off_cases,
					      ARRAY_SIZE(off_cases)) ? 1 : 0);
		ktap_run_suite("off", off_cases, ARRAY_SIZE(off_cases));
	} else {
		ktap_plan((ktap_count_selected("init", all, n) ? 1 : 0) +
			  (kselftest_count() ? 1 : 0));
		ktap_diag("seed %u (SEED=%u on the command line repeats it)",
			  test_seed(), test_seed());
		ktap_run_suite("init", all, n);
		/* The kernel's own selftests, after ours. */
		kselftest_run();
	}

	sync();
	reboot(RB_AUTOBOOT);
	return 1;	/* not reached: the kernel panics when init exits */
}
