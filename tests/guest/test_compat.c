// SPDX-License-Identifier: GPL-2.0
/*
 * The AArch32 side of the arm64 tests: /compat_tls (tests/compat), run as
 * a compat task, checks that the EL1 vectors' growth path hands back its
 * TLS register unchanged. It prints its own diagnostics; its exit status
 * is the verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "tests.h"

#define COMPAT_TLS	"/compat_tls"

enum ktap_result test_compat_tls(void)
{
	int status;
	pid_t pid;

	if (access(COMPAT_TLS, X_OK)) {
		ktap_diag("%s: %s (the initramfs has no AArch32 program)",
			  COMPAT_TLS, strerror(errno));
		return KTAP_FAIL;
	}
	pid = fork();
	if (pid < 0) {
		ktap_diag("fork: %s", strerror(errno));
		return KTAP_FAIL;
	}
	if (pid == 0) {
		execl(COMPAT_TLS, COMPAT_TLS, (char *)NULL);
		ktap_diag("exec %s: %s (a kernel without CONFIG_COMPAT?)",
			  COMPAT_TLS, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		ktap_diag("waitpid: %s", strerror(errno));
		return KTAP_FAIL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return KTAP_PASS;
	ktap_diag("%s: %s %d", COMPAT_TLS,
		  WIFEXITED(status) ? "exit status" : "killed by signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return KTAP_FAIL;
}
