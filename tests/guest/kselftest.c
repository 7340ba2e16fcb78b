// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own selftests (tools/testing/selftests), which
 * boot/initramfs.sh builds into /kselftest (KSELFTESTS in boot/ARCH.conf):
 * each program is a case of the suite "kselftest", named after its file.
 *
 * It runs in a session of its own, its standard output and error on a
 * pseudo-terminal, so that stdio flushes each line as it would on a
 * console and nothing is lost when it dies; every line becomes a
 * diagnostic line of the case. Its exit status alone does not decide:
 * several selftests report a failed subtest and still exit 0. A case fails
 * if the program exits neither 0 nor 4 (KSFT_SKIP), dies by a signal, runs
 * longer than the time it is given (killed, with its session), or prints a
 * failure: a KTAP "not ok" line, an x86-style "[FAIL]", or kselftest
 * totals with a failure or an error. It skips if it exits 4, or if its
 * totals count skips and no pass.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "kstat.h"
#include "ktap.h"
#include "tests.h"

/* Where the programs are: /kselftest, or $KSELFTEST_DIR (tests/host). */
static const char *kselftest_dir(void)
{
	const char *d = getenv("KSELFTEST_DIR");

	return d && *d ? d : "/kselftest";
}

#define KSELFTEST_LINES		400
#define KSFT_SKIP		4

static struct ktap_case *cases;
static int nr_cases;

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* The programs in /kselftest, sorted, as cases of one run function. */
static void kselftest_scan(void)
{
	struct dirent **list;
	int i, n;

	if (cases)
		return;
	n = scandir(kselftest_dir(), &list, not_hidden, alphasort);
	if (n <= 0)
		return;
	cases = calloc(n, sizeof(*cases));
	for (i = 0; i < n; i++) {
		if (cases) {
			cases[i].name = strdup(list[i]->d_name);
			cases[i].run = test_kselftest;
			if (!cases[i].name)
				cases[i].name = "kselftest_name_lost";
		}
		free(list[i]);
	}
	free(list);
	if (!cases)
		ktap_diag("%d selftests in %s, no memory to run them", n, kselftest_dir());
	else
		nr_cases = n;
}

int kselftest_count(void)
{
	kselftest_scan();
	return ktap_count_selected("kselftest", cases, nr_cases);
}

int kselftest_run(void)
{
	kselftest_scan();
	return ktap_run_suite("kselftest", cases, nr_cases);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the program's output says. */
struct verdict {
	int lines;
	int failed;		/* a "not ok", "[FAIL]", or failures in totals */
	int all_skipped;	/* totals with skips and no pass */
	char first_failure[160];
};

static void output_line(char *line, struct verdict *v)
{
	const char *s = line + strspn(line, " \t#");
	long pass, fail, xfail, xpass, skip, error;
	size_t n = strlen(line);
	int failure = 0;

	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
	if (v->lines++ < KSELFTEST_LINES)
		ktap_diag("%s", line);
	if (!strncmp(s, "not ok ", 7) || strstr(line, "[FAIL]"))
		failure = 1;
	if (sscanf(s, "Totals: pass:%ld fail:%ld xfail:%ld xpass:%ld skip:%ld error:%ld",
		   &pass, &fail, &xfail, &xpass, &skip, &error) == 6) {
		failure |= fail > 0 || error > 0 || xpass > 0;
		v->all_skipped = !pass && !fail && !error && skip > 0;
	}
	if (failure && !v->failed++)
		snprintf(v->first_failure, sizeof(v->first_failure), "%s", s);
}

/*
 * Copies the output of the program @pid, read from the pseudo-terminal
 * @fd, to diagnostic lines, until the program has exited and what it wrote
 * is read, or @deadline passes. Returns 0 with its wait status in @status,
 * or -1 at the deadline.
 */
static int copy_output(int fd, pid_t pid, int *status, double deadline,
		       struct verdict *v)
{
	char buf[4096];
	size_t len = 0;
	int exited = 0, r = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		char *nl;

		if (!exited && waitpid(pid, status, WNOHANG) == pid)
			exited = 1;
		if (now() > deadline) {
			r = exited ? 0 : -1;
			break;
		}
		if (poll(&p, 1, exited ? 0 : 200) <= 0 || !p.revents) {
			if (exited)
				break;
			continue;
		}
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* EIO: the last holder of the terminal closed it. */
			if (exited)
				break;
			usleep(20000);
			continue;
		}
		len += n;
		buf[len] = '\0';
		/* Whole lines; a line longer than the buffer goes in pieces. */
		while ((nl = strchr(buf, '\n')) || len == sizeof(buf) - 1) {
			size_t l = nl ? (size_t)(nl - buf) : len;

			buf[l] = '\0';
			output_line(buf, v);
			l += !!nl;
			memmove(buf, buf + l, len - l + 1);
			len -= l;
		}
	}
	if (len)
		output_line(buf, v);
	if (v->lines > KSELFTEST_LINES)
		ktap_diag("(%d more lines)", v->lines - KSELFTEST_LINES);
	return r;
}

/* A pseudo-terminal: the master's fd, the slave's path in @slave. */
static int open_pty(char *slave, size_t size)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	struct termios t;

	if (fd < 0)
		return -1;
	if (grantpt(fd) || unlockpt(fd) || ptsname_r(fd, slave, size)) {
		close(fd);
		return -1;
	}
	/* No echo, and "\n" stays "\n". */
	if (!tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/*
 * The time a program is given: CASE_TIMEOUT (the watchdog's, which would
 * reboot the guest) less a margin to kill it and report, at most 180 s.
 */
static double kselftest_timeout(void)
{
	double t = env_double("CASE_TIMEOUT", 240) - 30;

	return t > 180 ? 180 : t < 10 ? 10 : t;
}

enum ktap_result test_kselftest(void)
{
	const char *name = ktap_current_case();
	double timeout = kselftest_timeout();
	struct verdict v = { 0 };
	char path[512], slave[128];
	int pty, status, timed_out;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", kselftest_dir(), name);
	pty = open_pty(slave, sizeof(slave));
	if (pty < 0) {
		ktap_diag("no pseudo-terminal: %s", strerror(errno));
		return KTAP_FAIL;
	}
	pid = fork();
	if (pid < 0) {
		ktap_diag("fork: %s", strerror(errno));
		close(pty);
		return KTAP_FAIL;
	}
	if (pid == 0) {
		int fd;

		setsid();
		fd = open(slave, O_RDWR);
		if (fd < 0)
			_exit(126);
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
		if (chdir(kselftest_dir()))
			fprintf(stderr, "chdir %s: %s\n", kselftest_dir(), strerror(errno));
		execl(path, name, (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	timed_out = copy_output(pty, pid, &status, now() + timeout, &v);
	close(pty);
	/* The program's session: the program if it still runs, its children. */
	kill(-pid, SIGKILL);
	if (timed_out && waitpid(pid, &status, 0) != pid) {
		ktap_diag("waitpid: %s", strerror(errno));
		return KTAP_FAIL;
	}
	/* What was left to /init (orphans of the program), reaped. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (timed_out) {
		ktap_diag("%s: no end after %.0f s, killed", name, timeout);
		return KTAP_FAIL;
	}
	if (WIFSIGNALED(status)) {
		ktap_diag("%s: killed by signal %d (%s)", name, WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
		return KTAP_FAIL;
	}
	if (WEXITSTATUS(status) && WEXITSTATUS(status) != KSFT_SKIP) {
		ktap_diag("%s: exit status %d", name, WEXITSTATUS(status));
		return KTAP_FAIL;
	}
	if (v.failed) {
		ktap_diag("%s: exit status %d, but %d failures reported, the first: %s",
			  name, WEXITSTATUS(status), v.failed, v.first_failure);
		return KTAP_FAIL;
	}
	if (WEXITSTATUS(status) == KSFT_SKIP || v.all_skipped)
		return KTAP_SKIP;
	return KTAP_PASS;
}
