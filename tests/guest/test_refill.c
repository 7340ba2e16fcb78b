// SPDX-License-Identifier: GPL-2.0
/*
 * A refill of the fault pool that fails is counted (the vm event
 * dynamic_stack_refill_failed), and the pool recovers once allocations
 * succeed again. fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC, the debug
 * variant) fails the page allocations that cannot sleep, GFP_ATOMIC ones
 * such as the refill's, in the context of one thread only (task-filter,
 * make-it-fail): that thread grows its stack on CPU 0, which takes pages
 * from CPU 0's pool, and sleeps, which refills the pool in its context,
 * where the allocation fails. Run on request (FAIL_PAGE_ALLOC=1 on the
 * command line), on a dynamic kernel with fail_page_alloc: the debug variant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"
#include "tests.h"

#define FAIL_DIR	"/sys/kernel/debug/fail_page_alloc/"
#define GROW_BYTES	(12 * 1024)
#define COUNTER		"dynamic_stack_refill_failed"

/* Fails every allocation that cannot sleep, of the tasks that ask to. */
static int fail_atomic(int on)
{
	static const char *const setup[][2] = {
		{ "verbose", "0" },		/* no stack dump per failure */
		{ "task-filter", "Y" },		/* make-it-fail tasks only */
		{ "ignore-gfp-wait", "Y" },	/* not the ones that may sleep */
		{ "ignore-gfp-highmem", "N" },
		{ "min-order", "0" },
		{ "interval", "1" },
		{ "space", "0" },
		{ "times", "-1" },
	};
	unsigned int i;
	int err = 0;

	for (i = 0; on && !err && i < sizeof(setup) / sizeof(setup[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), FAIL_DIR "%s", setup[i][0]);
		err = write_file(path, setup[i][1]);
		if (err)
			ktap_diag("%s: %s", path, strerror(err));
	}
	return err ?: write_file(FAIL_DIR "probability", on ? "100" : "0");
}

struct failer {
	int err;
	const char *step;
};

static void *failer(void *arg)
{
	struct failer *f = arg;

	/* Everything it touches from here on is mapped before it fails. */
	f->step = "pin to CPU 0";
	f->err = pin_to_cpu(0);
	if (!f->err) {
		f->step = "first sleep";
		f->err = usleep(1000) ? errno : 0;
	}
	if (!f->err) {
		f->step = "make-it-fail";
		f->err = write_file("/proc/thread-self/make-it-fail", "1");
	}
	if (!f->err) {
		f->step = "consume";
		f->err = consume(GROW_BYTES);
		/* Off the CPU: the refill runs in this thread's context. */
		usleep(20000);
		f->err = write_file("/proc/thread-self/make-it-fail", "0") ?:
			 f->err;
	}
	return NULL;
}

static void *deep_on_cpu0(void *arg)
{
	int *err = arg;

	*err = pin_to_cpu(0) ?: consume(consume_max());
	return NULL;
}

enum ktap_result test_refill_failure(void)
{
	struct failer f = { 0 };
	long before, failed, after;
	int err, deep_err = -1;
	pthread_t t;

	before = vmstat_read(COUNTER);
	if (before < 0) {
		ktap_diag("/proc/vmstat has no %s", COUNTER);
		return KTAP_FAIL;
	}
	err = fail_atomic(1);
	if (!err) {
		err = pthread_create(&t, NULL, failer, &f);
		if (!err)
			pthread_join(t, NULL);
	}
	fail_atomic(0);
	failed = vmstat_read(COUNTER);
	/* CPU 0 switches tasks meanwhile: each switch refills, none fails. */
	usleep(300000);
	after = vmstat_read(COUNTER);
	if (!pthread_create(&t, NULL, deep_on_cpu0, &deep_err))
		pthread_join(t, NULL);

	ktap_diag("%s %ld -> %ld with the refills of a thread failing, %ld 0.3 s after (%s)",
		  COUNTER, before, failed, after,
		  err ? strerror(err) : "fail_page_alloc set up");
	if (f.err)
		ktap_diag("the failing thread, at %s: %s", f.step, strerror(f.err));
	ktap_diag("then a thread on CPU 0 went %ld bytes deep: %s", consume_max(),
		  deep_err ? strerror(deep_err) : "Success");
	if (err || f.err || failed <= before || after != failed || deep_err)
		return KTAP_FAIL;
	return KTAP_PASS;
}
