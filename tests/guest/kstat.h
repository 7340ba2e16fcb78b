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
 * nr_kernel_stack and the task count at one instant: both are read until
 * the task count is the same before and after the counter.
 */
struct kstack_snapshot {
	long kib;
	long tasks;
};

int kstack_snapshot(struct kstack_snapshot *s);

/* A double from the environment (kernel command line), or @def. */
double env_double(const char *name, double def);

#endif /* KSTAT_H */
