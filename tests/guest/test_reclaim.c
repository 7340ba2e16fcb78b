// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim of the stack pages of sleeping threads (CONFIG_DYNAMIC_STACK_
 * RECLAIM), run by its shrinker through /proc/sys/vm/drop_caches:
 * - threads asleep after a 12 KiB excursion give back all but the page
 *   their stack pointer is in, and grow again, intact, when they wake;
 * - threads on both CPUs that sleep deep in their stacks, through
 *   /sys/kernel/debug/dynamic_stack/sleep, find every frame they wrote
 *   intact while reclaim runs on and on, and so do threads that only
 *   grow and shrink meanwhile; those that rest in between are trimmed;
 * - a thread that a batch trimmed and that grows again before the batch
 *   has flushed every CPU's TLB gets the same pages back, and reads what
 *   another CPU writes to its stack through an entry that CPU's TLB may
 *   still hold;
 * - a read of a sleeping thread's stack by another (stack_not_used())
 *   keeps reclaim off that stack until the read is over;
 * - a thread that ran since reclaim last came by keeps its pages once.
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
#define STRESS_SECONDS	4
#define RECLAIM_TRIES	3

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

/*
 * The figures per thread are what nr_kernel_stack grew by over the tasks
 * that were added: they hold only if the tasks that were added are the
 * sleepers, and no other task came or went. A kworker that exits with
 * grown pages while another starts leaves the task count as it was and
 * moves nr_kernel_stack by up to THREAD_SIZE (once, 8 KiB: 11.88 KiB a
 * thread instead of 12.00, on arm64/dynamic). *@churn says if one did.
 */
static enum ktap_result reclaim_sleeping(int *churn)
{
	static long ids_before[TASK_IDS_MAX], ids_after[TASK_IDS_MAX];
	static struct sleeper s[NR_SLEEPERS];
	struct kstack_snapshot before, grown, reclaimed;
	double grown_kib = -1, reclaimed_kib = -1;
	int i, err, errors = 0, started = 0, agree = 0;
	long nr_before, nr_after = -1, gone = 0, new = 0;

	memset(s, 0, sizeof(s));
	*churn = 0;
	nr_before = min_l(task_ids(ids_before, TASK_IDS_MAX), TASK_IDS_MAX);
	if (nr_before < 0 || kstack_snapshot(&before) || pipe(wake_pipe)) {
		ktap_diag("nr_kernel_stack or the task ids unreadable");
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
	nr_after = min_l(task_ids(ids_after, TASK_IDS_MAX), TASK_IDS_MAX);
	if (nr_after >= 0) {
		gone = ids_missing(ids_before, nr_before, ids_after, nr_after);
		new = ids_missing(ids_after, nr_after, ids_before, nr_before);
	}
	*churn = nr_after < 0 || gone || new != NR_SLEEPERS;
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
	ktap_diag("%d woken, %d found their stack wrong when they grew again",
		  started, errors);
	if (err || errors || !agree || started != NR_SLEEPERS) {
		*churn = 0;	/* not a figure: measuring again would not help */
		return KTAP_FAIL;
	}
	if (*churn) {
		ktap_diag("meanwhile %ld other tasks exited and %ld started: the figures per thread do not hold",
			  gone, new - NR_SLEEPERS);
		return KTAP_FAIL;
	}
	ktap_metric("reclaimed_kib_per_thread", reclaimed_kib, "KiB");
	if (grown_kib < 12 || reclaimed_kib < 0 || reclaimed_kib > RECLAIMED_KIB)
		return KTAP_FAIL;
	return KTAP_PASS;
}

enum ktap_result test_reclaim_sleeping(void)
{
	enum ktap_result r = KTAP_FAIL;
	int i, churn = 1;

	/* Measured again, a few times at most, while other tasks come and go. */
	for (i = 0; i < RECLAIM_TRIES && churn; i++)
		r = reclaim_sleeping(&churn);
	return r;
}

#define READER_PATH	"/sys/kernel/debug/dynamic_stack/not_used"
#define RECLAIM_PATH	"/sys/kernel/debug/dynamic_stack/reclaim"

/* What a read through dynamic_stack/not_used found */
struct stack_read {
	long not_used, before, after;
};

static int stack_read(pid_t tid, int ms, struct stack_read *sr)
{
	char s[32];
	FILE *f;
	int err;

	snprintf(s, sizeof(s), "%d %d", (int)tid, ms);
	err = write_file(READER_PATH, s);
	if (err)
		return err;
	f = fopen(READER_PATH, "r");
	if (!f || fscanf(f, "not_used %ld mapped %ld %ld", &sr->not_used,
			 &sr->before, &sr->after) != 3)
		err = EIO;
	if (f)
		fclose(f);
	return err;
}

/* One batch; *@freed: the pages it freed. 0 or an errno. */
static int reclaim_batch(long *freed)
{
	FILE *f;
	int err;

	err = write_file(RECLAIM_PATH, "1000000");
	if (err)
		return err;
	f = fopen(RECLAIM_PATH, "r");
	if (!f || fscanf(f, "%ld", freed) != 1)
		err = EIO;
	if (f)
		fclose(f);
	return err;
}

/* The state letter of thread @tid (/proc/self/task/TID/stat), or 0. */
static char thread_state(pid_t tid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (f && fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	if (f)
		fclose(f);
	return state;
}

/*
 * Waits, 10 s at most, until thread *@tid (0 until it has set it) is in
 * @state and still is 100 ms later; ETIME at once if @done is set.
 */
static int thread_stays(atomic_int *tid, char state, atomic_int *done)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (done && atomic_load(done))
			return ETIME;
		if (atomic_load(tid) && thread_state(atomic_load(tid)) == state) {
			usleep(100000);
			if (thread_state(atomic_load(tid)) == state)
				return 0;
		}
		usleep(10000);
	}
	return ETIMEDOUT;
}

/*
 * Reclaim under stress: NR_STRESS threads per CPU grow and shrink their
 * stacks to random depths (half of them sleep at the deepest frame,
 * through dynamic_stack/sleep) and sleep up to 2 ms between rounds, for
 * STRESS_SECONDS, while the test runs drop_caches and a reclaim batch
 * (dynamic_stack/reclaim) again and again: every frame they wrote must
 * read back intact. Reclaim passes over, once, a thread that ran since it
 * last came by, and these threads run more often than reclaim comes by on
 * a slow kernel (arm64/debug: 0 of 46 drop_caches took a page of theirs).
 * So every REST_EVERY rounds a thread goes EXCURSION deep and rests,
 * asleep on a pipe, until the page tables map one page of its stack (read
 * through dynamic_stack/not_used) or REST_ROUNDS rounds of reclaim went
 * by; then the test wakes it, and it grows again amid the stress. Every
 * rest must end with one page, and at least one must end.
 */
#define REST_EVERY	64
#define REST_ROUNDS	20

static atomic_int stop;

struct stresser {
	pthread_t thread;
	pid_t tid;
	int index, cpu, deep_sleeper, pipe[2], waited;
	atomic_int resting;
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

/* Goes EXCURSION deep, then sleeps until the test wakes it. */
static int rest(struct stresser *st)
{
	int err = consume(EXCURSION);
	char c;

	if (err)
		return err;
	atomic_store(&st->resting, 1);
	if (read(st->pipe[0], &c, 1) != 1 && !atomic_load(&stop))
		return EPIPE;
	return 0;
}

static void *stress(void *arg)
{
	struct stresser *st = arg;
	unsigned int seed = test_seed_for(st->index);
	long depth;
	int err;

	st->tid = gettid();
	err = pin_to_cpu(st->cpu);
	if (err) {
		st->errors++;
		st->first_err = err;
		return NULL;
	}
	while (!atomic_load(&stop)) {
		if (st->rounds % REST_EVERY == REST_EVERY - 1) {
			err = rest(st);
		} else if (st->deep_sleeper) {
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

/*
 * After a round of reclaim: if @st rests, and its stack is down to one
 * page or has waited REST_ROUNDS rounds, wakes it and counts the rest in
 * *@trimmed or *@untrimmed.
 */
static void rest_check(struct stresser *st, long *trimmed, long *untrimmed)
{
	struct stack_read sr = { -1, -1, -1 };
	int err;

	if (!atomic_load(&st->resting))
		return;
	err = stack_read(st->tid, 0, &sr);
	if (!err && sr.before != 1 && ++st->waited < REST_ROUNDS)
		return;
	if (err || sr.before != 1) {
		if (!(*untrimmed)++)
			ktap_diag("thread %d: %ld stack pages mapped after %d rounds of reclaim (%s)",
				  st->index, sr.before, st->waited, strerror(err));
	} else {
		++*trimmed;
	}
	st->waited = 0;
	atomic_store(&st->resting, 0);
	if (write(st->pipe[1], "x", 1) != 1)
		++*untrimmed;
}

enum ktap_result test_reclaim_stress(void)
{
	static struct stresser st[2 * NR_STRESS];
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long rounds = 0, errors = 0, reclaims = 0, trimmed = 0, untrimmed = 0;
	long freed;
	int i, n = 0, err = 0;
	time_t end;

	if (ncpus > 2)
		ncpus = 2;
	ktap_diag("seed %u", test_seed());
	atomic_store(&stop, 0);
	memset(st, 0, sizeof(st));
	for (i = 0; i < ncpus * NR_STRESS; i++, n++) {
		st[n].index = i;
		st[n].cpu = i % ncpus;
		st[n].deep_sleeper = i % 2;
		if (pipe(st[n].pipe))
			break;
		if (pthread_create(&st[n].thread, NULL, stress, &st[n])) {
			close(st[n].pipe[0]);
			close(st[n].pipe[1]);
			break;
		}
	}
	end = time(NULL) + STRESS_SECONDS;
	while (time(NULL) < end && !err) {
		err = drop_slab() ?: reclaim_batch(&freed);
		reclaims++;
		for (i = 0; i < n; i++)
			rest_check(&st[i], &trimmed, &untrimmed);
		usleep(5000);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		close(st[i].pipe[1]);	/* EOF wakes a thread that rests */
	for (i = 0; i < n; i++) {
		pthread_join(st[i].thread, NULL);
		close(st[i].pipe[0]);
		rounds += st[i].rounds;
		errors += st[i].errors;
		if (st[i].errors)
			ktap_diag("thread %d (CPU %d, %s): %ld errors, first: %s", i,
				  st[i].cpu, st[i].deep_sleeper ? "sleeps deep" : "grows",
				  st[i].errors, strerror(st[i].first_err));
	}
	ktap_diag("%d threads on %d CPUs, %ld rounds; %ld rounds of reclaim (%s)",
		  n, ncpus, rounds, reclaims, err ? strerror(err) : "ok");
	ktap_diag("%ld rests ended with one stack page mapped, %ld did not",
		  trimmed, untrimmed);
	if (n != ncpus * NR_STRESS || errors || err || untrimmed || !trimmed)
		return KTAP_FAIL;
	return KTAP_PASS;
}

/*
 * The TLB window of a reclaim batch: a thread parks an object PARK_DEPTH
 * deep on its stack (dynamic_stack/park) and another, on the other CPU,
 * writes a value into it (dynamic_stack/poke), as a waker writes a
 * wait-queue entry. The first thread returns and sleeps; a batch trims the
 * object's page and, held by dynamic_stack/flush_delay_ms, does not flush
 * it. The thread wakes, parks at the same address again, which maps that
 * page again, and the other thread pokes again. Two kinds of rounds:
 * - remote: the parker is on CPU 0, the poker on CPU 1, whose TLB may
 *   still map the page, and the second poke comes inside the window. The
 *   page must be the one it had before the trim (dynamic_stack/park tells);
 *   a new page is the defect even in a round where something flushed CPU
 *   1's TLB (on x86 QEMU flushes the whole TLB for one INVLPG in the range
 *   of its large pages). The thread must read what CPU 1 wrote: through a
 *   stale entry to another page, the write is lost (-EIO from park).
 * - self: the parker is on CPU 1, and parks again on CPU 1, whose TLB may
 *   still map the page; the window closes while it is parked, and only
 *   then the poker, on CPU 0, pokes. Had the thread written its frames
 *   through a stale entry, without the fault that maps the page again, the
 *   batch's second pass would free the page under them.
 * In both, once the window has closed and the thread is asleep again,
 * nr_kernel_stack must be what the page tables map, and the thread grows
 * again intact. Nothing else of the test runs on the parker's CPU in the
 * window; TLB_ROUNDS rounds of each kind.
 */
#define PARK_DEPTH	"10240"
#define PARK_PATH	"/sys/kernel/debug/dynamic_stack/park"
#define POKE_PATH	"/sys/kernel/debug/dynamic_stack/poke"

static struct {
	int self, pipe[2], go[2], poke_go[2];
	pthread_barrier_t parked;
	int park_err[2], poke_err[2], park_page, grow_err;
	long reclaim_ms;
	int reclaim_err;
	atomic_int reclaimed;
} tlb;

/* What dynamic_stack/park says: 0 or 1 each, or -1 if it cannot tell. */
struct park_state {
	int parked, addr, page, mapped;
};

static void park_state(struct park_state *ps)
{
	FILE *f = fopen(PARK_PATH, "r");

	if (!f || fscanf(f, "parked %d address %d page %d mapped %d",
			 &ps->parked, &ps->addr, &ps->page, &ps->mapped) != 4)
		ps->parked = ps->addr = ps->page = ps->mapped = -1;
	if (f)
		fclose(f);
}

/* Writes @s to @path until it does not fail with ENOENT: 10 s at most. */
static int poke(const char *s)
{
	int i, err = ENOENT;

	for (i = 0; i < 10000 && err == ENOENT; i++) {
		err = write_file(POKE_PATH, s);
		if (err == ENOENT)
			usleep(1000);
	}
	return err;
}

static void *tlb_poker(void *arg)
{
	char c;

	(void)arg;
	tlb.poke_err[0] = pin_to_cpu(!tlb.self) ?: poke("1");
	if (read(tlb.poke_go[0], &c, 1) != 1)
		tlb.poke_err[1] = EPIPE;
	tlb.poke_err[1] = tlb.poke_err[1] ?: poke("2");
	return NULL;
}

static void *tlb_parker(void *arg)
{
	struct park_state ps;
	int err;
	char c;

	(void)arg;
	err = pin_to_cpu(tlb.self);
	tlb.park_err[0] = err ?: write_file(PARK_PATH, PARK_DEPTH);
	pthread_barrier_wait(&tlb.parked);
	if (read(tlb.pipe[0], &c, 1) != 1)
		err = EPIPE;
	tlb.park_err[1] = err ?: write_file(PARK_PATH, PARK_DEPTH);
	/* Only an object at the same address tells about the page. */
	park_state(&ps);
	tlb.park_page = ps.addr == 1 ? ps.page : -1;
	if (ps.addr != 1)
		ktap_diag("park: the second object is not where the first was");
	/* Asleep while the batch ends, then deep again: intact frames. */
	pthread_barrier_wait(&tlb.parked);
	if (read(tlb.pipe[0], &c, 1) != 1)
		err = EPIPE;
	tlb.grow_err = err ?: consume(EXCURSION);
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
	 * everything else trimmed, the parker's pages count once folded.
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

/* Polls dynamic_stack/park until @done says so: 0, or ETIMEDOUT after @s s. */
static int park_wait(int (*done)(const struct park_state *), int s)
{
	struct park_state ps;
	int i;

	for (i = 0; i < s * 200 && !atomic_load(&tlb.reclaimed); i++) {
		park_state(&ps);
		if (done(&ps))
			return 0;
		usleep(5000);
	}
	return ETIMEDOUT;
}

static int unmapped(const struct park_state *ps) { return ps->mapped == 0; }
static int parked(const struct park_state *ps) { return ps->parked == 1; }

/* The window closes: the batch flushes, and its second pass runs. */
static int tlb_close(const char *delay)
{
	/* Still in the window? The batch holds it for FLUSH_HOLD ms at most. */
	int err = atomic_load(&tlb.reclaimed) ? ETIME : 0;

	if (err)
		ktap_diag("the batch flushed before the test closed its window");
	write_file(delay, "0");
	close(tlb.go[1]);
	return err;
}

static void *tlb_window(void *arg)
{
	const char *delay = "/sys/kernel/debug/dynamic_stack/flush_delay_ms";
	pthread_t parker, poker, reclaim;
	int i, err, closed = 0;

	(void)arg;
	/*
	 * Everything else trimmed: the next batch trims the parker first.
	 * The threads are created before any of it: a thread that gets a
	 * grown stack from the cache flushes the TLB of every CPU.
	 */
	err = pin_to_cpu(0) ?: drop_slab() ?:
	      (pipe(tlb.pipe) || pipe(tlb.go) || pipe(tlb.poke_go) ? errno : 0);
	if (err)
		return (void *)(long)err;
	pthread_barrier_init(&tlb.parked, NULL, 2);
	if (pthread_create(&reclaim, NULL, tlb_reclaim, NULL))
		return (void *)(long)EAGAIN;
	if (pthread_create(&poker, NULL, tlb_poker, NULL)) {
		close(tlb.go[1]);
		pthread_join(reclaim, NULL);
		return (void *)(long)EAGAIN;
	}
	if (pthread_create(&parker, NULL, tlb_parker, NULL)) {
		close(tlb.go[1]);
		close(tlb.poke_go[1]);
		pthread_join(reclaim, NULL);
		pthread_join(poker, NULL);
		return (void *)(long)EAGAIN;
	}
	pthread_barrier_wait(&tlb.parked);
	usleep(100000);		/* asleep in read() */
	err = write_file(delay, FLUSH_HOLD);
	if (!err && write(tlb.go[1], "x", 1) != 1)
		err = EPIPE;
	/*
	 * The batch has trimmed the parker when the page of its object is
	 * no longer mapped, and holds its window open until flush_delay_ms
	 * is 0 again. A batch that missed the parker holds its window too,
	 * FLUSH_HOLD ms at most, and the next one trims it: 60 s at most.
	 */
	if (!err && park_wait(unmapped, 60)) {
		ktap_diag("the batch did not trim the parked thread");
		err = ESRCH;
	}
	if (write(tlb.pipe[1], "x", 1) != 1)
		err = err ?: EPIPE;
	if (tlb.self) {
		/* Parked again on CPU 1: the second pass runs meanwhile. */
		if (!err && park_wait(parked, 10))
			err = ETIMEDOUT;
		err = tlb_close(delay) ?: err;
		closed = 1;
		pthread_join(reclaim, NULL);
	}
	if (write(tlb.poke_go[1], "x", 1) != 1)
		err = err ?: EPIPE;
	pthread_barrier_wait(&tlb.parked);
	pthread_join(poker, NULL);
	if (!closed) {
		err = tlb_close(delay) ?: err;
		pthread_join(reclaim, NULL);
	}
	err = err ?: tlb.reclaim_err;
	ktap_diag("the reclaim took %ld ms", tlb.reclaim_ms);
	/* The parker asleep: what is accounted is what is mapped. */
	if (!stack_pages_agree("after the batch, the parker asleep"))
		err = err ?: EBADE;
	if (write(tlb.pipe[1], "x", 1) != 1)
		err = err ?: EPIPE;
	pthread_join(parker, NULL);
	err = err ?: tlb.grow_err;
	for (i = 0; i < 2; i++) {
		close(tlb.pipe[i]);
		close(tlb.go[i]);
		close(tlb.poke_go[i]);
	}
	pthread_barrier_destroy(&tlb.parked);
	return (void *)(long)err;
}

enum ktap_result test_reclaim_tlb_window(void)
{
	int i, err = 0, failed = 0;
	pthread_t t;
	void *ret;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ktap_diag("needs 2 CPUs");
		return KTAP_FAIL;
	}
	for (i = 0; i < 2 * TLB_ROUNDS && !err; i++) {
		memset(&tlb, 0, sizeof(tlb));
		tlb.self = i & 1;
		if (pthread_create(&t, NULL, tlb_window, NULL))
			return KTAP_FAIL;
		pthread_join(t, &ret);
		err = (int)(long)ret;
		ktap_diag("round %d (%s): park %s, poke %s; park %s, poke %s; same page: %s; %s",
			  i + 1, tlb.self ? "self" : "remote",
			  strerror(tlb.park_err[0]), strerror(tlb.poke_err[0]),
			  strerror(tlb.park_err[1]), strerror(tlb.poke_err[1]),
			  tlb.park_page == 1 ? "yes" : tlb.park_page ? "unknown" : "no",
			  strerror(err));
		if (!err && tlb.park_err[1] == EIO)
			ktap_diag("round %d: the poke went to another page than the thread's, through a stale TLB entry",
				  i + 1);
		err = err ?: tlb.park_err[0] ?: tlb.poke_err[0] ?:
		      tlb.park_err[1] ?: tlb.poke_err[1];
		failed += err || tlb.park_page != 1;
	}
	return failed ? KTAP_FAIL : KTAP_PASS;
}

/*
 * A reader of another thread's stack (stack_not_used(), as sched_show_task()
 * and the hung-task report call it; kmemleak reads the same way) finds the
 * floor of what is mapped, then reads up to the top. dynamic_stack/not_used
 * holds such a read open for READER_HOLD_MS after the floor is found, on a
 * thread asleep after a deep excursion, and reclaim runs meanwhile, once
 * the reader sleeps in that hold: it must leave that stack alone (a trim
 * would unmap pages the reader is about to read, an oops), and trim it
 * once the read is over.
 */
#define READER_HOLD_MS	5000

static struct {
	pid_t tid;
	atomic_int reader_tid;
	int pipe[2], target_err, read_err;
	pthread_barrier_t grown;
	struct stack_read held;
	atomic_int read_done;
} rd;

static void *reader_target(void *arg)
{
	char c;

	(void)arg;
	rd.tid = gettid();
	rd.target_err = consume(EXCURSION);
	pthread_barrier_wait(&rd.grown);
	if (read(rd.pipe[0], &c, 1) != 1)
		rd.target_err = rd.target_err ?: EPIPE;
	rd.target_err = rd.target_err ?: consume(EXCURSION);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	atomic_store(&rd.reader_tid, gettid());
	rd.read_err = stack_read(rd.tid, READER_HOLD_MS, &rd.held);
	atomic_store(&rd.read_done, 1);
	return NULL;
}

enum ktap_result test_reclaim_stack_reader(void)
{
	const char *refresh = "/proc/sys/vm/stat_refresh";
	struct stack_read later = { -1, -1, -1 };
	int err, in_time, woken;
	pthread_t target, r;

	memset(&rd, 0, sizeof(rd));
	rd.held.before = rd.held.after = -1;
	if (pipe(rd.pipe))
		return KTAP_FAIL;
	pthread_barrier_init(&rd.grown, NULL, 2);
	if (pthread_create(&target, NULL, reader_target, NULL))
		return KTAP_FAIL;
	pthread_barrier_wait(&rd.grown);
	usleep(100000);		/* asleep in read() */
	err = pthread_create(&r, NULL, reader, NULL) ? EAGAIN : 0;
	if (!err) {
		/* The reader sleeps in its hold: msleep(), D. */
		err = thread_stays(&rd.reader_tid, 'D', &rd.read_done);
		if (err)
			ktap_diag("the reader did not hold its read: %s",
				  strerror(err));
		err = err ?: write_file(refresh, "1") ?: drop_slab();
		in_time = !atomic_load(&rd.read_done);
		pthread_join(r, NULL);
		if (!in_time) {
			ktap_diag("the read ended before reclaim did");
			err = err ?: ETIME;
		}
		/* The read is over: now reclaim trims the stack. */
		err = err ?: rd.read_err ?: write_file(refresh, "1") ?:
		      drop_slab() ?: stack_read(rd.tid, 0, &later);
	}
	woken = write(rd.pipe[1], "x", 1) == 1;
	close(rd.pipe[1]);	/* EOF wakes the target if the write failed */
	pthread_join(target, NULL);
	close(rd.pipe[0]);
	pthread_barrier_destroy(&rd.grown);

	ktap_diag("held read: not_used %ld; %ld pages mapped before, %ld after reclaim ran (%s)",
		  rd.held.not_used, rd.held.before, rd.held.after,
		  strerror(rd.read_err));
	ktap_diag("after the read, reclaim left %ld pages; woken: %s, grew again: %s; %s",
		  later.before, woken ? "yes" : "no", strerror(rd.target_err),
		  strerror(err));
	if (err || !woken || rd.target_err || rd.held.before < 3 ||
	    rd.held.after != rd.held.before || later.before < 0 ||
	    later.before >= rd.held.before)
		return KTAP_FAIL;
	return KTAP_PASS;
}

/*
 * Aging: a thread that ran since reclaim last came by is passed over once.
 * A thread goes EXCURSION deep and sleeps; one batch (dynamic_stack/
 * reclaim) must leave every page it mapped; batches until two in a row
 * free nothing must leave it one page; woken, it goes deep again and
 * sleeps, and one batch must leave its pages again. Batches until two in a
 * row free nothing run first, so that the first batch that meets the
 * thread is not filled up before it by what other tasks grew into.
 */
#define SETTLE_BATCHES	1000

static struct {
	atomic_int tid;
	int pipe[2], err;
	pthread_barrier_t grown;
} sc;

static void *second_chance_target(void *arg)
{
	char c;
	int round;

	(void)arg;
	atomic_store(&sc.tid, gettid());
	for (round = 0; round < 2; round++) {
		sc.err = sc.err ?: consume(EXCURSION);
		pthread_barrier_wait(&sc.grown);
		if (read(sc.pipe[0], &c, 1) != 1)
			sc.err = sc.err ?: EPIPE;
	}
	return NULL;
}

/*
 * Batches until two in a row free nothing (a batch that frees nothing may
 * still have passed tasks over); *@batches: how many ran.
 */
static int reclaim_settle(int *batches)
{
	int err = 0, idle = 0;
	long freed;

	for (*batches = 0; !err && idle < 2 && *batches < SETTLE_BATCHES; ++*batches) {
		err = reclaim_batch(&freed);
		idle = freed ? 0 : idle + 1;
	}
	return err ?: idle < 2 ? ETIMEDOUT : 0;
}

/* The pages of the target's stack that are mapped now, or -1 */
static long target_mapped(int *err)
{
	struct stack_read sr = { -1, -1, -1 };

	*err = *err ?: stack_read(sc.tid, 0, &sr);
	return *err ? -1 : sr.before;
}

enum ktap_result test_reclaim_second_chance(void)
{
	long grown, first = -1, settled = -1, regrown = -1, again = -1, freed;
	int err, batches = 0, woken = 0;
	pthread_t target;

	memset(&sc, 0, sizeof(sc));
	if (pipe(sc.pipe))
		return KTAP_FAIL;
	pthread_barrier_init(&sc.grown, NULL, 2);
	err = reclaim_settle(&batches);
	if (err || pthread_create(&target, NULL, second_chance_target, NULL)) {
		ktap_diag("settling reclaim, or the thread, failed: %s",
			  strerror(err ?: EAGAIN));
		return KTAP_FAIL;
	}
	pthread_barrier_wait(&sc.grown);
	err = thread_stays(&sc.tid, 'S', NULL);
	grown = target_mapped(&err);
	err = err ?: reclaim_batch(&freed);
	first = target_mapped(&err);
	err = err ?: reclaim_settle(&batches);
	settled = target_mapped(&err);
	if (write(sc.pipe[1], "x", 1) == 1)
		woken++;
	else
		close(sc.pipe[1]);	/* EOF wakes it, and it fails */
	pthread_barrier_wait(&sc.grown);
	err = err ?: thread_stays(&sc.tid, 'S', NULL);
	regrown = target_mapped(&err);
	err = err ?: reclaim_batch(&freed);
	again = target_mapped(&err);
	woken += woken && write(sc.pipe[1], "x", 1) == 1;
	close(sc.pipe[1]);	/* EOF wakes the target if a write failed */
	pthread_join(target, NULL);
	close(sc.pipe[0]);
	pthread_barrier_destroy(&sc.grown);

	ktap_diag("pages mapped: %ld after %d bytes, %ld after one batch, %ld after %d batches (the last two freed nothing)",
		  grown, EXCURSION, first, settled, batches);
	ktap_diag("deep again: %ld, %ld after one batch; woken %d of 2; thread: %s; %s",
		  regrown, again, woken, strerror(sc.err), strerror(err));
	if (err || sc.err || woken != 2 || grown < 3 || regrown < 3)
		return KTAP_FAIL;
	if (first != grown || again != regrown) {
		ktap_diag("a batch trimmed a thread that had run since the last one");
		return KTAP_FAIL;
	}
	if (settled != 1) {
		ktap_diag("batches left a thread that slept through them more than a page");
		return KTAP_FAIL;
	}
	return KTAP_PASS;
}

/*
 * Reclaim's cost with many sleepers: NR_MANY threads go EXCURSION deep and
 * sleep, then drop_caches runs MANY_DROPS times, the first of them twice
 * (reclaim passes over, once, a task that ran since it last came by, and
 * one drop_caches may come by only once). A call of the shrinker
 * trims a batch (at most nr_to_scan pages, of at most 16 tasks) and walks
 * the threads from where the last call stopped until the batch is full, in
 * one RCU read-side section under its mutex: the first drop_caches makes a
 * call per batch until every sleeper is trimmed (before the walk resumed
 * where it stopped, each call walked past those trimmed before, and the
 * cost grew with the square of the threads); the others find nothing to
 * trim and walk every thread once. Every run must
 * return within MANY_DROP_MS, half the RCU stall timeout (21 s): that
 * bounds a stall, not a slowdown of a few times (an RCU stall and a soft
 * lockup are console complaints as well). The first must leave each
 * sleeper at most MANY_RECLAIMED_KIB: a page and 200 KiB over all of
 * them. While the shrinker reported nr_to_scan as scanned for a batch
 * that ended at 16 tasks, drop_slab() gave up with about 100 pages left:
 * 4.04 KiB a sleeper in six of the seven dynamic cells (x86_64/fred had
 * 4.00); since it reports what the batch freed, 4.00 in all seven.
 *
 * The figure per thread is what nr_kernel_stack grew by over the tasks
 * that were added: each kernel thread that came or went meanwhile moves it
 * by up to THREAD_SIZE / NR_MANY, hence 11.9 KiB for the 12 KiB excursion.
 */
#define NR_MANY		10000
#define MANY_DROPS	10
#define MANY_DROP_MS	10000
#define MANY_USER_STACK	(128 * 1024)	/* aarch64's PTHREAD_STACK_MIN */
#define MANY_RECLAIMED_KIB	4.02
#define THREADS_MAX	"/proc/sys/kernel/threads-max"

static atomic_int many_err, many_deep;

static void *many_sleeper(void *arg)
{
	char c;
	int err;

	(void)arg;
	err = consume(EXCURSION);
	if (err)
		atomic_compare_exchange_strong(&many_err, &(int){ 0 }, err);
	else
		atomic_fetch_add(&many_deep, 1);
	if (read(wake_pipe[0], &c, 1) != 1)
		atomic_compare_exchange_strong(&many_err, &(int){ 0 }, EPIPE);
	return NULL;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The NR_MANY sleepers, from @before on: 0, or the reason it failed. */
static const char *many_sleepers(const struct kstack_snapshot *before)
{
	static pthread_t t[NR_MANY];
	double first_ms = -1, max_ms = -1, ms, grown_kib = -1, reclaimed_kib = -1;
	struct kstack_snapshot grown, reclaimed;
	int i, n, woken = 0, err, drops, quiet;
	const char *fail = NULL;
	pthread_attr_t attr;
	struct timespec t0;

	atomic_store(&many_err, 0);
	atomic_store(&many_deep, 0);
	if (pipe(wake_pipe))
		return "pipe";
	pthread_attr_init(&attr);
	err = pthread_attr_setstacksize(&attr, MANY_USER_STACK);
	for (n = 0; !err && n < NR_MANY; n++) {
		err = pthread_create(&t[n], &attr, many_sleeper, NULL);
		if (err)
			break;
	}
	pthread_attr_destroy(&attr);
	for (i = 0; i < 6000 && atomic_load(&many_deep) < n && !atomic_load(&many_err); i++)
		usleep(10000);
	usleep(200000);
	if (!kstack_snapshot(&grown) && grown.tasks > before->tasks)
		grown_kib = (double)(grown.kib - before->kib) / (grown.tasks - before->tasks);

	/* Quiet: drop_caches logs every write, but not after a "4". */
	quiet = !write_file("/proc/sys/vm/drop_caches", "4");
	for (drops = 0; quiet && drops < MANY_DROPS; drops++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (write_file("/proc/sys/vm/drop_caches", "2"))
			break;
		/* The first is two: its first round may only mark them. */
		if (!drops && write_file("/proc/sys/vm/drop_caches", "2"))
			break;
		ms = ms_since(&t0);
		if (!drops) {
			first_ms = ms;
			if (!kstack_snapshot(&reclaimed) && reclaimed.tasks > before->tasks)
				reclaimed_kib = (double)(reclaimed.kib - before->kib) /
						(reclaimed.tasks - before->tasks);
		} else if (ms > max_ms) {
			max_ms = ms;
		}
	}

	for (i = 0; i < n; i++)
		woken += write(wake_pipe[1], "x", 1) == 1;
	/* A sleeper that got no byte sees the end of the pipe. */
	close(wake_pipe[1]);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	close(wake_pipe[0]);

	ktap_diag("%d of %d threads created (%s), %d went %d bytes deep: %.2f KiB each",
		  n, NR_MANY, err ? strerror(err) : "ok", atomic_load(&many_deep),
		  EXCURSION, grown_kib);
	ktap_diag("drop_caches: the first in %.0f ms (%.2f KiB a sleeper left), the %d others in %.0f ms at most",
		  first_ms, reclaimed_kib, MANY_DROPS - 1, max_ms);
	if (first_ms >= 0)
		ktap_metric("reclaim_many_first_ms", first_ms, "ms");
	if (max_ms >= 0)
		ktap_metric("reclaim_many_idle_ms", max_ms, "ms");
	if (n != NR_MANY || atomic_load(&many_deep) != n)
		fail = "not every thread was created and went deep";
	else if (atomic_load(&many_err) || woken != n)
		fail = "a sleeper failed, or was not woken";
	else if (drops != MANY_DROPS)
		fail = "a write to drop_caches failed";
	else if (grown_kib < 11.9)
		fail = "the sleepers did not grow their stacks";
	else if (reclaimed_kib < 0 || reclaimed_kib > MANY_RECLAIMED_KIB)
		fail = "the first drop_caches left more than a page a sleeper";
	else if (first_ms > MANY_DROP_MS || max_ms > MANY_DROP_MS)
		fail = "a drop_caches took longer than the bound";
	if (atomic_load(&many_err))
		ktap_diag("a thread failed: %s", strerror(atomic_load(&many_err)));
	return fail;
}

enum ktap_result test_reclaim_many_sleepers(void)
{
	struct kstack_snapshot before;
	char threads_max[32] = "";
	const char *fail;
	FILE *f;
	int err;

	/* threads-max of a 1 GiB guest is about 8000. */
	f = fopen(THREADS_MAX, "r");
	if (!f || !fgets(threads_max, sizeof(threads_max), f)) {
		ktap_diag("%s unreadable", THREADS_MAX);
		if (f)
			fclose(f);
		return KTAP_FAIL;
	}
	fclose(f);
	threads_max[strcspn(threads_max, "\n")] = 0;
	err = write_file(THREADS_MAX, "30000");
	if (err) {
		ktap_diag("%s: %s", THREADS_MAX, strerror(err));
		return KTAP_FAIL;
	}
	fail = kstack_snapshot(&before) ? "nr_kernel_stack unreadable" :
	       many_sleepers(&before);
	err = write_file(THREADS_MAX, threads_max);
	if (err) {
		ktap_diag("%s: restoring %s: %s", THREADS_MAX, threads_max, strerror(err));
		fail = fail ? fail : "threads-max not restored";
	}
	if (fail)
		ktap_diag("%s", fail);
	return fail ? KTAP_FAIL : KTAP_PASS;
}
