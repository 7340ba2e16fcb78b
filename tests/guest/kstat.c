// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"

static void vmstat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			perror("stat_refresh");
		close(fd);
	}
}

long vmstat_read(const char *name)
{
	char key[64];
	long val, ret = -1;
	FILE *f;

	vmstat_refresh();
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &val) == 2) {
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

long count_tasks(void)
{
	return task_ids(NULL, 0);
}

long task_ids(long *ids, long max)
{
	struct dirent *p, *t;
	char path[300];
	long n = 0;
	DIR *proc, *task;

	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		task = opendir(path);
		if (!task)
			continue;	/* exited meanwhile */
		while ((t = readdir(task))) {
			if (t->d_name[0] == '.')
				continue;
			if (ids && n < max)
				ids[n] = atol(t->d_name);
			n++;
		}
		closedir(task);
	}
	closedir(proc);
	return n;
}

long ids_missing(const long *a, long na, const long *b, long nb)
{
	long i, j, missing = 0;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && b[j] != a[i]; j++)
			;
		missing += j == nb;
	}
	return missing;
}

/* nr_dynamic_stacks_faults, or 0 if the kernel has no such counter. */
static long grown_kib(void)
{
	long kib = vmstat_read("nr_dynamic_stacks_faults");

	return kib < 0 ? 0 : kib;
}

int kstack_snapshot(struct kstack_snapshot *s)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		long before = count_tasks(), grown = grown_kib();

		s->kib = vmstat_read("nr_kernel_stack");
		s->grown_kib = grown_kib();
		s->tasks = count_tasks();
		if (s->kib < 0 || s->tasks < 0)
			return -1;
		if (before == s->tasks && grown == s->grown_kib)
			return 0;
	}
	return -1;
}

int kstack_histogram(long exits[KSTACK_BUCKETS])
{
	char name[16];
	int i, n = 0;

	for (i = 0; i < KSTACK_BUCKETS; i++) {
		snprintf(name, sizeof(name), "kstack_%dk", 1 << i);
		exits[i] = vmstat_read(name);
		if (exits[i] >= 0)
			n = i + 1;
	}
	return n;
}

long thread_kib(void)
{
	long exits[KSTACK_BUCKETS];
	int n = kstack_histogram(exits);

	return n ? 1L << (n - 1) : 0;
}

int kstack_accounted(const struct kstack_snapshot *before,
		     const struct kstack_snapshot *after, double lo, long max_kib)
{
	long tasks = after->tasks - before->tasks;
	long kib = after->kib - before->kib -
		   (after->grown_kib - before->grown_kib);

	/* Fewer tasks: a kernel thread (a kworker) exited meanwhile. */
	if (tasks < 0)
		return kib <= tasks * lo && kib >= tasks * max_kib;
	return kib >= tasks * lo && kib <= tasks * max_kib;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

int irq_counts(const char *row, long *counts, int max)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!p || !strstr(line, row))
			continue;
		for (p++; n < max; n++)
			counts[n] = strtol(p, &p, 10);
		break;
	}
	fclose(f);
	return n;
}

/* Whether a record of the kernel log so far contains @s. */
int klog_has(const char *s)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char rec[8192];
	ssize_t n;
	int found = 0;

	if (fd < 0)
		return 0;
	/* One record a read; EPIPE: records were overwritten, read on. */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, s))
			found = 1;
	}
	close(fd);
	return found;
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * Runs the shrinkers (2 in drop_caches) twice: reclaim passes over a task
 * that ran since it last came by, once, and one drop_caches may come by
 * only once. drop_caches takes 1 to 4, one at a time: 4 first keeps the
 * console quiet. Returns 0 or an errno.
 */
int drop_slab(void)
{
	return write_file("/proc/sys/vm/drop_caches", "4") ?:
	       write_file("/proc/sys/vm/drop_caches", "2") ?:
	       write_file("/proc/sys/vm/drop_caches", "2");
}

static long thread_bytes;

static void thread_bytes_init(void)
{
	thread_bytes = thread_kib() * 1024;
}

long consume_limit(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, thread_bytes_init);
	return thread_bytes - 1024;
}

long consume_max(void)
{
	return consume_limit() - 2048;
}

long sleep_max(void)
{
	return consume_limit() + 1024 - 4096;
}

int consume(long bytes)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", bytes);
	return write_file("/sys/kernel/debug/dynamic_stack/consume", text);
}

long stack_scan(char base[STACK_BASE_LEN])
{
	FILE *f = fopen("/sys/kernel/debug/dynamic_stack/scan", "r");
	long found = -1;

	base[0] = '\0';
	if (!f)
		return -1;
	if (fscanf(f, "%ld %31s", &found, base) != 2)
		found = -1;
	fclose(f);
	return found;
}

int stack_base(char base[STACK_BASE_LEN])
{
	FILE *f = fopen("/sys/kernel/debug/dynamic_stack/base", "r");
	int ret = 0;

	base[0] = '\0';
	if (!f)
		return -1;
	if (fscanf(f, "%31s", base) != 1)
		ret = -1;
	fclose(f);
	return ret;
}

/* The pages of dynamic_stack/present, and those it says are parked */
static long stack_present_parked(long *parked)
{
	FILE *f = fopen("/sys/kernel/debug/dynamic_stack/present", "r");
	long pages = -1, tasks;

	*parked = 0;
	if (!f)
		return -1;
	if (fscanf(f, "pages %ld tasks %ld parked %ld", &pages, &tasks,
		   parked) != 3)
		pages = -1;
	fclose(f);
	return pages;
}

long stack_present(void)
{
	long parked;

	return stack_present_parked(&parked);
}

/*
 * Whether nr_kernel_stack counts the pages that the page tables map in task
 * stacks and the parked ones, read twice the same; tried for up to @tries
 * times 20 ms, for stacks that grew since their task last left its CPU.
 */
static int pages_agree(int tries, long *kib, long *pages, long *parked)
{
	long before = -1, p0 = 0;
	int i, agree = 0;

	for (i = 0; i < tries && !agree; i++) {
		if (i)
			usleep(20000);
		before = stack_present_parked(&p0);
		*kib = vmstat_read("nr_kernel_stack");
		*pages = stack_present_parked(parked);
		agree = before >= 0 && before == *pages && p0 == *parked &&
			*kib == (before + *parked) * 4;
	}
	return agree;
}

int stack_pages_agree(const char *what)
{
	long kib, pages, parked;
	int agree = pages_agree(50, &kib, &pages, &parked);

	ktap_diag("%s: nr_kernel_stack %ld KiB, page tables map %ld pages (%ld KiB) of task stacks, %ld more are parked",
		  what, kib, pages, pages * 4, parked);
	return agree;
}

int stack_pages_check(void)
{
	long kib, pages, parked;

	if (pages_agree(100, &kib, &pages, &parked))
		return 0;
	ktap_diag("afterwards, nr_kernel_stack %ld KiB disagrees with the task stacks: the page tables map %ld pages (%ld KiB), %ld more are parked",
		  kib, pages, pages * 4, parked);
	return -1;
}

/*
 * Free memory as the page allocator holds it: every zone's free pages
 * ("pages free", MemFree) and the pages on its per-CPU lists ("count:"),
 * which MemFree leaves out and which come and go by whole batches.
 */
long free_kib(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long pages = 0, val;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " pages free %ld", &val) == 1 ||
		    sscanf(line, " count: %ld", &val) == 1)
			pages += val;
	}
	fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static unsigned int base_seed;

void test_seed_set(unsigned int seed)
{
	base_seed = seed;
}

unsigned int test_seed(void)
{
	return base_seed;
}

unsigned int test_seed_for(unsigned int i)
{
	/* Knuth's multiplicative hash: distinct, well spread seeds. */
	return (base_seed + i) * 2654435761u;
}

double env_double(const char *name, double def)
{
	const char *v = getenv(name);

	return v ? strtod(v, NULL) : def;
}
