#!/bin/sh
# usage: noinstr.sh VMLINUX FUNCTION...
#
# The calls that noinstr code of the series makes, checked in a linked
# kernel: objtool does this on x86 (CONFIG_NOINSTR_VALIDATION), nothing
# does it on arm64. Every call (bl) and tail call (b to another symbol)
# of each FUNCTION must go to code in .noinstr.text or .entry.text, or to
# a function that NOINSTR_ALLOW (space-separated names) lists: one that
# it calls only between instrumentation_begin() and instrumentation_end()
# (an error message). A function that the compiler put out of line in
# .text (a static inline helper, say) is reported with its name, and so
# is an indirect call (blr/br). CROSS_COMPILE is the build's. Exits 1 if
# any call is reported, 2 on bad input.
set -eu
[ $# -ge 2 ] || { echo "usage: noinstr.sh VMLINUX FUNCTION..." >&2; exit 2; }
vmlinux=$1
shift
[ -r "$vmlinux" ] || { echo "noinstr.sh: cannot read $vmlinux" >&2; exit 2; }
CROSS_COMPILE=${CROSS_COMPILE:-}
NOINSTR_ALLOW=${NOINSTR_ALLOW:-}

ranges=$("${CROSS_COMPILE}nm" "$vmlinux" | awk '
	$3 ~ /^__(noinstr|entry)_text_(start|end)$/ { a[$3] = $1 }
	END {
		if (length(a) == 4)
			print a["__noinstr_text_start"], a["__noinstr_text_end"],
			      a["__entry_text_start"], a["__entry_text_end"]
	}')
[ -n "$ranges" ] || { echo "noinstr.sh: no __noinstr_text_* or __entry_text_* symbols in $vmlinux" >&2; exit 2; }

status=0
for fn in "$@"; do
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn --disassemble="$fn" "$vmlinux" |
	awk -v fn="$fn" -v ranges="$ranges" -v allow=" $NOINSTR_ALLOW " '
	# Hex strings of one length compare as strings.
	function inside(addr, lo, hi) {
		return addr >= lo && addr < hi
	}
	BEGIN { split(ranges, r, " ") }
	$1 ~ /:$/ && ($2 == "bl" || $2 == "b" || $2 == "blr" || $2 == "br") {
		seen = 1
		if ($2 == "blr" || $2 == "br") {
			print fn ": indirect call at " $1 " " $2 " " $3
			bad = 1
			next
		}
		target = $4
		gsub(/[<>]/, "", target)
		if (target ~ "^" fn "(\\+0x[0-9a-f]+)?$")
			next
		sub(/\+0x[0-9a-f]+$/, "", target)
		addr = sprintf("%016s", $3)
		gsub(/ /, "0", addr)
		if (inside(addr, r[1], r[2]) || inside(addr, r[3], r[4]))
			next
		if (index(allow, " " target " "))
			next
		print fn ": calls " target " (" $3 "), which is not noinstr"
		bad = 1
	}
	/^[0-9a-f]+ </ { found = 1 }
	END {
		if (!found) {
			print fn ": not in the kernel"
			exit 1
		}
		exit bad
	}' || status=1
done
exit $status
