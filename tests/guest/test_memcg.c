// SPDX-License-Identifier: GPL-2.0
/*
 * memcg accounting of kernel stacks: the kernel_stack line of a cgroup v2
 * memory.stat counts the stacks of the threads created in the cgroup, with
 * the pages a dynamic stack faulted in, falls when reclaim gives pages
 * back, and drops to zero once the threads exit.
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
#define NR_THREADS	64
/* Deeper than the preallocated page: every thread faults one in at least. */
#define GROW_BYTES	6144
/* Three pages below the top one, which reclaim gives back. */
#define RECLAIM_THREADS	32
#define RECLAIM_BYTES	12288

/* The test's cgroup: CGROOT/kstack, or CGROOT/kstack-reclaim. */
static char cg[64];

/* kernel_stack of the test cgroup in KiB, or -1. */
static long memcg_kstack_kib(void)
{
	char path[96], key[64];
	long val, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	f = fopen(path, "r");

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

static long grow_bytes;		/* what each thread consumes, or 0 */
static int nr_threads;
static int release_pipe[2];
static pthread_barrier_t ready;

static void *member(void *arg)
{
	int *err = arg;
	char c;

	if (grow_bytes)
		*err = consume(grow_bytes);
	pthread_barrier_wait(&ready);
	while (read(release_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/*
 * The child: joins the cgroup, starts nr_threads threads there, tells the
 * parent on @ready_fd once they are all running (a byte: the number of
 * failures) and waits for the release pipe to close.
 */
static void child(int ready_fd)
{
	static pthread_t threads[NR_THREADS];
	static int errs[NR_THREADS];
	unsigned char bad = 0;
	char procs[96];
	int i, n;

	close(release_pipe[1]);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	if (write_file(procs, "0"))
		_exit(1);
	pthread_barrier_init(&ready, NULL, nr_threads + 1);
	for (n = 0; n < nr_threads; n++)
		if (pthread_create(&threads[n], NULL, member, &errs[n]))
			_exit(1);	/* the barrier would never open */
	pthread_barrier_wait(&ready);
	for (i = 0; i < nr_threads; i++)
		bad += errs[i] != 0;
	if (write(ready_fd, &bad, 1) != 1)
		_exit(1);
	for (i = 0; i < nr_threads; i++)
		pthread_join(threads[i], NULL);
	_exit(0);
}

static int setup_cgroup(const char *name)
{
	struct stat st;

	snprintf(cg, sizeof(cg), "%s/%s", CGROOT, name);
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
	if (mkdir(cg, 0755) && errno != EEXIST) {
		ktap_diag("mkdir %s: %s", cg, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Forks the child, which starts nr_threads threads in the cgroup, and
 * returns its pid (or -1) once they are all asleep; *bad is the number of
 * threads that failed.
 */
static pid_t start_members(unsigned char *bad)
{
	int ready_pipe[2];
	pid_t pid;

	*bad = 1;
	if (pipe(ready_pipe))
		return -1;
	if (pipe(release_pipe)) {
		close(ready_pipe[0]);
		close(ready_pipe[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(ready_pipe[0]);
		close(ready_pipe[1]);
		close(release_pipe[0]);
		close(release_pipe[1]);
		return -1;
	}
	if (!pid)
		child(ready_pipe[1]);
	close(ready_pipe[1]);
	close(release_pipe[0]);
	if (read(ready_pipe[0], bad, 1) != 1)
		*bad = 1;
	close(ready_pipe[0]);
	return pid;
}

/*
 * Lets the threads exit, reaps the child and removes the cgroup: returns
 * its kernel_stack once that is 0, or as it is after 10 s.
 */
static long end_members(pid_t pid, int *status)
{
	long after = -1;
	int i;

	close(release_pipe[1]);
	if (waitpid(pid, status, 0) != pid)
		*status = -1;	/* not an exit: the caller fails */
	for (i = 0; i < 100 && after != 0; i++) {
		if (i)
			usleep(100000);
		after = memcg_kstack_kib();
	}
	rmdir(cg);
	return after;
}

enum ktap_result test_memcg_kernel_stack(void)
{
	long faults_before = 0, faults = 0, kib, early, lo, hi, after;
	int grow = env_double("DYNAMIC_STACK", 0) == 1;
	unsigned char bad;
	int status;
	pid_t pid;

	grow_bytes = grow ? GROW_BYTES : 0;
	nr_threads = NR_THREADS;
	if (setup_cgroup("kstack"))
		return KTAP_FAIL;
	if (grow)
		faults_before = vmstat_read("nr_dynamic_stacks_faults");
	pid = start_members(&bad);
	if (pid < 0)
		return KTAP_FAIL;
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

	after = end_members(pid, &status);

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

/*
 * Reclaim (CONFIG_DYNAMIC_STACK_RECLAIM) gives back the stack pages that
 * sleeping threads do not use: RECLAIM_THREADS threads of the cgroup grow
 * their stacks by RECLAIM_BYTES (to 3 or 4 pages, as the arch's frames
 * fall), return, and sleep in their top page; drop_caches runs. The
 * cgroup's kernel_stack must fall to that page a thread (and at most 4
 * more: the child's main thread), and be 0 once the threads have exited.
 */
enum ktap_result test_memcg_reclaim(void)
{
	long asleep, reclaimed, after, g_asleep, g_reclaimed;
	unsigned char bad;
	int status, err, agree;
	pid_t pid;

	grow_bytes = RECLAIM_BYTES;
	nr_threads = RECLAIM_THREADS;
	if (setup_cgroup("kstack-reclaim"))
		return KTAP_FAIL;
	pid = start_members(&bad);
	if (pid < 0)
		return KTAP_FAIL;

	/* memory.stat is as of its last flush, every 2 s: wait for two. */
	usleep(4500000);
	asleep = memcg_kstack_kib();
	g_asleep = vmstat_read("nr_kernel_stack");
	err = drop_slab();
	usleep(4500000);
	reclaimed = memcg_kstack_kib();
	g_reclaimed = vmstat_read("nr_kernel_stack");
	agree = stack_pages_agree("after drop_caches");

	after = end_members(pid, &status);

	ktap_diag("%d threads asleep after %d bytes: kernel_stack %ld KiB, %ld after drop_caches (nr_kernel_stack %ld -> %ld), %ld after exit",
		  RECLAIM_THREADS, RECLAIM_BYTES, asleep, reclaimed, g_asleep,
		  g_reclaimed, after);
	if (bad || err || !WIFEXITED(status) || WEXITSTATUS(status)) {
		ktap_diag("the child or drop_caches failed (%u thread errors, status %#x, %s)",
			  bad, status, strerror(err));
		return KTAP_FAIL;
	}
	/*
	 * nr_kernel_stack is global: kernel threads that reclaim trimmed
	 * too grow again when they next run (the memcg stats flush among
	 * them), so it does not fall by exactly what the threads gave back.
	 * It must still count every mapped stack page, and the memcg's
	 * figure holds the threads alone.
	 */
	if (!agree)
		return KTAP_FAIL;
	return asleep >= RECLAIM_THREADS * 12 &&
	       reclaimed <= (RECLAIM_THREADS + 4) * 4 && after == 0 ?
	       KTAP_PASS : KTAP_FAIL;
}
