#!/usr/bin/awk -f
# The verdict on one cell of the matrix, from what its boots ran:
#
#   awk -v cell=ARCH/VARIANT [-v tests=GLOB] -f tests/verdict.awk \
#       tests/cases tests/xfail tests/skips BOOT.ktap...
#
# tests/cases lists the cases every cell must run, tests/xfail the known
# failures (a defect with an open fix), tests/skips the skips allowed where
# a QEMU machine lacks a feature; each line "CELLS<TAB>CASE[<TAB>REASON]",
# CELLS a comma-separated list of globs over ARCH/VARIANT, "!" before one
# excluding what it matches. An xfail line may add "<TAB>REGEX": complaints
# on the console of the boot where the case failed that match it belong to
# that failure. BOOT.ktap is tests/ktap.awk's output for each boot.
#
# A case passes only if it is expected and reported ok; expected and not
# reported, reported and not expected, failed, or skipped without an
# allow-list entry are failures; an xfail that failed (or did not report)
# is "xfail", one that passed is an XPASS, which fails until its entry is
# removed. With -v tests=GLOB only the expected cases that GLOB matches
# are expected (the glob of kunit.filter_glob, over the same names).
#
# Prints "verdict ok|xfail|FAIL", the counts ("passed N", "failed N",
# "skipped N", "xfail N"), then "detail STATUS CASE: WHY" for every case
# that did not simply pass, each failed one followed by its diagnostic
# lines from tests/ktap.awk as "diag TEXT", and "problem TEXT" for what
# failed otherwise.
# With -v list=1 it prints only the expected cases, one per line.

function glob_re(g,	r, i, c) {
	r = "^"
	for (i = 1; i <= length(g); i++) {
		c = substr(g, i, 1)
		if (c == "*")
			r = r ".*"
		else if (c == "?")
			r = r "."
		else if (c ~ /[][\\.^$+(){}|]/)
			r = r "\\" c
		else
			r = r c
	}
	return r "$"
}

function cells_match(list,	n, a, i, g, neg, yes) {
	n = split(list, a, /,/)
	yes = 0
	for (i = 1; i <= n; i++) {
		g = a[i]
		gsub(/^ +| +$/, "", g)
		neg = g ~ /^!/
		if (neg)
			g = substr(g, 2)
		if (cell ~ glob_re(g)) {
			if (neg)
				return 0
			yes = 1
		}
	}
	return yes
}

function detail(status, name, why) {
	details[++ndetails] = "detail " status " " name ": " why
	if (status != "SKIP" && name in diag)
		details[ndetails] = details[ndetails] diag[name]
}

BEGIN {
	FS = "\t+"
	if (cell == "") {
		print "verdict FAIL"
		print "problem verdict.awk: no cell given"
		exit 1
	}
	tests_re = tests == "" ? "" : glob_re(tests)
}

# The first three files are the lists, which may be empty (and so have no
# line 1): which file this is comes from its position in ARGV.
FNR == 1 {
	fileno = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : FILENAME == ARGV[3] ? 3 : 4
	boot = FILENAME
	sub(/.*\//, "", boot)
	sub(/\.ktap$/, "", boot)
	sub(/^[^.]*\./, "", boot)
}

fileno <= 3 && (/^#/ || /^[ \t]*$/) { next }

fileno <= 3 && NF < 2 {
	problems[++nproblems] = FILENAME ":" FNR ": not CELLS<TAB>CASE[<TAB>REASON]"
	next
}

fileno == 1 {
	if (!cells_match($1))
		next
	if (tests_re != "" && $2 !~ tests_re)
		next
	if (!($2 in expected))
		order[++nexpected] = $2
	expected[$2] = 1
	next
}

fileno == 2 {
	if (cells_match($1)) {
		xfail[$2] = NF >= 3 ? $3 : "(no reason given)"
		xfail_re[$2] = NF >= 4 ? $4 : ""
	}
	next
}

fileno == 3 {
	if (cells_match($1))
		allowed_skip[$2] = NF >= 3 ? $3 : "(no reason given)"
	next
}

/^case / {
	status = $0
	sub(/^case /, "", status)
	name = status
	sub(/ .*/, "", status)
	sub(/^[A-Z]+ /, "", name)
	if (name in result) {
		problems[++nproblems] = boot ": " name " reported twice"
		next
	}
	result[name] = status
	result_boot[name] = boot
	if (!(name in expected))
		unexpected[++nunexpected] = name
	next
}

/^diag / {
	name = $0
	sub(/^diag /, "", name)
	text = name
	sub(/ .*/, "", name)
	sub(/^[^ ]* /, "", text)
	if (result_boot[name] == boot)
		diag[name] = diag[name] "\ndiag " text
	next
}

/^problem / {
	nboot_problems++
	bp_text[nboot_problems] = substr($0, 9)
	bp_boot[nboot_problems] = boot
	next
}

END {
	if (list) {
		for (i = 1; i <= nexpected; i++)
			print order[i]
		exit 0
	}
	passed = failed = skipped = xfailed = 0
	for (i = 1; i <= nexpected; i++) {
		name = order[i]
		r = (name in result) ? result[name] : "MISSING"
		if (name in xfail) {
			if (r == "PASS") {
				failed++
				detail("XPASS", name, "passes; remove its entry from tests/xfail (" xfail[name] ")")
			} else if (r == "FAIL" || r == "MISSING") {
				xfailed++
				detail("XFAIL", name, xfail[name] (r == "MISSING" ? " (no result)" : ""))
				if (xfail_re[name] != "") {
					# A case with no result may have died in any boot.
					key = r == "MISSING" ? "*" : result_boot[name]
					xre[key] = (xre[key] == "" ? "" : xre[key] "|") xfail_re[name]
				}
			} else {
				failed++
				detail("FAIL", name, "an xfail case was skipped")
			}
		} else if (r == "PASS") {
			passed++
		} else if (r == "SKIP") {
			if (name in allowed_skip) {
				skipped++
				detail("SKIP", name, allowed_skip[name])
			} else {
				failed++
				detail("FAIL", name, "skipped, and not allowed to be in tests/skips")
			}
		} else if (r == "FAIL") {
			failed++
			detail("FAIL", name, "not ok (" result_boot[name] ")")
		} else {
			failed++
			detail("FAIL", name, "no result")
		}
	}
	for (i = 1; i <= nunexpected; i++) {
		failed++
		detail("FAIL", unexpected[i], "ran but is not in tests/cases for " cell)
	}
	for (i = 1; i <= nboot_problems; i++) {
		t = bp_text[i]
		b = bp_boot[i]
		re = xre[b]
		if (xre["*"] != "")
			re = re == "" ? xre["*"] : re "|" xre["*"]
		if (re != "" && t ~ ("^kernel: .*(" re ")"))
			continue
		problems[++nproblems] = b ": " t
	}
	if (nexpected == 0)
		problems[++nproblems] = "no case is expected of " cell \
			(tests != "" ? " with TESTS=" tests : "")
	verdict = failed || nproblems ? "FAIL" : xfailed ? "xfail" : "ok"
	print "verdict " verdict
	print "passed " passed
	print "failed " failed
	print "skipped " skipped
	print "xfail " xfailed
	for (i = 1; i <= ndetails; i++)
		print details[i]
	for (i = 1; i <= nproblems; i++)
		print "problem " problems[i]
}
