/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP v1 producer for the in-guest tests, in the format that
 * Documentation/dev-tools/ktap.rst describes and KUnit prints.
 */
#ifndef KTAP_H
#define KTAP_H

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

struct ktap_case {
	const char *name;
	enum ktap_result (*run)(void);
};

/* "# name: message" diagnostic line, attached to the running test. */
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "# METRIC name value unit": a measured figure that the harness collects
 * into its result table.
 */
void ktap_metric(const char *name, double value, const char *unit);

/* Run @n cases as one KTAP document and return the number that failed. */
int ktap_run(const struct ktap_case *cases, int n);

#endif /* KTAP_H */
