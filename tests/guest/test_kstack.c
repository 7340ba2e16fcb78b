// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-stack memory per thread, from nr_kernel_stack in /proc/vmstat:
 * NR_THREADS threads are created and put to sleep, the counter is read
 * with them asleep and again after they have been joined.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define NR_THREADS	2000
#define USER_STACK	(64 * 1024)

static pthread_t threads[NR_THREADS];
static int nr_started;
static atomic_int nr_asleep;
static int wake_pipe[2] = { -1, -1 };
static struct kstack_snapshot before;
static long histogram_before;

/* Exits counted by the histogram, or -1 if a bucket is missing. */
static long histogram_sum(void)
{
	long exits[KSTACK_BUCKETS], sum = 0;
	int i, n = kstack_histogram(exits);

	for (i = 0; i < n; i++) {
		if (exits[i] < 0)
			return -1;
		sum += exits[i];
	}
	return n ? sum : -1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

enum ktap_result test_init_reached(void)
{
	ktap_diag("init running as pid %d", (int)getpid());
	return getpid() == 1 ? KTAP_PASS : KTAP_FAIL;
}

enum ktap_result test_vmstat_counters(void)
{
	enum ktap_result r = KTAP_PASS;
	long exits[KSTACK_BUCKETS];
	int i, n;

	if (vmstat_read("nr_kernel_stack") <= 0) {
		ktap_diag("nr_kernel_stack missing or zero");
		r = KTAP_FAIL;
	}
	/* Every bucket from 1 KiB to THREAD_SIZE, which is 16 KiB or more. */
	n = kstack_histogram(exits);
	for (i = 0; i < n; i++) {
		if (exits[i] < 0) {
			ktap_diag("kstack_%dk missing from /proc/vmstat", 1 << i);
			r = KTAP_FAIL;
		}
	}
	if (n < 5) {
		ktap_diag("kstack_16k missing from /proc/vmstat");
		r = KTAP_FAIL;
	}
	return r;
}

static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	atomic_fetch_add(&nr_asleep, 1);
	/* Sleeps in the kernel until the write end is closed. */
	while (read(wake_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

static void release_threads(void)
{
	int i;

	if (wake_pipe[1] >= 0)
		close(wake_pipe[1]);
	for (i = 0; i < nr_started; i++)
		pthread_join(threads[i], NULL);
	if (wake_pipe[0] >= 0)
		close(wake_pipe[0]);
	wake_pipe[0] = wake_pipe[1] = -1;
}

/*
 * What a new thread's stack costs, in KiB: KSTACK_KIB_MIN to KSTACK_KIB_MAX
 * from the command line, or, on a dynamic kernel booted with
 * dynamic_stack=off (DYNAMIC_STACK_OFF=1), THREAD_SIZE: every stack whole.
 */
static void kstack_bounds(double *lo, double *hi)
{
	*lo = env_double("KSTACK_KIB_MIN", -1);
	*hi = env_double("KSTACK_KIB_MAX", -1);
	if (env_double("DYNAMIC_STACK_OFF", 0) == 1) {
		*lo = thread_kib() - 0.05;
		*hi = thread_kib() + 0.05;
	}
}

/*
 * Also measured here, for the matrix to hold the counters against: the
 * fall in free memory per thread (free_kib_per_thread: MemFree and the
 * per-CPU page lists, from /proc/zoneinfo, after vm.stat_refresh folded
 * the per-CPU counter deltas), which the series
 * does not compute; the matrix compares its difference between a baseline
 * and a dynamic kernel with the difference in nr_kernel_stack. And on a
 * dynamic kernel, nr_kernel_stack must be what the page tables map.
 */
enum ktap_result test_kstack_per_thread(void)
{
	int dynamic = env_double("DYNAMIC_STACK", 0) == 1;
	long free_before, free_during;
	struct kstack_snapshot during;
	pthread_attr_t attr;
	double per_thread, lo, hi;
	int i, agree = 1;

	kstack_bounds(&lo, &hi);
	if (lo < 0 || hi < 0) {
		ktap_diag("KSTACK_KIB_MIN/KSTACK_KIB_MAX not on the command line");
		return KTAP_FAIL;
	}
	histogram_before = histogram_sum();
	if (pipe(wake_pipe) || kstack_snapshot(&before) ||
	    (free_before = free_kib()) < 0) {
		ktap_diag("setup failed: %m");
		return KTAP_FAIL;
	}

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, USER_STACK);
	for (i = 0; i < NR_THREADS; i++) {
		int err = pthread_create(&threads[i], &attr, sleeper, NULL);

		if (err) {
			ktap_diag("pthread_create %d: %s", i, strerror(err));
			break;
		}
		nr_started++;
	}
	pthread_attr_destroy(&attr);
	if (nr_started < NR_THREADS)
		return KTAP_FAIL;

	/* Every thread has reached read(); give the last ones time to block. */
	for (i = 0; i < 10000 && atomic_load(&nr_asleep) < NR_THREADS; i++)
		sleep_ms(1);
	sleep_ms(200);

	if (kstack_snapshot(&during) || during.tasks <= before.tasks ||
	    (free_during = free_kib()) < 0) {
		ktap_diag("no snapshot with the threads asleep");
		return KTAP_FAIL;
	}
	per_thread = (double)(during.kib - before.kib) /
		     (during.tasks - before.tasks);
	ktap_diag("%ld tasks -> %ld tasks, nr_kernel_stack %ld -> %ld KiB, free %ld -> %ld KiB",
		  before.tasks, during.tasks, before.kib, during.kib,
		  free_before, free_during);
	ktap_metric("kstack_kib_per_thread", per_thread, "KiB");
	ktap_metric("free_kib_per_thread",
		    (double)(free_before - free_during) /
		    (during.tasks - before.tasks), "KiB");
	if (dynamic)
		agree = stack_pages_agree("2000 threads asleep");
	if (!agree)
		return KTAP_FAIL;
	if (per_thread < lo || per_thread > hi) {
		ktap_diag("%.2f KiB per thread, expected %.2f to %.2f",
			  per_thread, lo, hi);
		return KTAP_FAIL;
	}
	return KTAP_PASS;
}

/*
 * On a dynamic kernel nr_kernel_stack must also be what the page tables map
 * of the stacks of the tasks that are left: that does not count on the
 * series' own fault counter, which kstack_accounted() takes out.
 */
enum ktap_result test_kstack_returns(void)
{
	int dynamic = env_double("DYNAMIC_STACK", 0) == 1;
	struct kstack_snapshot after = { 0 };
	long exited, max_kib = thread_kib();
	int i, settled = 0;
	double lo, hi;

	kstack_bounds(&lo, &hi);
	lo = lo < 0 ? 0 : lo;

	if (nr_started != NR_THREADS) {
		release_threads();
		ktap_diag("the threads of kstack_kib_per_thread did not start");
		return KTAP_FAIL;
	}
	release_threads();

	/* Exit accounting can lag the join (the stack is freed after RCU). */
	for (i = 0; i < 100 && !settled; i++) {
		if (i)
			sleep_ms(100);
		settled = !kstack_snapshot(&after) &&
			  kstack_accounted(&before, &after, lo, max_kib);
	}
	ktap_diag("nr_kernel_stack %ld KiB with %ld tasks before, %ld KiB with %ld tasks after",
		  before.kib, before.tasks, after.kib, after.tasks);
	ktap_diag("of which grown below the first pages: %ld KiB before, %ld KiB after",
		  before.grown_kib, after.grown_kib);
	if (!settled) {
		ktap_diag("expected %ld to %ld KiB more than the growth for %ld new tasks",
			  (long)((after.tasks - before.tasks) * lo),
			  (after.tasks - before.tasks) * max_kib,
			  after.tasks - before.tasks);
		return KTAP_FAIL;
	}
	if (dynamic && !stack_pages_agree("after the exits"))
		return KTAP_FAIL;

	exited = histogram_sum() - histogram_before;
	ktap_diag("kstack histogram counted %ld exits", exited);
	if (histogram_before < 0 || exited < NR_THREADS) {
		ktap_diag("expected at least %d exits in the kstack histogram",
			  NR_THREADS);
		return KTAP_FAIL;
	}
	return KTAP_PASS;
}

/* A value from /proc/meminfo in KiB, or -1. */
static long meminfo_kib(const char *name)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char key[64];
	long v = -1, kib;

	if (!f)
		return -1;
	while (fscanf(f, "%63[^:]: %ld kB\n", key, &kib) == 2)
		if (!strcmp(key, name))
			v = kib;
	fclose(f);
	return v;
}

/*
 * threads-max (and the default RLIMIT_NPROC, half of it) lets the threads'
 * stacks take an eighth of the memory free at boot, counting a stack as
 * @stack_kib. The memory free at boot differs from MemTotal by what boot
 * reserved and freed again (the initramfs, init sections): a few per cent,
 * well inside the bounds, which a stack counted as half or twice
 * @stack_kib is not.
 */
static enum ktap_result threads_max_counts(long stack_kib)
{
	long mem = meminfo_kib("MemTotal"), max = -1;
	FILE *f = fopen("/proc/sys/kernel/threads-max", "r");
	double ratio;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = -1;
		fclose(f);
	}
	if (mem <= 0 || max <= 0 || stack_kib <= 0) {
		ktap_diag("threads-max (%ld), MemTotal (%ld kB) or the stack size (%ld KiB) unreadable",
			  max, mem, stack_kib);
		return KTAP_FAIL;
	}
	ratio = (double)max * 8 * stack_kib / mem;
	ktap_diag("threads-max %ld, MemTotal %ld kB: %.3f of MemTotal / (8 * %ld KiB)",
		  max, mem, ratio, stack_kib);
	return ratio >= 0.75 && ratio <= 1.25 ? KTAP_PASS : KTAP_FAIL;
}

/*
 * A stack counts as 16 KiB, THREAD_SIZE on both arches without
 * DYNAMIC_STACK_32K or KASAN: a 32 KiB dynamic stack maps what it uses and
 * must not halve the limits.
 */
enum ktap_result test_threads_max(void)
{
	return threads_max_counts(16);
}

/*
 * With dynamic_stack=off every stack maps THREAD_SIZE (the largest kstack_*
 * bucket) at fork, and counts for it: a 32 KiB stack counted as 16 KiB
 * would let the stacks take a quarter of memory.
 */
enum ktap_result test_threads_max_off(void)
{
	return threads_max_counts(thread_kib());
}
