// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak (CONFIG_DEBUG_KMEMLEAK, the debug variants) scans every task's
 * kernel stack for pointers. On a dynamic kernel only the top of a stack
 * is mapped, and a scan that reads the whole THREAD_SIZE area oopses on
 * the first unmapped page: a scan must read only what is mapped, hold off
 * reclaim while it reads a stack, and let it go after. The test runs two
 * scans while 16 threads go 10 KiB deep and sleep 2 ms, over and over
 * (mapped pages below the top, unmapped ones below those; on the baseline
 * twin they only sleep), and reclaim runs in a loop. Then, with the
 * threads asleep after a last excursion, reclaim must take their pages
 * (TRIMMED_KIB). Run when /sys/kernel/debug/kmemleak exists; the cells
 * that must have it list the case in tests/cases. What kmemleak reports as
 * leaks is a console complaint (tests/complaints), not this test's result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define KMEMLEAK_PATH	"/sys/kernel/debug/kmemleak"
#define NR_DEEP		16
#define DEEP_BYTES	(10 * 1024)
/*
 * What reclaim takes at least from each of them after the scans: 8 KiB
 * (3 pages mapped, 1 kept), of which half leaves room for other tasks
 * that grow meanwhile; a stack kmemleak still held would give none.
 */
#define TRIMMED_KIB	4

static pthread_barrier_t asleep;
static int wake_pipe[2], dynamic;
/* The scans run; then the trimmer has stopped, and the last excursion */
static atomic_int scanning, last;

static void *deep_sleeper(void *arg)
{
	int *err = arg;
	char c;

	/* The baseline has no dynamic_stack/consume, nor unmapped pages. */
	while (dynamic && !*err && atomic_load(&scanning)) {
		*err = consume(DEEP_BYTES);
		usleep(2000);
	}
	while (!atomic_load(&last))
		usleep(1000);
	if (dynamic && !*err)
		*err = consume(DEEP_BYTES);
	pthread_barrier_wait(&asleep);
	if (read(wake_pipe[0], &c, 1) != 1)
		*err = *err ?: EPIPE;
	return NULL;
}

static void *trimmer(void *arg)
{
	int *err = arg;

	while (!*err && atomic_load(&scanning))
		*err = write_file("/proc/sys/vm/stat_refresh", "1") ?: drop_slab();
	return NULL;
}

/* nr_kernel_stack, folded from every CPU, in KiB, or -1 */
static long kstack_kib(void)
{
	struct kstack_snapshot s;

	if (write_file("/proc/sys/vm/stat_refresh", "1") || kstack_snapshot(&s))
		return -1;
	return s.kib;
}

enum ktap_result test_kmemleak_scan(void)
{
	int i, err, trimming, started = 0, errs[NR_DEEP] = { 0 }, trim_err = 0;
	long before = -1, after = -1;
	pthread_t t[NR_DEEP], trim;

	dynamic = env_double("DYNAMIC_STACK", 0) == 1;
	if (pipe(wake_pipe))
		return KTAP_FAIL;
	pthread_barrier_init(&asleep, NULL, NR_DEEP + 1);
	atomic_store(&last, 0);
	atomic_store(&scanning, 1);
	for (i = 0; i < NR_DEEP; i++) {
		if (pthread_create(&t[i], NULL, deep_sleeper, &errs[i])) {
			ktap_diag("pthread_create failed");
			return KTAP_FAIL;	/* the barrier would never open */
		}
	}
	trimming = !pthread_create(&trim, NULL, trimmer, &trim_err);
	err = trimming ? 0 : EAGAIN;
	/* The second scan reads the stacks the first left trimmed. */
	for (i = 0; i < 2 && !err; i++)
		err = write_file(KMEMLEAK_PATH, "scan");
	atomic_store(&scanning, 0);
	if (trimming)
		pthread_join(trim, NULL);
	/* No reclaim from here until the stacks are measured. */
	atomic_store(&last, 1);
	pthread_barrier_wait(&asleep);
	usleep(100000);		/* asleep in read() */
	/* kmemleak let go of every stack: reclaim takes what they grew. */
	if (dynamic && !err) {
		before = kstack_kib();
		err = drop_slab();
		after = kstack_kib();
	}
	for (i = 0; i < NR_DEEP; i++)
		started += write(wake_pipe[1], "x", 1) == 1;
	close(wake_pipe[1]);	/* EOF wakes those a write missed */
	for (i = 0; i < NR_DEEP; i++) {
		pthread_join(t[i], NULL);
		err = err ?: errs[i];
	}
	close(wake_pipe[0]);
	pthread_barrier_destroy(&asleep);
	ktap_diag("2 kmemleak scans with %d threads going %d bytes deep, reclaim running: %s; reclaim: %s",
		  NR_DEEP, DEEP_BYTES, strerror(err), strerror(trim_err));
	if (dynamic)
		ktap_diag("then, the threads asleep: nr_kernel_stack %ld KiB, %ld after drop_caches (at least %d KiB less expected)",
			  before, after, NR_DEEP * TRIMMED_KIB);
	if (err || trim_err || started != NR_DEEP)
		return KTAP_FAIL;
	if (dynamic && (before < 0 || after < 0 ||
			before - after < NR_DEEP * TRIMMED_KIB))
		return KTAP_FAIL;
	return KTAP_PASS;
}
