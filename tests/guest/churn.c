// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "churn.h"
#include "kstat.h"

struct churn_job {
	struct churn *c;
	int err;
};

static void *churn_one(void *arg)
{
	struct churn_job *j = arg;

	if (j->c->grow)
		j->err = consume(1024 + rand_r(&j->c->seed) % (consume_max() - 1024));
	return NULL;
}

static void *churn_loop(void *arg)
{
	struct churn_job j = { .c = arg };
	struct churn *c = arg;
	pthread_t t;

	if (c->cpu >= 0)
		c->errors += pin_to_cpu(c->cpu) != 0;
	while (!atomic_load(c->stop)) {
		j.err = 0;
		if (pthread_create(&t, NULL, churn_one, &j)) {
			c->errors++;
			break;
		}
		pthread_join(t, NULL);
		c->threads++;
		c->errors += j.err != 0;
	}
	return NULL;
}

void churn_start(struct churn *c)
{
	c->threads = c->errors = 0;
	c->started = !pthread_create(&c->thread, NULL, churn_loop, c);
	c->errors += !c->started;
}

void churn_join(struct churn *c)
{
	if (c->started)
		pthread_join(c->thread, NULL);
	c->started = 0;
}
