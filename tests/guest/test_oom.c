// SPDX-License-Identifier: GPL-2.0
/*
 * The OOM stress of the generic issue, run alone in a boot of its own
 * (OOM_STRESS=1 on the kernel command line, tests/guest/oom.cmdline), where
 * the harness expects the OOM killer's reports (tests/ktap.awk): memory hogs
 * are OOM-killed and respawned for OOM_SECONDS or more while threads on
 * both CPUs are created, grow their stacks to random depths and exit. It
 * passes if at least OOM_KILLS hogs were killed, every thread grew and no
 * refill of a fault pool failed (dynamic_stack_refill_failed did not
 * move): a failed refill leaves the next task on that CPU with fewer pages
 * than its stack may need. The pages the refills took from the reserve
 * (dynamic_stack_reserve_used) and those stacks gave back to it
 * (dynamic_stack_reserve_recycled) are reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churn.h"
#include "kstat.h"
#include "ktap.h"
#include "tests.h"
#include "watchdog.h"

#define NR_HOGS		6
#define HOG_MB		200	/* 1.2 GiB in all, in a 1 GiB guest */
#define NR_CHURN	8
/*
 * At least OOM_SECONDS, and on until OOM_KILLS hogs were killed, for at
 * most OOM_MAX_SECONDS: a debug kernel under TCG fills memory slowly. The
 * end leaves OOM_TEARDOWN seconds of the watchdog's CASE_TIMEOUT to kill
 * the hogs and join the threads.
 */
#define OOM_SECONDS	45
#define OOM_KILLS	3
#define OOM_MAX_SECONDS	180
#define OOM_TEARDOWN	60

/* How long the stress may go on to have its kills. */
static long oom_max_seconds(void)
{
	long s = watchdog_timeout() - OOM_TEARDOWN;

	if (s > OOM_MAX_SECONDS)
		return OOM_MAX_SECONDS;
	return s > OOM_SECONDS ? s : OOM_SECONDS;
}

/* A process that touches HOG_MB MiB over and over until it is killed. */
static pid_t hog(void)
{
	pid_t pid = fork();

	if (!pid) {
		size_t i, len = (size_t)HOG_MB << 20;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		for (;;)
			for (i = 0; i < len; i += 4096)
				p[i] = (char)i;
	}
	return pid;
}

enum ktap_result test_oom_stress(void)
{
	static struct churn c[NR_CHURN];
	long kills = 0, threads = 0, errors = 0, before, after, used0, used;
	long back0, back;
	long max_s = oom_max_seconds(), kills_s = -1;
	time_t start = time(NULL), end = start + OOM_SECONDS;
	time_t end_max = start + max_s;
	pid_t hogs[NR_HOGS], pid;
	atomic_int stop = 0;
	int i, status, nice_to = (int)env_double("OOM_NICE", 0);

	ktap_diag("seed %u", test_seed());
	/*
	 * OOM_NICE=N on the kernel command line: the stress (the hogs and the
	 * threads inherit it) runs at nice N, which changes who gets the CPU,
	 * and the memory, while memory runs out. At nice 19, arm64/dynamic
	 * once ran the pool dry, where nice 0 had not.
	 */
	if (nice_to) {
		errno = 0;
		if (nice(nice_to) == -1 && errno)
			ktap_diag("nice(%d): %s", nice_to, strerror(errno));
		else
			ktap_diag("the stress runs at nice %d", nice_to);
	}
	before = vmstat_read("dynamic_stack_refill_failed");
	used0 = vmstat_read("dynamic_stack_reserve_used");
	back0 = vmstat_read("dynamic_stack_reserve_recycled");
	for (i = 0; i < NR_HOGS; i++)
		hogs[i] = hog();
	for (i = 0; i < NR_CHURN; i++) {
		c[i].cpu = i % 2;
		c[i].grow = 1;
		c[i].seed = test_seed_for(i);
		c[i].stop = &stop;
		churn_start(&c[i]);
	}
	while (time(NULL) < end || (kills < OOM_KILLS && time(NULL) < end_max)) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid <= 0) {
			/* A hog whose fork failed (out of memory) tries again. */
			for (i = 0; i < NR_HOGS; i++)
				if (hogs[i] < 0)
					hogs[i] = hog();
			usleep(10000);
			continue;
		}
		for (i = 0; i < NR_HOGS; i++) {
			if (hogs[i] == pid) {
				kills += WIFSIGNALED(status);
				hogs[i] = hog();
			}
		}
		if (kills >= OOM_KILLS && kills_s < 0)
			kills_s = time(NULL) - start;
	}
	for (i = 0; i < NR_HOGS; i++)
		if (hogs[i] > 0)
			kill(hogs[i], SIGKILL);
	atomic_store(&stop, 1);
	for (i = 0; i < NR_CHURN; i++) {
		churn_join(&c[i]);
		threads += c[i].threads;
		errors += c[i].errors;
	}
	while (waitpid(-1, &status, 0) > 0)
		;
	after = vmstat_read("dynamic_stack_refill_failed");
	used = vmstat_read("dynamic_stack_reserve_used");
	back = vmstat_read("dynamic_stack_reserve_recycled");

	ktap_diag("%ld s with the teardown: %ld hogs killed and respawned (%d of them after %ld s), %ld threads grew, %ld errors",
		  (long)(time(NULL) - start), kills, OOM_KILLS, kills_s,
		  threads, errors);
	ktap_diag("dynamic_stack_refill_failed %ld -> %ld, dynamic_stack_reserve_used %ld -> %ld, dynamic_stack_reserve_recycled %ld -> %ld",
		  before, after, used0, used, back0, back);
	ktap_metric("oom_kills", kills, "kills");
	if (used0 >= 0 && used >= used0)
		ktap_metric("oom_reserve_used", used - used0, "pages");
	if (back0 >= 0 && back >= back0)
		ktap_metric("oom_reserve_recycled", back - back0, "pages");
	if (kills < OOM_KILLS)
		ktap_diag("fewer than %d hogs killed in %ld s", OOM_KILLS, max_s);
	if (errors || !threads || kills < OOM_KILLS || before < 0 ||
	    after != before || used0 < 0 || back0 < 0)
		return KTAP_FAIL;
	return KTAP_PASS;
}
