// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"
#include "watchdog.h"

/* printk's record limit is 1 KiB, with its prefix. */
#define LINE_MAX_BYTES	900
#define DEPTH_MAX	8

static int out_fd = STDOUT_FILENO;
static int depth;
static int count[DEPTH_MAX];

/*
 * KTAP goes through /dev/kmsg, one record a line, so that no kernel
 * message can land inside it on the console. Writes there are rate-limited
 * (10 lines in 5 s, the rest dropped silently) unless printk_devkmsg is
 * "on", which it takes with a newline only ("on" alone is EINVAL): if it
 * cannot be set, the lines go to the console directly.
 */
void ktap_init(void)
{
	int ok = !write_file("/proc/sys/kernel/printk_devkmsg", "on\n");
	int fd = ok ? open("/dev/kmsg", O_WRONLY | O_CLOEXEC) : -1;

	if (fd >= 0)
		out_fd = fd;
	else
		ktap_diag("printk_devkmsg or /dev/kmsg unusable: KTAP on the console");
}

static void put_line(const char *text, size_t len)
{
	char line[LINE_MAX_BYTES + 4 * DEPTH_MAX + 2];
	size_t indent = 4 * (size_t)depth;

	if (len > LINE_MAX_BYTES)
		len = LINE_MAX_BYTES;
	memset(line, ' ', indent);
	memcpy(line + indent, text, len);
	line[indent + len] = '\n';
	/* One write, one record: the console prints it whole. */
	if (write(out_fd, line, indent + len + 1) < 0 && out_fd != STDOUT_FILENO) {
		out_fd = STDOUT_FILENO;
		put_line(text, len);
	}
}

void ktap_print(const char *fmt, ...)
{
	char buf[4096];
	const char *p, *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (p = buf; ; p = nl + 1) {
		nl = strchr(p, '\n');
		put_line(p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl || !nl[1])
			break;
	}
}

void ktap_diag(const char *fmt, ...)
{
	char buf[4096], *p, *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (p = buf; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		ktap_print("# %s", p);
	}
}

void ktap_metric(const char *name, double value, const char *unit)
{
	ktap_print("# METRIC %s %.2f %s", name, value, unit);
}

void ktap_plan(int n)
{
	ktap_print("KTAP version 1");
	ktap_print("1..%d", n);
	count[depth] = 0;
}

void ktap_subtest(const char *name, int n)
{
	if (depth + 1 < DEPTH_MAX)
		depth++;
	ktap_print("KTAP version 1");
	ktap_print("# Subtest: %s", name);
	ktap_print("1..%d", n);
	count[depth] = 0;
}

void ktap_result(const char *name, enum ktap_result r, const char *reason)
{
	int skip = r == KTAP_SKIP;

	ktap_print("%s %d %s%s%s", r == KTAP_FAIL ? "not ok" : "ok",
		   ++count[depth], name, skip ? " # SKIP " : "",
		   skip && reason ? reason : "");
}

void ktap_end_subtest(const char *name, enum ktap_result r)
{
	if (depth > 0)
		depth--;
	ktap_result(name, r, NULL);
}

int ktap_selected(const char *name)
{
	const char *glob = getenv("TESTS");

	return !glob || !*glob || !fnmatch(glob, name, 0);
}

static int case_selected(const char *suite, const char *name)
{
	char full[256];

	snprintf(full, sizeof(full), "%s.%s", suite, name);
	return ktap_selected(full);
}

int ktap_count_selected(const char *suite, const struct ktap_case *cases, int n)
{
	int i, selected = 0;

	for (i = 0; i < n; i++)
		selected += case_selected(suite, cases[i].name);
	return selected;
}

static int (*after_each)(void);
static const char *current_case;

const char *ktap_current_case(void)
{
	return current_case;
}

void ktap_check_after_each(int (*check)(void))
{
	after_each = check;
}

int ktap_run_suite(const char *suite, const struct ktap_case *cases, int n)
{
	int i, failed = 0, selected = ktap_count_selected(suite, cases, n);

	if (!selected)
		return 0;
	ktap_subtest(suite, selected);
	for (i = 0; i < n; i++) {
		enum ktap_result r;

		if (!case_selected(suite, cases[i].name))
			continue;
		watchdog_case(cases[i].name);
		current_case = cases[i].name;
		r = cases[i].run();
		current_case = NULL;
		if (r != KTAP_SKIP && after_each && after_each())
			r = KTAP_FAIL;
		watchdog_case(NULL);
		ktap_result(cases[i].name, r, NULL);
		failed += r == KTAP_FAIL;
	}
	ktap_end_subtest(suite, failed ? KTAP_FAIL : KTAP_PASS);
	return failed;
}
