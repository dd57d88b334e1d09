#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/patches.sh [--check | --build]
#
# Writes kstats as a patch series against the pristine source of the test
# kernel, Debian's newest linux-source-7.N (harness/lib.sh: kernel_source),
# one logical change per patch, with a cover letter, into build/patches/.
# With --check, also verifies it, printing PASS/FAIL lines: the series
# applies with git am to the pristine files, every patch is checkpatch
# --strict clean, and the result is this repository's tree. With --build,
# builds the debug kernel's configuration after each patch (bisectability:
# a build that finds most objects in ccache when the debug kernel of
# `make torture` was built, then one small build per patch).
set -eu
. "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh" >/dev/null
set_paths
out=$TOP/build/patches
repo=$WORK/series
# The submitter: the author and Signed-off-by of every patch, and the M:
# line of the MAINTAINERS entry (a placeholder in MAINTAINERS.patch).
placeholder=$(sed -n 's/^+M:\t//p' "$TOP/MAINTAINERS.patch")
name=$(git -C "$TOP" config user.name || true)
email=$(git -C "$TOP" config user.email || true)
if [ -n "$name" ] && [ -n "$email" ]; then
	ident="$name <$email>"
else
	ident=$placeholder
	echo "warning: git config user.name and user.email are not set: the series is signed off by, and its MAINTAINERS entry names, '$placeholder'" >&2
fi

# Each step: subject | files and directories of the repository | patch
# files | why (the body).
steps=(
"lib: add kstats, per-CPU latency distributions in debugfs|include/linux/kstats.h lib/kstats.c|patches/01-lib-kstats.patch|Averages hide the tails that latency work is about. kstats keeps the
whole distribution of values recorded by kernel code, usually the time a
code path took, in per-CPU log-linear histograms: 2^frac_bits slots per
power of two (frac_bits 0 to 8), the slot numbering of the 2020 RFC.

kstats_record() is inline, takes no lock, uses no atomic instruction,
calls no function and never allocates: two this_cpu additions after a
branch-free slot computation, so that it can stay in hot paths and run
in any context. Each slot keeps a count and the sum of the samples'
values cut to 16 bits below the slot's resolution, so that the mean
printed for a slot is always within it.

/sys/kernel/debug/kstats/NAME shows one line per slot and CPU, in the
RFC's format, computed from one snapshot of the counters taken at open;
start, stop and reset are written to the same file. A group of metrics
is a directory of them, with a _summary file of the slots of all CPUs,
for readers that follow many metrics at once."
"lib/kstats: add KUnit tests|lib/tests/kstats_kunit.c lib/tests/kstats_kunit.h lib/.kunitconfig|patches/02-lib-kstats-kunit.patch|Test the slot mapping at every boundary and for every frac_bits, the
tiling of the u64 range by the slots, the RFC's slot numbers, the means,
and the debugfs files read and written through their file operations on
a kernel mount of debugfs: format, counts, cumulative fractions, the
commands, invalid names, duplicates, and a reader that outlives its
metric."
"tracing: fprobe-events: Ignore probe stub calls made for other probes||patches/03-trace-fprobe-stub-data.patch|A tracepoint event of fprobe_events (t:) registers the tracepoint's probe
stub, __probestub_NAME(), as a probe with NULL data, both when it is
created and when the tracepoint's module comes, and puts an fprobe on the
stub. Another user that registers the same stub with its own data, as the
next patch does for a kstats tracepoint end (a probe of the tracepoint's
own prototype, which kCFI checks, as this event's is), makes the
tracepoint call the stub once more per hit, and the event records each of
those calls: with two such probes on sys_enter, a t: event on it counts
every system call three times.

The tracepoint calls each probe with that probe's data as the first
argument (__traceiter_NAME() and the static call pass it->data, and
__probestub_NAME() is declared with void *__data first), and fprobe's
entry handler reads it from its ftrace_regs. Act only on the calls whose
first argument is NULL, those made for the event's own probe.

No user of the stub other than fprobe_events registers it before this
series, so no released kernel is affected."
"kprobes: Disarm a kprobe on ftrace when its filter cannot shrink||patches/04-kprobes-ftrace-disarm.patch|__disarm_kprobe_ftrace() takes the probe's address out of the ftrace
filter of kprobes with ftrace_set_filter_ip(), which allocates a new
hash. When that fails (-ENOMEM), it WARNs and returns the error, after
it has dropped the count of armed probes (and unregistered the
ftrace_ops if the probe was its last). __disable_kprobe() then leaves
the probe marked armed, __unregister_kprobe_top() fails, and
unregister_kprobe(), which returns void, clears kp->addr and leaves the
probe in kprobe_table, where its owner frees it. The next walk of that
hash bucket (get_kprobe() at any address that hashes there: the next
hit of a kprobe there, register_kprobe(), a read of debug/kprobes/list)
reads freed memory; for a probe aggregated with others at the same
address, their hits run its freed handlers (for a kretprobe, with the
rethook that unregister_kretprobe() freed). kill_kprobe() and
disarm_all_kprobes() then count the probe out once more.

Seen on a KASAN kernel, removing kprobes with an allocation failed by
fail-nth: 'Failed to disarm kprobe-ftrace', then slab-use-after-free in
get_kprobe().

When the allocation fails, leave the address in the filter of
kprobe_ftrace_ops, say so (ratelimited), and complete the disarm: the
filter is reset when the ops is next registered, and meanwhile
kprobe_ftrace_handler() finds no kprobe at that address and returns, at
the cost of a call per hit of that function. Only -ENOMEM, and only for
kprobe_ftrace_ops: another error is a bug and still WARNs, and a stale
address in kprobe_ipmodify_ops would refuse other IPMODIFY users (such
as livepatch) of that function, and WARN when a module is loaded at
that address, so a probe with a post handler still fails as before."
"kprobes: Return the error when a new kprobe cannot be armed||patches/05-kprobes-register-arm.patch|Since __register_kprobe() takes its locks with guard(), a failure of
arm_kprobe() for a new probe takes the probe out of kprobe_table again
but is not returned: the function goes on to try_to_optimize_kprobe()
and returns 0. Arming a kprobe on ftrace fails when ftrace cannot
allocate the filter that adds the probe's address (-ENOMEM), or when it
cannot register kprobes' ftrace_ops. register_kprobe() and
register_kretprobe() then report success for a probe that is neither
armed nor in kprobe_table: its handlers never run, and its
unregistration finds no such probe, fails in __disable_kprobe() with
-EINVAL, and clears kp->addr, which the caller cannot tell from a probe
that kprobes kept because it could not disarm it.

Seen on a KASAN kernel under failslab: register_kretprobe() returned 0,
and unregister_kretprobe() then cleared kp->addr without a warning.

Return the error of arm_kprobe(), as before the conversion."
"fgraph: Undo a failed registration as unregistration does||patches/06-fgraph-register-error.patch|register_ftrace_graph() sets FTRACE_OPS_FL_GRAPH in the ops, and for
the first ops starts graph tracing (the shadow stacks and the
sched_switch probe), before ftrace_startup_subops(); when that fails
(-ENOMEM from ftrace's filter hashes) its error path clears neither.
Every later registration of the same ops then WARNs 'function graph ops
registered again' and fails with -EBUSY; and since the sched_switch
probe stays, every later first registration of any ops (the
function_graph tracer too) WARNs in tracepoint_add_func() and fails
with -EEXIST, until the next boot. ftrace_graph_entry and
ftrace_graph_return also stay at entry_run and return_run, and the
direct call stays off for the one user left (2 to 1) or keeps pointing
to the failed ops, which its caller may free (1 to 0). fprobe has one
fgraph_ops for all its fprobes: after one such failure when memory ran
short, no fprobe with an exit handler can be registered again.

Seen on a KASAN kernel under failslab, registering an fprobe with its
Nth allocation failed, N over every fault point of the registration:
first the one WARN, then, with the flag cleared, the other.

Undo in the error path what unregister_ftrace_graph() undoes: the flag,
the direct call, and, where graph tracing was started, the return and
entry functions and the sched_switch probe; and restore entryfunc from
saved_func, which unregistration leaves, so that a registration again
with pids on does not save fgraph_pid_func as its own function.

Cc: stable@vger.kernel.org"
"fprobe: Do not warn when the function-graph ops cannot be registered||patches/07-fprobe-graph-nomem.patch|The first fprobe with an exit handler registers fprobe_graph_ops, and
fprobe_graph_add_ips() warns if register_ftrace_graph() fails. It fails
without a bug: with -ENOMEM when ftrace's filter hashes, the kmem_cache
of the shadow stacks or the shadow stacks of the tasks that have none
cannot be allocated, and
with -ENOSPC when the other users of the function-graph tracer hold
every index. The error is returned to the caller, which already undoes
the registration; the warning makes a machine with panic_on_warn panic
when memory runs short.

Seen on a KASAN kernel under failslab: registering the first fprobe
failed in __kmem_cache_create_args(fgraph_stack), then WARNed at
fprobe.c:296 and panicked with panic_on_warn.

Return the error without a warning."
"x86/fgraph: Fix ORC hints after return_to_handler pops its frame||patches/08-x86-fgraph-return-unwind.patch|Since return_to_handler saves ftrace_regs below the slot of the return
address (UNWIND_HINT_FUNC after subq \$8), objtool follows its stack
pointer from that hint, and the addq that drops ftrace_regs and the
slot brings the CFA to sp+0 for the call to .Ldo_rop: an ORC entry of
type call at sp+0, the only one in vmlinux.o. There the return address
is in %rdi only, and the slot below %rsp is free for an interrupt to
overwrite. An unwind that starts at that call (an interrupt there whose
handler saves a stack trace, as KASAN, kmemleak, lockdep and perf do)
computes the caller's frame at the same stack pointer, ends the trace
with an error and prints, once per boot, 'stack going in the wrong
direction? at return_to_handler+0x41'. One from the first instruction
of .Ldo_rop (sp+8) takes the address of the int3 after that call for a
return address and reaches the same entry ('at
return_to_handler+0x46'). Both entries also read %rbp from the freed
ftrace_regs (bp:prevsp-144).

Seen on a KASAN kernel under qemu's TCG, fprobes added and removed while
other tasks called the probed functions: each message, in different runs.

Mark the instruction after the addq undefined, as the entry of
return_to_handler is, so that an unwind there stops; once .Ldo_rop has
put the return address on the stack, describe the frame as a function's
again (as the retpolines of retpoline.S do), so that an unwind at the
return finds the caller and takes %rbp from where it is.

Fixes: 20a0bc10272f (\"x86/fgraph,bpf: Fix stack ORC unwind from kprobe_multi return probe\")
Cc: stable@vger.kernel.org"
"tracing: add kstats _control to time kernel code without rebuilding|kernel/trace/kstats_trace_control.c kernel/trace/kstats_trace_errlog.c kernel/trace/kstats_trace_parse.c kernel/trace/kstats_trace_sym.c kernel/trace/kstats_trace_func.c kernel/trace/kstats_trace_anchor.c kernel/trace/kstats_trace_pair.c kernel/trace/kstats_trace_group.c kernel/trace/kstats_trace.h kernel/trace/kstats_trace_compat.h kernel/trace/kstats_trace_record.h kernel/trace/kstats_trace_kunit.c|patches/09-kernel-trace.patch|Instrumenting code by hand needs a rebuild. The file
/sys/kernel/debug/kstats/_control attaches kstats to a running kernel: a
function from entry to return with a kretprobe, a kretprobe keeping the
entry time per CPU (pcpu:) or an fprobe (fprobe:), and the code between
two kprobes or tracepoints. Each uses only its mechanism's registration
and teardown, so that a trace can be removed, or the module unloaded,
while calls are in flight; a trace of a module's code is detached when
that module goes, as kprobes do. Bad commands fail with an errno, a
warning and an entry in error_log, and leave nothing behind.

A group, trace fprobe:GLOB as NAME, times every function that an ftrace
glob matches with one fprobe, each into its own metric in
/sys/kernel/debug/kstats/NAME/, for finding which function of a
subsystem has the tail; its handler finds the function's metric in a
table made at attach time, at a cost per call that does not depend on
the number of functions. The memory of all traces is bounded by a
module parameter, checked before anything is allocated.

The KUnit suite tests the parser on a table of good and bad lines, and
traces of its own functions, so it is built with the function tracer's
flags like the ftrace selftest."
"samples: add kstats samples|samples/kstats|patches/10-samples.patch|kstats_sample shows the API on a real code path: kmalloc() and kfree()
timed on a kernel thread per CPU. kstats_bench is a microbenchmark of
kernel functions and clocks built on kstats, which handles the usual
traps (dead code, warm-up, data set, clock overhead, preemption,
synchronized parallel runs), and measures kstats_record() against the
per-CPU floor and against shared atomic and locked histograms."
"selftests: add kstats tests|tools/testing/selftests/kstats||Check, on a running kernel, the format and consistency of live metrics,
the commands of the metric files and of _control (exact call counts in
every mode, errnos of bad commands, trace/remove under load on all CPUs,
module unload), and every target of kstats_bench."
"tools: add kstats, to summarize and compare distributions|tools/kstats||Turn the text of a metric into answers: percentiles with the bounds of
their slot, MAD, a terminal histogram, JSON, CSV and OpenMetrics
output, the samples of each interval of a live metric, the difference
of two snapshots, and an A/B comparison with a two-sample test; and a
gnuplot wrapper. Tests run on fixtures rendered from known samples."
"Documentation: dev-tools: add kstats|Documentation/dev-tools/kstats.rst Documentation/dev-tools/kstats-heatmap.svg|patches/11-documentation.patch|Describe kstats, when to use it, its resolution and memory, the debugfs
interface and the _control commands with their errors, the pairing
rules of probes, the measured costs, the benchmark sample and the API."
)

echo "series: ${#steps[@]} patches"

# The MAINTAINERS entry grows with the series: each patch adds the F:
# lines of its own files, so that none adds files without one.
maintainers=$(mktemp)
trap 'rm -f "$maintainers"' EXIT
cp "$ORIG/MAINTAINERS" "$maintainers"
patch -s "$maintainers" < "$TOP/MAINTAINERS.patch"
IDENT=$ident PLACEHOLDER=$placeholder python3 - "$maintainers" <<'PY'
import os, sys
p = sys.argv[1]
s = open(p).read()
old = 'M:\t%s\n' % os.environ['PLACEHOLDER']
assert s.count(old) == 1, 'no M: placeholder in MAINTAINERS.patch'
open(p, 'w').write(s.replace(old, 'M:\t%s\n' % os.environ['IDENT']))
PY
maintainers_step() {
	python3 - "$maintainers" "$repo" <<'PY'
import glob, os, sys
full, repo = sys.argv[1], sys.argv[2]
out = []
entry = False
for line in open(full):
    if not line.strip():
        entry = False
    elif line.startswith('KSTATS - '):
        entry = True
    if entry and line.startswith('F:\t'):
        if not glob.glob(os.path.join(repo, line[3:].strip())):
            continue
    out.append(line)
open(os.path.join(repo, 'MAINTAINERS'), 'w').write(''.join(out))
PY
}

step "writing the series against $SRC_PKG $SRC_VERSION"
rm -rf "$repo" "$out"
mkdir -p "$repo" "$out"
cp -a "$ORIG/." "$repo/"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=base -c user.email=base@localhost \
	commit -q -m "$SRC_PKG $SRC_VERSION: the files kstats changes"
for s in "${steps[@]}"; do
	IFS='|' read -r subject files patches body <<<"$s"
	for f in $files; do
		mkdir -p "$repo/$(dirname "$f")"
		(cd "$TOP" && git ls-files --cached --others --exclude-standard -- "$f") |
			while read -r g; do
				mkdir -p "$repo/$(dirname "$g")"
				cp "$TOP/$g" "$repo/$g"
			done
	done
	for p in $patches; do
		git -C "$repo" apply "$TOP/$p"
	done
	maintainers_step
	git -C "$repo" add -A
	# The author is the one who signs off, whatever the environment says.
	printf '%s\n\n%s\n\nSigned-off-by: %s\n' "$subject" "$body" "$ident" |
		GIT_AUTHOR_NAME="${ident% <*}" GIT_COMMITTER_NAME="${ident% <*}" \
		GIT_AUTHOR_EMAIL="$(echo "$ident" | sed 's/.*<\(.*\)>/\1/')" \
		GIT_COMMITTER_EMAIL="$(echo "$ident" | sed 's/.*<\(.*\)>/\1/')" \
			git -C "$repo" commit -q -F -
done
git -C "$repo" format-patch -q --cover-letter -o "$out" HEAD~${#steps[@]}
cover=$(ls "$out"/0000-*.patch)
SRC_PKG=$SRC_PKG SRC_VERSION=$SRC_VERSION \
	python3 - "$cover" "$TOP/Documentation/dev-tools/kstats.rst" <<'PY'
import os
import re
import sys
p = sys.argv[1]
s = open(p).read()
# The figures of the series' kernel in kstats.rst (make bench-peers on the
# newest 7.x: the first column of its table): the instructions each case
# adds to a traced getppid() call.
doc = open(sys.argv[2]).read()
table = doc[doc.index('On the newest 7.x, and 6.12 beside it'):]
fig = {}
for case, row in (('trace', r'``trace``'), ('pcpu', r'``pcpu:``'),
                  ('fprobe', r'``fprobe:``'), ('funclatency', 'funclatency'),
                  ('kfunc', 'bpftrace kfunc'), ('kprobe_hist', 'kprobe events'),
                  ('fprobe_hist', 'fprobe events')):
    fig[case] = int(re.search(r'^' + row + r' +(\d+) ', table, re.M).group(1))
fig['cheap'] = min(fig['trace'], fig['pcpu'], fig['fprobe'])
fig['cheap_form'] = {fig['trace']: 'trace, a kretprobe', fig['pcpu']: 'pcpu:',
                     fig['fprobe']: 'fprobe:'}[fig['cheap']]
for case in ('funclatency', 'kfunc'):
    fig[case + '_x'] = '%.1f' % (fig[case] / fig['cheap'])
fig['kernel'] = '%s %s' % (os.environ['SRC_PKG'], os.environ['SRC_VERSION'])
fig['series'] = os.environ['SRC_PKG'].replace('linux-source-', '')
s = s.replace('*** SUBJECT HERE ***', 'kstats: per-CPU latency distributions in debugfs')
s = s.replace('*** BLURB HERE ***', '''kstats measures how long kernel code takes and keeps the whole latency
distribution, not an average: per-CPU log-linear histograms with a chosen
resolution (2^N slots per power of two), recorded without locks or
atomics, read as one text line per slot and CPU from
/sys/kernel/debug/kstats/NAME, ready for grep, awk and gnuplot. Code is
instrumented by hand with kstats_record(), or on a running kernel through
/sys/kernel/debug/kstats/_control with kretprobes, fprobes, kprobe pairs
and tracepoint pairs, and, for a whole subsystem at once, one fprobe over
an ftrace glob with a distribution per function.

This follows the kstats RFC of 2020 (same slot numbering, output format
and commands). Its review asked three things, put here in substance, not
in the reviewers' words; this series answers them with figures measured
by its own benchmarks (make bench-trace and make bench-peers, in
Documentation/dev-tools/kstats.rst):

- Why this one, and not the tools we have (Peter Zijlstra)? None of
  them keeps a distribution whose percentiles come with bounds: bpftrace
  and funclatency print power-of-two histograms, hist triggers log2
  buckets, perf ftrace latency a log2 histogram. kstats keeps 2^N slots
  per power of two (N chosen per metric, 0 to 8: slots at most 0.4%%
  wide), per CPU, and its tool prints each percentile with the bounds of
  its slot, which the tests check against the true percentile of known
  samples.

- Improve hist triggers, or write a user tool (Masami Hiramatsu)? A
  latency histogram built from hist triggers needs two probe events, a
  synthetic event and three triggers, and builds a trace event for each;
  on the kernel of this series it adds %(kprobe_hist)d instructions to a
  traced getppid() call (kprobe events) and %(fprobe_hist)d (fprobe events),
  against %(cheap)d for kstats' cheapest form (%(cheap_form)s) and %(fprobe)d
  for its fprobe: form. The user tool is in the series (tools/kstats): kstats
  keeps the counting in the kernel, where it is cheapest, and everything
  else in user space.

- Use BPF, and show numbers (Alexei Starovoitov, Toke Hoiland-Jorgensen).
  In the same run, on the same kernel: funclatency (libbpf-tools, kprobe
  and kretprobe) adds %(funclatency)d instructions per call, %(funclatency_x)s times
  kstats' cheapest form, and bpftrace on fentry/fexit %(kfunc)d, %(kfunc_x)s times. Every
  form of kstats costs less than every peer measured. The BPF tools
  keep the entry time in a hash map keyed by thread, whose updates and
  deletes take a bucket lock, and enter each program through BPF's
  guards; fprobe: keeps it in the fprobe's per-call entry data and
  records with two per-CPU additions.

What is new since the RFC: fprobe attach, and one fprobe for a glob with
a metric per function found in constant time; pid and cgroup filters;
module lifetimes (a traced module can be unloaded); a memory budget;
error_log; bounded percentiles, compare, merge and OpenMetrics output in
the tool; KUnit suites, kselftests, and a benchmark module that handles
the traps of microbenchmarks.

Patches 3 to 8 change existing code. kstats attaches to a tracepoint
as fprobe_events does, through the tracepoint's probe stub (a probe of
the tracepoint's own type, for kCFI) with its own data, and
fprobe_events' t: events would count each hit once more per such probe;
patch 3 makes them act only on the calls made for their own probe.
Patches 4 to 6 fix what kstats' fault-injection tests found when memory
runs out: a kprobe on ftrace whose disarm cannot allocate ftrace's new
filter stays in kprobe_table, registered, while its owner frees it (a
use-after-free, patch 4); register_kprobe() returns 0 for a probe it
could not arm (patch 5); an fgraph_ops whose registration failed can never
be registered again (patch 6), and fprobe WARNs when that registration
fails (patch 7). Patch 8 fixes the ORC hints of return_to_handler, where
an interrupt at the call to .Ldo_rop made a stack trace in its handler
say 'stack going in the wrong direction?' under kstats' torture test.
Patches 4 to 8 are fixes that can go on their own, to stable too.

The series applies to Linux %(series)s (Debian's %(kernel)s).
Tested on x86_64 (qemu, the test kernel with KASAN, lockdep and kmemleak,
and Debian's own 7.3, 6.12 and 6.1 kernels, out of tree) and UML with the
KUnit suites and the kselftests of the series.''' % fig)
open(p, 'w').write(s)
PY
step "series in ${out#"$TOP"/}: $(ls "$out" | wc -l) files"

if [ "${1:-}" = --build ]; then
	bis=$WORK/bisect
	step "a pristine tree (hard links) in $bis/linux"
	rm -rf "$bis"
	mkdir -p "$bis"
	cp -al "$SRC" "$bis/linux"
	rm -rf "$bis/linux"/build-*
	(cd "$bis/linux" && xargs rm -f < .kstats-overlay && rm -f .kstats-overlay)
	(cd "$ORIG" && find . -type f) | while read -r f; do
		cp --remove-destination "$ORIG/$f" "$bis/linux/$f"
	done
	# The debug kernel's objects, when it was built: the command lines
	# are relative and the same in this tree, and sources keep their
	# times (hard links), so make rebuilds what the patches change.
	# objtool is relinked (tools/ builds with absolute paths) into the
	# same program, but newer than every object that it checked: its
	# time is put back, or everything would be rebuilt.
	bdir=$bis/linux/build-x86_64-debug
	objtool=$bdir/tools/objtool/objtool
	if [ -e "$BUILD_X86-debug/.kstats-built" ]; then
		step "starting from the objects of $BUILD_X86-debug"
		cp -a "$BUILD_X86-debug" "$bdir"
		[ -e "$objtool" ] && touch -r "$objtool" "$bis/objtool.time"
	fi
	mkdir -p "$bdir"
	mk() { make -C "$bis/linux" O="$bdir" ARCH=x86_64 "$(cc_opts)" "$@"; }
	mk -s tinyconfig > /dev/null
	for p in $(ls "$out"/0*-*.patch | grep -v '/0000-'); do
		patch -s -p1 -d "$bis/linux" < "$p"
		# A patch that touches no input of the kernel's build
		# (documentation, selftests, tools/kstats) builds what the
		# previous one built.
		if ! grep '^+++ b/' "$p" |
		     grep -qvE '^\+\+\+ b/(Documentation/|MAINTAINERS$|tools/testing/selftests/|tools/kstats/)'; then
			pass "patches: the test kernel builds after $(basename "$p") (no build input changed)"
			continue
		fi
		# The debug kernel's configuration: this build then finds in
		# ccache every object that no later patch changes.
		"$bis/linux/scripts/kconfig/merge_config.sh" -m -O "$bdir" \
			"$bdir/.config" "$HARNESS/x86_64.config" \
			"$HARNESS/x86_64-debug.config" > /dev/null 2>&1
		mk -s olddefconfig > /dev/null
		if [ -e "$bis/objtool.time" ]; then
			mk -s -j"$JOBS" prepare > /dev/null 2>&1 || true
			[ -e "$objtool" ] && touch -r "$bis/objtool.time" "$objtool"
			rm -f "$bis/objtool.time"
		fi
		# vmlinux, not bzImage: no patch touches the boot code, and
		# compressing the kernel again after each is time lost.
		step "building after $(basename "$p")"
		if mk -s -j"$JOBS" vmlinux modules > "$bis/build.log" 2>&1; then
			pass "patches: the test kernel builds after $(basename "$p")"
		else
			tail -n 20 "$bis/build.log"
			fail "patches: the test kernel builds after $(basename "$p")"
		fi
	done
	[ "$V_FAILED" -eq 0 ]
	exit
fi
[ "${1:-}" = --check ] || exit 0
set +e

# The checks, as PASS/FAIL lines for harness/check.sh (harness/verdict.sh).

am=$WORK/series-am
rm -rf "$am"
mkdir -p "$am"
cp -a "$ORIG/." "$am/"
git -C "$am" init -q
git -C "$am" add -A
git -C "$am" -c user.name=base -c user.email=base@localhost commit -q -m base
git -C "$am" -c user.name=am -c user.email=am@localhost am -q \
	$(ls "$out"/0*-*.patch | grep -v '/0000-') \
	>"$WORK/series-am.log" 2>&1
r=$?
[ $r -eq 0 ] || cat "$WORK/series-am.log"
result $r "patches: the series applies with git am to pristine $SRC_PKG $SRC_VERSION files"

# The series builds this repository's tree: every file the same.
bad=0
for f in $(cd "$TOP" && git ls-files --cached --others --exclude-standard \
		include lib kernel samples tools Documentation); do
	cmp -s "$TOP/$f" "$am/$f" || { echo "differs: $f"; bad=1; }
done
for f in $(cd "$ORIG" && find . -type f); do
	if [ "$f" = ./MAINTAINERS ]; then
		# But for the M: line, the submitter's in the series.
		IDENT=$ident PLACEHOLDER=$placeholder python3 -c '
import os, sys
m = "M:\t%s\n"
s = open(sys.argv[1]).read().replace(m % os.environ["IDENT"], m % os.environ["PLACEHOLDER"])
sys.exit(s != open(sys.argv[2]).read())' "$am/$f" "$SRC/$f" ||
			{ echo "differs: $f"; bad=1; }
		continue
	fi
	cmp -s "$SRC/$f" "$am/$f" || { echo "differs: $f"; bad=1; }
done
result $bad "patches: the series gives this repository's files"

# The cover letter answers the 2020 review, each reviewer by name, with
# the figures of kstats.rst's table of the peers (make bench-peers), and
# leaves no placeholder of git format-patch.
bad=0
for who in Zijlstra Hiramatsu Starovoitov Hoiland-Jorgensen; do
	grep -qw -- "$who" "$cover" || { echo "cover letter: no answer to $who"; bad=1; }
done
for row in '``trace``' '``fprobe:``' funclatency 'bpftrace kfunc' 'kprobe events' 'fprobe events'; do
	n=$(sed -n '/^On the newest 7.x, and 6.12 beside it/,$p' "$TOP/Documentation/dev-tools/kstats.rst" |
		awk -v r="$row" 'index($0, r " ") == 1 { print $(split(r, w, " ") + 1); exit }')
	grep -qw -- "${n:-none}" "$cover" ||
		{ echo "cover letter: not kstats.rst's figure for $row (${n:-none})"; bad=1; }
done
! grep -n '\*\*\*' "$cover" || bad=1
result $bad "patches: the cover letter answers each reviewer of 2020 with kstats.rst's figures"

# The MAINTAINERS entry names the submitter (M:) and the list (L:), no
# unset address; a test-only header stays beside its tests, not in
# include/.
bad=0
cat "$out"/0*-*.patch > "$WORK/series.all"
grep -qxF "+M:	$ident" "$WORK/series.all" || { echo "MAINTAINERS: no M: line of the submitter"; bad=1; }
grep -qx '+L:	[a-z-]*@vger\.kernel\.org' "$WORK/series.all" ||
	{ echo "MAINTAINERS: no L: list"; bad=1; }
! grep -n '^+[ML]:.*@localhost' "$WORK/series.all" || bad=1
! git -C "$TOP" ls-files 'include/*' | grep -i 'kunit\|test' || bad=1
result $bad "patches: MAINTAINERS names the submitter and the list, no test header in include/"

# As a maintainer runs it: inside the kernel tree, which has the series
# applied, so that checkpatch also checks the headers and files it names.
for p in "$out"/0*-*.patch; do
	[ "$(basename "$p")" = "$(basename "$cover")" ] && continue
	res=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --show-types - < "$p" 2>&1)
	checkpatch_clean "$res"
	result $? "patches: checkpatch --strict $(basename "$p"), in the tree"
done
[ "$V_FAILED" -eq 0 ]
exit
