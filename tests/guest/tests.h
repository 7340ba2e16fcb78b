/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TESTS_H
#define TESTS_H

#include "ktap.h"

enum ktap_result test_init_reached(void);
enum ktap_result test_vmstat_counters(void);
enum ktap_result test_kstack_per_thread(void);
enum ktap_result test_kstack_returns(void);
enum ktap_result test_consume_bad_input(void);
enum ktap_result test_consume_many_threads(void);

#endif /* TESTS_H */
