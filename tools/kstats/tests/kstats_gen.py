#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Render samples as /sys/kernel/debug/kstats/NAME renders them.

The same slot numbering, sums of offsets cut to 16 bits and means, and
cumulative fractions as lib/kstats.c, so that the tool's tests can know
the true statistics of the samples behind a kstats text.
"""

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
