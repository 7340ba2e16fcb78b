#!/usr/bin/awk -f
# Reads a guest console log and prints what it ran, for the matrix:
#   case PASS|FAIL|SKIP NAME      one line per leaf test case, KTAP from
#                                 KUnit and from /init; NAME is the names
#                                 of its parents and its own, joined by "."
#                                 (suite.case, init.case, suite.case.param)
#   diag NAME TEXT                after a failed case: the last "# "
#                                 diagnostic lines (up to 8) printed since
#                                 the result before it, which say why
#   metric NAME VALUE UNIT        "# METRIC" lines from the tests
#   problem TEXT                  anything that fails the boot
#
# It checks what kunit.py's parser checks: a version line and a plan line
# at every level, results numbered 1..N in order, no name twice in one
# level, as many results as the plan says, a parent that failed only if a
# child did; and every kernel complaint that tests/complaints lists.
#
# -v complaints=FILE: the complaint patterns (default tests/complaints).
# -v crash=NAME -v expect=REGEX: a crash boot. The first console line that
#   matches REGEX is the passing result of case NAME. What follows it (the
#   oops and panic the test asked for) is read only for a second line that
#   matches REGEX or a second oops ("[#2]": the report came twice, or the
#   report itself faulted) and for the panic, which must come. A complaint
#   before it, or no such line, fails the boot.
# -v oom=1: a boot that provokes the OOM killer (the oom suite of /init).
#   Its kills ("Out of memory: Killed process ...", or "...: OOM victim
#   N (COMM) is already exiting" when the victim died meanwhile) are not
#   complaints, nor is the one call trace of each of its reports
#   (dump_stack(), after "... invoked oom-killer:"), nor a killed task's
#   own "page allocation failure" and its call trace. Every other
#   complaint ("Out of memory and no killable processes", a panic, ...),
#   and a second call trace in one report, still fails the boot.

function problem(text) {
	problems[++nproblems] = text
}

# A result at depth @d closes the levels below it. Their buffered leaves
# become children of the result (@name), or are lost with a problem.
function close_level(d, name,	i, j) {
	for (i = depth_max; i >= d; i--) {
		if (!started[i])
			continue
		# KUnit prints no plan for a parameterised case (the number of
		# parameters is not known in advance); kunit.py then takes the
		# result line that names the subtest as its end, and so do we,
		# below a suite only.
		param = i >= 2 && i == d && name != "" && subtest[i] == name
		if (plan[i] == "" && !param)
			problem("no plan line at depth " i where(i))
		else if (plan[i] == "" && !count[i])
			problem("no result at depth " i where(i))
		else if (plan[i] != "" && plan[i] != count[i])
			problem("planned " plan[i] " results at depth " i where(i) \
				", saw " count[i] + 0)
		for (j = 1; j <= nleaf[i]; j++) {
			if (i == d && name != "")
				add_leaf(i - 1, leaf_status[i, j], name "." leaf_name[i, j],
					 leaf_diag[i, j])
			else if (i > 0)
				add_leaf(i - 1, leaf_status[i, j], \
					 (subtest[i] != "" ? subtest[i] : "?") "." leaf_name[i, j],
					 leaf_diag[i, j])
			else
				print_case(leaf_status[i, j], leaf_name[i, j], leaf_diag[i, j])
		}
		started[i] = 0; plan[i] = ""; count[i] = 0; nleaf[i] = 0
		subtest[i] = ""; failed_leaf[i] = 0
	}
}

function where(i) {
	return subtest[i] != "" ? " (" subtest[i] ")" : ""
}

# A leaf's diagnostic lines travel with it, joined by "\n", until it is
# printed; only a failed leaf's are.
function print_case(status, name, diag,	n, a, i) {
	print "case " status " " name
	if (status != "FAIL" || diag == "")
		return
	n = split(diag, a, "\n")
	for (i = 1; i <= n; i++)
		print "diag " name " " a[i]
}

function add_leaf(d, status, name, diag) {
	if (d < 0) {
		print_case(status, name, diag)
		return
	}
	nleaf[d]++
	leaf_name[d, nleaf[d]] = name
	leaf_status[d, nleaf[d]] = status
	leaf_diag[d, nleaf[d]] = diag
	if (status == "FAIL")
		failed_leaf[d] = 1
}

BEGIN {
	ndocs = nproblems = 0
	depth_max = 8
	if (complaints == "")
		complaints = "tests/complaints"
	while ((getline l < complaints) > 0) {
		if (l ~ /^#/ || l !~ /\t/)
			continue
		split(l, f, /\t+/)
		ncomplaints++
		complaint_re[ncomplaints] = f[2]
	}
	close(complaints)
	if (!ncomplaints)
		problem("no complaint patterns in " complaints)
	for (i = 0; i <= depth_max; i++)
		started[i] = 0
}

{
	sub(/\r$/, "")
	# printk's prefix: the time stamp, and the caller with PRINTK_CALLER.
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	sub(/^\[ *[TC][0-9]+\] /, "")
	line = $0
}

crashed {
	if (line ~ /^Kernel panic - not syncing/)
		panicked = 1
	else if (line ~ expect && !panicked)
		problem("the crash report came again: " line)
	else if (line ~ /\[#([2-9]|[1-9][0-9]+)\]/ && !panicked)
		problem("another oops after the crash report: " line)
	next
}

expect != "" && line ~ expect {
	crashed = 1
	print "case PASS " crash
	next
}

oom && line ~ / invoked oom-killer: / {
	oom_trace = 1
}

oom && line ~ /^Out of memory: Killed process [0-9]+ / {
	match(line, /process [0-9]+/)
	oom_killed[substr(line, RSTART + 8, RLENGTH - 8)] = 1
	next
}

oom && line ~ /^Out of memory: OOM victim [0-9]+ .* is already exiting/ {
	next
}

# A killed task's own allocation may fail (warn_alloc()): expected only if
# the next line, dump_stack()'s, names a task the OOM killer killed.
oom && line ~ /: page allocation failure: / {
	oom_alloc = line
	next
}

oom && oom_alloc != "" {
	if (line ~ /^CPU: [0-9]+ UID: [0-9]+ PID: [0-9]+ / &&
	    match(line, /PID: [0-9]+/) &&
	    (substr(line, RSTART + 5, RLENGTH - 5) in oom_killed)) {
		oom_trace = 1
		oom_alloc = ""
		next
	}
	problem("kernel: " oom_alloc)
	oom_alloc = ""
}

oom && oom_trace && line ~ /^Call [Tt]race:/ {
	oom_trace = 0
	next
}

{
	for (i = 1; i <= ncomplaints; i++)
		if (line ~ complaint_re[i]) {
			problem("kernel: " line)
			break
		}
}

{
	match(line, /^ */)
	d = int(RLENGTH / 4)
	body = substr(line, RLENGTH + 1)
	if (d > depth_max)
		next
}

body ~ /^KTAP version [0-9]+$/ || body ~ /^TAP version [0-9]+$/ {
	if (d == 0) {
		close_level(0, "")
		ndocs++
	} else if (started[d]) {
		problem("a second version line at depth " d where(d))
	}
	started[d] = 1
	next
}

body ~ /^# Subtest: / {
	subtest[d] = substr(body, 12)
	next
}

body ~ /^1\.\.[0-9]+/ {
	if (!started[d])
		problem("plan line without a version line at depth " d)
	else if (plan[d] != "")
		problem("a second plan line at depth " d where(d))
	split(body, a, /\.\./)
	plan[d] = a[2] + 0
	started[d] = 1
	next
}

body ~ /^# METRIC / {
	print "metric " substr(body, 10)
	next
}

# Any other diagnostic line, at any depth: the last 8 since a result are
# kept for the next result (KUnit prints a case's one level deeper).
body ~ /^# / {
	ndiag++
	diag_line[ndiag % 8] = body
	next
}

body ~ /^(not )?ok [0-9]+( |$)/ {
	ok = body !~ /^not ok/
	diag = ""
	for (i = ndiag > 8 ? ndiag - 7 : 1; i <= ndiag; i++)
		diag = diag (diag == "" ? "" : "\n") diag_line[i % 8]
	ndiag = 0
	name = body
	sub(/^(not )?ok /, "", name)
	num = name + 0
	sub(/^[0-9]+ */, "", name)
	directive = ""
	if (match(name, / *# */)) {
		directive = substr(name, RSTART + RLENGTH)
		name = substr(name, 1, RSTART - 1)
	}
	sub(/^- */, "", name)
	if (name == "")
		name = "#" num
	skip = directive ~ /^([Ss][Kk][Ii][Pp]|XFAIL)/
	if (!started[d])
		problem("result without a version line at depth " d ": " body)
	started[d] = 1
	count[d]++
	if (num != count[d])
		problem("result " num " (" name ") where " count[d] " was due at depth " d)
	for (i = 1; i < count[d]; i++)
		if (rname[d, i] == name)
			problem("two results named " name " at depth " d where(d))
	rname[d, count[d]] = name
	if (started[d + 1] && nleaf[d + 1]) {
		children_failed = failed_leaf[d + 1]
		close_level(d + 1, name)
		if (!ok && !children_failed && !skip)
			add_leaf(d, "FAIL", name, diag)
		else if (ok && children_failed)
			problem(name " reported ok with a failed case")
	} else {
		if (started[d + 1])
			close_level(d + 1, name)
		add_leaf(d, skip ? "SKIP" : ok ? "PASS" : "FAIL", name, diag)
	}
	next
}

END {
	if (oom_alloc != "")
		problem("kernel: " oom_alloc)
	if (!crashed)
		close_level(0, "")
	if (!ndocs && !crashed)
		problem("no KTAP output")
	if (expect != "" && !crashed)
		problem("no line matching /" expect "/")
	if (crashed && !panicked)
		problem("no \"Kernel panic - not syncing\" after the crash report")
	for (i = 1; i <= nproblems; i++)
		print "problem " problems[i]
}
