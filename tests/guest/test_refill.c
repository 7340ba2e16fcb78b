// SPDX-License-Identifier: GPL-2.0
/*
 * When the page allocator has no page for the scheduler's refill of a
 * fault pool, the refill takes the pages from the reserve
 * (dynamic_stack_reserve_used), and a worker that may sleep tops the
 * reserve up again: no refill fails (dynamic_stack_refill_failed).
 * fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC, the debug variant) fails the
 * page allocations that cannot sleep, such as the refill's, in the context
 * of the threads that ask for it (task-filter, make-it-fail): a thread per
 * CPU grows its stack, which takes pages from that CPU's pool, and sleeps,
 * which refills the pool in its context. Rounds of that take more pages
 * from the reserve than it holds, one pool's worth per online CPU: they
 * only all succeed if the worker refilled it between them.
 *
 * CPU 1's bring-up allocates its pool and its share of the reserve: while
 * every allocation of the task that brings it up fails, the bring-up fails
 * with ENOMEM, CPU 1 stays offline, and what the failed attempts set up is
 * undone (cpu_hotplug_enomem).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"
#include "tests.h"

#define FAIL_DIR	"/sys/kernel/debug/fail_page_alloc/"
#define FAILED		"dynamic_stack_refill_failed"
#define USED		"dynamic_stack_reserve_used"

/*
 * Fails every allocation that cannot sleep, and if @sleeping those that
 * may sleep too, of the tasks that ask to.
 */
static int fail_allocs(int on, int sleeping)
{
	const char *const setup[][2] = {
		{ "verbose", "0" },		/* no stack dump per failure */
		{ "task-filter", "Y" },		/* make-it-fail tasks only */
		{ "ignore-gfp-wait", sleeping ? "N" : "Y" },
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

#define MAX_CPUS	8

struct failer {
	int cpu;
	int err;
	const char *step;
};

static void *failer(void *arg)
{
	struct failer *f = arg;

	/* Everything it touches from here on is mapped before it fails. */
	f->step = "pin to its CPU";
	f->err = pin_to_cpu(f->cpu);
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
		f->err = consume(consume_max());
		/* Off the CPU: the refill runs in this thread's context. */
		usleep(20000);
		f->err = write_file("/proc/thread-self/make-it-fail", "0") ?:
			 f->err;
	}
	return NULL;
}

static void *deep(void *arg)
{
	struct failer *f = arg;

	f->step = "pin and consume";
	f->err = pin_to_cpu(f->cpu) ?: consume(consume_max());
	return NULL;
}

/*
 * Runs @fn in a thread per CPU (f[i].cpu = i) and waits for them all:
 * the first error, reported, or 0.
 */
static int run_per_cpu(long cpus, void *(*fn)(void *), struct failer *f)
{
	pthread_t t[MAX_CPUS];
	int created[MAX_CPUS];
	int err = 0;
	long i;

	for (i = 0; i < cpus; i++) {
		f[i] = (struct failer){ .cpu = i, .step = "pthread_create" };
		f[i].err = pthread_create(&t[i], NULL, fn, &f[i]);
		created[i] = !f[i].err;
	}
	for (i = 0; i < cpus; i++) {
		if (created[i])
			pthread_join(t[i], NULL);
		if (f[i].err && !err) {
			err = f[i].err;
			ktap_diag("the thread on CPU %ld, at %s: %s", i,
				  f[i].step, strerror(err));
		}
	}
	return err;
}

enum ktap_result test_refill_reserve(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	long failed0, used0, failed, used, reserve;
	int err, deep_err, round, rounds;
	struct failer f[MAX_CPUS];

	failed0 = vmstat_read(FAILED);
	used0 = vmstat_read(USED);
	if (failed0 < 0 || used0 < 0 || cpus < 1 || cpus > MAX_CPUS) {
		ktap_diag("no %s or %s in /proc/vmstat, or %ld online CPUs",
			  FAILED, USED, cpus);
		return KTAP_FAIL;
	}
	/* A pool holds the dynamic pages of a stack and one more. */
	reserve = cpus * (thread_kib() * 1024 / page);
	/* A round takes at least the pages below the first: one fewer each. */
	rounds = 2 * (reserve / (cpus * (thread_kib() * 1024 / page - 1)) + 1);

	err = fail_allocs(1, 0);
	used = used0;
	for (round = 0; !err && round < rounds && used - used0 <= reserve;
	     round++) {
		err = run_per_cpu(cpus, failer, f);
		/* The worker refills the reserve meanwhile. */
		usleep(300000);
		used = vmstat_read(USED);
	}
	err = fail_allocs(0, 0) ?: err;
	failed = vmstat_read(FAILED);
	deep_err = run_per_cpu(cpus, deep, f);

	ktap_diag("%d rounds of a thread per CPU, %ld bytes deep, whose refills fail: %s %ld -> %ld (the reserve holds %ld pages), %s %ld -> %ld (%s)",
		  round, consume_max(), USED, used0, used, reserve,
		  FAILED, failed0, failed,
		  err ? strerror(err) : "fail_page_alloc set up and reset");
	ktap_diag("then a thread on each CPU went %ld bytes deep: %s",
		  consume_max(), deep_err ? strerror(deep_err) : "Success");
	if (err || used - used0 <= reserve || failed != failed0 || deep_err)
		return KTAP_FAIL;
	return KTAP_PASS;
}

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define ATTEMPTS	500

static void *nothing(void *arg)
{
	return arg;
}

/* Creates and joins @n threads: a fork tops up a short reserve. */
static int spawn(int n)
{
	pthread_t t;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		err = pthread_create(&t, NULL, nothing, NULL);
		if (!err)
			pthread_join(t, NULL);
	}
	return err;
}

/* Writes @s to @fd, opened before: the error number, or 0. */
static int put(int fd, const char *s)
{
	ssize_t len = strlen(s);

	return pwrite(fd, s, len, 0) == len ? 0 : errno ?: EIO;
}

/*
 * One attempt to bring CPU 1 up, while this thread's page allocations
 * fail: the files are open before, so only the bring-up allocates.
 */
static int online_failing(int fail_fd, int online_fd)
{
	int err = put(fail_fd, "1") ?: put(online_fd, "1");

	/* Not the bring-up's error: this thread would keep failing. */
	if (put(fail_fd, "0"))
		return EFAULT;
	return err;
}

enum ktap_result test_hotplug_enomem(void)
{
	long page = sysconf(_SC_PAGESIZE), pool = thread_kib() * 1024 / page;
	long free0 = -1, free1 = -1, bound = ATTEMPTS * pool / 2 * (page / 1024);
	int i = 0, err, enomem = 0, other = 0, online = -1;
	int fail_fd = -1, online_fd = -1;
	struct failer f[MAX_CPUS];
	char state = 0;

	/* Caches and the reserve warm, CPU 1 offline, then the free pages. */
	err = spawn(ATTEMPTS) ?: write_file(CPU1_ONLINE, "0") ?: drop_slab();
	if (!err) {
		usleep(300000);
		free0 = free_kib();
		fail_fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
		online_fd = open(CPU1_ONLINE, O_RDWR);
		err = fail_fd < 0 || online_fd < 0 ? errno : fail_allocs(1, 1);
	}
	for (i = 0; !err && !other && i < ATTEMPTS; i++) {
		int e = online_failing(fail_fd, online_fd);

		if (e == ENOMEM)
			enomem++;
		else
			other++;
		/* CPU 1 stayed offline. */
		if (pread(online_fd, &state, 1, 0) != 1 || state != '0')
			other++;
	}
	err = fail_allocs(0, 1) ?: err;
	if (fail_fd >= 0)
		close(fail_fd);
	if (online_fd >= 0)
		close(online_fd);
	/* Forks fill the reserve to its size: the leak of a failed bring-up. */
	if (!err) {
		err = spawn(ATTEMPTS) ?: drop_slab();
		usleep(300000);
		free1 = free_kib();
	}
	online = write_file(CPU1_ONLINE, "1") ?:
		 run_per_cpu(sysconf(_SC_NPROCESSORS_ONLN), deep, f);

	ktap_diag("%d attempts to bring CPU 1 up while its allocations fail: %d ENOMEM, %d other results or CPU 1 online (%s)",
		  i, enomem, other, err ? strerror(err) : "set up and reset");
	ktap_diag("free memory %ld -> %ld KiB (a pool's worth per attempt would be %ld KiB; bound %ld KiB)",
		  free0, free1, ATTEMPTS * pool * (page / 1024), bound);
	ktap_diag("then CPU 1 online and a thread %ld bytes deep on each CPU: %s",
		  consume_max(), online ? strerror(online) : "Success");
	if (err || enomem != ATTEMPTS || other || online ||
	    free0 - free1 > bound)
		return KTAP_FAIL;
	return KTAP_PASS;
}
