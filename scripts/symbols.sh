#!/bin/sh
# usage: symbols.sh baseline OUT
#        symbols.sh check OUT OBJECT...
#
# The link check of the quick bisect (scripts/bisect.sh), by symbol
# resolution, in the kernel build directory OUT (CROSS_COMPILE as for the
# build). "baseline", after vmlinux was built there, keeps the global
# symbols, defined and referenced, of every object vmlinux links
# (vmlinux.a) and of the lib.a archives (which only provide), in
# OUT/.bisect-symbols. "check", after OBJECTs (paths relative to OUT) were
# compiled at a later commit, puts their symbols in place of their old
# ones, and fails, naming them, on a reference that no object defines (a
# symbol removed or renamed while still in use, or used before the patch
# that adds it) or on a symbol that two objects define, unless the
# baseline had the same (the linker script's symbols, such as
# __init_begin, are defined by no object).
set -eu
[ $# -ge 2 ] && case $1 in baseline|check) ;; *) false ;; esac || {
	echo "usage: symbols.sh baseline|check OUT [OBJECT...]" >&2
	exit 2
}
mode=$1 out=$2
shift 2
CROSS_COMPILE=${CROSS_COMPILE:-}

# nm_records FILE PREFIX: "PREFIX+OBJECT TYPE NAME" for each global
# symbol of FILE (relative to $out), an object or an archive (OBJECT: its
# member's path).
nm_records() {
	(cd "$out" && "${CROSS_COMPILE}nm" -g -A -f posix "$1" 2>/dev/null) | awk -v pfx="$2" '{
		f = $1; sub(/:$/, "", f)
		if (f ~ /\]$/) { sub(/^[^[]*\[/, "", f); sub(/\]$/, "", f) }
		print pfx f, $3, $2
	}'
}

# symbols_baseline OUT: the symbol records of the baseline's vmlinux
# objects ("o:") and lib.a members ("l:"), and what the baseline leaves
# unresolved (linker-script symbols) or defines twice.
symbols_baseline() {
	db=$out/.bisect-symbols
	rm -rf "$db"
	mkdir -p "$db"
	{
		nm_records vmlinux.a o:
		(cd "$out" && find . -name lib.a) | while read -r lib; do nm_records "$lib" l:; done
	} >"$db/records"
	symbols_resolve "$db/records" >"$db/baseline"
}

# symbols_resolve RECORDS: "undefined NAME OBJECT" for each reference from
# a vmlinux object that nothing defines, "duplicate NAME" for each symbol
# that two vmlinux objects define (weak ones aside).
symbols_resolve() {
	awk '
	# U: a reference; w, v: a weak one, which needs no definition;
	# W, V: a weak definition.
	$2 ~ /^[UVWvw]$/ {
		if ($2 == "U" && $1 ~ /^o:/) ref[$3] = ref[$3] " " substr($1, 3)
		if ($2 == "W" || $2 == "V") def[$3] = 1
		next
	}
	{
		def[$3] = 1
		if ($1 ~ /^o:/ && ++strong[$3] == 2) print "duplicate", $3
	}
	END {
		for (s in ref)
			if (!(s in def))
				print "undefined", s, ref[s]
	}' "$1" | sort
}

# symbols_check OUT OBJECT...: the records with the objects just compiled
# in place of their old ones; fails on an undefined reference or a
# duplicate definition the baseline did not have.
symbols_check() {
	db=$out/.bisect-symbols
	[ -f "$db/records" ] || { echo "bisect: no baseline symbols in $db" >&2; return 1; }
	: >"$db/new"
	seen=
	for o in "$@"; do
		[ -f "$out/$o" ] || continue
		case " $seen " in *" $o "*) continue ;; esac
		seen="$seen $o"
		# A compiled object is a vmlinux object unless a lib.a holds it.
		if grep -q "^l:$o " "$db/records"; then
			nm_records "$o" l: >>"$db/new"
		else
			nm_records "$o" o: >>"$db/new"
		fi
		echo "$o"
	done >"$db/compiled"
	awk -v compiled="$db/compiled" '
		BEGIN { while ((getline o <compiled) > 0) skip["o:" o] = skip["l:" o] = 1 }
		!($1 in skip)' "$db/records" >"$db/records.next"
	cat "$db/new" >>"$db/records.next"
	mv "$db/records.next" "$db/records"
	# The baseline's list may be empty: read it in BEGIN, not as FNR == NR.
	symbols_resolve "$db/records" | awk -v base="$db/baseline" '
		BEGIN { while ((getline l <base) > 0) { split(l, w, " "); old[w[1] " " w[2]] = 1 } }
		!(($1 " " $2) in old) { bad = 1
			if ($1 == "undefined") {
				printf "bisect: undefined reference to `%s'"'"' in", $2
				for (i = 3; i <= NF; i++) printf " %s", $i
				print ""
			} else
				printf "bisect: `%s'"'"' defined more than once\n", $2
		}
		END { exit bad }' >&2
}

case $mode in
baseline) symbols_baseline ;;
check) symbols_check "$@" ;;
esac
