/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TESTS_H
#define TESTS_H

#include "ktap.h"

enum ktap_result test_init_reached(void);
enum ktap_result test_vmstat_counters(void);
enum ktap_result test_kstack_per_thread(void);
enum ktap_result test_kstack_returns(void);
enum ktap_result test_threads_max(void);
enum ktap_result test_threads_max_off(void);
enum ktap_result test_consume_bad_input(void);
enum ktap_result test_consume_many_threads(void);
enum ktap_result test_no_stale_data(void);
enum ktap_result test_copy_to_user_at_floor(void);
enum ktap_result test_user_read_kernel_stack(void);
enum ktap_result test_compat_tls(void);
enum ktap_result test_switch_at_floor(void);
enum ktap_result test_reclaim_sleeping(void);
enum ktap_result test_reclaim_stress(void);
enum ktap_result test_reclaim_tlb_window(void);
enum ktap_result test_reclaim_stack_reader(void);
enum ktap_result test_reclaim_second_chance(void);
enum ktap_result test_reclaim_many_sleepers(void);
enum ktap_result test_irq_storm(void);
enum ktap_result test_refill_reserve(void);
enum ktap_result test_hotplug_enomem(void);
enum ktap_result test_oom_stress(void);
enum ktap_result test_memcg_kernel_stack(void);
enum ktap_result test_memcg_reclaim(void);
enum ktap_result test_cpu_hotplug(void);
enum ktap_result test_kmemleak_scan(void);
enum ktap_result test_dynamic_stack_off(void);

/*
 * The kernel's selftests in /kselftest, as the suite "kselftest": how many
 * TESTS selects, and their run (the number that failed).
 */
int kselftest_count(void);
int kselftest_run(void);
enum ktap_result test_kselftest(void);

/* The benchmarks (BENCH= on the command line), as one KTAP document. */
int bench_run(void);

#endif /* TESTS_H */
