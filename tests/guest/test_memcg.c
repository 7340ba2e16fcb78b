// SPDX-License-Identifier: GPL-2.0
/*
 * memcg accounting of kernel stacks: the kernel_stack line of a cgroup v2
 * memory.stat counts the stacks of the threads created in the cgroup, with
 * the pages a dynamic stack faulted in, and drops to zero once they exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define CGROOT		"/sys/fs/cgroup"
#define CG		CGROOT "/kstack"
#define NR_THREADS	64
/* Deeper than the preallocated page: every thread faults one in at least. */
#define GROW_BYTES	6144

/* kernel_stack of the test cgroup in KiB, or -1. */
static long memcg_kstack_kib(void)
{
	FILE *f = fopen(CG "/memory.stat", "r");
	char key[64];
	long val, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &val) == 2) {
		if (!strcmp(key, "kernel_stack")) {
			ret = val / 1024;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int grow;		/* consume GROW_BYTES in each thread */
static int release_pipe[2];
static pthread_barrier_t ready;

static void *member(void *arg)
{
	int *err = arg;
	char c;

	if (grow)
		*err = consume(GROW_BYTES);
	pthread_barrier_wait(&ready);
	while (read(release_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/*
 * The child: joins the cgroup, starts NR_THREADS threads there, tells the
 * parent on @ready_fd once they are all running (a byte: the number of
 * failures) and waits for the release pipe to close.
 */
static void child(int ready_fd)
{
	static pthread_t threads[NR_THREADS];
	static int errs[NR_THREADS];
	unsigned char bad = 0;
	int i, n;

	close(release_pipe[1]);
	if (write_file(CG "/cgroup.procs", "0"))
		_exit(1);
	pthread_barrier_init(&ready, NULL, NR_THREADS + 1);
	for (n = 0; n < NR_THREADS; n++)
		if (pthread_create(&threads[n], NULL, member, &errs[n]))
			_exit(1);	/* the barrier would never open */
	pthread_barrier_wait(&ready);
	for (i = 0; i < NR_THREADS; i++)
		bad += errs[i] != 0;
	if (write(ready_fd, &bad, 1) != 1)
		_exit(1);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(threads[i], NULL);
	_exit(0);
}

static int setup_cgroup(void)
{
	struct stat st;

	mkdir(CGROOT, 0755);
	if (stat(CGROOT "/cgroup.subtree_control", &st) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL)) {
		ktap_diag("mount cgroup2: %s", strerror(errno));
		return -1;
	}
	if (write_file(CGROOT "/cgroup.subtree_control", "+memory")) {
		ktap_diag("cannot enable the memory controller");
		return -1;
	}
	if (mkdir(CG, 0755) && errno != EEXIST) {
		ktap_diag("mkdir %s: %s", CG, strerror(errno));
		return -1;
	}
	return 0;
}

enum ktap_result test_memcg_kernel_stack(void)
{
	long faults_before = 0, faults = 0, kib, early, lo, hi, after = -1;
	int ready_pipe[2], status, i;
	unsigned char bad = 1;
	pid_t pid;

	grow = env_double("DYNAMIC_STACK", 0) == 1;
	if (setup_cgroup() || pipe(ready_pipe) || pipe(release_pipe))
		return KTAP_FAIL;
	if (grow)
		faults_before = vmstat_read("nr_dynamic_stacks_faults");

	pid = fork();
	if (pid < 0)
		return KTAP_FAIL;
	if (!pid)
		child(ready_pipe[1]);
	close(ready_pipe[1]);
	close(release_pipe[0]);
	if (read(ready_pipe[0], &bad, 1) != 1)
		bad = 1;
	close(ready_pipe[0]);
	/*
	 * Every thread is asleep, and so accounted, within a moment; but
	 * memory.stat shows the memcg statistics as of their last flush,
	 * which runs every 2 s (FLUSH_TIME in mm/memcontrol.c) or once
	 * enough updates are pending: read it after two periods.
	 */
	usleep(200000);
	early = memcg_kstack_kib();
	usleep(4300000);
	kib = memcg_kstack_kib();
	if (grow)
		faults = vmstat_read("nr_dynamic_stacks_faults") - faults_before;

	close(release_pipe[1]);
	waitpid(pid, &status, 0);
	for (i = 0; i < 100 && after != 0; i++) {
		if (i)
			usleep(100000);
		after = memcg_kstack_kib();
	}
	rmdir(CG);

	/*
	 * The child's own stack was charged where it was forked: the cgroup
	 * holds its threads' stacks, and what the child faulted in since.
	 */
	if (grow) {
		lo = NR_THREADS * 8;
		hi = (NR_THREADS + 1) * 4 + faults;
	} else {
		lo = NR_THREADS * 16;
		hi = (NR_THREADS + 1) * 16;
	}
	ktap_diag("%d threads%s: kernel_stack %ld KiB (expected %ld..%ld; %ld KiB at 0.2 s), %ld KiB after exit",
		  NR_THREADS, grow ? " that used 6 KiB" : "", kib, lo, hi, early,
		  after);
	if (grow)
		ktap_diag("nr_dynamic_stacks_faults grew by %ld KiB", faults);
	if (bad || !WIFEXITED(status) || WEXITSTATUS(status)) {
		ktap_diag("the child failed (%u thread errors, status %#x)",
			  bad, status);
		return KTAP_FAIL;
	}
	return kib >= lo && kib <= hi && after == 0 ? KTAP_PASS : KTAP_FAIL;
}
