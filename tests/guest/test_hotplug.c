// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug under load: CPU 1 goes offline and online again, repeatedly,
 * while threads are created and exit on both CPUs (and, on a dynamic
 * kernel, grow their stacks). Nothing may fail, the kernel-stack counters
 * must come back to what the remaining tasks account for, and CPU 1 must
 * grow stacks again afterwards: its pool was refilled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "churn.h"
#include "kstat.h"
#include "tests.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define NR_LOADERS	8
#define CYCLES		10

static int grow;

/* A thread on CPU 1 that grows its stack to the maximum. */
static void *on_cpu1(void *arg)
{
	int *err = arg;

	*err = pin_to_cpu(1) ?: grow ? consume(consume_max()) : 0;
	return NULL;
}

static int set_cpu1(const char *state)
{
	int err = write_file(CPU1_ONLINE, state);

	if (err)
		ktap_diag("echo %s > %s: %s", state, CPU1_ONLINE, strerror(err));
	return err;
}

enum ktap_result test_cpu_hotplug(void)
{
	double lo = env_double("KSTACK_KIB_MIN", 0);
	struct kstack_snapshot before, after = { 0, 0 };
	struct churn loaders[NR_LOADERS];
	long faults_before = 0, faults_after = 0, threads = 0, errors = 0;
	int i, cycles = 0, settled = 0, cpu1_err = -1;
	atomic_int stop = 0;
	pthread_t t;

	grow = env_double("DYNAMIC_STACK", 0) == 1;
	if (grow)
		ktap_diag("seed %u", test_seed());
	if (access(CPU1_ONLINE, W_OK)) {
		ktap_diag("%s: %s", CPU1_ONLINE, strerror(errno));
		return KTAP_FAIL;
	}
	if (kstack_snapshot(&before))
		return KTAP_FAIL;
	faults_before = grow ? vmstat_read("nr_dynamic_stacks_faults") : 0;

	for (i = 0; i < NR_LOADERS; i++) {
		loaders[i] = (struct churn){ .cpu = -1, .grow = grow,
					     .seed = test_seed_for(i),
					     .stop = &stop };
		churn_start(&loaders[i]);
	}
	for (i = 0; i < CYCLES; i++) {
		usleep(50000);
		if (set_cpu1("0"))
			break;
		usleep(50000);
		if (set_cpu1("1"))
			break;
		cycles++;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NR_LOADERS; i++) {
		churn_join(&loaders[i]);
		threads += loaders[i].threads;
		errors += loaders[i].errors;
	}
	if (!pthread_create(&t, NULL, on_cpu1, &cpu1_err))
		pthread_join(t, NULL);

	for (i = 0; i < 100 && !settled; i++) {
		if (i)
			usleep(100000);
		if (kstack_snapshot(&after))
			continue;
		faults_after = grow ? vmstat_read("nr_dynamic_stacks_faults") : 0;
		/* A kernel thread that exited took its faulted pages along. */
		settled = kstack_accounted(&before, &after, lo, thread_kib()) &&
			  faults_after - faults_before >=
				min_l(after.tasks - before.tasks, 0) * thread_kib() &&
			  faults_after - faults_before <=
				max_l(after.tasks - before.tasks, 0) * thread_kib();
	}
	ktap_diag("%d offline/online cycles of CPU 1, %ld threads, %ld errors",
		  cycles, threads, errors);
	ktap_diag("nr_kernel_stack %ld KiB with %ld tasks -> %ld KiB with %ld tasks",
		  before.kib, before.tasks, after.kib, after.tasks);
	if (grow)
		ktap_diag("nr_dynamic_stacks_faults %ld -> %ld KiB",
			  faults_before, faults_after);
	ktap_diag("a thread on CPU 1 afterwards: %s", strerror(cpu1_err));
	if (cycles < CYCLES || errors || cpu1_err || !settled)
		return KTAP_FAIL;
	return KTAP_PASS;
}
