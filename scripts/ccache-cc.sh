#!/bin/sh
# usage: ccache-cc.sh COMPILER ARGUMENT...
#
# The kernel builds' CC: COMPILER through ccache in depend mode, where a
# miss costs one compiler run and no preprocessor run (the default mode
# preprocesses every file once more to hash it), which makes a cold build
# faster. Depend mode hashes the files that the compiler's dependency
# output names, and .incbin pulls in a file that it does not name: for
# arch/x86/boot/compressed/piggy.S, the compressed kernel. Assembler
# sources therefore go through ccache's default mode, which sees .incbin
# in the preprocessed source and does not cache them.
for arg; do
	case $arg in
	*.S) CCACHE_NODEPEND=1 exec ccache "$@" ;;
	esac
done
CCACHE_DEPEND=1 exec ccache "$@"
