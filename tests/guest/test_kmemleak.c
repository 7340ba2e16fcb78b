// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak (CONFIG_DEBUG_KMEMLEAK, the debug variants) scans every task's
 * kernel stack for pointers. On a dynamic kernel only the top of a stack
 * is mapped, and a scan that reads the whole THREAD_SIZE area oopses on
 * the first unmapped page: a scan must read only what is mapped, and must
 * not race with reclaim unmapping it. The test runs two scans with threads
 * asleep after a deep excursion (mapped pages below the top, unmapped ones
 * below those; on the baseline twin they only sleep) and with reclaim
 * trimming them meanwhile. Run when /sys/kernel/debug/kmemleak exists;
 * the cells that must have it list the case in tests/cases. What kmemleak
 * reports as leaks is a console complaint (tests/complaints), not this
 * test's result.
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

static pthread_barrier_t deep;
static int wake_pipe[2];
static atomic_int scanning;

static void *deep_sleeper(void *arg)
{
	int *err = arg;
	char c;

	/* The baseline has no dynamic_stack/consume, nor unmapped pages. */
	*err = env_double("DYNAMIC_STACK", 0) == 1 ? consume(DEEP_BYTES) : 0;
	pthread_barrier_wait(&deep);
	if (read(wake_pipe[0], &c, 1) != 1)
		*err = *err ?: EPIPE;
	return NULL;
}

/* Trims the sleepers while the scan runs. */
static void *trimmer(void *arg)
{
	int *err = arg;

	while (!*err && atomic_load(&scanning))
		*err = write_file("/proc/sys/vm/stat_refresh", "1") ?: drop_slab();
	return NULL;
}

enum ktap_result test_kmemleak_scan(void)
{
	int i, err, trimming, started = 0, errs[NR_DEEP] = { 0 }, trim_err = 0;
	pthread_t t[NR_DEEP], trim;

	if (pipe(wake_pipe))
		return KTAP_FAIL;
	pthread_barrier_init(&deep, NULL, NR_DEEP + 1);
	for (i = 0; i < NR_DEEP; i++) {
		if (pthread_create(&t[i], NULL, deep_sleeper, &errs[i])) {
			ktap_diag("pthread_create failed");
			return KTAP_FAIL;	/* the barrier would never open */
		}
	}
	pthread_barrier_wait(&deep);
	usleep(100000);		/* asleep in read() */
	atomic_store(&scanning, 1);
	trimming = !pthread_create(&trim, NULL, trimmer, &trim_err);
	err = trimming ? 0 : EAGAIN;
	/* The second scan reads the stacks the first left trimmed. */
	for (i = 0; i < 2 && !err; i++)
		err = write_file(KMEMLEAK_PATH, "scan");
	atomic_store(&scanning, 0);
	if (trimming)
		pthread_join(trim, NULL);
	for (i = 0; i < NR_DEEP; i++)
		started += write(wake_pipe[1], "x", 1) == 1;
	for (i = 0; i < NR_DEEP; i++) {
		pthread_join(t[i], NULL);
		err = err ?: errs[i];
	}
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	pthread_barrier_destroy(&deep);
	ktap_diag("2 kmemleak scans with %d threads asleep after %d bytes, reclaim running: %s; reclaim: %s",
		  NR_DEEP, DEEP_BYTES, strerror(err), strerror(trim_err));
	return err || trim_err || started != NR_DEEP ? KTAP_FAIL : KTAP_PASS;
}
