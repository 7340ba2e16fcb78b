// SPDX-License-Identifier: GPL-2.0
/*
 * A user program that reads its own kernel stack must get SIGSEGV at once,
 * whether the page it reads is mapped or not: a user access to a kernel
 * address is never a reason to map a stack page or to retry the access.
 * A kernel that maps the page, or retries the access forever, also tells a
 * user where its kernel stack is and lets it pin the pool's pages.
 *
 * For each page of the bottom 16 KiB of the stack (every THREAD_SIZE is
 * that much or more), a new child process learns the address of its own
 * kernel stack from /sys/kernel/debug/dynamic_stack/base (a raw address:
 * the dynamic kernels boot with no_hash_pointers) and reads a byte of that
 * page. Its SIGSEGV handler exits 0 if the signal names that address; a
 * read that returns exits 2; a child still there after PROBE_SECONDS is
 * killed by its alarm (the kernel kept retrying the fault).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define PAGE		4096
#define PROBE_PAGES	4
#define PROBE_OFFSET	64	/* where in the page the child reads */
#define PROBE_SECONDS	5

enum probe_exit {
	PROBE_SIGSEGV,		/* SIGSEGV for the address read: right */
	PROBE_NO_BASE,		/* the stack's address could not be read */
	PROBE_READ,		/* the read returned a byte of kernel memory */
	PROBE_WRONG_ADDR,	/* SIGSEGV, but for another address */
	PROBE_SETUP,		/* sigaction() failed */
};

static volatile char *probe_addr;

static void probe_segv(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	_exit(info->si_addr == (void *)probe_addr ? PROBE_SIGSEGV :
	      PROBE_WRONG_ADDR);
}

/* In the child: reads page @page of its own kernel stack; never returns. */
static void probe_child(int page)
{
	struct sigaction sa;
	char base[STACK_BASE_LEN], *end;
	unsigned long addr;

	if (stack_base(base))
		_exit(PROBE_NO_BASE);
	errno = 0;
	addr = strtoul(base, &end, 16);
	/* A hashed %p has its top 32 bits clear; a kernel address never. */
	if (errno || *end || (long)addr >= 0)
		_exit(PROBE_NO_BASE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = probe_segv;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSEGV, &sa, NULL))
		_exit(PROBE_SETUP);
	probe_addr = (volatile char *)(addr + page * PAGE + PROBE_OFFSET);
	alarm(PROBE_SECONDS);
	(void)*probe_addr;
	_exit(PROBE_READ);
}

/* Probes page @page in a new child; returns 0 if it got SIGSEGV. */
static int probe_page(int page)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		ktap_diag("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		probe_child(page);
	if (waitpid(pid, &status, 0) != pid) {
		ktap_diag("waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_SIGSEGV)
		return 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		ktap_diag("page %d: no SIGSEGV within %d s (the fault is retried)",
			  page, PROBE_SECONDS);
	else if (WIFSIGNALED(status))
		ktap_diag("page %d: child killed by signal %d", page,
			  WTERMSIG(status));
	else if (WEXITSTATUS(status) == PROBE_NO_BASE)
		ktap_diag("page %d: no raw stack address in dynamic_stack/base (no_hash_pointers?)",
			  page);
	else if (WEXITSTATUS(status) == PROBE_READ)
		ktap_diag("page %d: the read of the kernel stack returned", page);
	else if (WEXITSTATUS(status) == PROBE_WRONG_ADDR)
		ktap_diag("page %d: SIGSEGV for another address", page);
	else
		ktap_diag("page %d: child exited %d", page, WEXITSTATUS(status));
	return -1;
}

enum ktap_result test_user_read_kernel_stack(void)
{
	int page, wrong = 0;

	for (page = 0; page < PROBE_PAGES; page++)
		if (probe_page(page))
			wrong++;
	ktap_diag("%d stack pages read from user space: %d without a prompt SIGSEGV",
		  PROBE_PAGES, wrong);
	return wrong ? KTAP_FAIL : KTAP_PASS;
}
