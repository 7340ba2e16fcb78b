/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WATCHDOG_H
#define WATCHDOG_H

/*
 * Case @name starts now (NULL: none runs). If it has not ended after
 * CASE_TIMEOUT seconds, the tasks are shown, the case fails and the guest
 * reboots.
 */
void watchdog_case(const char *name);

/* CASE_TIMEOUT from the command line, 240 if unset or not positive. */
long watchdog_timeout(void);

#endif
