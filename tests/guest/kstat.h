/* SPDX-License-Identifier: GPL-2.0 */
/* Reading kernel-stack figures from /proc inside the guest. */
#ifndef KSTAT_H
#define KSTAT_H

/*
 * Value of counter @name in /proc/vmstat after folding every CPU's pending
 * delta (vm.stat_refresh), or -1 if the counter does not exist.
 */
long vmstat_read(const char *name);

/* Number of tasks (threads) in the system, counted from /proc. */
long count_tasks(void);

/*
 * The ids of the tasks (threads) in the system, at most @max, in @ids
 * (none if @ids is NULL): returns how many tasks there are, or -1.
 * ids_missing() counts those of @a not in @b.
 */
long task_ids(long *ids, long max);
/* Enough room in @ids for the tasks of any test here. */
#define TASK_IDS_MAX	4096
long ids_missing(const long *a, long na, const long *b, long nb);

/*
 * nr_kernel_stack, nr_dynamic_stacks_faults (the part of it that faults
 * mapped below the first page of dynamic stacks; 0 without the series)
 * and the task count at one instant: they are read until the task count
 * and the fault count are the same before and after nr_kernel_stack.
 */
struct kstack_snapshot {
	long kib;
	long grown_kib;
	long tasks;
};

int kstack_snapshot(struct kstack_snapshot *s);

/*
 * The kstack_<N>k buckets of the histogram (CONFIG_DEBUG_STACK_USAGE), N
 * from 1 to 64: exits[i] is the count of kstack_<1 << i>k, or -1 where
 * there is no such bucket. Returns the number of buckets up to the
 * largest one, THREAD_SIZE's.
 */
#define KSTACK_BUCKETS	7
int kstack_histogram(long exits[KSTACK_BUCKETS]);

/* THREAD_SIZE in KiB: the largest kstack_<N>k bucket of the histogram. */
long thread_kib(void);

/*
 * Whether nr_kernel_stack between @before and @after is what the tasks
 * that are new since then (kernel threads started meanwhile) account for:
 * at least @lo KiB and at most @max_kib KiB for each of them; or, with
 * fewer tasks (a kernel thread exited meanwhile), what each that is gone
 * took away. On a dynamic kernel, what faults mapped or exits and reclaim
 * gave back meanwhile (grown_kib) is taken out first: a task that was
 * there all along may have grown (an exception that comes near the floor
 * of its stack maps a page), and that is no new task's.
 */
int kstack_accounted(const struct kstack_snapshot *before,
		     const struct kstack_snapshot *after, double lo, long max_kib);

/*
 * /sys/kernel/debug/dynamic_stack (CONFIG_DYNAMIC_STACK_TEST): consume()
 * makes the calling thread use @bytes of its kernel stack and returns 0 or
 * the errno of the write; stack_scan() returns how many words of consume's
 * pattern the calling thread finds on its own stack, or -1, and puts the
 * (hashed) address of that stack in @base; stack_base() puts only the
 * address there (0, or -1). stack_present() counts the stack pages that
 * the kernel page tables map, over every task (-1 if it cannot).
 */
#define STACK_BASE_LEN	32
int consume(long bytes);
long stack_scan(char base[STACK_BASE_LEN]);
int stack_base(char base[STACK_BASE_LEN]);
long stack_present(void);

/*
 * Whether nr_kernel_stack is what stack_present() counts, to the page,
 * with the pages reclaim parked (unmapped, still accounted to a task that
 * was on a CPU when the batch ended): tries for a while (tasks that start
 * or exit meanwhile, a running task's pages accounted when it next leaves
 * the CPU) and reports what it saw, with @what, as KTAP diagnostics.
 */
int stack_pages_agree(const char *what);

/*
 * The same, quiet when they agree (for up to 2 s): 0, or -1 after a
 * diagnostic that says what disagrees.
 */
int stack_pages_check(void);

/* Free pages, with those on the per-CPU lists, in KiB, or -1. */
long free_kib(void);

/*
 * The deepest consume() and dynamic_stack/sleep accept: THREAD_SIZE less
 * 1 KiB (the kernel's DYNAMIC_STACK_CONSUME_MAX) and less a page
 * (DYNAMIC_STACK_SLEEP_MAX).
 */
long consume_limit(void);
long sleep_max(void);

/*
 * The deepest a test consumes while interrupts come: THREAD_SIZE less
 * 3 KiB, still in the stack's lowest page. Below the deepest frame, an
 * interrupt's entry frame and a preemption through the scheduler, with
 * lockdep's frames in the debug variants, take more than the 1 KiB that
 * consume_limit() leaves: arm64/debug overflowed its stack there
 * ("Insufficient stack space to handle exception!", in mark_lock() from
 * preempt_schedule_irq()), as the unpatched kernel would.
 */
long consume_max(void);

static inline long min_l(long a, long b) { return a < b ? a : b; }
static inline long max_l(long a, long b) { return a > b ? a : b; }

/* Runs the calling thread on @cpu only: 0, or the errno. */
int pin_to_cpu(int cpu);

/* Writes @s to the file @path: 0, or the errno. */
int write_file(const char *path, const char *s);
int drop_slab(void);

/* Whether a record of the kernel log so far contains @s. */
int klog_has(const char *s);

/*
 * The first @max CPUs' counts of the /proc/interrupts row that contains
 * @row: the number of CPUs read, 0 if no row has it.
 */
int irq_counts(const char *row, long *counts, int max);

/*
 * The seed of the random tests of this boot (SEED= on the command line, or
 * one /init chose and printed); test_seed_for(i) is a seed of its own for
 * the i-th thread or round of a test.
 */
void test_seed_set(unsigned int seed);
unsigned int test_seed(void);
unsigned int test_seed_for(unsigned int i);

/* A double from the environment (kernel command line), or @def. */
double env_double(const char *name, double def);

#endif /* KSTAT_H */
