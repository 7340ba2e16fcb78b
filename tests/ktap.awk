#!/usr/bin/awk -f
# Reads a guest console log and prints what it ran, for the matrix:
#   passed N / failed N / skipped N     leaf test cases, KTAP (KUnit, /init)
#   metric NAME VALUE UNIT              "# METRIC" lines from the tests
#   problem TEXT                        anything that fails the boot
#
# Leaves are counted at any depth; a parent's own result only counts when
# it failed with no failed child (a suite that failed to start). Plans are
# checked at every depth, so a guest that stops mid-way is a failure.
# -v require=NAME: a result for a top-level test NAME must be present.
# -v expect=REGEX: a crash test. The first console line that matches REGEX
#   is the passing result of the top-level test that was running, and the
#   oops or panic after it is what the test asked for. An oops before it,
#   or no such line, fails the boot.

function problem(text) {
	problems[++nproblems] = text
}

function close_level(d,	i) {
	for (i = depth_max; i >= d; i--) {
		if (started[i] && plan[i] != "" && plan[i] != count[i])
			problem("planned " plan[i] " results at depth " i \
				", saw " count[i])
		started[i] = 0; plan[i] = ""; count[i] = 0
		had_children[i] = 0; child_failed[i] = 0
	}
}

BEGIN {
	passed = failed = skipped = ndocs = nproblems = 0
	depth_max = 8
	close_level(0)
}

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	line = $0
}

expect != "" && !expected && line ~ expect {
	expected = 1
	passed++
	count[0]++
	next
}

line ~ /Oops|BUG:|kernel BUG at|WARNING:|Kernel panic|detected stall|Unable to handle kernel/ {
	if (!expected)
		problem("kernel: " line)
}

{
	match(line, /^ */)
	d = int(RLENGTH / 4)
	body = substr(line, RLENGTH + 1)
}

body ~ /^KTAP version [0-9]+$/ {
	if (d == 0) {
		close_level(0)
		ndocs++
	}
	started[d] = 1
	next
}

body ~ /^1\.\.[0-9]+/ {
	split(body, a, /\.\./)
	plan[d] = a[2] + 0
	started[d] = 1
	next
}

body ~ /^# METRIC / {
	print "metric " substr(body, 10)
	next
}

body ~ /^(not )?ok [0-9]+/ {
	ok = body !~ /^not ok/
	name = body
	sub(/^(not )?ok [0-9]+ /, "", name)
	sub(/ *#.*$/, "", name)
	skip = body ~ /# *[Ss][Kk][Ii][Pp]/
	if (d == 0)
		seen[name] = 1
	parent = had_children[d + 1]
	parent_failed = child_failed[d + 1]
	if (started[d + 1])
		close_level(d + 1)
	if (parent) {
		if (!ok && !parent_failed) {
			failed++
			problem("not ok: " name)
		}
	} else if (skip) {
		skipped++
	} else if (ok) {
		passed++
	} else {
		failed++
		problem("not ok: " name)
	}
	if (!ok)
		child_failed[d] = 1
	started[d] = 1
	count[d]++
	had_children[d] = 1
	next
}

END {
	close_level(0)
	if (!ndocs)
		problem("no KTAP output")
	if (require != "" && !seen[require])
		problem("no result for " require)
	if (expect != "" && !expected)
		problem("no line matching /" expect "/")
	print "passed " passed
	print "failed " failed
	print "skipped " skipped
	for (i = 1; i <= nproblems; i++)
		print "problem " problems[i]
}
