#!/bin/sh
# usage: noinstr.sh VMLINUX FUNCTION...
#
# The calls that noinstr code of the series makes, checked in a linked
# kernel: objtool does this on x86 (CONFIG_NOINSTR_VALIDATION), nothing
# does it on arm64. Every call (bl) and tail call (b to another symbol)
# of each FUNCTION, and of every function in .noinstr.text or .entry.text
# that it calls, directly or not, must go to code in .noinstr.text or
# .entry.text, or to a function that NOINSTR_ALLOW (space-separated
# names) lists: one that it calls only between instrumentation_begin()
# and instrumentation_end() (an error message). A function that the
# compiler put out of line in .text (a static inline helper, say) is
# reported with its name and the chain of calls that reaches it, and so is
# an indirect call (blr/br). CROSS_COMPILE is the build's. Exits 1 if any
# call is reported, 2 on bad input.
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

# The functions, by address: the symbols with a size (objdump may name a
# call's target by a label at the same address, a section's end marker,
# which it cannot disassemble).
funcs=$("${CROSS_COMPILE}nm" -S --defined-only "$vmlinux" |
	awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $4 }')

# check CHAIN: the calls of the last function of CHAIN ("a > b > c");
# prints what it reports, and "next ADDRESS NAME" for each noinstr callee.
check() {
	fn=${1##* > }
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn --disassemble="$fn" "$vmlinux" |
	awk -v fn="$fn" -v chain="$1" -v ranges="$ranges" -v allow=" $NOINSTR_ALLOW " '
	# Hex strings of one length compare as strings.
	function inside(addr, lo, hi) {
		return addr >= lo && addr < hi
	}
	BEGIN { split(ranges, r, " ") }
	$1 ~ /:$/ && ($2 == "bl" || $2 == "b" || $2 == "blr" || $2 == "br") {
		if ($2 == "blr" || $2 == "br") {
			print chain ": indirect call at " $1 " " $2 " " $3
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
		if (inside(addr, r[1], r[2]) || inside(addr, r[3], r[4])) {
			print "next " addr " " target
			next
		}
		if (index(allow, " " target " "))
			next
		print chain ": calls " target " (" $3 "), which is not noinstr"
		bad = 1
	}
	/^[0-9a-f]+ </ { found = 1 }
	END {
		if (!found) {
			print chain ": not in the kernel"
			exit 1
		}
		exit bad
	}'
}

# Breadth first from each FUNCTION, each function once.
status=0 seen=" " queue=
for fn in "$@"; do
	queue="$queue$fn
"
done
while [ -n "$queue" ]; do
	chain=${queue%%
*}
	queue=${queue#*
}
	fn=${chain##* > }
	case $seen in *" $fn "*) continue ;; esac
	seen="$seen$fn "
	out=$(check "$chain") || status=1
	echo "$out" | sed '/^next /d; /^$/d'
	for next in $(echo "$out" | sed -n 's/^next \([0-9a-f]*\) .*/\1/p'); do
		name=$(echo "$funcs" | awk -v a="$next" '$1 == a { print $2; exit }')
		if [ -n "$name" ]; then
			queue="$queue$chain > $name
"
		else
			echo "$chain: calls $(echo "$out" | sed -n "s/^next $next //p" |
				head -n 1) ($next), which no function symbol covers"
			status=1
		fi
	done
done
exit $status
