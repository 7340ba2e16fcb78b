/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread churn for the stress tests: a thread that, until *stop is set,
 * creates and joins one short-lived thread after another, each of which
 * may first grow its kernel stack to a random depth through consume().
 */
#ifndef CHURN_H
#define CHURN_H

#include <pthread.h>
#include <stdatomic.h>

struct churn {
	int cpu;		/* run on this CPU only, or -1 */
	int grow;		/* each thread consumes 1 KiB to consume_max() */
	unsigned int seed;
	atomic_int *stop;
	long threads;		/* created and joined, read after churn_join() */
	long errors;		/* failed creations, pinnings or growths */
	pthread_t thread;
	int started;
};

void churn_start(struct churn *c);
void churn_join(struct churn *c);

#endif /* CHURN_H */
