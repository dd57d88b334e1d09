#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/vm.sh run SCRIPT [FILE...]   run SCRIPT as root in the VM
#        harness/vm.sh shell                  interactive shell in the VM
#
# Boots the x86_64 test kernel under qemu (VM_CPUS CPUs, default 4) with a
# busybox initramfs holding the kernel's modules. "run" copies SCRIPT and
# the FILEs into the guest's /root, runs SCRIPT with sh, prints its output
# and exits with its exit status. Every boot has a timeout (VM_TIMEOUT
# seconds); a guest that hangs, panics or prints a kernel splat is a
# failure, shown with its console log.
#
# VM_KERNEL and VM_MODULES (a directory holding lib/modules/RELEASE) boot
# another kernel, such as a distribution's, instead of the test kernel;
# VM_FLAVOR=debug boots the debug kernel of `make torture`, VM_FLAVOR=cfi
# the kCFI kernel of `make cfi`. VM_APPEND adds
# to the kernel command line; VM_MACHINE sets qemu's machine (below);
# VM_QEMU adds qemu options (words), such as "-icount shift=0"; VM_MEM
# sets the guest's memory in MiB (1024); VM_ACCEL sets qemu's accelerator
# (default: KVM where it works, else TCG; the benchmarks' -icount needs TCG).
set -eu
. "$(dirname "$0")/lib.sh"

usage() { sed -n '3,4s/^# //p' "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
mode=$1
shift
case $mode in
run) [ $# -ge 1 ] || usage ;;
shell) ;;
*) usage ;;
esac

need_pkgs $VM_PKGS
set_paths
if [ -z "${VM_KERNEL:-}" ] && [ -n "${VM_FLAVOR:-}" ]; then
	case $VM_FLAVOR in debug|cfi) ;; *) die "VM_FLAVOR: debug or cfi, not '$VM_FLAVOR'" ;; esac
	"$HARNESS/build-x86.sh" "$VM_FLAVOR"
	VM_KERNEL=$BUILD_X86-$VM_FLAVOR/arch/x86/boot/bzImage
	VM_MODULES=$BUILD_X86-$VM_FLAVOR/modinst
elif [ -z "${VM_KERNEL:-}" ]; then
	"$HARNESS/build-x86.sh"
	VM_KERNEL=$BUILD_X86/arch/x86/boot/bzImage
	VM_MODULES=$BUILD_X86/modinst
fi
mkdir -p "$VMDIR"
kimage=$VM_KERNEL

# The base initramfs: busybox, /init and the modules; rebuilt with them,
# keyed on their contents (a rebuild of the same sources may differ).
find "$VM_MODULES" -type f | sort | xargs cat | sha256sum > "$VMDIR/modules.$$"
key=$(hash_of "$VMDIR/modules.$$" "$HARNESS/vm-init.sh" /bin/busybox)
rm -f "$VMDIR/modules.$$"
base=$VMDIR/base-$key.cpio
if [ ! -e "$base" ]; then
	step "building the VM's initramfs (busybox, modules)"
	rm -f "$VMDIR"/base-*.cpio
	stage=$VMDIR/base.stage
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,lib}
	cp /bin/busybox "$stage/bin/busybox"
	cp "$HARNESS/vm-init.sh" "$stage/init"
	chmod 755 "$stage/init"
	cp -a "$VM_MODULES/lib/modules" "$stage/lib/"
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) > "$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$stage"
fi

# One boot: "$1" is the initramfs, the rest are extra qemu options. The
# console shows every message of the kernel (loglevel=8: a WARN or a
# lockdep report below the "quiet" level is seen too), and the guest's
# marks in it (/dev/kmsg) are not rate-limited. A PC
# with ACPI, whose PM timer and HPET calibrate the TSC and the local APIC
# timer (a microvm without ACPI boots faster, but under TCG with the host
# loaded its PIT-only calibration failed: jiffies as the clock, no hrtimer
# interrupt). Without PCI hotplug, whose AML took half of the boot of a
# KASAN kernel under TCG (17 s in acpi_init, 9 s without). The guest powers
# off through the isa-debug-exit port. The TSC stays the clocksource, as
# on real machines: TCG, not the TSC, makes the watchdog see skews.
vm_boot() {
	local initrd=$1 accel=$2
	shift 2
	qemu-system-x86_64 -M "${VM_MACHINE:-pc}" -accel "$accel" -cpu "${VM_CPU:-max}" \
		-global PIIX4_PM.acpi-pci-hotplug-with-bridge-support=off \
		-global PIIX4_PM.acpi-root-pci-hotplug=off \
		-smp "${VM_CPUS:-4}" -m "${VM_MEM:-1024}" -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-kernel "$kimage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=8 printk.devkmsg=on log_buf_len=4M tsc=reliable ${VM_APPEND:-}" \
		-no-reboot "$@"
}

# TCG unless the CPU has hardware virtualisation and a probe boot works:
# nested KVM may hang the guest. TCG runs single-threaded: with one host
# thread per vCPU, qemu 7.2 lets a vCPU execute an instruction that another
# vCPU is patching (text_poke_bp), and enabling even the plain function
# tracer on a function that other vCPUs are calling crashes the guest
# (RIP in the middle of an instruction, or 0): $TCG, in lib.sh.
choose_accel() {
	local cache=$VMDIR/accel.v2
	if [ -e "$cache" ]; then cat "$cache"; return; fi
	if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
		local probe=$VMDIR/probe
		rm -rf "$probe" && mkdir -p "$probe/etc" "$probe/root"
		echo probe.sh > "$probe/etc/kstats-run"
		echo 'exit 0' > "$probe/root/probe.sh"
		(cd "$probe" && find . | cpio -o -H newc -R 0:0 --quiet) |
			cat "$base" - > "$probe.cpio"
		if timeout -k 5 60 bash -c "$(declare -f vm_boot); kimage=$kimage; \
			vm_boot $probe.cpio kvm -display none -serial stdio -monitor none" \
			</dev/null 2>/dev/null | grep -q 'KSTATS_VM_EXIT=0'; then
			echo kvm > "$cache"
		else
			echo "$TCG" > "$cache"
		fi
	else
		echo "$TCG" > "$cache"
	fi
	cat "$cache"
}
accel=${VM_ACCEL:-$(choose_accel)}

if [ "$mode" = shell ]; then
	step "booting the VM (${accel%%,*}, ${VM_CPUS:-4} CPUs); exit the shell to power off"
	# The guest's power-off through isa-debug-exit makes qemu exit with 1.
	rc=0
	timeout -k 5 "${VM_TIMEOUT:-14400}" bash -c "$(declare -f vm_boot); \
		kimage=$kimage; vm_boot $base $accel -nographic" || rc=$?
	[ $rc -eq 1 ] && exit 0
	exit $rc
fi

script=$1
shift
[ -f "$script" ] || die "no such script: $script"
run=$(mktemp -d "$VMDIR/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
mkdir -p "$run/stage/etc" "$run/stage/root"
for f in "$script" "$@"; do
	[ -e "$f" ] || die "no such file: $f"
	cp -a "$f" "$run/stage/root/"
done
basename "$script" > "$run/stage/etc/kstats-run"
(cd "$run/stage" && find . | cpio -o -H newc -R 0:0 --quiet) |
	cat "$base" - > "$run/initrd"

timeout=${VM_TIMEOUT:-600}
step "booting the VM (${accel%%,*}, ${VM_CPUS:-4} CPUs, timeout ${timeout}s) to run $(basename "$script")"
# The kernel's log on the first serial port, the script's output on the
# second (harness/vm-init.sh); line-buffered, so that the console can be
# followed while the guest runs.
log=$run/console.log
out=$run/out.log
# timeout puts qemu in a process group of its own, which a Ctrl-C does not
# reach: a signal to this script stops it through timeout, which passes
# the signal on to its group. The boot is waited for with wait, which the
# signal interrupts, so that the trap runs at once.
trap 'kill -TERM "$(cat "$run/timeout.pid" 2>/dev/null)" 2>/dev/null; exit 130' INT TERM HUP
set +e
(echo "$BASHPID" > "$run/timeout.pid"
 exec timeout -k 5 "$timeout" bash -c "$(declare -f vm_boot); kimage=$kimage; \
	vm_boot $run/initrd $accel -display none -serial stdio -serial file:$out \
	-monitor none ${VM_QEMU:-}") </dev/null 2>&1 | stdbuf -oL tr -d '\r' > "$log" &
wait $!
set -e
trap - INT TERM HUP
[ -e "$out" ] || : > "$out"
console=${VM_CONSOLE:-$VMDIR/console-last.log}
cp "$log" "$console"

# The script's output.
tr -d '\r' < "$out" | sed -n '/^KSTATS_VM_START /,/^KSTATS_VM_EXIT=/{/^KSTATS_VM_/d;p}'
rc=$(tr -d '\r' < "$out" | sed -n 's/^KSTATS_VM_EXIT=\([0-9]*\)$/\1/p' | tail -n 1)
kernel=$(sed -n 's/^.*Linux version \([^ ]*\).*$/\1/p' "$log" | head -n 1)

# The whole boot's kernel log, checked once the guest is done: every
# report is a failure (harness/kreports.awk), a line each. The reports that
# the self-test injected (harness/guest-faults.sh) are printed as the same
# failures, after "KSTATS_FAULT_REPORT NAME", for harness/check.sh, which
# requires each of them.
as_fail() {
	awk -F '\t' -v k="${kernel:-?}" '$2 != "" {
		f = "FAIL: kernel report (" $2 ") on " k ": " $3
		if ($1 == "test")
			print f
		else {
			sub(/^fault /, "", $1)
			print "KSTATS_FAULT_REPORT " $1 "\t" f
		}
	}'
}
reports=$(awk -f "$HARNESS/kreports.awk" "$log" | as_fail)
printf '%s\n' "$reports" | awk '/^KSTATS_FAULT_REPORT /'
bad=$(printf '%s\n' "$reports" | awk '/^FAIL: /')
fail=
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | head -n 20
	n=$(printf '%s\n' "$bad" | wc -l)
	[ "$n" -le 20 ] || echo "(and $((n - 20)) more reports)"
	fail="the kernel reported a problem"
fi
if [ -z "$rc" ]; then
	fail="the guest did not finish: hung, panicked or timed out after ${timeout}s"
	if [ ! -s "$out" ] && grep -q '^KSTATS_VM_START ' "$log"; then
		fail="the guest had no second serial port for the script's output (its console has it)"
	fi
	fail "VM run on ${kernel:-?} of $(basename "$script"): $fail"
fi
if [ -n "$fail" ]; then
	echo "---- the last 150 lines of the console log (all of it in $console) ----" >&2
	tail -n 150 "$log" >&2
	echo "---- end of console log ----" >&2
	echo "vm: $fail" >&2
	exit 1
fi
exit "$rc"
