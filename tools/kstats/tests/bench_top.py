#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kstats top's cost per refresh: make bench-top, or

    bench_top.py KSTATS [DIR]

on a generated group (kstats_gen.py) of 1000 functions on 64 CPUs at
frac_bits 1, its _summary against each of its 1000 function files
(kstats top --files). Not a test: it prints figures. Each is the median of
ROUNDS runs (environment, default 3) of kstats top into /dev/null (-b
-n 40: a screen's rows) with -i 0.001, so that reading and computing is
all it does: the time per refresh is the difference between runs of 1 and
of 1 + K intervals, over K; max RSS is the process's, of the longer run,
as GNU time (/usr/bin/time) has them (to 10 ms: K makes up for it).
The files are in DIR (default: a temporary directory, removed after;
made once and kept if DIR is given), in the page cache: debugfs renders
its text at each read, a cost that this leaves out.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kstats_gen as gen  # noqa: E402

FUNCS, CPUS, BITS = 1000, 64, 1
TIME = '/usr/bin/time'


def run(args):
    """
    Wall seconds, user + system seconds, max RSS (KiB) of kstats ARGS, as
    /usr/bin/time (GNU time) measures them: a child's maximum RSS counts
    that of its parent before exec, which for this script's would be its
    own (15 MB).
    """
    with tempfile.NamedTemporaryFile('r', encoding='ascii') as out, \
            open(os.devnull, 'w', encoding='ascii') as null:
        p = subprocess.run([TIME, '-o', out.name, '-f', '%e %U %S %M'] + args, stdout=null,
                           check=False)
        if p.returncode:
            sys.exit('%s: exit %d' % (' '.join(args), p.returncode))
        wall, user, system, rss = out.read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss)


def measure(kstats, d, extra, k, rounds):
    """Per refresh: wall and CPU seconds; the max RSS of a run of 1 + K."""
    base = [kstats, 'top', '--dir', d, 'big', '-b', '--lines', '40', '-i', '0.001'] + extra
    walls, cpus, rss = [], [], []
    for _ in range(rounds):
        w1, c1, _ = run(base + ['-c', '1'])
        wk, ck, r = run(base + ['-c', str(1 + k)])
        walls.append((wk - w1) / k)
        cpus.append((ck - c1) / k)
        rss.append(r)
    return statistics.median(walls), statistics.median(cpus), statistics.median(rss)


def size(path):
    lines = nbytes = 0
    with open(path, 'rb') as f:
        for line in f:
            lines += 1
            nbytes += len(line)
    return lines, nbytes


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kstats = os.path.abspath(sys.argv[1])
    if not os.access(TIME, os.X_OK):
        sys.exit('bench-top: needs GNU time as %s (apt-get install time)' % TIME)
    rounds = int(os.environ.get('ROUNDS') or '3')
    keep = len(sys.argv) == 3
    d = sys.argv[2] if keep else tempfile.mkdtemp(prefix='kstats-bench-top.')
    g = os.path.join(d, 'big')
    try:
        if not os.path.exists(os.path.join(g, '_summary')):
            print('generating %s: %d functions x %d CPUs, frac_bits %d' % (g, FUNCS, CPUS, BITS),
                  flush=True)
            gen.write_synth_group(g, FUNCS, CPUS, BITS)
        files = [os.path.join(g, f) for f in os.listdir(g) if not f.startswith('_')]
        s_lines, s_bytes = size(os.path.join(g, '_summary'))
        f_lines = f_bytes = 0
        for f in files:
            n, b = size(f)
            f_lines += n
            f_bytes += b
        print('group: %d functions; _summary %d lines, %.1f MB; function files %d lines, '
              '%.1f MB' % (len(files), s_lines, s_bytes / 1e6, f_lines, f_bytes / 1e6))
        print('kstats top -b -n 40 -i 0.001 into /dev/null, median of %d runs, %d CPUs here'
              % (rounds, os.cpu_count()))
        print('%-30s %14s %14s %12s' % ('read', 'wall/refresh', 'CPU/refresh', 'max RSS'))
        for what, extra, k in (('_summary', [], 100), ('%d function files (--files)' % len(files),
                                                         ['--files'], 10)):
            wall, cpu, rss = measure(kstats, d, extra, k, rounds)
            print('%-30s %11.1f ms %11.1f ms %9.1f MB' % (what, wall * 1e3, cpu * 1e3,
                                                          rss / 1024), flush=True)
    finally:
        if not keep:
            shutil.rmtree(d)
    return 0


if __name__ == '__main__':
    sys.exit(main())
