# Dynamic kernel stacks: the series, its kernels and their QEMU machines.
# `make help` lists the targets and variables.

CACHE    ?= $(HOME)/.cache/dynstack
RESULTS  ?= results
TIMEOUT  ?= 600
TESTS    ?=
CMDLINE  ?=
export CACHE TIMEOUT TESTS

# The arches are the machines in boot/ (one ARCH.conf each); the variants,
# those the arches list (ARCH_VARIANTS).
VALID_ARCHES   := $(patsubst boot/%.conf,%,$(wildcard boot/*.conf))
VALID_VARIANTS := $(shell sed -n 's/^ARCH_VARIANTS="\(.*\)"/\1/p' boot/*.conf | \
			tr ' ' '\n' | awk 'NF && !seen[$$0]++')
ARCHES   ?= $(or $(ARCH),$(VALID_ARCHES))
VARIANTS ?= $(or $(VARIANT),$(VALID_VARIANTS))

GUEST_SRCS := $(wildcard tests/guest/*.c tests/guest/*.h tests/compat/*.c)
INITRAMFS   = $(CACHE)/initramfs/$(1).cpio

.PHONY: help deps matrix test bench hostcheck checkpatch bisect kernel boot initramfs review clean distclean

help:
	@echo 'Targets:'
	@echo '  matrix      build and boot every ARCH x VARIANT, print the result table'
	@echo '  test        host checks, checkpatch, quick bisect, matrix, bench smoke (CI)'
	@echo '  bench       baseline vs dynamic figures per arch under -icount: $(RESULTS)/bench.md'
	@echo '  kernel      build one kernel (ARCH=, VARIANT=), print its image path'
	@echo '  boot        boot one kernel (ARCH=, VARIANT=, [INITRD=], [CMDLINE=]), print the console and its verdict'
	@echo '  initramfs   build the test initramfs for ARCH=, print its path'
	@echo '  review      print ARCH='"'"'s hooks in the patched tree, for a reviewer'
	@echo '  hostcheck   the host-side checks alone'
	@echo '  checkpatch  scripts/checkpatch.pl --strict on every patch of the series'
	@echo '  bisect      build every prefix of the series for both arches'
	@echo '              (BISECT=quick: only the files each patch touches, and a link'
	@echo '              where a patch adds, removes or renames a global symbol)'
	@echo '  deps        install the Debian packages the build needs'
	@echo '  clean       remove $(RESULTS)/; distclean also removes CACHE'
	@echo 'Variables:'
	@echo '  ARCH      one of: $(VALID_ARCHES)'
	@echo '  VARIANT   one of: $(VALID_VARIANTS)'
	@echo '  ARCHES, VARIANTS  the matrix (now: $(ARCHES) x $(VARIANTS))'
	@echo '  TESTS     run only the cases this glob matches (matrix, boot), e.g.'
	@echo '            TESTS='"'"'init.memcg*'"'"' or TESTS='"'"'dynamic_stack.*'"'"''
	@echo '  CMDLINE   more kernel arguments for boot (e.g. SEED=1234 TESTS=init.no_stale_data)'
	@echo '  CACHE     trees, builds, ccache, initramfs (now: $(CACHE))'
	@echo '  RESULTS   logs and tables (now: $(RESULTS))'
	@echo '  INITRD    initramfs for boot (default: the test initramfs)'
	@echo '  TIMEOUT   seconds a guest may run (now: $(TIMEOUT))'
	@echo '  BENCH_BOOTS  boots of each kernel for make bench (now: $(BENCH_BOOTS))'
	@echo '  BENCH_SCALE  multiplies the benchmark iterations (now: $(BENCH_SCALE))'

# Bad input: an error naming the valid values, exit 2.
check-one = $(if $(filter-out $(2),$(1)),$(error unknown $(3) '$(filter-out $(2),$(1))' (valid: $(2))))
check-set = $(if $(strip $(1)),,$(error $(3) is required (valid: $(2))))$(call check-one,$(1),$(2),$(3))$(if $(word 2,$(1)),$(error one $(3) at a time (valid: $(2))))
check-path = $(if $(filter-out 1,$(words $(2))),$(error $(1)='$(2)' is empty or contains whitespace, which the kernel build cannot take; choose another path))
$(call check-path,CACHE,$(CACHE))
$(call check-path,RESULTS,$(RESULTS))
$(call check-one,$(ARCHES),$(VALID_ARCHES),ARCH)
$(call check-one,$(VARIANTS),$(VALID_VARIANTS),VARIANT)
ifneq ($(filter matrix test bench,$(MAKECMDGOALS)),)
$(if $(strip $(ARCHES)),,$(error no ARCH to run (valid: $(VALID_ARCHES))))
$(if $(strip $(VARIANTS)),,$(error no VARIANT to run (valid: $(VALID_VARIANTS))))
endif
ifneq ($(filter kernel boot initramfs review,$(MAKECMDGOALS)),)
$(call check-set,$(ARCH),$(VALID_ARCHES),ARCH)
endif
ifneq ($(filter kernel boot,$(MAKECMDGOALS)),)
$(call check-set,$(VARIANT),$(VALID_VARIANTS),VARIANT)
endif

deps:
	@scripts/deps.sh

$(CACHE)/initramfs/%.cpio: $(GUEST_SRCS) boot/%.conf boot/initramfs.sh
	@boot/initramfs.sh $* $@ >/dev/null

matrix: deps $(foreach a,$(ARCHES),$(call INITRAMFS,$(a)))
	@scripts/matrix.sh "$(ARCHES)" "$(VARIANTS)" $(RESULTS)

BENCH_SCALE ?= 1
BENCH_BOOTS ?= 5
bench: deps $(foreach a,$(ARCHES),$(call INITRAMFS,$(a)))
	@BENCH_BOOTS=$(BENCH_BOOTS) scripts/bench.sh "$(ARCHES)" $(RESULTS) $(BENCH_SCALE)

hostcheck: deps
	@tests/host/run.sh

checkpatch: deps
	@scripts/checkpatch.sh

BISECT ?= full
bisect: deps
	@scripts/bisect.sh $(BISECT)

test: deps $(foreach a,$(ARCHES),$(call INITRAMFS,$(a)))
	@scripts/test.sh "$(ARCHES)" "$(VARIANTS)" $(RESULTS)

kernel: deps
	@scripts/build.sh $(ARCH) $(VARIANT)

initramfs: deps $(call INITRAMFS,$(ARCH))
	@echo $(call INITRAMFS,$(ARCH))

boot: deps $(if $(INITRD),,$(call INITRAMFS,$(ARCH)))
	@mkdir -p $(RESULTS)
	@image=$$(scripts/build.sh $(ARCH) $(VARIANT)) || exit 1; status=0; \
	VARIANT=$(VARIANT) boot/qemu.sh $(ARCH) "$$image" \
		$(or $(INITRD),$(call INITRAMFS,$(ARCH))) \
		$(RESULTS)/$(ARCH)-$(VARIANT).boot.log \
		$$(cat tests/guest/$(if $(filter baseline %-baseline,$(VARIANT)),baseline,dynamic).cmdline) \
		$(if $(TESTS),TESTS=$(TESTS) kunit.filter_glob=$(TESTS)) $(CMDLINE) || status=$$?; \
	scripts/boot-verdict.sh $(RESULTS)/$(ARCH)-$(VARIANT).boot.log $$status

review: deps
	@scripts/review.sh $(ARCH)

clean:
	rm -rf $(RESULTS)

# Only a directory these tools made (scripts/common.sh marks it).
distclean: clean
	@if [ -e "$(CACHE)" ] && [ ! -f "$(CACHE)/.dynstack-cache" ]; then \
		echo "make: CACHE=$(CACHE) was not made by these tools (no .dynstack-cache in it): not removed" >&2; \
		exit 1; \
	fi
	rm -rf $(CACHE)
