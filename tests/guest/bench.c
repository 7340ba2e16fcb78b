// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks of `make bench`, run by /init when the command line says
 * BENCH=<iterations scale>: each case prints its figures as "# METRIC"
 * lines and passes if it could measure them. Times come from
 * CLOCK_MONOTONIC in ns; scripts/bench.sh runs QEMU with -icount
 * shift=0, where one virtual ns is one guest instruction, and reports them
 * as instructions. Memory comes from /proc/vmstat.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define USER_STACK	(64 * 1024)
#define MAX_SLEEPERS	4096

static double scale;		/* BENCH=: 1 for the report, less for smoke */
static double create_join_ns;	/* for the growth figure */

static long iterations(long n)
{
	long i = (long)(n * scale);

	return i > 0 ? i : 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int dynamic(void)
{
	return env_double("DYNAMIC_STACK", 0) == 1;
}

/* Threads that sleep in read() until the pipe is closed; see sleepers_*. */
static pthread_t sleepers[MAX_SLEEPERS];
static int nr_sleepers, sleep_pipe[2];
static atomic_int nr_asleep;
static long sleeper_consume;
static struct kstack_snapshot sleepers_before;

static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	if (sleeper_consume && consume(sleeper_consume))
		return NULL;	/* not counted: the caller sees too few */
	atomic_fetch_add(&nr_asleep, 1);
	while (read(sleep_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/* KiB of nr_kernel_stack per task started since sleepers_start(), or -1. */
static double sleepers_kib(void)
{
	struct kstack_snapshot now;

	if (kstack_snapshot(&now) || now.tasks <= sleepers_before.tasks)
		return -1;
	return (double)(now.kib - sleepers_before.kib) /
	       (now.tasks - sleepers_before.tasks);
}

/*
 * Starts @n sleepers, each of which first uses @consume bytes of its stack
 * (0: none), and returns the KiB of nr_kernel_stack per new task once they
 * sleep, or -1.
 */
static double sleepers_start(int n, long consume_bytes)
{
	pthread_attr_t attr;
	int i;

	if (pipe(sleep_pipe) || kstack_snapshot(&sleepers_before))
		return -1;
	sleeper_consume = consume_bytes;
	atomic_store(&nr_asleep, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, USER_STACK);
	for (nr_sleepers = 0; nr_sleepers < n; nr_sleepers++)
		if (pthread_create(&sleepers[nr_sleepers], &attr, sleeper, NULL))
			break;
	pthread_attr_destroy(&attr);
	for (i = 0; i < 10000 && atomic_load(&nr_asleep) < n; i++)
		usleep(1000);
	usleep(200000);
	if (atomic_load(&nr_asleep) < n)
		return -1;
	return sleepers_kib();
}

static void sleepers_stop(void)
{
	close(sleep_pipe[1]);
	while (nr_sleepers)
		pthread_join(sleepers[--nr_sleepers], NULL);
	close(sleep_pipe[0]);
}

/* Waits, bounded, until nr_kernel_stack is what the tasks account for. */
static void kstack_settle(const struct kstack_snapshot *before)
{
	struct kstack_snapshot after;
	int i;

	for (i = 0; i < 100; i++) {
		if (!kstack_snapshot(&after) &&
		    kstack_accounted(before, &after, 0, thread_kib()))
			return;
		usleep(100000);
	}
}

static enum ktap_result bench_idle(void)
{
	struct kstack_snapshot s;

	if (kstack_snapshot(&s))
		return KTAP_FAIL;
	ktap_metric("idle_kstack_kib", s.kib, "KiB");
	ktap_metric("idle_stacks", s.tasks, "stacks");
	return KTAP_PASS;
}

/*
 * The kernel's default threads-max is RAM / (8 * THREAD_SIZE): 4096 in 1
 * GiB with 32 KiB stacks, too few for MAX_SLEEPERS more. Every kernel gets
 * the same, higher limit.
 */
static enum ktap_result bench_sleeping(void)
{
	double kib;

	if (write_file("/proc/sys/kernel/threads-max", "16384"))
		return KTAP_FAIL;
	kib = sleepers_start(MAX_SLEEPERS, 0);

	sleepers_stop();
	if (kib < 0)
		return KTAP_FAIL;
	ktap_metric("sleeping_kib_per_thread", kib, "KiB");
	return KTAP_PASS;
}

static void *nothing(void *arg)
{
	return arg;
}

static enum ktap_result bench_thread(void)
{
	long i, n = iterations(2000);
	pthread_t t;
	double t0 = now_ns();

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, nothing, NULL))
			return KTAP_FAIL;
		pthread_join(t, NULL);
	}
	create_join_ns = (now_ns() - t0) / n;
	ktap_metric("thread_create_join", create_join_ns, "ns");
	return KTAP_PASS;
}

static enum ktap_result bench_fork(void)
{
	long i, n = iterations(500);
	double t0 = now_ns();
	int status;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return KTAP_FAIL;
		if (!pid)
			_exit(0);
		waitpid(pid, &status, 0);
	}
	ktap_metric("fork_exit_wait", (now_ns() - t0) / n, "ns");
	return KTAP_PASS;
}

static enum ktap_result bench_pipe(void)
{
	long i, n = iterations(10000);
	int there[2], back[2], status;
	double t0;
	char c = 0;
	pid_t pid;

	if (pipe(there) || pipe(back))
		return KTAP_FAIL;
	pid = fork();
	if (pid < 0)
		return KTAP_FAIL;
	if (!pid) {
		close(there[1]);
		close(back[0]);
		while (read(there[0], &c, 1) == 1 && write(back[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(there[0]);
	close(back[1]);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			break;
	ktap_metric("pipe_round_trip", (now_ns() - t0) / n, "ns");
	close(there[1]);	/* the child reads end of file and exits */
	waitpid(pid, &status, 0);
	close(back[0]);
	return i == n ? KTAP_PASS : KTAP_FAIL;
}

/*
 * A workload of EL1 exceptions (kernel-mode faults): read() from /dev/zero
 * into fresh anonymous memory, so that every page faults in the kernel's
 * copy to user space; ns per page.
 */
static enum ktap_result bench_kernel_faults(void)
{
	long i, n = iterations(200), pages = 64;
	size_t len = pages * 4096;
	double t0;
	char *buf;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return KTAP_FAIL;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED || read(fd, buf, len) != (ssize_t)len)
			break;
		munmap(buf, len);
	}
	close(fd);
	if (i < n)
		return KTAP_FAIL;
	ktap_metric("kernel_fault_per_page", (now_ns() - t0) / (n * pages), "ns");
	return KTAP_PASS;
}

static atomic_int ticker_stop;
static long ticks;

/* Wakes up every 20 us, on a timer interrupt: see bench_irq_kernel_work. */
static void *ticker(void *arg)
{
	const struct timespec period = { .tv_nsec = 20000 };

	(void)arg;
	while (!atomic_load(&ticker_stop)) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &period, NULL);
		ticks++;
	}
	return NULL;
}

/*
 * A workload of EL1 interrupts: CPU 0 spends its time in the kernel,
 * clearing user memory for read() from /dev/zero, while a SCHED_FIFO
 * thread on the same CPU sleeps 20 us at a time: its timer interrupts
 * mostly arrive in kernel mode, and each wakes it, which runs at once
 * (real-time) and sleeps again. ns per 64 KiB read; the ticks are in a
 * diagnostic.
 */
static enum ktap_result bench_irq_kernel_work(void)
{
	static char buf[64 * 1024];
	const struct sched_param fifo = { .sched_priority = 1 };
	long i, n = iterations(4000);
	pthread_attr_t attr;
	pthread_t t;
	double t0;
	int err, fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
		return KTAP_FAIL;
	ticks = 0;
	atomic_store(&ticker_stop, 0);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &fifo);
	err = pthread_create(&t, &attr, ticker, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		close(fd);
		return KTAP_FAIL;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	t0 = now_ns() - t0;
	atomic_store(&ticker_stop, 1);
	pthread_join(t, NULL);
	close(fd);
	if (i < n)
		return KTAP_FAIL;
	ktap_diag("%ld ticks during %ld reads", ticks, n);
	ktap_metric("irq_kernel_work_per_64k", t0 / n, "ns");
	return KTAP_PASS;
}

/* One thread's first and second use of 6 KiB of stack: ns each. */
struct growth {
	double first, second;
	int err;
};

static void *grow_twice(void *arg)
{
	struct growth *g = arg;
	double t0 = now_ns();

	g->err = consume(6144);
	g->first = now_ns() - t0;
	t0 = now_ns();
	g->err |= consume(6144);
	g->second = now_ns() - t0;
	return NULL;
}

/*
 * The cost of a growth: a new thread uses 6 KiB of stack twice; the first
 * time faults in its second page, the second does not. Only the dynamic
 * kernel has the consume file (the baseline is the pristine tree).
 */
static enum ktap_result bench_growth(void)
{
	long i, n = iterations(200);
	double first = 0, second = 0, ns;
	struct growth g;
	pthread_t t;

	if (!dynamic())
		return KTAP_SKIP;
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, grow_twice, &g))
			return KTAP_FAIL;
		pthread_join(t, NULL);
		if (g.err)
			return KTAP_FAIL;
		first += g.first;
		second += g.second;
	}
	ns = (first - second) / n;
	ktap_metric("growth", ns, "ns");
	if (create_join_ns > 0)
		ktap_metric("growth_per_create_join", ns / create_join_ns, "x");
	return KTAP_PASS;
}

/*
 * The shortest of 7 writes of "DEPTH N" to dynamic_stack/irq_fault, or
 * -1: a timer tick, and the softirqs it raises, may fall in one write's
 * time and not in another's.
 */
static double irq_faults(long depth, long n)
{
	double t, best = -1;
	char text[48];
	int err, i;

	snprintf(text, sizeof(text), "%ld %ld", depth, n);
	for (i = 0; i < 7; i++) {
		t = now_ns();
		err = write_file("/sys/kernel/debug/dynamic_stack/irq_fault", text);
		if (err) {
			ktap_diag("dynamic_stack/irq_fault \"%s\": %s", text,
				  strerror(err));
			return -1;
		}
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/*
 * A kernel fault on the IRQ stack (a softirq's tasklet, interrupts
 * disabled), at its start and 8 KiB below it: ns per fault at each depth
 * (each less the same write with no fault; the shortest of 7 writes of
 * 1000 faults each), and their ratio. On arm64, the vector of an exception
 * below the top page of a stack takes its dynamic-stack stub, which must
 * let one on a stack that is not a task's go on at once: the ratio is the
 * cost of that, against a fault that the vector's inline check passes.
 * Only the dynamic kernel has the irq_fault file.
 */
static enum ktap_result bench_irq_stack_faults(void)
{
	long n = iterations(1000);
	double top, deep, none;

	if (!dynamic())
		return KTAP_SKIP;
	none = irq_faults(0, 0);
	top = irq_faults(0, n);
	if (none < 0 || top < 0)
		return KTAP_FAIL;
	top = (top - none) / n;
	none = irq_faults(8192, 0);
	deep = irq_faults(8192, n);
	if (none < 0 || deep < 0)
		return KTAP_FAIL;
	deep = (deep - none) / n;
	ktap_metric("irq_stack_fault", top, "ns");
	ktap_metric("irq_stack_fault_8k", deep, "ns");
	ktap_metric("irq_stack_fault_8k_per_top", deep / top, "x");
	return KTAP_PASS;
}

/*
 * 1000 threads that used 12 KiB of stack once, asleep, before and after
 * reclaim (drop_slab(): the shrinkers); then, after they exited, 1000 new
 * idle threads. The baseline cannot consume:
 * its threads only sleep, and every stack is THREAD_SIZE anyway.
 */
static enum ktap_result bench_burst(void)
{
	struct kstack_snapshot before;
	double deep, reclaimed = -1, idle;

	if (kstack_snapshot(&before))
		return KTAP_FAIL;
	deep = sleepers_start(1000, dynamic() ? 12 * 1024 : 0);
	if (!drop_slab())
		reclaimed = sleepers_kib();
	sleepers_stop();
	kstack_settle(&before);
	idle = sleepers_start(1000, 0);
	sleepers_stop();
	if (deep < 0 || reclaimed < 0 || idle < 0)
		return KTAP_FAIL;
	ktap_metric("after_12k_kib_per_thread", deep, "KiB");
	ktap_metric("after_12k_reclaimed_kib_per_thread", reclaimed, "KiB");
	ktap_metric("idle_after_burst_kib_per_thread", idle, "KiB");
	return KTAP_PASS;
}

/* The kstack histogram after the workloads above. */
static enum ktap_result bench_histogram(void)
{
	long exits[KSTACK_BUCKETS];
	char name[16];
	int i, n = kstack_histogram(exits);

	for (i = 0; i < n; i++) {
		if (exits[i] < 0)
			return KTAP_FAIL;
		snprintf(name, sizeof(name), "kstack_%dk", 1 << i);
		ktap_metric(name, exits[i], "exits");
	}
	return n ? KTAP_PASS : KTAP_FAIL;
}

/*
 * The timing cases run first, in an address space that has not had 4096
 * threads yet: afterwards glibc keeps up to 40 MiB of their stacks cached,
 * about 500 mappings that every fork() would copy (x86-64; the figure
 * would measure glibc's cache rather than fork).
 */
static const struct ktap_case bench_cases[] = {
	{ "bench_idle",		bench_idle },
	{ "bench_thread",	bench_thread },
	{ "bench_fork",		bench_fork },
	{ "bench_pipe",		bench_pipe },
	{ "bench_kernel_faults", bench_kernel_faults },
	{ "bench_irq_kernel_work", bench_irq_kernel_work },
	{ "bench_growth",	bench_growth },
	{ "bench_irq_stack_faults", bench_irq_stack_faults },
	{ "bench_sleeping",	bench_sleeping },
	{ "bench_burst",	bench_burst },
	{ "bench_histogram",	bench_histogram },
};

/*
 * On CPU 0 only (threads and children inherit it): with two vCPUs, where
 * the scheduler puts a new thread or a woken task changes the figures
 * from one boot to the next, even under -icount. scripts/bench.sh boots a
 * one-vCPU machine anyway (QEMU_BENCH_MACHINE).
 */
int bench_run(void)
{
	scale = env_double("BENCH", 1);
	ktap_plan(1);
	if (pin_to_cpu(0))
		ktap_diag("cannot run on CPU 0 only: the figures may vary");
	return ktap_run_suite("bench", bench_cases,
			      sizeof(bench_cases) / sizeof(bench_cases[0]));
}
