// SPDX-License-Identifier: GPL-2.0
/*
 * A synchronous fault taken at a stack page boundary: through
 * /sys/kernel/debug/dynamic_stack/copy, a new thread (one mapped stack page)
 * uses its kernel stack down to a depth around PAGE_SIZE and copies to user
 * memory from there. The user pages are not faulted in yet, so the
 * copy_to_user() faults, and the fault's frame and handler land below the
 * mapped floor of the stack. The copy must return what it copied and the
 * bytes must be right; a page that cannot be written must end the copy
 * there: -EFAULT for the first page, a short count for the second. On
 * arm64, the thread must find TPIDRRO_EL0 as it was: 0 for a native task.
 *
 * Two more cases, at every 8-byte depth, take a permission fault instead
 * of a translation fault: pages that were read first (the zero page is
 * mapped read-only) and pages shared copy-on-write with the parent (the
 * copy runs in a child process, with its own new stack). The handler of
 * that fault needs the faulting address: a stack fault taken while it
 * pushes its first frames, before it has read it (arm64: FAR_EL1), must
 * not replace it with a stack address and make the copy fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

#define COPY		"/sys/kernel/debug/dynamic_stack/copy"
#define PAGE		4096
/* Stack pointers from half a page above the floor to half a page below. */
#define DEPTH_FIRST	(PAGE / 2)
#define DEPTH_LAST	(PAGE + PAGE / 2)
#define DEPTH_STEP	48
#define FINE_STEP	8	/* for the permission faults */

/* The kernel's DYNAMIC_STACK_COPY_BYTE(). */
static unsigned char copy_byte(size_t i)
{
	return (unsigned char)(i * 7 + 1);
}

enum copy_case {
	BOTH_WRITABLE,		/* expect 2 pages, every byte right */
	SECOND_READONLY,	/* expect a short copy within the first page */
	NONE_WRITABLE,		/* expect -EFAULT */
	ZERO_PAGE,		/* read first: expect 2 pages, every byte right */
	COPY_ON_WRITE,		/* shared with the parent: the same */
	NR_COPY_CASES
};

static const char *const case_name[] = {
	"two writable pages", "second page read-only", "no writable page",
	"two pages read first", "two pages shared copy-on-write"
};

struct copy_run {
	int fd;
	long depth;
	enum copy_case c;
	char why[96];		/* empty if the copy did what was expected */
};

/* Checks what a copy returned and wrote; sets r->why if it was wrong. */
static void copy_check(struct copy_run *r, const unsigned char *buf,
		       ssize_t n, int err)
{
	int full = r->c != SECOND_READONLY;
	ssize_t i, max = full ? 2 * PAGE : PAGE;

	if (r->c == NONE_WRITABLE) {
		if (n != -1 || err != EFAULT)
			snprintf(r->why, sizeof(r->why), "returned %zd (%s), expected EFAULT",
				 n, n < 0 ? strerror(err) : "no error");
		return;
	}
	if (n <= 0 || n > max || (full && n != max)) {
		snprintf(r->why, sizeof(r->why), "returned %zd (%s), expected %s%zd",
			 n, n < 0 ? strerror(err) : "no error",
			 full ? "" : "1 to ", max);
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] != copy_byte(i)) {
			snprintf(r->why, sizeof(r->why), "byte %zd is 0x%02x, expected 0x%02x",
				 i, buf[i], copy_byte(i));
			return;
		}
	}
}

/*
 * The copy-on-write case: @buf's pages written here, then shared with a
 * child process, which makes the copy (to a new stack of its own) and
 * exits with its verdict: 0, or 1 with r->why set in the child.
 */
static void cow_copy(struct copy_run *r, unsigned char *buf)
{
	int status, err;
	pid_t pid;
	ssize_t n;

	memset(buf, 0xa5, 2 * PAGE);
	pid = fork();
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		n = pread(r->fd, buf, 2 * PAGE, r->depth);
		err = errno;
		copy_check(r, buf, n, err);
		_exit(r->why[0] ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		snprintf(r->why, sizeof(r->why), "waitpid: %s", strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(r->why, sizeof(r->why),
			 "the child's copy went wrong (status %#x)", status);
}

/* One copy, in a new thread: its stack has just its preallocated page. */
static void *copy_thread(void *arg)
{
	struct copy_run *r = arg;
	unsigned char *buf;
	ssize_t n;
	int err;

	buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		snprintf(r->why, sizeof(r->why), "mmap: %s", strerror(errno));
		return NULL;
	}
	if ((r->c == SECOND_READONLY &&
	     mprotect(buf + PAGE, PAGE, PROT_READ)) ||
	    (r->c == NONE_WRITABLE &&
	     mprotect(buf, 2 * PAGE, PROT_READ))) {
		snprintf(r->why, sizeof(r->why), "mprotect: %s", strerror(errno));
		munmap(buf, 2 * PAGE);
		return NULL;
	}
	if (r->c == ZERO_PAGE && (buf[0] | buf[PAGE]) != 0) {
		snprintf(r->why, sizeof(r->why), "fresh memory not zero");
		munmap(buf, 2 * PAGE);
		return NULL;
	}
	if (r->c == COPY_ON_WRITE) {
		cow_copy(r, buf);
		munmap(buf, 2 * PAGE);
		return NULL;
	}
	n = pread(r->fd, buf, 2 * PAGE, r->depth);
	err = errno;
	copy_check(r, buf, n, err);
#ifdef __aarch64__
	/*
	 * The EL1 vectors borrow TPIDRRO_EL0 when the fault grows the stack;
	 * a native task must read 0 there again, not a kernel value.
	 */
	{
		unsigned long ro;

		asm volatile("mrs %0, tpidrro_el0" : "=r" (ro));
		if (ro && !r->why[0])
			snprintf(r->why, sizeof(r->why),
				 "TPIDRRO_EL0 is %#lx after the copy, expected 0", ro);
	}
#endif
	munmap(buf, 2 * PAGE);
	return NULL;
}

enum ktap_result test_copy_to_user_at_floor(void)
{
	struct copy_run r;
	pthread_t t;
	int copies = 0, wrong = 0;
	int fd = open(COPY, O_RDONLY);

	if (fd < 0) {
		ktap_diag("%s: %s", COPY, strerror(errno));
		return KTAP_FAIL;
	}
	for (r.depth = DEPTH_FIRST; r.depth <= DEPTH_LAST; r.depth += FINE_STEP) {
		for (r.c = 0; r.c < NR_COPY_CASES; r.c++) {
			if (r.c < ZERO_PAGE && (r.depth - DEPTH_FIRST) % DEPTH_STEP)
				continue;
			r.fd = fd;
			r.why[0] = '\0';
			if (pthread_create(&t, NULL, copy_thread, &r)) {
				ktap_diag("pthread_create failed");
				close(fd);
				return KTAP_FAIL;
			}
			pthread_join(t, NULL);
			copies++;
			if (r.why[0] && wrong++ < 10)
				ktap_diag("depth %ld, %s: %s", r.depth,
					  case_name[r.c], r.why);
		}
	}
	close(fd);
	ktap_diag("%d copies from depths %d to %d bytes (steps of %d, %d for the permission faults): %d wrong",
		  copies, DEPTH_FIRST, DEPTH_LAST, DEPTH_STEP, FINE_STEP, wrong);
	return wrong ? KTAP_FAIL : KTAP_PASS;
}
