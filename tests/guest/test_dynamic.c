// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic-stack tests, through /sys/kernel/debug/dynamic_stack/consume
 * (CONFIG_DYNAMIC_STACK_TEST): bad input is refused, and many threads on
 * both CPUs that grow their stacks to random depths read back what they
 * wrote there and leave no page accounted once they are gone, and no
 * thread finds what another one wrote on its stack.
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

#define NR_GROWERS	64
#define ROUNDS		50
#define PAGE_KIB	4	/* what a new stack maps */
#define CONSUME		"/sys/kernel/debug/dynamic_stack/consume"
/* Stays in the preallocated top page: the stack is cached at exit. */
#define SHALLOW_DEPTH	1536
#define STALE_ROUNDS	16

enum ktap_result test_consume_bad_input(void)
{
	static const char *const bad[] = { "abc", "-5", "", "4096x", "99999999" };
	enum ktap_result r = KTAP_PASS;
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = write_file(CONSUME, bad[i]);
		if (err != EINVAL) {
			ktap_diag("'%s': %s, expected EINVAL", bad[i], strerror(err));
			r = KTAP_FAIL;
		}
	}
	if (consume(consume_limit() + 1) != EINVAL) {
		ktap_diag("%ld bytes accepted, above the maximum", consume_limit() + 1);
		r = KTAP_FAIL;
	}
	err = consume(consume_limit());
	if (err) {
		ktap_diag("%ld bytes: %s", consume_limit(), strerror(err));
		r = KTAP_FAIL;
	}
	return r;
}

struct grower {
	pthread_t thread;
	int index, cpu;
	int errors;
};

static pthread_barrier_t grown;
static int release_pipe[2];

static void *grow(void *arg)
{
	struct grower *g = arg;
	unsigned int seed = test_seed_for(g->index);
	char c;
	int i;

	if (pin_to_cpu(g->cpu))
		g->errors++;
	for (i = 0; i < ROUNDS && !g->errors; i++) {
		if (consume(1024 + rand_r(&seed) % (consume_max() - 1024))) {
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

	ktap_diag("seed %u", test_seed());
	faults_before = faults_kib();
	if (faults_before < 0 || kstack_snapshot(&before) || pipe(release_pipe)) {
		ktap_diag("nr_dynamic_stacks_faults or nr_kernel_stack unreadable");
		return KTAP_FAIL;
	}
	pthread_barrier_init(&grown, NULL, NR_GROWERS + 1);
	for (i = 0; i < NR_GROWERS; i++) {
		growers[i].index = i;
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

	/*
	 * Back to what the tasks account for; a kernel thread that started
	 * meanwhile may hold a stack and pages it faulted in.
	 */
	for (i = 0; i < 100 && !settled; i++) {
		if (i)
			usleep(100000);
		faults_after = faults_kib();
		/* A kernel thread that exited took its faulted pages along. */
		settled = !kstack_snapshot(&after) &&
			  kstack_accounted(&before, &after, PAGE_KIB, thread_kib()) &&
			  faults_after - faults_before >=
				min_l(after.tasks - before.tasks, 0) * thread_kib() &&
			  faults_after - faults_before <=
				after.kib - before.kib -
				PAGE_KIB * (after.tasks - before.tasks);
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

/* What a thread does in test_no_stale_data(), and what it found. */
struct stale_step {
	long consume;		/* bytes to consume first, or 0 */
	int scan;		/* then scan its own stack */
	int err;
	long found;
	char base[STACK_BASE_LEN];	/* the (hashed) address of its stack */
};

static void *stale_thread(void *arg)
{
	struct stale_step *s = arg;

	if (s->consume)
		s->err = consume(s->consume) ?: stack_base(s->base) ? EIO : 0;
	if (s->scan)
		s->found = stack_scan(s->base);
	return NULL;
}

/*
 * Runs @s in a new thread and waits for it, and for its stack to reach
 * the CPU's cache (stacks are freed after an RCU grace period): 0, or -1
 * if no thread started.
 */
static int stale_run(struct stale_step *s)
{
	pthread_t t;

	s->err = 0;
	s->found = 0;
	s->base[0] = '\0';
	if (pthread_create(&t, NULL, stale_thread, s))
		return -1;
	pthread_join(t, NULL);
	usleep(20000);
	return 0;
}

struct stale_result {
	int errors;
	long control, after_deep, after_shallow;
	int reused_deep, reused_shallow;	/* rounds that reused a stack */
	int writers;
	char written[2 * STALE_ROUNDS + 1][STACK_BASE_LEN];
};

/* Notes that the pattern was written on the stack at @base. */
static void stale_wrote(struct stale_result *r, const char *base)
{
	int i;

	for (i = 0; i < r->writers; i++)
		if (!strcmp(r->written[i], base))
			return;
	if (r->writers < (int)(sizeof(r->written) / sizeof(r->written[0])))
		strcpy(r->written[r->writers++], base);
}

/* Whether a thread that wrote the pattern used the stack at @base before. */
static int stale_reused(const struct stale_result *r, const char *base)
{
	int i;

	for (i = 0; i < r->writers; i++)
		if (!strcmp(r->written[i], base))
			return 1;
	return 0;
}

/* The rounds of test_no_stale_data(), in a thread that runs on CPU 0 only. */
static void *stale_rounds(void *arg)
{
	struct stale_step deep = { .consume = consume_max() };
	struct stale_step shallow = { .consume = SHALLOW_DEPTH };
	struct stale_step control = { .consume = consume_max(), .scan = 1 };
	struct stale_step fresh = { .scan = 1 };
	struct stale_result *r = arg;
	int i;

	if (pin_to_cpu(0)) {
		r->errors++;
		return NULL;
	}
	/* The scan must see the pattern where it was left. */
	if (stale_run(&control) || control.err || control.found <= 0) {
		r->errors++;
		r->control = control.found;
		return NULL;
	}
	r->control = control.found;
	stale_wrote(r, control.base);
	for (i = 0; i < STALE_ROUNDS; i++) {
		if (stale_run(&deep))
			break;
		stale_wrote(r, deep.base);
		if (stale_run(&fresh))
			break;
		r->errors += deep.err != 0 || fresh.found < 0;
		r->after_deep += fresh.found > 0 ? fresh.found : 0;
		r->reused_deep += stale_reused(r, fresh.base);
		if (stale_run(&shallow))
			break;
		stale_wrote(r, shallow.base);
		if (stale_run(&fresh))
			break;
		r->errors += shallow.err != 0 || fresh.found < 0;
		r->after_shallow += fresh.found > 0 ? fresh.found : 0;
		r->reused_shallow += stale_reused(r, fresh.base);
	}
	r->errors += i < STALE_ROUNDS;
	return NULL;
}

/*
 * All on one CPU, so that what one thread leaves is what the next one
 * gets: a stack goes to the CPU's cache at exit and to the next new
 * thread, which clears the preallocated pages it keeps; the pages the
 * stack grew into go back to the page allocator, from which the fault
 * pool refills with zeroed pages. A fresh thread scans its whole stack,
 * which maps every page of it. The stacks' addresses show that fresh
 * threads did get stacks that threads which wrote the pattern had used:
 * a test in which no stack was reused would show nothing.
 */
enum ktap_result test_no_stale_data(void)
{
	static struct stale_result r;
	pthread_t t;

	memset(&r, 0, sizeof(r));
	if (pthread_create(&t, NULL, stale_rounds, &r)) {
		ktap_diag("pthread_create failed");
		return KTAP_FAIL;
	}
	pthread_join(t, NULL);
	ktap_diag("control: a thread that consumed %ld bytes found %ld pattern words",
		  consume_max(), r.control);
	ktap_diag("%d rounds: %ld stale words after a %ld-byte thread, %ld after a %d-byte one, %d errors",
		  STALE_ROUNDS, r.after_deep, consume_max(), r.after_shallow,
		  SHALLOW_DEPTH, r.errors);
	ktap_diag("fresh threads got a stack a pattern writer had used in %d of %d rounds after a deep thread, %d after a shallow one",
		  r.reused_deep, STALE_ROUNDS, r.reused_shallow);
	if (r.errors || r.control <= 0 || r.after_deep || r.after_shallow ||
	    !r.reused_deep || !r.reused_shallow)
		return KTAP_FAIL;
	return KTAP_PASS;
}
