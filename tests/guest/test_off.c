// SPDX-License-Identifier: GPL-2.0
/*
 * A dynamic kernel booted with dynamic_stack=off (tests/guest/off.cmdline,
 * which sets DYNAMIC_STACK_OFF=1): its log says that stacks are whole, and
 * no stack grows. A thread on each CPU goes as deep as consume() takes them
 * and no fault maps a stack page (nr_dynamic_stacks_faults, and the
 * dynamic_stack_pages_mapped event where the kernel counts events, stay
 * 0 from boot), and nr_kernel_stack is what the page tables map. What a
 * thread costs, THREAD_SIZE, is kstack_kib_per_thread's to check.
 */
#include <string.h>
#include <unistd.h>

#include "kstat.h"
#include "tests.h"

#define OFF_LOG		"dynamic stacks off (dynamic_stack=off)"

enum ktap_result test_dynamic_stack_off(void)
{
	enum ktap_result r = KTAP_PASS;
	long faults, mapped, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, i, err;

	if (!klog_has(OFF_LOG)) {
		ktap_diag("no \"%s\" in the kernel log", OFF_LOG);
		r = KTAP_FAIL;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		if ((err = pin_to_cpu(cpu))) {
			ktap_diag("CPU %d: %s", cpu, strerror(err));
			return KTAP_FAIL;
		}
		for (i = 0; i < 20; i++) {
			err = consume(consume_limit());
			if (err) {
				ktap_diag("consume(%ld) on CPU %d: %s",
					  consume_limit(), cpu, strerror(err));
				return KTAP_FAIL;
			}
		}
	}
	pin_to_cpu(0);
	faults = vmstat_read("nr_dynamic_stacks_faults");
	mapped = vmstat_read("dynamic_stack_pages_mapped");
	ktap_diag("after 20 consume(%ld) on each of %ld CPUs: nr_dynamic_stacks_faults %ld KiB, dynamic_stack_pages_mapped %ld",
		  consume_limit(), ncpus, faults, mapped);
	if (faults != 0 || mapped > 0) {
		ktap_diag("a stack grew: expected 0 (and -1 for a counter the kernel lacks)");
		r = KTAP_FAIL;
	}
	if (!stack_pages_agree("dynamic stacks off"))
		r = KTAP_FAIL;
	return r;
}
