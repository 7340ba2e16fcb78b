// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic-stack tests, through /sys/kernel/debug/dynamic_stack/consume
 * (CONFIG_DYNAMIC_STACK_TEST): bad input is refused, and many threads on
 * both CPUs that grow their stacks to random depths read back what they
 * wrote there and leave no page accounted once they are gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define CONSUME		"/sys/kernel/debug/dynamic_stack/consume"
#define NR_GROWERS	64
#define ROUNDS		50
#define THREAD_KIB	16
#define MAX_DEPTH	(THREAD_KIB * 1024 - 1024)

/* Writes @s to the consume file: 0, or the errno of the write. */
static int consume(const char *s)
{
	int fd = open(CONSUME, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

enum ktap_result test_consume_bad_input(void)
{
	static const char *const bad[] = { "abc", "-5", "", "4096x", "99999999" };
	enum ktap_result r = KTAP_PASS;
	char depth[32];
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = consume(bad[i]);
		if (err != EINVAL) {
			ktap_diag("'%s': %s, expected EINVAL", bad[i], strerror(err));
			r = KTAP_FAIL;
		}
	}
	snprintf(depth, sizeof(depth), "%d", MAX_DEPTH + 1);
	if (consume(depth) != EINVAL) {
		ktap_diag("%s bytes accepted, above the maximum", depth);
		r = KTAP_FAIL;
	}
	snprintf(depth, sizeof(depth), "%d", MAX_DEPTH);
	err = consume(depth);
	if (err) {
		ktap_diag("%s bytes: %s", depth, strerror(err));
		r = KTAP_FAIL;
	}
	return r;
}

struct grower {
	pthread_t thread;
	int cpu;
	int errors;
};

static pthread_barrier_t grown;
static int release_pipe[2];

static void *grow(void *arg)
{
	struct grower *g = arg;
	unsigned int seed = g->cpu * 7919 + (unsigned int)(long)&g;
	cpu_set_t set;
	char depth[32];
	char c;
	int i;

	CPU_ZERO(&set);
	CPU_SET(g->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < ROUNDS; i++) {
		snprintf(depth, sizeof(depth), "%d",
			 1024 + rand_r(&seed) % (MAX_DEPTH - 1024));
		if (consume(depth)) {
			g->errors++;
			break;
		}
	}
	pthread_barrier_wait(&grown);
	/* Asleep with the grown stack until the pipe is closed. */
	while (read(release_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

static long faults_kib(void)
{
	return vmstat_read("nr_dynamic_stacks_faults");
}

enum ktap_result test_consume_many_threads(void)
{
	static struct grower growers[NR_GROWERS];
	struct kstack_snapshot before, after;
	long faults_before, faults_during, faults_after = -1;
	int i, errors = 0, settled = 0;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	faults_before = faults_kib();
	if (faults_before < 0 || kstack_snapshot(&before) || pipe(release_pipe)) {
		ktap_diag("nr_dynamic_stacks_faults or nr_kernel_stack unreadable");
		return KTAP_FAIL;
	}
	pthread_barrier_init(&grown, NULL, NR_GROWERS + 1);
	for (i = 0; i < NR_GROWERS; i++) {
		growers[i].cpu = i % (ncpus > 0 ? ncpus : 1);
		if (pthread_create(&growers[i].thread, NULL, grow, &growers[i])) {
			ktap_diag("pthread_create failed");
			return KTAP_FAIL;	/* the barrier would never open */
		}
	}
	pthread_barrier_wait(&grown);
	usleep(200000);
	faults_during = faults_kib();

	close(release_pipe[1]);
	for (i = 0; i < NR_GROWERS; i++) {
		pthread_join(growers[i].thread, NULL);
		errors += growers[i].errors;
	}
	close(release_pipe[0]);
	pthread_barrier_destroy(&grown);

	for (i = 0; i < 100 && !settled; i++) {
		if (i)
			usleep(100000);
		faults_after = faults_kib();
		settled = !kstack_snapshot(&after) &&
			  after.tasks == before.tasks && after.kib == before.kib &&
			  faults_after == faults_before;
	}
	ktap_diag("%d threads on %d CPUs, %d consume rounds each: %d errors",
		  NR_GROWERS, ncpus, ROUNDS, errors);
	ktap_diag("nr_dynamic_stacks_faults %ld -> %ld (asleep) -> %ld KiB",
		  faults_before, faults_during, faults_after);
	ktap_diag("nr_kernel_stack %ld KiB with %ld tasks -> %ld KiB with %ld tasks",
		  before.kib, before.tasks, after.kib, after.tasks);
	ktap_metric("grown_kib_per_thread",
		    (double)(faults_during - faults_before) / NR_GROWERS, "KiB");
	if (errors || faults_during <= faults_before || !settled)
		return KTAP_FAIL;
	return KTAP_PASS;
}
