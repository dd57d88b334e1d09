# SPDX-License-Identifier: GPL-2.0
# kstats: build, boot and test. Everything is built outside the clone, in
# $(KSTATS_CACHE) (default ~/.cache/kstats); missing Debian packages are
# installed on first use.

H := harness

.PHONY: help demo check check-quick module dkms patches patches-build kunit kernel bench bench-kstats bench-trace bench-tool bench-peers torture cfi kernel-debug vm-shell vm-run clean-cache

help:
	@echo "make demo                     build, boot the VM, show the sample's distribution"
	@echo "make check                    every test; ends with 'N passed, N failed'"
	@echo "make check-quick              the tests without VM or x86 kernel build: checks"
	@echo "                              of the sources, KUnit in UML, the tools' tests"
	@echo "make module [KDIR=...]        kstats.ko and friends for an installed kernel"
	@echo "make dkms                     install the modules with DKMS for the running kernel"
	@echo "make patches                  the upstream patch series, in build/patches"
	@echo "make patches-build            build the test kernel after each patch (long)"
	@echo "make kunit                    the KUnit suite in UML"
	@echo "make kernel                   build the VM's x86_64 kernel and modules"
	@echo "make bench                    every benchmark below, figures printed"
	@echo "make bench-kstats             cost of kstats_record() and clocks, VM and native"
	@echo "make bench-trace              cost per call of each kstats_trace form, in the VM"
	@echo "make bench-tool [LINES=N]     speed and memory of tools/kstats on N lines (1,000,000)"
	@echo "make bench-peers              kstats against bpftrace, funclatency, perf ftrace latency"
	@echo "                              and hist triggers, on Debian's 6.12 kernel in the VM"
	@echo "make torture [SECONDS=60]     abuse kstats on a KASAN/lockdep/kmemleak kernel,"
	@echo "                              then make cfi"
	@echo "make cfi                      the tests of kstats_trace on a clang kernel with kCFI"
	@echo "make kernel-debug             build that debug kernel"
	@echo "make vm-shell                 interactive shell in the VM"
	@echo "make vm-run SCRIPT=path [VM_FILES=\"file ...\"]  run a script as root in the VM"
	@echo "make clean-cache              remove the kernel tree and builds"

demo:
	@$(H)/demo.sh

check:
	@$(H)/check.sh

check-quick:
	@$(H)/check.sh --quick

module:
	@$(H)/module.sh $(KDIR)

dkms:
	@$(H)/dkms.sh install

patches:
	@$(H)/patches.sh

patches-build:
	@$(H)/patches.sh --build

kunit:
	@$(H)/kunit.sh

kernel:
	@$(H)/build-x86.sh

kernel-debug:
	@$(H)/build-x86.sh debug

bench: bench-kstats bench-trace bench-tool bench-peers

bench-kstats:
	@$(H)/bench.sh

bench-trace:
	@$(H)/bench-trace.sh

bench-tool:
	@$(H)/bench-tool.sh $(LINES)

bench-peers:
	@$(H)/bench-peers.sh

torture:
	@$(H)/torture.sh $(SECONDS)
	@$(H)/cfi.sh

cfi:
	@$(H)/cfi.sh

vm-shell:
	@$(H)/vm.sh shell

vm-run:
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path [VM_FILES=\"file ...\"]"; exit 2; }
	@$(H)/vm.sh run "$(SCRIPT)" $(VM_FILES)

clean-cache:
	@bash -c '. $(H)/lib.sh && clean_cache'
