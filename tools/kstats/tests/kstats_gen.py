#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Render samples as /sys/kernel/debug/kstats/NAME renders them.

The same slot numbering, sums of offsets cut to 16 bits and means, and
cumulative fractions as lib/kstats.c, so that the tool's tests can know
the true statistics of the samples behind a kstats text.

Groups too (trace fprobe:GLOB as NAME): a directory with a metric file per
function and _summary, a line per function and non-empty slot, the counts
summed over the CPUs and the mean of the slot, as the CPUS lines have them:

  function vfs_read bits 1 slot 21 count 1234 avg 1530

Run as a script, it writes a large synthetic group, for bench-top:
  kstats_gen.py group DIR [FUNCTIONS [CPUS [SEED]]]
"""
import math
import os
import random
import sys

SUM_BITS = 16


def slot_of(val, bits):
    bucket = (val >> bits).bit_length()
    if not bucket:
        return val
    return (bucket << bits) | ((val >> (bucket - 1)) & ((1 << bits) - 1))


def slot_min(slot, bits):
    bucket = slot >> bits
    mant = (1 << bits) | (slot & ((1 << bits) - 1))
    return mant << (bucket - 1) if bucket else slot


def slot_max(slot, bits):
    bucket = slot >> bits
    return slot_min(slot, bits) + ((1 << (bucket - 1)) - 1 if bucket > 1 else 0)


def _offset(val, bits):
    bucket = (val >> bits).bit_length()
    shift = bucket - 1 if bucket > 1 else 0
    off = val & ((1 << shift) - 1)
    if shift > SUM_BITS:
        off >>= shift - SUM_BITS
    return off


def _avg(slot, bits, count, offsum):
    bucket = slot >> bits
    shift = bucket - 1 if bucket > 1 else 0
    off = offsum // count
    if shift > SUM_BITS:
        k = shift - SUM_BITS
        off = (off << k) + (1 << (k - 1))
    return min(slot_min(slot, bits) + off, slot_max(slot, bits))


def render(samples_by_cpu, bits, possible=None):
    """samples_by_cpu: {cpu: [values]}; returns the text of the metric."""
    possible = possible or (max(samples_by_cpu, default=0) + 1)
    cells = {}  # (slot, cpu) -> [count, offsum]
    for cpu, values in samples_by_cpu.items():
        for v in values:
            c = cells.setdefault((slot_of(v, bits), cpu), [0, 0])
            c[0] += 1
            c[1] += _offset(v, bits)
    totals = {}
    for (slot, cpu), (n, _) in cells.items():
        totals[cpu] = totals.get(cpu, 0) + n
    total = sum(totals.values())
    cum = {}
    cum_all = 0
    out = []
    for slot in sorted({s for s, _ in cells}):
        n_all = off_all = 0
        for cpu in sorted(c for s, c in cells if s == slot):
            n, off = cells[(slot, cpu)]
            cum[cpu] = cum.get(cpu, 0) + n
            ppm = cum[cpu] * 1000000 // totals[cpu]
            out.append('slot %-3d CPU  %-4d count %8d avg %8d p %d.%06d\n' %
                       (slot, cpu, n, _avg(slot, bits, n, off),
                        ppm // 1000000, ppm % 1000000))
            n_all += n
            off_all += off
        cum_all += n_all
        ppm = cum_all * 1000000 // total
        out.append('slot %-3d CPUS %-4d count %8d avg %8d p %d.%06d\n' %
                   (slot, possible, n_all, _avg(slot, bits, n_all, off_all),
                    ppm // 1000000, ppm % 1000000))
    return ''.join(out)


def slot_sums(samples_by_cpu, bits):
    """{slot: (count, avg)} of all CPUs: the CPUS lines' counts and means."""
    cells = {}
    for values in samples_by_cpu.values():
        for v in values:
            c = cells.setdefault(slot_of(v, bits), [0, 0])
            c[0] += 1
            c[1] += _offset(v, bits)
    return {s: (n, _avg(s, bits, n, off)) for s, (n, off) in sorted(cells.items())}


def summary_lines(name, sums, bits):
    """The lines of _summary of function NAME: {slot: (count, avg)}."""
    return ''.join('function %s bits %d slot %d count %d avg %d\n' % (name, bits, s, n, a)
                   for s, (n, a) in sorted(sums.items()) if n)


def render_summary(funcs, bits):
    """_summary of {function: {cpu: [values]}}; a function without samples
    has no line."""
    return ''.join(summary_lines(f, slot_sums(by_cpu, bits), bits)
                   for f, by_cpu in funcs.items())


def write_group(path, funcs, bits, possible=None, summary=True):
    """The directory of a group: {function: {cpu: [values]}}, a file per
    function, and _summary."""
    os.makedirs(path, exist_ok=True)
    for f, by_cpu in funcs.items():
        with open(os.path.join(path, f), 'w', encoding='ascii') as out:
            out.write(render(by_cpu, bits, possible) if by_cpu else '')
    if summary:
        with open(os.path.join(path, '_summary'), 'w', encoding='ascii') as out:
            out.write(render_summary(funcs, bits))


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def synth_function(rng, ncpus, bits):
    """
    A function's histogram without drawing its samples: a lognormal
    (median 200 ns to 200 us, sigma 0.8 to 1.5, 20k to 5M calls), its
    expected count in each slot (20 to 40 non-empty, at frac_bits 1) spread
    over the CPUs that call it (about 70% of them, unevenly), each slot's
    mean the lognormal's within it. Returns {slot: {cpu: (count, avg)}}.
    """
    mu = rng.uniform(math.log(200), math.log(200000))
    sigma = rng.uniform(0.8, 1.5)
    total = min(max(int(rng.lognormvariate(math.log(200000), 1.0)), 20000), 5000000)
    weights = {c: rng.expovariate(1) for c in range(ncpus) if rng.random() < 0.7} or {0: 1}
    wsum = sum(weights.values())
    cells = {}
    s = slot_of(1, bits)
    while slot_min(s, bits) < 2 ** 40:
        lo, hi = slot_min(s, bits), slot_max(s, bits) + 1
        a, b = (math.log(lo) - mu) / sigma, (math.log(hi) - mu) / sigma
        mass = _phi(b) - _phi(a)
        expect = total * mass
        if expect >= 0.5:
            part = _phi(b - sigma) - _phi(a - sigma)
            mean = math.exp(mu + sigma * sigma / 2) * part / mass if mass > 0 else lo
            avg = int(min(max(mean, lo), hi - 1))
            row = {}
            for c, w in weights.items():
                n = int(expect * w / wsum + rng.random())
                if n:
                    row[c] = (n, avg)
            if row:
                cells[s] = row
        s += 1
    return cells


def render_cells(cells, bits, possible):
    """The text of a metric from {slot: {cpu: (count, avg)}}, and its
    {slot: (count, avg)} of all CPUs."""
    totals, cum = {}, {}
    for row in cells.values():
        for c, (n, _) in row.items():
            totals[c] = totals.get(c, 0) + n
    total = sum(totals.values())
    out, sums, cum_all = [], {}, 0
    for s in sorted(cells):
        n_all = sum_all = 0
        for c in sorted(cells[s]):
            n, avg = cells[s][c]
            cum[c] = cum.get(c, 0) + n
            ppm = cum[c] * 1000000 // totals[c]
            out.append('slot %-3d CPU  %-4d count %8d avg %8d p %d.%06d\n' %
                       (s, c, n, avg, ppm // 1000000, ppm % 1000000))
            n_all += n
            sum_all += n * avg
        cum_all += n_all
        ppm = cum_all * 1000000 // total
        avg = min(max(sum_all // n_all, slot_min(s, bits)), slot_max(s, bits))
        sums[s] = (n_all, avg)
        out.append('slot %-3d CPUS %-4d count %8d avg %8d p %d.%06d\n' %
                   (s, possible, n_all, avg, ppm // 1000000, ppm % 1000000))
    return ''.join(out), sums


def function_names(n, rng):
    """N distinct names as kernel functions have them, with some of a
    module (MODULE:SYMBOL) and some of the compiler (.isra.0, .constprop.0)."""
    verbs = ['read', 'write', 'alloc', 'free', 'lookup', 'open', 'release', 'map',
             'unmap', 'flush', 'sync', 'poll', 'queue', 'submit', 'complete', 'init']
    nouns = ['vfs', 'ext4', 'xfs', 'page', 'folio', 'inode', 'dentry', 'bio', 'blk',
             'skb', 'tcp', 'udp', 'sock', 'mm', 'slab', 'irq', 'sched', 'nvme']
    names = set()
    while len(names) < n:
        name = '%s_%s_%s' % (rng.choice(nouns), rng.choice(verbs), rng.choice(nouns))
        r = rng.random()
        if r < 0.05:
            name = '%s:%s' % (rng.choice(['nvme', 'e1000e', 'btrfs', 'kvm']), name)
        elif r < 0.10:
            name += rng.choice(['.isra.0', '.constprop.0', '.part.0'])
        if name in names:
            name += '_%d' % len(names)
        names.add(name)
    return sorted(names)


def write_synth_group(path, nfuncs=1000, ncpus=64, bits=1, seed=1):
    """A large group (bench-top): NFUNCS functions on NCPUS CPUs, a file
    each and _summary. Returns the number of CPU and CPUS lines written."""
    rng = random.Random(seed)
    os.makedirs(path, exist_ok=True)
    lines = 0
    with open(os.path.join(path, '_summary'), 'w', encoding='ascii') as summary:
        for name in function_names(nfuncs, rng):
            text, sums = render_cells(synth_function(rng, ncpus, bits), bits, ncpus)
            with open(os.path.join(path, name), 'w', encoding='ascii') as f:
                f.write(text)
            summary.write(summary_lines(name, sums, bits))
            lines += text.count('\n')
    return lines


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] != 'group':
        print('usage: kstats_gen.py group DIR [FUNCTIONS [CPUS [SEED]]]', file=sys.stderr)
        sys.exit(2)
    args = [int(a) for a in sys.argv[3:6]]
    n = write_synth_group(sys.argv[2], *args[:2], bits=1, seed=args[2] if len(args) > 2 else 1)
    print('%s: %d lines' % (sys.argv[2], n))
