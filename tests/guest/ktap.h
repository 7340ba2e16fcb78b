/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP v1 producer for the in-guest tests, in the format that
 * Documentation/dev-tools/ktap.rst describes and KUnit prints.
 *
 * Every line goes to /dev/kmsg as a record of its own: the console prints
 * it whole, and a kernel message can come between two lines but never
 * inside one (on a shared console, a printk could land in the middle of a
 * line written to /dev/console).
 */
#ifndef KTAP_H
#define KTAP_H

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

struct ktap_case {
	const char *name;
	enum ktap_result (*run)(void);
};

/* Opens /dev/kmsg for the output (standard output if it cannot). */
void ktap_init(void);

/* One line at the current depth; "\n" in it starts a new line. */
void ktap_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "# message" diagnostic line, attached to the running test. */
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "# METRIC name value unit": a measured figure that the harness collects
 * into its result table.
 */
void ktap_metric(const char *name, double value, const char *unit);

/* The version and plan lines of a document (or subtest) of @n results. */
void ktap_plan(int n);

/*
 * A subtest named @name with @n results: its lines go one level deeper
 * until ktap_end_subtest() prints its own result.
 */
void ktap_subtest(const char *name, int n);
void ktap_end_subtest(const char *name, enum ktap_result r);

/* The next result at the current depth. */
void ktap_result(const char *name, enum ktap_result r, const char *reason);

/*
 * Whether the test @name (suite.case, as kunit.filter_glob takes it) is
 * selected by the glob in the TESTS environment variable (all if unset).
 */
int ktap_selected(const char *name);

/*
 * Runs the selected ones of @cases as subtest @suite (cases named
 * suite.case in TESTS) and prints the suite's result; returns the number
 * that failed. Prints nothing if none is selected.
 */
int ktap_run_suite(const char *suite, const struct ktap_case *cases, int n);

/*
 * An invariant that every case must leave intact: ktap_run_suite() calls
 * @check after each case that did not skip, and fails the case if it
 * returns non-zero. NULL for none.
 */
void ktap_check_after_each(int (*check)(void));

/* The name of the case ktap_run_suite() is running (NULL: none). */
const char *ktap_current_case(void);

/* How many of @cases of @suite are selected. */
int ktap_count_selected(const char *suite, const struct ktap_case *cases, int n);

#endif /* KTAP_H */
