// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"

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
		while ((t = readdir(task)))
			n += t->d_name[0] != '.';
		closedir(task);
	}
	closedir(proc);
	return n;
}

int kstack_snapshot(struct kstack_snapshot *s)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		long before = count_tasks();

		s->kib = vmstat_read("nr_kernel_stack");
		s->tasks = count_tasks();
		if (s->kib < 0 || s->tasks < 0)
			return -1;
		if (before == s->tasks)
			return 0;
	}
	return -1;
}

double env_double(const char *name, double def)
{
	const char *v = getenv(name);

	return v ? strtod(v, NULL) : def;
}
