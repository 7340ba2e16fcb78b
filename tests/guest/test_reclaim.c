// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim of the stack pages of sleeping threads (CONFIG_DYNAMIC_STACK_
 * RECLAIM), run by its shrinker through /proc/sys/vm/drop_caches:
 * - threads asleep after a 12 KiB excursion give back all but the page
 *   their stack pointer is in, and grow again, intact, when they wake;
 * - threads on both CPUs that sleep deep in their stacks, through
 *   /sys/kernel/debug/dynamic_stack/sleep, find every frame they wrote
 *   intact while reclaim runs on and on, and so do threads that only
 *   grow and shrink meanwhile;
 * - a thread that a batch trimmed, and that wakes, grows again on another
 *   CPU and comes back before the batch has flushed every CPU's TLB, finds
 *   on the first CPU what it wrote on the second, not the trimmed pages
 *   that CPU's TLB may still map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define NR_SLEEPERS	64
#define EXCURSION	(12 * 1024)
/* One page mapped and a little for rounding: the goal of the issue. */
#define RECLAIMED_KIB	4.1
#define NR_STRESS	8		/* threads per CPU */
#define FLUSH_HOLD	"30000"		/* ms at most, dynamic_stack/flush_delay_ms */
#define TLB_ROUNDS	3
#define PATTERN_SLACK	16		/* words an interrupt frame may hold */
#define STRESS_SECONDS	4

static pthread_barrier_t asleep;
static int wake_pipe[2];

struct sleeper {
	pthread_t thread;
	int err;
};

static void *sleeper(void *arg)
{
	struct sleeper *s = arg;
	char c;

	s->err = consume(EXCURSION);
	pthread_barrier_wait(&asleep);
	if (read(wake_pipe[0], &c, 1) != 1)
		s->err = s->err ? s->err : EPIPE;
	/* Deep again: the pages come back, and must hold what is written. */
	if (!s->err)
		s->err = consume(EXCURSION);
	return NULL;
}

enum ktap_result test_reclaim_sleeping(void)
{
	static struct sleeper s[NR_SLEEPERS];
	struct kstack_snapshot before, grown, reclaimed;
	double grown_kib = -1, reclaimed_kib = -1;
	int i, err, errors = 0, started = 0, agree = 0;

	if (kstack_snapshot(&before) || pipe(wake_pipe)) {
		ktap_diag("nr_kernel_stack unreadable");
		return KTAP_FAIL;
	}
	pthread_barrier_init(&asleep, NULL, NR_SLEEPERS + 1);
	for (i = 0; i < NR_SLEEPERS; i++) {
		if (pthread_create(&s[i].thread, NULL, sleeper, &s[i])) {
			ktap_diag("pthread_create failed");
			return KTAP_FAIL;	/* the barrier would never open */
		}
	}
	pthread_barrier_wait(&asleep);
	usleep(200000);
	if (!kstack_snapshot(&grown) && grown.tasks > before.tasks)
		grown_kib = (double)(grown.kib - before.kib) /
			    (grown.tasks - before.tasks);
	err = drop_slab();
	if (!err && !kstack_snapshot(&reclaimed) && reclaimed.tasks > before.tasks)
		reclaimed_kib = (double)(reclaimed.kib - before.kib) /
				(reclaimed.tasks - before.tasks);
	/* Held against what the page tables map, with the threads asleep. */
	agree = stack_pages_agree("after drop_caches");

	for (i = 0; i < NR_SLEEPERS; i++)
		started += write(wake_pipe[1], "x", 1) == 1;
	for (i = 0; i < NR_SLEEPERS; i++) {
		pthread_join(s[i].thread, NULL);
		if (s[i].err && errors++ < 5)
			ktap_diag("thread %d: %s", i, strerror(s[i].err));
	}
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	pthread_barrier_destroy(&asleep);

	ktap_diag("%d threads asleep after %d bytes: %.2f KiB each, %.2f after drop_caches (%s)",
		  NR_SLEEPERS, EXCURSION, grown_kib, reclaimed_kib,
		  err ? strerror(err) : "ok");
	ktap_metric("reclaimed_kib_per_thread", reclaimed_kib, "KiB");
	ktap_diag("%d woken, %d found their stack wrong when they grew again",
		  started, errors);
	if (err || errors || !agree || started != NR_SLEEPERS || grown_kib < 12 ||
	    reclaimed_kib < 0 || reclaimed_kib > RECLAIMED_KIB)
		return KTAP_FAIL;
	return KTAP_PASS;
}

static atomic_int stop;

struct stresser {
	pthread_t thread;
	int index, cpu, deep_sleeper;
	long rounds, errors;
	int first_err;
};

/* Writes @bytes to dynamic_stack/sleep: sleeps at that depth; 0 or errno. */
static int sleep_deep(long bytes)
{
	char s[24];

	snprintf(s, sizeof(s), "%ld", bytes);
	return write_file("/sys/kernel/debug/dynamic_stack/sleep", s);
}

static void *stress(void *arg)
{
	struct stresser *st = arg;
	unsigned int seed = test_seed_for(st->index);
	long depth;
	int err;

	err = pin_to_cpu(st->cpu);
	if (err) {
		st->errors++;
		st->first_err = err;
		return NULL;
	}
	while (!atomic_load(&stop)) {
		if (st->deep_sleeper) {
			depth = 1024 + rand_r(&seed) % (sleep_max() - 1024);
			err = sleep_deep(depth);
		} else {
			depth = 1024 + rand_r(&seed) % (consume_max() - 1024);
			err = consume(depth);
		}
		if (!err)
			err = usleep(rand_r(&seed) % 2000) ? errno : 0;
		if (err && !st->errors++)
			st->first_err = err;
		st->rounds++;
	}
	return NULL;
}

enum ktap_result test_reclaim_stress(void)
{
	static struct stresser st[2 * NR_STRESS];
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long rounds = 0, errors = 0, drops = 0, dropped = 0, before, after;
	int i, n = 0, err = 0;
	time_t end;

	if (ncpus > 2)
		ncpus = 2;
	ktap_diag("seed %u", test_seed());
	atomic_store(&stop, 0);
	for (i = 0; i < ncpus * NR_STRESS; i++, n++) {
		st[n].index = i;
		st[n].cpu = i % ncpus;
		st[n].deep_sleeper = i % 2;
		if (pthread_create(&st[n].thread, NULL, stress, &st[n]))
			break;
	}
	end = time(NULL) + STRESS_SECONDS;
	while (time(NULL) < end && !err) {
		before = vmstat_read("nr_dynamic_stacks_faults");
		err = drop_slab();
		after = vmstat_read("nr_dynamic_stacks_faults");
		drops++;
		dropped += after < before;
		usleep(5000);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		pthread_join(st[i].thread, NULL);
		rounds += st[i].rounds;
		errors += st[i].errors;
		if (st[i].errors)
			ktap_diag("thread %d (CPU %d, %s): %ld errors, first: %s", i,
				  st[i].cpu, st[i].deep_sleeper ? "sleeps deep" : "grows",
				  st[i].errors, strerror(st[i].first_err));
	}
	ktap_diag("%d threads on %d CPUs, %ld rounds; %ld drop_caches (%s), %ld of them freed stack pages",
		  n, ncpus, rounds, drops, err ? strerror(err) : "ok", dropped);
	if (n != ncpus * NR_STRESS || errors || err || !dropped)
		return KTAP_FAIL;
	return KTAP_PASS;
}

/*
 * The TLB window of a reclaim batch. A thread goes deep on CPU 1, so that
 * CPU 1's TLB maps its lower stack pages, and sleeps; a batch trims those
 * pages and, held by dynamic_stack/flush_delay_ms, does not flush them yet.
 * The thread is moved to CPU 0 while it sleeps, so that it wakes there
 * without passing through CPU 1, scans its stack, which maps new, zeroed
 * pages, and moves back to CPU 1 and scans again. QEMU's software TLB keeps
 * an entry until it is flushed: if nothing flushed CPU 1's entries for those
 * addresses when the thread came back, the second scan reads the trimmed
 * pages, full of the pattern of the first excursion. Anything else that
 * flushes CPU 1's TLB in the window hides it (on x86 QEMU flushes the whole
 * TLB for one INVLPG in the range of its large pages), so there are
 * TLB_ROUNDS rounds, and nothing else of the test runs on CPU 1.
 */
static struct {
	int pipe[2], go[2];
	pthread_barrier_t deep;
	long before, on_0, on_1, reclaim_ms;
	pid_t tid;
	int err, reclaim_err;
	atomic_int reclaimed;
} tlb;

static void *tlb_sleeper(void *arg)
{
	char base[STACK_BASE_LEN], c;
	int err;

	(void)arg;
	tlb.tid = gettid();
	err = pin_to_cpu(1) ?: consume(EXCURSION);
	tlb.before = stack_scan(base);
	pthread_barrier_wait(&tlb.deep);
	if (read(tlb.pipe[0], &c, 1) != 1)
		err = err ?: EPIPE;
	if (sched_getcpu() != 0)
		err = err ?: EXDEV;
	tlb.on_0 = stack_scan(base);
	err = err ?: pin_to_cpu(1);
	tlb.on_1 = stack_scan(base);
	tlb.err = err;
	return NULL;
}

static void *tlb_reclaim(void *arg)
{
	struct timespec a, b;
	char c;

	(void)arg;
	tlb.reclaim_err = pin_to_cpu(0) ?:
			  (read(tlb.go[0], &c, 1) == 1 ? 0 : EPIPE);
	/*
	 * The shrinker counts what it may free from the global vmstat
	 * counter, which lags the CPUs' own by up to their thresholds: with
	 * everything else trimmed, the sleeper's pages count once folded.
	 */
	clock_gettime(CLOCK_MONOTONIC, &a);
	tlb.reclaim_err = tlb.reclaim_err ?:
			  write_file("/proc/sys/vm/stat_refresh", "1") ?: drop_slab();
	clock_gettime(CLOCK_MONOTONIC, &b);
	tlb.reclaim_ms = (b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000;
	atomic_store(&tlb.reclaimed, 1);
	return NULL;
}

static void *tlb_window(void *arg)
{
	const char *delay = "/sys/kernel/debug/dynamic_stack/flush_delay_ms";
	pthread_t sleeper, reclaim;
	long present, now = -1;
	cpu_set_t cpu0;
	int i, err;

	(void)arg;
	/*
	 * Everything else trimmed: the next batch trims the sleeper first.
	 * The threads are created before it goes deep: a thread that gets a
	 * grown stack from the cache flushes the TLB of every CPU.
	 */
	err = pin_to_cpu(0) ?: drop_slab() ?:
	      (pipe(tlb.pipe) || pipe(tlb.go) ? errno : 0);
	if (err)
		return (void *)(long)err;
	pthread_barrier_init(&tlb.deep, NULL, 2);
	if (pthread_create(&reclaim, NULL, tlb_reclaim, NULL))
		return (void *)(long)EAGAIN;
	if (pthread_create(&sleeper, NULL, tlb_sleeper, NULL)) {
		close(tlb.go[1]);
		pthread_join(reclaim, NULL);
		return (void *)(long)EAGAIN;
	}
	pthread_barrier_wait(&tlb.deep);
	usleep(100000);		/* asleep in read() */
	present = stack_present();
	err = write_file(delay, FLUSH_HOLD);
	if (!err && write(tlb.go[1], "x", 1) != 1)
		err = EPIPE;
	/*
	 * The batch has trimmed the sleeper when the page tables lost its
	 * pages (at least 3 after a 12 KiB excursion: the rest was trimmed
	 * before), and holds its window open until flush_delay_ms is 0
	 * again. The sleeper is woken at once. 10 s at most.
	 */
	for (i = 0, now = present; !err && now > present - 3 && i < 2000 &&
	     !atomic_load(&tlb.reclaimed); i++, now = stack_present())
		usleep(5000);
	/* It wakes on CPU 0: CPU 1 does not see it until it comes back. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(tlb.tid, sizeof(cpu0), &cpu0))
		err = err ?: errno;
	if (write(tlb.pipe[1], "x", 1) != 1)
		err = err ?: EPIPE;
	pthread_join(sleeper, NULL);
	/* Still in the window? The batch holds it for FLUSH_HOLD ms at most. */
	if (!err && atomic_load(&tlb.reclaimed)) {
		ktap_diag("the batch flushed before the thread came back");
		err = ETIME;
	}
	/* The window closes: the batch flushes and frees the pages. */
	write_file(delay, "0");
	close(tlb.go[1]);
	pthread_join(reclaim, NULL);
	err = err ?: tlb.reclaim_err;
	ktap_diag("stack pages mapped: %ld, then %ld in the window; the reclaim took %ld ms",
		  present, now, tlb.reclaim_ms);
	close(tlb.pipe[0]);
	close(tlb.pipe[1]);
	close(tlb.go[0]);
	pthread_barrier_destroy(&tlb.deep);
	return (void *)(long)err;
}

static int tlb_round(void)
{
	pthread_t t;
	void *ret;
	int err;

	memset(&tlb, 0, sizeof(tlb));
	if (pthread_create(&t, NULL, tlb_window, NULL))
		return EAGAIN;
	pthread_join(t, &ret);
	err = (int)(long)ret ?: tlb.err;
	if (!err && (tlb.before < 0 || tlb.on_0 < 0 || tlb.on_1 < 0))
		err = EIO;
	/* The trim took the deep pages: less of the pattern is left. */
	if (!err && tlb.on_0 > tlb.before - EXCURSION / 2 / 8) {
		ktap_diag("the batch did not trim the sleeping thread");
		err = ESRCH;
	}
	return err;
}

enum ktap_result test_reclaim_tlb_window(void)
{
	int i, err = 0, stale = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ktap_diag("needs 2 CPUs");
		return KTAP_FAIL;
	}
	for (i = 0; i < TLB_ROUNDS && !err; i++) {
		err = tlb_round();
		ktap_diag("pattern words on the stack: %ld deep on CPU 1, %ld after the trim on CPU 0, %ld back on CPU 1 (%s)",
			  tlb.before, tlb.on_0, tlb.on_1, err ? strerror(err) : "ok");
		stale += !err && tlb.on_1 > tlb.on_0 + PATTERN_SLACK;
	}
	if (stale)
		ktap_diag("%d of %d rounds: CPU 1 read the trimmed pages through a stale TLB entry",
			  stale, i);
	return err || stale ? KTAP_FAIL : KTAP_PASS;
}
