// SPDX-License-Identifier: GPL-2.0
/*
 * A context switch away from a thread whose kernel stack is at its mapped
 * floor. A new thread (one mapped stack page) writes DEPTH to
 * /sys/kernel/debug/dynamic_stack/sleep: the kernel uses its stack down to
 * DEPTH bytes below the top and sleeps there, so __schedule() and the
 * arch's switch code push their frames across the bottom of the mapped
 * page and fault the next page in. Part of that code runs while the
 * stack in use is not the one of the task the entry code considers
 * current: on arm64, from entry_task_switch() (__entry_task is the next
 * task) to cpu_switch_to() (SP and SP_EL0 move); on x86-64, from the
 * switch of RSP to the update of current. A process spinning on the same
 * CPU makes the next task a user task, for which arm64 does more in that
 * window (ssbs_thread_switch(): spectre_v4_enable_task_mitigation() on a
 * CPU without SSBS, such as QEMU's cortex-a57).
 *
 * The depths go from DEPTH_FIRST to DEPTH_LAST bytes in 8-byte steps, so
 * that the floor crosses every frame of the switch path. Each write must
 * return its count; a stack fault refused in the window ends in a panic
 * (a failed boot).
 *
 * With PSEUDO_NMI=1 on the command line (arm64's debug machine), a perf
 * event samples CPU 0's cycles meanwhile, in the kernel too: the PMU's
 * overflow interrupt is a pseudo-NMI there, taken where IRQs are masked,
 * in the switch window as anywhere else. The PMU must have interrupted
 * CPU 0 during the sweep; where each interrupt landed is not checked (a
 * stress of the window, not a targeted case: the KUnit case
 * dynamic_stack_irq_in_switch_window is that).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define SLEEP		"/sys/kernel/debug/dynamic_stack/sleep"
#define DEPTH_FIRST	3000
#define DEPTH_LAST	4096
#define DEPTH_STEP	8

struct sleep_run {
	long depth;
	int err;
};

/* A new thread on CPU 0: sleeps with its stack DEPTH bytes deep. */
static void *sleep_thread(void *arg)
{
	struct sleep_run *r = arg;
	char text[32];

	snprintf(text, sizeof(text), "%ld", r->depth);
	r->err = pin_to_cpu(0) ?: write_file(SLEEP, text);
	return NULL;
}

/*
 * A CPU-wide sampling event on CPU 0's cycles, kernel included, every
 * SAMPLE_CYCLES cycles (QEMU counts 1 GHz of virtual time): its fd, or -1.
 */
#define SAMPLE_CYCLES	200000

static int cycles_sampler(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = SAMPLE_CYCLES,
		.pinned = 1,
	};

	return syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

/* CPU 0's count of the PMU's interrupt ("arm-pmu" in /proc/interrupts). */
static long pmu_irqs_cpu0(void)
{
	long counts[1];

	return irq_counts("arm-pmu", counts, 1) ? counts[0] : -1;
}

enum ktap_result test_switch_at_floor(void)
{
	struct sleep_run r;
	int runs = 0, failed = 0, err;
	pthread_t t;
	pid_t spinner;
	int nmi = env_double("PSEUDO_NMI", 0) == 1, sampler = -1;
	long pmu_before = 0, pmu_irqs = 0;

	if (nmi) {
		sampler = cycles_sampler();
		if (sampler < 0) {
			ktap_diag("PSEUDO_NMI=1: no sampling event on CPU 0's cycles: %s",
				  strerror(errno));
			return KTAP_FAIL;
		}
		pmu_before = pmu_irqs_cpu0();
		if (pmu_before < 0) {
			ktap_diag("PSEUDO_NMI=1: no arm-pmu row in /proc/interrupts");
			close(sampler);
			return KTAP_FAIL;
		}
	}
	spinner = fork();
	if (spinner < 0) {
		ktap_diag("fork: %s", strerror(errno));
		if (sampler >= 0)
			close(sampler);
		return KTAP_FAIL;
	}
	if (spinner == 0) {
		if (pin_to_cpu(0))
			_exit(1);
		for (;;)
			;
	}
	for (r.depth = DEPTH_FIRST; r.depth <= DEPTH_LAST; r.depth += DEPTH_STEP) {
		r.err = 0;
		err = pthread_create(&t, NULL, sleep_thread, &r);
		if (err) {
			ktap_diag("pthread_create: %s", strerror(err));
			failed++;
			break;
		}
		pthread_join(t, NULL);
		runs++;
		if (r.err && failed++ < 10)
			ktap_diag("depth %ld: %s", r.depth, strerror(r.err));
	}
	kill(spinner, SIGKILL);
	if (waitpid(spinner, NULL, 0) != spinner) {
		ktap_diag("waitpid: %s", strerror(errno));
		failed++;
	}
	if (nmi) {
		pmu_irqs = pmu_irqs_cpu0() - pmu_before;
		close(sampler);
		ktap_diag("CPU 0's cycles sampled every %d: %ld PMU interrupts (pseudo-NMIs) on CPU 0",
			  SAMPLE_CYCLES, pmu_irqs);
		if (pmu_irqs <= 0)
			failed++;
	}
	ktap_diag("%d sleeps from depths %d to %d bytes, a spinner on CPU 0: %d failed",
		  runs, DEPTH_FIRST, DEPTH_LAST, failed);
	return failed ? KTAP_FAIL : KTAP_PASS;
}
