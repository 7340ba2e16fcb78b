// SPDX-License-Identifier: GPL-2.0
/*
 * /compat_tls: an AArch32 program, run by /init on an arm64 kernel with
 * CONFIG_COMPAT (init.compat_tls_after_fault). A compat task's TLS pointer
 * lives in TPIDRURO (TPIDRRO_EL0 to the kernel), which user space can read
 * but not write. The arm64 EL1 vectors borrow that register to grow a
 * dynamic stack; whatever they do with it, every return to user space
 * must hand back exactly the value the task set (glibc's thread pointer).
 *
 * For each depth, a new child (a new kernel stack with its top page
 * mapped) reads TPIDRURO, has the kernel copy two pages to fresh user
 * memory from DEPTH bytes down its stack through
 * /sys/kernel/debug/dynamic_stack/copy (the copy faults on the user page
 * with the kernel's SP below the mapped page, which takes the EL1 vector's
 * growth path), and reads TPIDRURO again. The child writes both values to
 * a shared page and exits at once: with its TLS pointer changed, glibc
 * could not be trusted (errno, stdio), so it makes no other call. Exit
 * status 0: every child saw its TLS pointer unchanged and got its copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define COPY		"/sys/kernel/debug/dynamic_stack/copy"
#define PAGE		4096
/* The depths at which the copy's fault frame leaves the top stack page. */
#define DEPTH_FIRST	2048
#define DEPTH_LAST	6144
#define DEPTH_STEP	16

enum child_exit { SAME, CHANGED, SHORT_COPY, SETUP };

struct seen {
	unsigned long before, after;
	long copied;
};

static unsigned long read_tpidruro(void)
{
	unsigned long v;

	asm volatile("mrc p15, 0, %0, c13, c0, 3" : "=r" (v));
	return v;
}

/* In the child: one copy from @depth; never returns. */
static void copy_child(int fd, long depth, volatile struct seen *seen)
{
	char *buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long before, after;
	ssize_t n;

	if (buf == MAP_FAILED)
		_exit(SETUP);
	before = read_tpidruro();
	n = pread(fd, buf, 2 * PAGE, depth);
	after = read_tpidruro();
	seen->before = before;
	seen->after = after;
	seen->copied = n;
	if (after != before)
		_exit(CHANGED);
	_exit(n == 2 * PAGE ? SAME : SHORT_COPY);
}

int main(void)
{
	volatile struct seen *seen;
	int copies = 0, changed = 0, other = 0, status;
	int fd = open(COPY, O_RDONLY);
	long depth;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fd < 0) {
		printf("# compat_tls: %s: %s\n", COPY, strerror(errno));
		return 1;
	}
	seen = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		printf("# compat_tls: mmap: %s\n", strerror(errno));
		return 1;
	}
	printf("# compat_tls: TPIDRURO of this AArch32 task: %#lx\n",
	       read_tpidruro());
	for (depth = DEPTH_FIRST; depth <= DEPTH_LAST; depth += DEPTH_STEP) {
		memset((void *)seen, 0, sizeof(*seen));
		pid = fork();
		if (pid < 0) {
			printf("# compat_tls: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0)
			copy_child(fd, depth, seen);
		if (waitpid(pid, &status, 0) != pid) {
			printf("# compat_tls: waitpid: %s\n", strerror(errno));
			return 1;
		}
		copies++;
		if (WIFEXITED(status) && WEXITSTATUS(status) == SAME)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) == CHANGED) {
			if (changed++ < 5)
				printf("# compat_tls: depth %ld: TPIDRURO %#lx before the copy, %#lx after\n",
				       depth, seen->before, seen->after);
			continue;
		}
		if (other++ < 5)
			printf("# compat_tls: depth %ld: child status %#x, copy returned %ld\n",
			       depth, status, seen->copied);
	}
	printf("# compat_tls: %d copies from depths %d to %d bytes: TPIDRURO changed in %d, %d other failures\n",
	       copies, DEPTH_FIRST, DEPTH_LAST, changed, other);
	return changed || other;
}
