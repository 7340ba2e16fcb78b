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
	struct kstack_snapshot before, after = { 0 };
	struct churn loaders[NR_LOADERS];
	long threads = 0, errors = 0, grown;
	static long ids_before[TASK_IDS_MAX], ids_after[TASK_IDS_MAX];
	long nr_ids_before, nr_ids_after = -1, gone = -1, new = -1, kib;
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
	nr_ids_before = min_l(task_ids(ids_before, TASK_IDS_MAX), TASK_IDS_MAX);

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
		/*
		 * Kernel threads (kworkers) exit and start meanwhile, as
		 * many as they like: one that exited took its pages along,
		 * one that started brought at least its first page, and at
		 * most THREAD_SIZE each. A task that was there before and
		 * is still there may have grown its stack (the cpuhp and
		 * per-CPU threads do work here): what stack faults mapped
		 * is taken out of nr_kernel_stack, and only what exits
		 * returned bounds it from below. The page tables count what
		 * is left (the check after every case).
		 */
		nr_ids_after = min_l(task_ids(ids_after, TASK_IDS_MAX), TASK_IDS_MAX);
		gone = ids_missing(ids_before, nr_ids_before, ids_after,
				   nr_ids_after);
		new = ids_missing(ids_after, nr_ids_after, ids_before,
				  nr_ids_before);
		grown = after.grown_kib - before.grown_kib;
		kib = after.kib - before.kib - grown;
		settled = nr_ids_before > 0 && nr_ids_after > 0 &&
			  new - gone == after.tasks - before.tasks &&
			  kib >= new * lo - gone * thread_kib() &&
			  kib <= new * thread_kib() - gone * lo &&
			  grown >= -gone * thread_kib();
	}
	ktap_diag("%d offline/online cycles of CPU 1, %ld threads, %ld errors",
		  cycles, threads, errors);
	ktap_diag("nr_kernel_stack %ld KiB with %ld tasks -> %ld KiB with %ld tasks (%ld gone, %ld new)",
		  before.kib, before.tasks, after.kib, after.tasks, gone, new);
	if (grow)
		ktap_diag("nr_dynamic_stacks_faults %ld -> %ld KiB",
			  before.grown_kib, after.grown_kib);
	ktap_diag("a thread on CPU 1 afterwards: %s", strerror(cpu1_err));
	if (cycles < CYCLES || errors || cpu1_err || !settled)
		return KTAP_FAIL;
	return KTAP_PASS;
}
