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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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

enum ktap_result test_switch_at_floor(void)
{
	struct sleep_run r;
	int runs = 0, failed = 0, err;
	pthread_t t;
	pid_t spinner;

	spinner = fork();
	if (spinner < 0) {
		ktap_diag("fork: %s", strerror(errno));
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
	ktap_diag("%d sleeps from depths %d to %d bytes, a spinner on CPU 0: %d failed",
		  runs, DEPTH_FIRST, DEPTH_LAST, failed);
	return failed ? KTAP_FAIL : KTAP_PASS;
}
