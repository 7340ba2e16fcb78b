// SPDX-License-Identifier: GPL-2.0
/*
 * Stack growth under an interrupt storm: on both CPUs, new threads grow
 * their stacks to random depths (each growth a chance for an interrupt to
 * arrive while the stack pointer sits in an unmapped page) while a thread
 * per CPU arms a high-resolution timer every 20 us and two threads on
 * different CPUs wake each other through pipes (wakeup IPIs), for SECONDS
 * and then until the stacks have grown by MIN_GROWTHS pages (the kernel's
 * count of pages that stack faults mapped, not a count of threads), at
 * most MAX_SECONDS: a slow machine (QEMU's -cpu max, whose pointer
 * authentication TCG computes in helpers, on a busy host: 359 pages in
 * 7.8 s) takes longer to reach them. No growth may fail, the stacks must
 * have grown by MIN_GROWTHS pages, jiffies must keep pace with
 * CLOCK_MONOTONIC, and each CPU's local timer must keep interrupting it.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "churn.h"
#include "kstat.h"
#include "tests.h"

#define SECONDS		5
#define MAX_SECONDS	60
#define MIN_GROWTHS	1000
#define NR_CPUS_MAX	2

static atomic_int stop;
static atomic_int errors;
static int ping[2], pong[2];

static void pin(int cpu)
{
	if (pin_to_cpu(cpu))
		atomic_fetch_add(&errors, 1);
}

static void *timer_storm(void *arg)
{
	struct timespec ts = { 0, 20000 };

	pin((int)(long)arg);
	while (!atomic_load(&stop))
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

/*
 * Waits until @fd can be read, or until told to stop: a pinger must not
 * block in read() for a byte its partner, which saw stop first, will
 * never send (that hung the test: CPU 0's pinger wrote and waited after
 * CPU 1's had left).
 */
static int wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (!atomic_load(&stop))
		if (poll(&p, 1, 100) > 0)
			return 0;
	return -1;
}

/* Bounces a byte between CPU 0 and CPU 1 until told to stop. */
static void *pinger(void *arg)
{
	int cpu = (int)(long)arg, in = cpu == 0 ? pong[0] : ping[0];
	char c = 0;

	pin(cpu);
	while (!atomic_load(&stop)) {
		if (cpu == 0 && write(ping[1], &c, 1) != 1)
			break;
		if (wait_readable(in) || read(in, &c, 1) != 1)
			break;
		if (cpu == 1 && write(pong[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/*
 * Local timer interrupts of each CPU from /proc/interrupts: the "LOC" row
 * on x86, the arch_timer row on arm64. Returns the number of CPUs read.
 */
static int timer_irqs(long counts[NR_CPUS_MAX])
{
	return irq_counts("LOC:", counts, NR_CPUS_MAX) ?:
	       irq_counts("arch_timer", counts, NR_CPUS_MAX);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum ktap_result test_irq_storm(void)
{
	long before[NR_CPUS_MAX], after[NR_CPUS_MAX], least = -1, most = 0;
	long growths, mapped_before, threads = 0, grow_errors = 0;
	struct churn spawners[2 * NR_CPUS_MAX];
	pthread_t timers[NR_CPUS_MAX], pingers[2];
	int timer_ok[NR_CPUS_MAX];
	double t0, elapsed, ticks;
	clock_t j0;
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < NR_CPUS_MAX ||
	    timer_irqs(before) < NR_CPUS_MAX || pipe(ping) || pipe(pong)) {
		ktap_diag("needs %d CPUs, their timer in /proc/interrupts, pipes",
			  NR_CPUS_MAX);
		return KTAP_FAIL;
	}
	ktap_diag("seed %u", test_seed());
	if (pthread_create(&pingers[0], NULL, pinger, (void *)0L))
		return KTAP_FAIL;
	if (pthread_create(&pingers[1], NULL, pinger, (void *)1L)) {
		atomic_store(&stop, 1);
		pthread_join(pingers[0], NULL);
		return KTAP_FAIL;
	}
	mapped_before = vmstat_read("dynamic_stack_pages_mapped");
	if (mapped_before < 0) {
		ktap_diag("no dynamic_stack_pages_mapped in /proc/vmstat");
		atomic_fetch_add(&errors, 1);
	}
	t0 = now();
	j0 = times(NULL);
	for (i = 0; i < NR_CPUS_MAX; i++)
		timer_ok[i] = !pthread_create(&timers[i], NULL, timer_storm,
					      (void *)(long)i);
	for (i = 0; i < 2 * NR_CPUS_MAX; i++) {
		spawners[i] = (struct churn){ .cpu = i % NR_CPUS_MAX, .grow = 1,
					      .seed = test_seed_for(i),
					      .stop = &stop };
		churn_start(&spawners[i]);
	}
	sleep(SECONDS);
	while (mapped_before >= 0 && now() - t0 < MAX_SECONDS &&
	       vmstat_read("dynamic_stack_pages_mapped") - mapped_before < MIN_GROWTHS)
		usleep(100000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2 * NR_CPUS_MAX; i++) {
		churn_join(&spawners[i]);
		threads += spawners[i].threads;
		grow_errors += spawners[i].errors;
	}
	for (i = 0; i < NR_CPUS_MAX; i++)
		if (timer_ok[i])
			pthread_join(timers[i], NULL);
		else
			atomic_fetch_add(&errors, 1);
	pthread_join(pingers[0], NULL);
	pthread_join(pingers[1], NULL);
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
	elapsed = now() - t0;
	ticks = (double)(times(NULL) - j0) / sysconf(_SC_CLK_TCK);
	timer_irqs(after);
	growths = vmstat_read("dynamic_stack_pages_mapped") - mapped_before;

	for (i = 0; i < NR_CPUS_MAX; i++) {
		long d = after[i] - before[i];

		ktap_diag("CPU %d: %ld local timer interrupts", i, d);
		least = least < 0 || d < least ? d : least;
		most = d > most ? d : most;
	}
	ktap_diag("%ld threads, %ld stack pages mapped by faults in %.2f s, %ld errors; jiffies counted %.2f s",
		  threads, growths, elapsed, grow_errors + atomic_load(&errors), ticks);
	if (grow_errors || atomic_load(&errors) || growths < MIN_GROWTHS ||
	    ticks < 0.9 * elapsed || ticks > 1.1 * elapsed ||
	    most <= 0 || least < most / 2)
		return KTAP_FAIL;
	return KTAP_PASS;
}
