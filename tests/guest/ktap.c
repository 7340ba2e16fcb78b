// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "ktap.h"

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void ktap_metric(const char *name, double value, const char *unit)
{
	printf("# METRIC %s %.2f %s\n", name, value, unit);
	fflush(stdout);
}

int ktap_run(const struct ktap_case *cases, int n)
{
	static const char *const directive[] = {
		[KTAP_PASS] = "", [KTAP_FAIL] = "", [KTAP_SKIP] = " # SKIP",
	};
	int i, failed = 0;

	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		enum ktap_result r = cases[i].run();

		printf("%s %d %s%s\n", r == KTAP_FAIL ? "not ok" : "ok", i + 1,
		       cases[i].name, directive[r]);
		fflush(stdout);
		failed += r == KTAP_FAIL;
	}
	return failed;
}
