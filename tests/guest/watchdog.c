// SPDX-License-Identifier: GPL-2.0
/*
 * A case that gives no result within CASE_TIMEOUT seconds (from the kernel
 * command line; 240 by default) is reported as it stands: every task's
 * state, last CPU and wait channel (/proc/PID/task/TID/stat and wchan,
 * which need no debugging option in the kernel), then a "not ok" for the
 * case, and the guest reboots. A hang then ends the boot in minutes, not
 * at QEMU's TIMEOUT, and says where the tasks were waiting.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "watchdog.h"

#define TASKS_MAX	300

static const char *_Atomic running;
static _Atomic long started;
static long timeout_s;

static long now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* "TID COMM STATE cpu N wchan FUNCTION" for one task. */
static void show_task(const char *pid, const char *tid)
{
	char path[600], stat[512], wchan[96] = "?";
	char *comm_end, state = '?';
	int cpu = -1, field;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(stat, sizeof(stat), f))
		stat[0] = 0;
	fclose(f);
	comm_end = strrchr(stat, ')');
	if (comm_end && comm_end[1] == ' ') {
		char *p = comm_end + 2;

		state = *p;
		/* Field 39 is the CPU it last ran on; field 3 is the state. */
		for (field = 3; p && field < 39; field++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p)
			cpu = atoi(p);
		*comm_end = 0;
	}
	snprintf(path, sizeof(path), "/proc/%s/task/%s/wchan", pid, tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			strcpy(wchan, "?");
		fclose(f);
	}
	ktap_diag("  %s %s) %c cpu %d wchan %s", tid, strchr(stat, '(') ?: "(?",
		  state, cpu, wchan[0] ? wchan : "0");
}

static void show_tasks(void)
{
	DIR *procs = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[300];
	int n = 0;

	if (!procs)
		return;
	while ((p = readdir(procs)) && n < TASKS_MAX) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks)) && n < TASKS_MAX) {
			if (t->d_name[0] < '0' || t->d_name[0] > '9')
				continue;
			show_task(p->d_name, t->d_name);
			n++;
		}
		closedir(tasks);
	}
	closedir(procs);
	if (n == TASKS_MAX)
		ktap_diag("  (only the first %d tasks)", TASKS_MAX);
}

static void *watch(void *arg)
{
	const char *name;

	(void)arg;
	for (;;) {
		sleep(1);
		name = atomic_load(&running);
		if (!name || now_s() - atomic_load(&started) < timeout_s)
			continue;
		ktap_diag("%s: no result after %ld s (CASE_TIMEOUT); the tasks:",
			  name, timeout_s);
		show_tasks();
		ktap_result(name, KTAP_FAIL, "timeout");
		sync();
		reboot(RB_AUTOBOOT);
	}
	return NULL;
}

long watchdog_timeout(void)
{
	const char *env = getenv("CASE_TIMEOUT");
	long s = env ? atol(env) : 0;

	return s > 0 ? s : 240;
}

void watchdog_case(const char *name)
{
	static pthread_t thread;
	static int up;

	if (!up) {
		timeout_s = watchdog_timeout();
		up = !pthread_create(&thread, NULL, watch, NULL);
		if (!up)
			ktap_diag("no watchdog thread: a hang ends at QEMU's TIMEOUT");
	}
	atomic_store(&started, now_s());
	atomic_store(&running, name);
}
