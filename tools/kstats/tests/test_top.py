#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run with the path of the kstats binary as its argument (or from
test_kstats.py, which runs these too, after its own).

Tests of kstats top, of groups as input (a directory with a metric file
per function and _summary) and of kstats trace 'GLOB', on fixtures made
from known samples by kstats_gen.py. A group's _summary (or a metric) that
changes between two reads is a FIFO that the test fills once per read of
the tool, in step with its reads and not with time; the terminal mode runs
on a pseudo-terminal. kstats trace 'GLOB' runs as root in a mount namespace
whose /proc/mounts shows a fake debugfs, its kstats/_control a FIFO that
the test reads as the kernel would (skipped without root or unshare).
"""
import bisect
import contextlib
import csv
import errno
import fcntl
import io
import json
import math
import os
import random
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kstats_gen as gen  # noqa: E402

# The harness: test_kstats (check, run, write, KSTATS, TMP, HANG).
H = None
BITS = 1    # a group's default frac_bits


def rank(q, n):
    return min(max(math.ceil(q / 100 * n), 1), n)


def expect_row(values, secs=None, bits=BITS):
    """What a row of the table must show for VALUES, the samples of the
    interval: count, the slots that hold p50 and p99 (of frac_bits BITS,
    as coarse as the input's or coarser), and the upper bound of the slot
    of the largest sample, max<= (at BITS, the input's)."""
    v = sorted(values)
    n = len(v)
    if not n:
        return {'n': 0}
    return {'n': n, 'p50': gen.slot_of(v[rank(50, n) - 1], BITS),
            'p99': gen.slot_of(v[rank(99, n) - 1], BITS),
            'max': gen.slot_max(gen.slot_of(v[-1], bits), bits), 'total': sum(v),
            'rate': n / secs if secs else None, 'secs': secs}


def total_tolerance(*snapshots):
    """The error on a total that the kernel's means allow: rounded down,
    offsets cut to 16 bits, in each of the reads subtracted."""
    tol = 0
    for values in snapshots:
        for x in values:
            s = gen.slot_of(x, BITS)
            tol += 1 + (gen.slot_max(s, BITS) - gen.slot_min(s, BITS) + 1) / 2 ** 15
    return tol


def parse_tables(out):
    """kstats top's plain output: [(header words, [row words])]. A table
    without a rate/s column (a snapshot's) gets '-' in its place."""
    tables = []
    rate = True
    for line in out.splitlines():
        w = line.split()
        if w[:1] in (['interval'], ['group']):
            tables.append((w, []))
        elif w[:1] == ['function']:
            rate = 'rate/s' in w
        elif tables and w:
            tables[-1][1].append(w if rate else w[:2] + ['-'] + w[2:])
    return tables


def head_sort(words):
    """The sort key a table's header line (its words) says."""
    return words[words.index('sort') + 1] if 'sort' in words[:-1] else None


def row_ok(w, want):
    """A row's words (function count rate p50 p99 max<= total) against
    WANT (expect_row()); '' if right, else what is wrong."""
    if int(w[1]) != want['n']:
        return 'count %s, not %d' % (w[1], want['n'])
    if not want['n']:
        return '' if w[3:] == ['-'] * 5 else 'no samples, but %s' % w[3:]
    bad = []
    for i, k in ((3, 'p50'), (4, 'p99')):
        if gen.slot_of(int(w[i]), BITS) != want[k]:
            bad.append('%s %s not in slot %d' % (k, w[i], want[k]))
    # max<=: a bound that holds, as a metric's summary has it.
    if int(w[5]) != want['max']:
        bad.append('max<= %s, not %d' % (w[5], want['max']))
    if abs(int(w[6]) - want['total']) > want.get('tol', 0) + 1:
        bad.append('total %s, not %d +- %g' % (w[6], want['total'], want.get('tol', 0)))
    # avg: total / count, as funclatency's "avg".
    if len(w) < 8 or abs(float(w[7]) - want['total'] / want['n']) > \
            (want.get('tol', 0) + 1) / want['n'] + 0.5:
        bad.append('avg %s, not %.1f' % (w[7:8], want['total'] / want['n']))
    # The seconds of the header are printed to the millisecond.
    if want.get('rate') is not None and \
            abs(float(w[2]) - want['rate']) > 0.05 + want['rate'] * 0.0006 / want['secs']:
        bad.append('rate %s, not %.1f' % (w[2], want['rate']))
    return '; '.join(bad)


def fed_run(args, path, snapshots, tty=None, before=None, after=None):
    """
    kstats ARGS where each read of PATH gets the next of SNAPSHOTS, in step
    with the tool's reads (as test_kstats.follow_reads): PATH is a FIFO,
    whose open by the tool waits for a writer; the FIFO of the next read
    replaces PATH before the current one is closed, so that the tool cannot
    read one twice. After the last, PATH is a regular file of it. With
    TTY (a Pty), the tool runs on it. BEFORE: {K: FUNCTION}, called once the
    tool has opened PATH for its read K (0 the first), before that read's
    data; AFTER: {K: FUNCTION}, called once that data is written and
    closed, before the next read. Returns the status (-9 on a hang),
    the output and error (the terminal's, for TTY), and what went wrong in
    the feeding ('' if nothing).
    """
    if os.path.exists(path):
        os.unlink(path)
    os.mkfifo(path)
    stop = threading.Event()
    fed = []

    def writer():
        while not stop.is_set():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno not in (errno.ENXIO, errno.ENOENT):
                    raise
                stop.wait(0.01)
                continue
            os.set_blocking(fd, True)
            return fd
        return None

    def feed():
        try:
            for i, text in enumerate(snapshots):
                fd = writer()
                if fd is None:
                    fed.append('snapshot %d of %d not read' % (i + 1, len(snapshots)))
                    return
                try:
                    if before and i in before:
                        before[i]()
                    data = text.encode('ascii')
                    while data:
                        data = data[os.write(fd, data):]
                    if i + 1 == len(snapshots):
                        with open(path + '.tmp', 'w', encoding='ascii') as f:
                            f.write(text)
                    else:
                        os.mkfifo(path + '.tmp')
                    os.rename(path + '.tmp', path)
                finally:
                    os.close(fd)
                if after and i in after:
                    after[i]()
        except OSError as e:
            fed.append('feeding: %s' % e)

    th = threading.Thread(target=feed, daemon=True)
    th.start()
    if tty:
        tty.start(args)
        rc = tty.wait()
        out, err = tty.text(), ''
    else:
        try:
            p = subprocess.run([H.KSTATS] + args, capture_output=True, text=True,
                               check=False, timeout=H.HANG)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = -9, str(e.stdout or ''), 'killed after %d s' % H.HANG
    stop.set()
    th.join()
    if rc == -9:
        fed.append('kstats still running after %d s: killed' % H.HANG)
    return rc, out, err, '; '.join(fed)


def group_funcs(rng):
    """A group's functions: {name: {cpu: [values]}}, lognormal, each its own."""
    def draw(n, mu, sigma):
        return [int(rng.lognormvariate(mu, sigma)) for _ in range(n)]
    return {
        'vfs_read': {0: draw(3000, 8, 1), 1: draw(2000, 8, 1)},
        'vfs_write': {0: draw(500, 10, 0.5), 3: draw(700, 10, 0.5)},
        'ext4:ext4_file_read_iter': {2: draw(4000, 6, 0.8)},
        'vfs_fsync.isra.0': {1: draw(40, 14, 0.3)},
    }


def take(funcs, frac):
    """The first FRAC of each CPU's samples of each function."""
    return {f: {c: v[:int(len(v) * frac)] for c, v in by.items()} for f, by in funcs.items()}


def flat(by_cpu):
    return [x for v in by_cpu.values() for x in v]


def between(old, new):
    """The samples of each function recorded from OLD to NEW (prefixes)."""
    return {f: [x for c, v in by.items() for x in v[len(old.get(f, {}).get(c, [])):]]
            for f, by in new.items()}


def test_top_pipe(rng):
    """kstats top into a pipe: a table per interval, the samples of each."""
    funcs = group_funcs(rng)
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'vfs')
    # Files of each function (kstats top reads _summary only), and one
    # function never called: listed, with no line in _summary.
    gen.write_group(g, dict(funcs, vfs_never={}), BITS)
    s0 = take(funcs, 0.3)
    del s0['vfs_fsync.isra.0']          # not called yet at the first read
    s1 = take(funcs, 0.7)
    s2 = take(funcs, 1.0)
    s2['vfs_write'] = s1['vfs_write']   # none in the second interval
    s2['vfs_read'] = take(funcs, 0.1)['vfs_read']   # a reset: fewer samples
    snaps = [gen.render_summary(s, BITS) for s in (s0, s1, s2)]
    rc, out, err, fed = fed_run(['top', '--dir', d, 'vfs', '-i', '0.05', '-c', '2'],
                                os.path.join(g, '_summary'), snaps)
    tables = parse_tables(out)
    ok = rc == 0 and not fed and len(tables) == 2 and '\x1b' not in out
    heads = [t[0] for t in tables]
    ok = ok and all(h[0] == 'interval' and h[1] == str(i + 1) and h[2] == 'seconds' and
                    h[4:8] == ['group', 'vfs', 'functions', '5'] and
                    h[8:] == ['sort', 'total', 'bits', str(BITS), '(slots', 'at', 'most',
                              '%.3g%%' % (100 / 2 ** BITS), 'wide)']
                    for i, h in enumerate(heads))
    H.check('top into a pipe: a header line per interval (interval, seconds, group, '
            'functions), no escape code', ok, (rc, fed, out, err))
    if not ok:
        return
    bad = []
    for i, (old, new) in enumerate(((s0, s1), (s1, s2))):
        secs = float(heads[i][3])
        rows = {w[0]: w for w in tables[i][1]}
        got = between(old, new)
        if i == 1:
            got['vfs_read'] = flat(s2['vfs_read'])     # counted from nothing
        if set(rows) != set(funcs) | {'vfs_never'}:
            bad.append('interval %d: rows %s' % (i + 1, sorted(rows)))
            continue
        for f in rows:
            want = expect_row(got.get(f, []), secs)
            want['tol'] = total_tolerance(
                flat(new.get(f, {})), [] if (i, f) == (1, 'vfs_read') else flat(old.get(f, {})))
            why = row_ok(rows[f], want)
            if why:
                bad.append('interval %d, %s: %s' % (i + 1, f, why))
        order = [w[0] for w in tables[i][1]]
        tot = {f: int(rows[f][6]) if rows[f][6] != '-' else -1 for f in rows}
        if order != sorted(rows, key=lambda f: (-tot[f], f)):
            bad.append('interval %d: not sorted by total: %s' % (i + 1, order))
    H.check('top into a pipe: each interval\'s count, rate, p50, p99, max, total of each '
            'function (a new one, none in the interval: -, a reset counted from it), '
            'sorted by total', not bad, (bad, out))

    # -s and -n: the order of each key, the first N rows; vfs_rare makes
    # each order a different one.
    s_full = dict(take(funcs, 1.0), vfs_rare={2: [5000000, 5200000, 4900000]})
    want = {f: expect_row(flat(by)) for f, by in s_full.items()}
    keys = {'total': lambda f: (-want[f]['total'], f), 'p99': lambda f: (-want[f]['p99'], f),
            'count': lambda f: (-want[f]['n'], f), 'name': lambda f: f,
            'max': lambda f: (-want[f]['max'], f),
            'avg': lambda f: (-want[f]['total'] / want[f]['n'], f)}
    for key, order in keys.items():
        rc, out, err, fed = fed_run(['top', '--dir', d, 'vfs', '-i', '0.05', '-c', '1',
                                     '-s', key, '--lines', '3'], os.path.join(g, '_summary'),
                                    ['', gen.render_summary(s_full, BITS)])
        tables = parse_tables(out)
        got = [w[0] for w in tables[0][1]] if tables else []
        # p99 by slot: functions in one slot may come in either order.
        if key == 'p99':
            ok = [want.get(f, {}).get('p99') for f in got] == sorted(
                (want[f]['p99'] for f in s_full), reverse=True)[:3]
        else:
            # vfs_never, never called, comes last but in the order of names.
            ok = got == sorted(list(s_full) + (['vfs_never'] if key == 'name' else []),
                               key=order)[:3]
        H.check('top -s %s --lines 3: the first 3 rows in the order of %s' % (key, key),
                rc == 0 and not fed and ok and head_sort(tables[0][0]) == key, (got, out, err))


def test_top_all(rng):
    """kstats top without NAME: every metric (its CPUS lines) and every
    function of every group (GROUP/FUNC); _control and error_log are not."""
    d = tempfile.mkdtemp(dir=H.TMP)
    values = [int(rng.lognormvariate(9, 1)) for _ in range(3000)]
    funcs = {'f1': {0: values[:100]}, 'f2': {1: values[100:150]}}
    gen.write_group(os.path.join(d, 'grp'), funcs, BITS)
    for name, text in (('_control', 'name grp mode group glob f* functions 2 bits 1\n'),
                       ('error_log', 'kstats_trace: error: nothing\n')):
        with open(os.path.join(d, name), 'w', encoding='ascii') as f:
            f.write(text)
    old = {0: values[:1000], 2: values[1000:1200]}
    new = {0: values[:1800], 2: values[1000:1500]}
    rc, out, err, fed = fed_run(['top', '--dir', d, '-i', '0.05', '-c', '1'],
                                os.path.join(d, 'softirq'),
                                [gen.render(old, 3), gen.render(new, 3)])
    tables = parse_tables(out)
    rows = {w[0]: w for w in tables[0][1]} if tables else {}
    ok = rc == 0 and not fed and set(rows) == {'softirq', 'grp/f1', 'grp/f2'}
    ok = ok and tables[0][0][4:8] == ['dir', d, 'metrics', '3']
    why = row_ok(rows['softirq'], dict(expect_row(values[1000:1800] + values[1200:1500],
                                                  bits=3),
                                       tol=total_tolerance(flat(old), flat(new)))) \
        if ok else 'rows'
    # The group's _summary did not change: nothing in the interval.
    ok = ok and not why and rows['grp/f1'][1] == '0' and rows['grp/f1'][3:] == ['-'] * 5
    H.check('top without NAME: a row per metric and per GROUP/FUNC, the interval of '
            'each', ok, (why, out, err, fed))
    # A file of the directory that is not a metric (notes, a cut copy) is
    # skipped and said once on standard error, not the end of top.
    for name, text in (('notes.txt', 'what I ran\n'),
                       ('cut', gen.render(new, 3).replace('p 1.000000', 'p 0.500000'))):
        with open(os.path.join(d, name), 'w', encoding='ascii') as f:
            f.write(text)
    rc, out, err, fed = fed_run(['top', '--dir', d, '-i', '0.05', '-c', '2'],
                                os.path.join(d, 'softirq'),
                                [gen.render(old, 3), gen.render(new, 3), gen.render(new, 3)])
    tables = parse_tables(out)
    said = sorted(err.splitlines())
    H.check('top without NAME: a file that is not a metric is skipped, said once with '
            'its name and why', rc == 0 and len(tables) == 2 and
            all({w[0] for w in t[1]} == {'softirq', 'grp/f1', 'grp/f2'} for t in tables) and
            len(said) == 2 and
            said[0].startswith('kstats: top: %s/cut: not a kstats metric, skipped (' % d) and
            'truncated' in said[0] and
            said[1].startswith('kstats: top: %s/notes.txt: not a kstats metric, skipped '
                               '(line 1: expected' % d), (rc, out, err))
    for name in ('notes.txt', 'cut'):
        os.unlink(os.path.join(d, name))
    # A metric with CPU lines only (a copy of grep 'CPU '): all its lines.
    cpu_only = ''.join(l for l in gen.render(new, 3).splitlines(True) if ' CPUS ' not in l)
    rc, out, err, fed = fed_run(['top', '--dir', d, 'softirq', '-i', '0.05', '-c', '1'],
                                os.path.join(d, 'softirq'), ['', cpu_only])
    tables = parse_tables(out)
    ok = rc == 0 and not fed and len(tables) == 1 and len(tables[0][1]) == 1
    H.check('top METRIC: one row; a metric without CPUS lines is read from its CPU lines',
            ok and not row_ok(tables[0][1][0], dict(expect_row(flat(new), bits=3),
                                                    tol=total_tolerance(flat(new)))),
            (out, err, fed))
    rc, out, err, fed = fed_run(['top', '--dir', d, 'softirq', '-i', '0.05', '-c', '1'],
                                os.path.join(d, 'softirq'),
                                [gen.render(new, 3).replace('p 1.000000', 'p 0.999999')])
    H.check('top: a truncated metric at the first read -> exit 2, "truncated", its name',
            rc == 2 and 'truncated' in err and 'softirq' in err, (rc, err))
    # --files: a group read from each function's file, not from _summary.
    g = os.path.join(d, 'grp')
    with open(os.path.join(g, '_summary'), 'w', encoding='ascii') as f:
        f.write('function f2 bits 1 slot 40 count 1 avg 1048576\n')   # not read
    rc, out, err, fed = fed_run(['top', '--dir', d, 'grp', '--files', '-i', '0.05', '-c', '1'],
                                os.path.join(g, 'f1'),
                                [gen.render({0: values[:60]}, BITS), gen.render(funcs['f1'], BITS)])
    tables = parse_tables(out)
    rows = {w[0]: w for w in tables[0][1]} if tables else {}
    H.check('top --files: a group read from the file of each function', rc == 0 and not fed and
            set(rows) == {'f1', 'f2'} and rows['f2'][1] == '0' and
            not row_ok(rows['f1'], dict(expect_row(values[60:100]),
                                        tol=total_tolerance(values[:160]))), (out, err, fed))
    # Malformed _summary at the first read: exit 2, the file and line (a
    # later read is skipped: test_top_bad_read).
    for text, why in (('function f1 bits 1 slot 5 count 2\n', 'expected'),
                      ('function f1 bits 1 slot 5 count 2 avg 99\n', 'inconsistent'),
                      ('function f1 bits 1 slot 5 count 2 avg 6\n'
                       'function f2 bits 3 slot 5 count 2 avg 5\n', 'earlier line'),
                      ('function f1 bits 1 slot 5 count 2 avg 6\n' * 2, 'given twice'),
                      ('function f1 bits 1 slot 5 count 99999999999999999999 avg 6\n',
                       'out of range')):
        rc, out, err, fed = fed_run(['top', '--dir', d, 'grp', '-i', '0.05', '-c', '1'],
                                    os.path.join(g, '_summary'), [text])
        line = text.count('\n')
        H.check('top: malformed _summary (%s) -> exit 2, its name, line %d' % (why, line),
                rc == 2 and why in err and '_summary: line %d' % line in err, (rc, err))


class Pty:
    """kstats on a pseudo-terminal of ROWS x COLS, as the foreground
    process of its session (^C is its SIGINT)."""

    def __init__(self, rows=40, cols=132):
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
        self.before = termios.tcgetattr(self.slave)
        os.set_blocking(self.master, False)
        self.lock = threading.Lock()
        self.out = b''
        self.p = None

    def start(self, args, env=None):
        def child():
            # Its terminal, and the signals' default actions (make may run
            # the tests with SIGINT or SIGHUP ignored).
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)
        self.p = subprocess.Popen(
            [H.KSTATS] + args, stdin=self.slave, stdout=self.slave, stderr=self.slave,
            start_new_session=True, preexec_fn=child, env=env)

    def read(self, timeout):
        """Reads what the terminal shows, waiting up to TIMEOUT s: whether
        anything came. A feeding thread of fed_run() may read too: the
        master does not block, and the output grows under a lock."""
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        with self.lock:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return False
            self.out += data
        return bool(data)

    def until(self, pred):
        """Reads until PRED(self) (True), or a hang (False)."""
        deadline = time.time() + H.HANG
        while not pred(self):
            if time.time() > deadline or (not self.read(0.2) and self.p.poll() is not None
                                          and not self.read(0)):
                return pred(self)
        return True

    def frame(self, since=0):
        """The last whole screen (drawn after byte SINCE of the output), as
        lines of text without escapes."""
        frames = self.out[since:].split(b'\x1b[H')
        for f in reversed(frames[1:]):
            if b'\x1b[J' in f:
                text = re.sub(rb'\x1b\[[0-9;?]*[A-Za-z]', b'', f.split(b'\x1b[J')[0])
                return text.decode(errors='replace').replace('\r', '').splitlines()
        return []

    def rows(self, since=0):
        return [l.split() for l in self.frame(since)[3:] if l.strip()]

    def selected(self, since=0):
        """The first word of the line of the last whole screen drawn in
        reverse video (the cursor's row), or None."""
        frames = self.out[since:].split(b'\x1b[H')
        for f in reversed(frames[1:]):
            if b'\x1b[J' in f:
                for line in f.split(b'\x1b[J')[0].split(b'\n'):
                    if line.startswith(b'\x1b[7m'):
                        text = re.sub(rb'\x1b\[[0-9;?]*[A-Za-z]', b'', line)
                        return (text.decode(errors='replace').split() or [None])[0]
                return None
        return None

    def send(self, data):
        while data:
            select.select([], [self.master], [], H.HANG)
            try:
                data = data[os.write(self.master, data):]
            except BlockingIOError:
                pass

    def press(self, data, pred):
        """Sends DATA, then reads until PRED(self, N) holds of what was
        drawn after byte N, the output before DATA: (PRED held, N)."""
        n = len(self.out)
        self.send(data)
        return self.until(lambda t: pred(t, n)), n

    def wait(self):
        """Its status, once ended (-9: killed after a hang); its output."""
        deadline = time.time() + H.HANG
        while self.p.poll() is None and time.time() < deadline:
            self.read(0.05)
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
            return -9
        while self.read(0.05):
            pass
        return self.p.returncode

    def text(self):
        return self.out.decode(errors='replace')

    def restored(self):
        """The terminal as it was: its modes, the normal screen and cursor."""
        tail = self.out.rsplit(b'\x1b[?1049h', 1)[-1]
        return (termios.tcgetattr(self.slave) == self.before and b'\x1b[?1049h' in self.out
                and b'\x1b[?1049l' in tail and b'\x1b[?25h' in tail)

    def close(self):
        if self.p and self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        os.close(self.master)
        os.close(self.slave)


@contextlib.contextmanager
def running(args, rows, cols, env=None):
    """kstats ARGS on a Pty of ROWS x COLS, for a with block: q and its
    end after it, the terminal closed."""
    t = Pty(rows=rows, cols=cols)
    try:
        t.start(args, env=env)
        yield t
        if t.p.poll() is None:
            t.send(b'q')
            t.wait()
    finally:
        t.close()


def test_top_tty():
    """kstats top on a terminal: keys sort, q quits, signals restore."""
    d = tempfile.mkdtemp(dir=H.TMP)
    # Orders that differ for each key: by total ddd bbb eee ccc aaa, by
    # p99 ddd eee bbb ccc aaa, by count aaa ccc ddd bbb eee; fff never called.
    funcs = {'aaa': {0: [100] * 1000}, 'bbb': {1: [2000000] * 10},
             'ccc': {0: [10000] * 300}, 'ddd': {2: [10] * 45 + [10000000] * 5},
             'eee': {1: [5000000] * 2}, 'fff': {}}
    gen.write_group(os.path.join(d, 'grp'), funcs, BITS)
    orders = {'total': ['ddd', 'bbb', 'eee', 'ccc', 'aaa', 'fff'],
              'p99': ['ddd', 'eee', 'bbb', 'ccc', 'aaa', 'fff'],
              'count': ['aaa', 'ccc', 'ddd', 'bbb', 'eee', 'fff'],
              'name': ['aaa', 'bbb', 'ccc', 'ddd', 'eee', 'fff'],
              'max': ['ddd', 'eee', 'bbb', 'ccc', 'aaa', 'fff'],
              'avg': ['eee', 'bbb', 'ddd', 'ccc', 'aaa', 'fff'],
              'rate': ['aaa', 'ccc', 'ddd', 'bbb', 'eee', 'fff'],
              'total reversed': ['aaa', 'ccc', 'eee', 'bbb', 'ddd', 'fff']}
    t = Pty()
    try:
        # A long interval: no refresh comes between a key and its screen.
        t.start(['top', '--dir', d, 'grp', '-i', '1000'])
        ok = t.until(lambda t: [r[0] for r in t.rows()] == orders['total'])
        first = t.frame()
        ok = ok and 'group grp, 6 functions, 5 with samples since the start, sort: total, ' \
            'bits %d (slots at most %g%% wide)' % (BITS, 100 / 2 ** BITS) in first[0]
        counts = {r[0]: r[1] for r in t.rows()}
        H.check('top on a terminal: the alternate screen, the samples since the start at '
                'once, sorted by total, the resolution said', ok and counts['aaa'] == '1000' and
                counts['fff'] == '0', (first, t.text()[-2000:]))
        for key, name in ((b'p', 'p99'), (b'c', 'count'), (b'n', 'name'), (b'm', 'max'),
                          (b'a', 'avg'), (b'r', 'rate'), (b't', 'total'),
                          (b'R', 'total reversed')):
            # The screen that the key draws: after it.
            n = len(t.out)
            t.send(key)
            ok = t.until(lambda t: t.frame(n))
            H.check('top on a terminal: key %s sorts by %s' % (key.decode(), name),
                    ok and 'sort: ' + name in t.frame(n)[0] and
                    [r[0] for r in t.rows(n)] == orders[name], t.frame(n))
        # ? shows the keys' help instead of the table; any key goes back.
        n = len(t.out)
        t.send(b'?')
        ok = t.until(lambda t: any('P  pause' in ln for ln in t.frame(n)))
        n = len(t.out)
        t.send(b'x')
        ok = ok and t.until(lambda t: [r[0] for r in t.rows(n)] == orders['total reversed'])
        H.check('top on a terminal: ? shows the keys, another key the table again', ok,
                t.frame(n))
        t.send(b'q')
        rc = t.wait()
        H.check('top on a terminal: q quits (status 0), the terminal restored (modes, '
                'normal screen, cursor)', rc == 0 and t.restored(), (rc, t.text()[-300:]))
    finally:
        t.close()

    # P pauses the reads: the interval shown once it goes on covers the
    # whole pause (0.5 s at least), not the last 0.05 s.
    t = Pty()
    try:
        t.start(['top', '--dir', d, 'grp', '-d', '0.05'])
        ok = t.until(lambda t: 'in the last' in ''.join(t.frame()[:1]))
        n = len(t.out)
        t.send(b'P')
        ok = ok and t.until(lambda t: '(paused)' in ''.join(t.frame(n)[:1]))
        paused = time.time()
        t.until(lambda t: time.time() > paused + 0.5)
        n = len(t.out)
        t.send(b'P')
        # The key's own redraw shows the interval before the pause; the
        # first read after it, the pause and more.
        def covers(t):
            m = re.search(r'^kstats top: .* in the last ([0-9.]+) s', ''.join(t.frame(n)[:1]))
            return m and float(m.group(1)) >= 0.5
        ok = ok and t.until(covers)
        H.check('top on a terminal: P pauses the reads, P again goes on; the next '
                'interval covers the pause', ok, t.frame(n)[:2])
        t.send(b'q')
        t.wait()
    finally:
        t.close()

    # -n and a terminal's height: rows cut to both.
    t = Pty(rows=6)
    try:
        t.start(['top', '--dir', d, 'grp', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) == 3)
        t.send(b'q')
        H.check('top on a terminal of 6 lines: 3 rows (3 header lines; the last line '
                'without a newline, which would scroll)',
                ok and t.wait() == 0 and len(t.rows()) == 3, t.frame())
    finally:
        t.close()

    # 80 columns with names longer than fit: the names are cut, never the
    # numbers (the column header ends with its last column, whole).
    gen.write_group(os.path.join(d, 'long'),
                    {'a_function_name_longer_than_fits_%d' % i: {0: [10 ** (i + 4)] * 99}
                     for i in range(3)}, BITS)
    t = Pty(rows=20, cols=80)
    try:
        t.start(['top', '--dir', d, 'long', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) >= 1)
        t.send(b'q')
        rc = t.wait()
        heads = [l for l in t.frame() if l.split()[:2] == ['function', 'count']]
        H.check('top on 80 columns: the column header whole, to "avg"',
                ok and rc == 0 and heads and heads[0].rstrip().endswith(' avg')
                and len(heads[0].rstrip()) <= 80, t.frame())
    finally:
        t.close()

    # ^C (SIGINT from the terminal), SIGTERM, SIGHUP: the terminal restored,
    # then the end by that signal.
    for how, sig in (('^C', signal.SIGINT), ('SIGTERM', signal.SIGTERM),
                     ('SIGHUP', signal.SIGHUP)):
        t = Pty()
        try:
            t.start(['top', '--dir', d, 'grp', '-i', '1000'])
            ok = t.until(lambda t: len(t.rows()) == 6)
            if how == '^C':
                t.send(b'\x03')
            else:
                t.p.send_signal(sig)
            rc = t.wait()
            H.check('top on a terminal, %s: the terminal restored, killed by %s'
                    % (how, sig.name), ok and rc == -sig and t.restored(),
                    (rc, t.text()[-300:]))
        finally:
            t.close()

    test_top_stop(d)

    # A kernel without signalfd (CONFIG_SIGNALFD, not in tinyconfig): the
    # same keys and signals, through a pipe that a handler writes to. The
    # preloaded signalfd() fails with ENOSYS, as such a kernel's does.
    shim = os.path.join(H.TMP, 'nosignalfd')
    with open(shim + '.c', 'w', encoding='ascii') as f:
        f.write('#include <errno.h>\n#include <signal.h>\n'
                'int signalfd(int fd, const sigset_t *m, int fl)\n'
                '{ (void)fd; (void)m; (void)fl; errno = ENOSYS; return -1; }\n')
    built = subprocess.run(['cc', '-shared', '-fPIC', '-o', shim + '.so', shim + '.c'],
                           capture_output=True, text=True, check=False)
    env = dict(os.environ, LD_PRELOAD=shim + '.so')
    for how, sig in (('q', None), ('SIGWINCH, then SIGTERM', signal.SIGTERM)):
        t = Pty()
        try:
            t.start(['top', '--dir', d, 'grp', '-i', '1000'], env=env)
            ok = built.returncode == 0 and t.until(lambda t: len(t.rows()) == 6)
            n = len(t.out)
            t.send(b'c')
            ok = ok and t.until(lambda t: 'sort: count' in ''.join(t.frame(n)[:1]))
            if sig:
                n = len(t.out)
                t.p.send_signal(signal.SIGWINCH)
                ok = ok and t.until(lambda t: t.frame(n))
                t.p.send_signal(sig)
            else:
                t.send(b'q')
            rc = t.wait()
            H.check('top on a terminal without signalfd (ENOSYS): the screen, key c, %s: '
                    'the terminal restored, %s' % (how, 'status 0' if not sig else
                                                   'killed by ' + sig.name),
                    ok and rc == (-sig if sig else 0) and t.restored() and
                    'signalfd' not in t.text(), (built.stderr, rc, t.text()[-300:]))
        finally:
            t.close()

    # The interval on a terminal: the samples of each (here one, -c 1).
    t = Pty()
    try:
        s0 = {'aaa': {0: [100] * 300}, 'bbb': {1: [2000000] * 4}}
        s1 = {'aaa': {0: [100] * 1000}, 'bbb': {1: [2000000] * 4}}
        rc, out, _, fed = fed_run(['top', '--dir', d, 'grp', '-i', '0.05', '-c', '1'],
                                  os.path.join(d, 'grp', '_summary'),
                                  [gen.render_summary(s, BITS) for s in (s0, s1)], tty=t)
        rows = {r[0]: r for r in t.rows()}
        H.check('top on a terminal, -c 1: the samples of the interval, then the terminal '
                'restored', rc == 0 and not fed and rows.get('aaa', [0, 0])[1] == '700' and
                rows.get('bbb', [0, 0])[1:] == ['0', '0.0', '-', '-', '-', '-', '-'] and
                'with samples in the last' in t.frame()[0] and t.restored(),
                (fed, t.frame(), out[-300:]))
    finally:
        t.close()


def test_top_browse():
    """#43, perf top's keys: the cursor and the table scrolled (Up, Down,
    PgUp, PgDn, Home, End, j, k), Enter for the histogram of the function
    under it, / to filter the rows by a text or a glob; + and - mark the
    functions new and gone since the read before."""
    d = tempfile.mkdtemp(dir=H.TMP)
    funcs = {'aaa': {0: [100] * 1000}, 'bbb': {1: [2000000] * 10},
             'ccc': {0: [10000] * 300}, 'ddd': {2: [10] * 45 + [10000000] * 5},
             'eee': {1: [5000000] * 2}, 'fff': {}}
    gen.write_group(os.path.join(d, 'grp'), funcs, BITS)
    # By total: ddd bbb eee ccc aaa fff; 6 lines: 3 rows of the table.
    t = Pty(rows=6, cols=100)
    try:
        t.start(['top', '--dir', d, 'grp', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) == 3)
        H.check('top: the cursor on the first row at the start',
                ok and t.selected() == 'ddd' and [r[0] for r in t.rows()] ==
                ['ddd', 'bbb', 'eee'], t.frame())
        for keys, sel, shown in ((b'\x1b[B' * 3, 'ccc', ['bbb', 'eee', 'ccc']),
                                 (b'j', 'aaa', ['eee', 'ccc', 'aaa']),
                                 (b'\x1b[F', 'fff', ['ccc', 'aaa', 'fff']),
                                 (b'\x1b[5~', 'eee', ['eee', 'ccc', 'aaa']),
                                 (b'\x1b[A', 'bbb', ['bbb', 'eee', 'ccc']),
                                 (b'k', 'ddd', ['ddd', 'bbb', 'eee']),
                                 (b'\x1b[6~', 'ccc', ['bbb', 'eee', 'ccc']),
                                 (b'\x1b[H', 'ddd', ['ddd', 'bbb', 'eee']),
                                 (b'\x1b[A', 'ddd', ['ddd', 'bbb', 'eee']),
                                 # Keys read together: each after the one before,
                                 # none past the first or last row.
                                 (b'\x1b[H\x1b[B', 'bbb', ['ddd', 'bbb', 'eee']),
                                 (b'\x1b[F\x1b[A', 'aaa', ['eee', 'ccc', 'aaa']),
                                 (b'\x1b[H\x1b[A\x1b[B', 'bbb', ['bbb', 'eee', 'ccc']),
                                 (b'\x1b[F\x1b[B\x1b[A', 'aaa', ['eee', 'ccc', 'aaa'])):
            n = len(t.out)
            t.send(keys)
            ok = t.until(lambda t: t.frame(n))
            H.check('top: key %r moves the cursor to %s, the table scrolled to show it'
                    % (keys.decode(), sel), ok and t.selected(n) == sel and
                    [r[0] for r in t.rows(n)] == shown, (t.selected(n), t.frame(n)))
        t.send(b'q')
        t.wait()
    finally:
        t.close()

    t = Pty(rows=30, cols=100)
    try:
        t.start(['top', '--dir', d, 'grp', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) == 6)
        # Enter on ddd (45 samples of 10, 5 of 10000000): its histogram,
        # a row per slot from [8, 11] to [8388608, 12582911], the
        # percentile columns marked in their slots.
        n = len(t.out)
        t.send(b'\n')
        ok = ok and t.until(lambda t: any('range' in l for l in t.frame(n)))
        f = t.frame(n)
        first = next((l for l in f if l.lstrip().startswith('[8, 11]')), '')
        last = next((l for l in f if l.lstrip().startswith('[8388608, 12582911]')), '')
        H.check('top: Enter shows the histogram of the function under the cursor, '
                'its percentiles marked', ok and f[2].startswith('ddd: count 50, p50 10,') and
                re.search(r' 45 +90\.00% +p50$', first) and
                re.search(r' 5 +100\.00% +p99$', last), f)
        # Down in the view: the next function's histogram.
        n = len(t.out)
        t.send(b'\x1b[B')
        ok = t.until(lambda t: t.frame(n))
        H.check('top: Down in the histogram shows the next function\'s (bbb)',
                ok and t.frame(n)[2].startswith('bbb: count 10,') and
                any(re.search(r' 10 +100\.00% +p50, p99$', l) for l in t.frame(n)),
                t.frame(n))
        # A lone Esc: the table again, the cursor where it was.
        n = len(t.out)
        t.send(b'\x1b')
        ok = t.until(lambda t: len(t.rows(n)) == 6)
        H.check('top: Esc leaves the histogram for the table, the cursor kept',
                ok and t.selected(n) == 'bbb', t.frame(n))
        # / filters: a text that names hold, a glob, Esc cancels, empty clears.
        # The prompt starts empty (less's /): /cc after [ab]* is cc.
        for keys, rows, said in ((b'/cc\n', ['ccc'], "filter 'cc': 1 of 6 shown"),
                                 (b'/\x15[ab]*\n', ['bbb', 'aaa'],
                                  "filter '[ab]*': 2 of 6 shown"),
                                 (b'/x\x7fzzz\x1b', ['bbb', 'aaa'],
                                  "filter '[ab]*': 2 of 6 shown"),
                                 (b'/cc\n', ['ccc'], "filter 'cc': 1 of 6 shown"),
                                 (b'/\n', ['ddd', 'bbb', 'eee', 'ccc', 'aaa', 'fff'],
                                  'keys:')):
            n = len(t.out)
            t.send(keys)
            ok = t.until(lambda t: [r[0] for r in t.rows(n)] == rows)
            H.check('top: / then %r: the rows %s, "%s"' % (keys.decode(), rows, said),
                    ok and t.frame(n)[1].startswith(said), t.frame(n))
        # A key's sequence cut by the end of a read is joined: a filter of
        # 126 characters, then Left (Esc [ D, at bytes 127-129), then Enter.
        n = len(t.out)
        t.send(b'/' + b'c' * 126 + b'\x1b[D\n')
        ok = t.until(lambda t: t.frame(n)[1:2] and
                     t.frame(n)[1].startswith("filter '" + 'c' * 20))
        H.check('top: an Esc [ D cut by the end of a read is Left, not Esc (the filter '
                'of 126 characters applied: no row)', ok and t.rows(n) == [], t.frame(n)[:4])
        # F1 (Esc O P) is no key of top: not P (pause); in the help, it
        # leaves the help, and nothing else.
        def helped(t, n):
            return any('P  pause' in ln for ln in t.frame(n))

        def table(t, n):
            return len(t.rows(n)) == 6
        ok = t.press(b'/\n?', helped)[0] and t.press(b'\x1bOP', table)[0] and \
            t.press(b'\x1b[B', lambda t, n: t.selected(n) == 'bbb')[0]
        done, n = t.press(b'\x1bOP\x1b[1;2P', lambda t, n: t.frame(n))
        H.check('top: F1 (Esc O P, Esc [1;2P) neither pauses nor pages; in the help it '
                'leaves the help only', ok and done and '(paused)' not in t.frame(n)[0] and
                t.selected(n) == 'bbb', t.frame(n)[:4])
        # q in the help leaves the help, as any key does.
        ok = t.press(b'?', helped)[0]
        done, n = t.press(b'q', table)
        H.check('top: q in the help goes back to the table',
                ok and done and t.p.poll() is None, t.frame(n))
        t.send(b'q')
        H.check('top: q after the keys: status 0', t.wait() == 0, t.text()[-300:])
    finally:
        t.close()

    # 50 columns, 8 lines: the header whole to its bits; the histogram's
    # figures whole (none cut), its rows that do not fit said.
    t = Pty(rows=8, cols=50)
    try:
        t.start(['top', '--dir', d, 'grp', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) >= 1)
        head = t.frame()[0] if ok else ''
        keys = t.frame()[1] if ok else ''
        whole = ['q quit', '? help', 't total', 'p p99', 'c count', 'n name', 'm max', 'a avg',
                 'R reverse', '/ filter', 'Enter histogram', 'P pause']
        H.check('top at 50x8: the keys\' line says q and ? first, each key whole (%s)' % keys,
                keys.startswith('keys: q quit, ? help, ') and
                all(k in whole for k in keys[len('keys: '):].split(', ')), keys)
        n = len(t.out)
        t.send(b'\n')
        ok = ok and t.until(lambda t: any('more rows' in ln for ln in t.frame(n)))
        f = t.frame(n)
        H.check('top at 50x8, the histogram: its keys\' line says q first, each key whole',
                len(f) > 1 and f[1].startswith('keys: q quit, ') and
                all(k in ('q quit', 'Esc the table', 'PgUp/PgDn scroll',
                          'Up/Down another function', 'P pause')
                    for k in f[1][len('keys: '):].split(', ')), f[:2])
        line = f[2] if len(f) > 2 else ''
        want = {'count': '50', 'p50': '10', 'p99': '10000000', 'max<=': '12582911',
                'total': '50000610', 'avg': '1000012'}
        line2 = f[3] if len(f) > 3 and f[3].startswith('  ') else ''
        pairs = re.findall(r'([a-z0-9<=]+) ([0-9]+)(?:,|$)', line.split(':', 1)[-1] + ', ' + line2)
        H.check('top at 50x8: the header ends with its bits; the histogram\'s figures whole '
                'on two lines (%s / %s), "... 3 more rows" (all of its 3) last' % (line, line2),
                re.search(r'bits 1$', head) and len(line) <= 50 and len(line2) <= 50 and
                dict(pairs) == want and
                f[-1] == '... 3 more rows: a taller terminal shows them', (head, f))
        t.send(b'q')
        t.wait()
    finally:
        t.close()
    # ? on a short terminal: the help scrolls, each of its lines shown
    # once going down by PgDn (as on a tall one), back up by PgUp, a line
    # by j and k; any other key leaves it.
    def said(t, n, what):
        return any(what in ln for ln in t.frame(n))

    def help_lines(t, n):
        return [ln for ln in t.frame(n)[2:] if not ln.startswith('... ')]
    with running(['top', '--dir', d, 'grp', '-i', '1000'], 40, 100) as t:
        ok = t.until(lambda t: len(t.rows()) == 6)
        done, n = t.press(b'?', lambda t, n: any('P  pause' in ln for ln in t.frame(n)))
        whole = help_lines(t, n) if ok and done else []
    # A key's texts joined (.more), then wrapped: Enter's second text on
    # its first line at 100 columns.
    H.check('top at 100 columns: ? joins a key\'s texts, then wraps them', any(
        ln.startswith('  Enter') and ln.endswith('(Enter or Esc: back);') for ln in whole),
        whole)
    # At 40 columns, every word of the help whole, in lines of 40; the
    # header whole to its bits.
    with running(['top', '--dir', d, 'grp', '-i', '1000'], 40, 40) as t:
        ok = t.until(lambda t: len(t.rows()) >= 1)
        head = t.frame()[0] if ok else ''
        done, n = t.press(b'?', lambda t, n: any('quit' in ln for ln in t.frame(n)))
        narrow = help_lines(t, n) if done else []
    H.check('top at 40 columns: the header whole to its bits (%s); ? shows every word of '
            'the help, in lines of 40' % head,
            re.search(r'bits 1$', head) and len(head) <= 40 and
            ' '.join(narrow).split() == ' '.join(whole).split() and
            max(len(ln) for ln in narrow) <= 40, (head, narrow))
    with running(['top', '--dir', d, 'grp', '-i', '1000'], 8, 100) as t:
        ok = t.until(lambda t: len(t.rows()) >= 1)
        done, n = t.press(b'?', lambda t, n: said(t, n, 'more lines: PgDn'))
        pages = [help_lines(t, n)]
        while done and said(t, n, 'more lines') and len(pages) < 20:
            done, n = t.press(b'\x1b[6~', lambda t, n: said(t, n, 'lines above'))
            pages.append(help_lines(t, n))
        seen = []
        for p in pages:
            seen += [ln for ln in p if ln not in seen]
        ups = 0
        while done and said(t, n, 'lines above') and ups < 20:
            ups += 1
            done, n = t.press(b'\x1b[5~', lambda t, n: t.frame(n))
        back = done and help_lines(t, n) == pages[0]
        done, n = t.press(b'j', lambda t, n: said(t, n, 'lines above')) if back else (0, n)
        down = help_lines(t, n)
        done, n = t.press(b'k', lambda t, n: t.frame(n) and not said(t, n, 'lines above')) \
            if done else (0, n)
        lines = done and down[:1] == pages[0][2:3] and help_lines(t, n) == pages[0]
        done, n = t.press(b'x', lambda t, n: len(t.rows(n)) >= 1) if lines else (0, n)
        H.check('top at 8 lines: ? shows the help a page at a time, PgDn through all its %d '
                'lines in order (%d pages), PgUp back (%d), j and k a line; x leaves it'
                % (len(whole), len(pages), ups),
                ok and len(whole) > 10 and seen == whole and len(pages) >= 3 and
                ups == len(pages) - 1 and back and lines and done and
                t.frame(n)[1].startswith('keys: '), (whole, pages, down, t.frame(n)))

    # 4 lines, a function without samples (fff, the last row): its
    # figures on one line, then that it has none.
    with running(['top', '--dir', d, 'grp', '-i', '1000'], 4, 50) as t:
        ok = t.until(lambda t: len(t.frame()) >= 3)
        done, n = t.press(b'\x1b[F\n', lambda t, n: 'fff' in ' '.join(t.frame(n)))
        f = t.frame(n)
        H.check('top at 50x4, End and Enter read together: the view of fff, "no samples in '
                'this interval" last', ok and done and len(f) == 4 and
                f[2].startswith('fff: count 0') and f[3] == 'no samples in this interval', f)
    # ? and PgDn read together: the help's second page.
    with running(['top', '--dir', d, 'grp', '-i', '1000'], 8, 100) as t:
        ok = t.until(lambda t: len(t.rows()) >= 1)
        done, n = t.press(b'?\x1b[6~', lambda t, n: said(t, n, 'lines above'))
        H.check('top: ? and PgDn read together: the help\'s second page',
                ok and done and help_lines(t, n)[:1] == pages[1][:1], (pages, t.frame(n)))

    # 3 and 4 lines: the figures on one line, the last says the rows.
    for rows in (3, 4):
        with running(['top', '--dir', d, 'grp', '-i', '1000'], rows, 50) as t:
            ok = t.until(lambda t: len(t.frame()) >= rows - 1)
            done, n = t.press(b'\n', lambda t, n: 'count 50' in ' '.join(t.frame(n)))
            f = t.frame(n)
            H.check('top at 50x%d, the histogram of ddd (3 slot rows): its figures, then '
                    '"... 3 more rows" last' % rows, ok and done and len(f) == rows and
                    f[-2].startswith('ddd: count 50') and
                    f[-1] == '... 3 more rows: a taller terminal shows them', f)

    # A histogram taller than the screen scrolls in the view: PgDn pages
    # through its rows, each once, in order, the rows above and below
    # said; End shows its last, Home its first; Down another function's,
    # from its first row.
    g = os.path.join(tempfile.mkdtemp(dir=H.TMP), 'grp')
    spread = [int(2 ** (i / 4)) for i in range(40, 120) for _ in range(3)]
    tall = [int(2 ** (i / 4)) for i in range(30, 100)]
    gen.write_group(g, {'spread': {0: spread}, 'zzz': {0: tall}}, BITS)
    hist_row = re.compile(r'^ *\[(\d+), (\d+)\] .* (\d+) +[\d.]+%')

    def slots(t, n):
        return [tuple(int(x) for x in m.groups()) for ln in t.frame(n)
                for m in [hist_row.match(ln)] if m]

    # A name as wide as the screen: its figures on the line below it.
    long_name = 'a_function_with_a_name_of_fifty_characters_or_so_x'
    gl = os.path.join(tempfile.mkdtemp(dir=H.TMP), 'grp')
    gen.write_group(gl, {long_name: {0: [1000] * 7}}, BITS)
    with running(['top', '--dir', os.path.dirname(gl), 'grp', '-i', '1000'], 10, 50) as t:
        ok = t.until(lambda t: len(t.rows()) == 1)
        done, n = t.press(b'\n', lambda t, n: said(t, n, 'range'))
        f = t.frame(n)
        H.check('top at 50 columns, the histogram of a function of a 51-character name: '
                'its figures on the next line, whole',
                ok and done and len(f) > 3 and f[2].startswith(long_name[:20]) and
                f[3].startswith('  count 7, p50 ') and len(f[3]) <= 50, f[:5])
    # 3 lines: the name cut to leave room for the count beside it.
    with running(['top', '--dir', os.path.dirname(gl), 'grp', '-i', '1000'], 3, 50) as t:
        ok = t.until(lambda t: len(t.frame()) >= 2)
        done, n = t.press(b'\n', lambda t, n: said(t, n, 'more row'))
        f = t.frame(n)
        H.check('top at 50x3, the histogram of a function of a 51-character name: its name '
                'cut, its count beside it (%s)' % f[1:2], ok and done and len(f) == 3 and
                '~' in f[1] and f[1].endswith(': count 7') and len(f[1]) <= 50, f)
    # At 40 columns: the name cut (start~end), the figures on the lines
    # they need, each whole.
    with running(['top', '--dir', os.path.dirname(gl), 'grp', '-i', '1000'], 14, 40) as t:
        ok = t.until(lambda t: len(t.rows()) == 1)
        done, n = t.press(b'\n', lambda t, n: said(t, n, 'range'))
        f = t.frame(n)
        figs = ' '.join(f[3:f.index(next((ln for ln in f if 'range' in ln), f[-1])) - 1])
        H.check('top at 40 columns, the histogram of a function of a 51-character name: the '
                'name cut with a ~ (%s), every figure whole on the lines below' % f[2:3],
                ok and done and len(f) > 5 and f[2].startswith(long_name[:15]) and '~' in f[2]
                and f[2].endswith(long_name[-10:] + ':') and len(f[2]) <= 40 and
                all(w in figs for w in ('count 7,', 'max<= ', 'total 7000,', 'avg 1000')),
                f[:8])
    t = Pty(rows=14, cols=100)
    try:
        t.start(['top', '--dir', os.path.dirname(g), 'grp', '-i', '1000'])
        ok = t.until(lambda t: len(t.rows()) == 2)
        done, n = t.press(b'\n', lambda t, n: said(t, n, 'more rows: PgDn'))
        pages, top = [slots(t, n)], done and said(t, n, 'spread: count 240')
        while done and said(t, n, 'more rows') and len(pages) < 30:
            done, n = t.press(b'\x1b[6~', lambda t, n: said(t, n, 'rows above: PgUp'))
            pages.append(slots(t, n))
        # Each page goes on from the last (the last page ends at the end:
        # it may show again rows of the one before); no row is skipped.
        on = all(a and b and a[0][0] < b[0][0] <= a[-1][1] + 1 for a, b in zip(pages, pages[1:]))
        seen = sorted(set(r for p in pages for r in p))
        contiguous = all(a[1] + 1 == b[0] for a, b in zip(seen, seen[1:]))
        H.check('top: PgDn pages through a histogram taller than the screen (%d pages): '
                'each slot row, in order, its counts summing to 240, "... N rows '
                'above" and "... N more rows" said' % len(pages),
                ok and top and len(pages) >= 3 and done and not said(t, n, 'more rows') and
                on and contiguous and sum(c for _, _, c in seen) == 240 and
                seen[0][0] <= min(spread) and seen[-1][1] >= max(spread), (pages, t.frame(n)))
        first = seen[:1]
        # PgUp pages back to the first row, each page ending where the
        # one below it starts, or after (no row skipped going up either).
        ups, up = 0, [pages[-1]]
        while done and said(t, n, 'rows above') and ups < 30:
            ups += 1
            done, n = t.press(b'\x1b[5~', lambda t, n: t.frame(n))
            up.append(slots(t, n))
        touch = all(a and b and b[0][0] < a[0][0] <= b[-1][1] + 1 for a, b in zip(up, up[1:]))
        ok = done and slots(t, n)[:1] == first and ups == len(pages) - 1 and touch
        # PgDn then PgUp: the first page again.
        done, n = t.press(b'\x1b[6~', lambda t, n: said(t, n, 'rows above'))
        done, n = t.press(b'\x1b[5~', lambda t, n: t.frame(n)) if done else (False, n)
        H.check('top: PgUp pages back to the histogram\'s first row (%d presses for %d '
                'down; one for one)' % (ups, len(pages) - 1),
                ok and done and slots(t, n)[:1] == first and not said(t, n, 'above'),
                (ups, t.frame(n)))
        done, n = t.press(b'\x1b[F', lambda t, n: said(t, n, 'rows above'))
        done, n = t.press(b'\x1b[H', lambda t, n: slots(t, n)[:1] == first)
        ok = done and not said(t, n, 'rows above')
        done, n = t.press(b'\x1b[F', lambda t, n: said(t, n, 'rows above'))
        ok = ok and done and slots(t, n)[-1:] == seen[-1:] and not said(t, n, 'more rows')
        done, n = t.press(b'\x1b[B', lambda t, n: said(t, n, 'zzz: count 70'))
        ok = ok and done and not said(t, n, 'rows above') and said(t, n, 'more rows') and \
            slots(t, n)[0][0] <= min(tall)
        done, n = t.press(b'\x1b[A', lambda t, n: said(t, n, 'spread: count 240'))
        H.check('top: Home and End in the view show the histogram\'s first and last rows; '
                'Down and Up another function\'s, from its first row',
                ok and done and slots(t, n)[:1] == first, t.frame(n))
        # Keys read together, each a page from where the one before
        # ended: PgDn PgDn the third page, Home PgDn the second, End
        # PgUp the page before the last.
        done, n = t.press(b'\x1b[F', lambda t, n: said(t, n, 'rows above') and
                          not said(t, n, 'more rows'))
        done, n = t.press(b'\x1b[5~', lambda t, n: said(t, n, 'more rows')) if done else \
            (0, n)
        before_last = slots(t, n)
        ok = done
        for keys, want, what in ((b'\x1b[H\x1b[6~\x1b[6~', pages[2], 'PgDn PgDn'),
                                 (b'\x1b[H\x1b[6~', pages[1], 'Home PgDn'),
                                 (b'\x1b[F\x1b[5~', before_last, 'End PgUp'),
                                 (b'\x1b[5~\x1b[6~\x1b[F\x1b[5~', before_last,
                                  'PgUp PgDn End PgUp'),
                                 # At an edge, a page that cannot move: none.
                                 (b'\x1b[H\x1b[5~\x1b[6~', pages[1], 'Home PgUp PgDn'),
                                 (b'\x1b[F\x1b[6~\x1b[5~', before_last, 'End PgDn PgUp')):
            done, n = t.press(b'\x1b[H', lambda t, n: slots(t, n)[:1] == first)
            done, n = t.press(keys, lambda t, n, w=want: slots(t, n) == w) if done else \
                (0, n)
            H.check('top: %s read together in the view: as pressed one by one' % what,
                    ok and done, (want, t.frame(n)))
        t.send(b'q')
        t.wait()
    finally:
        t.close()

    # The view keeps its first row's slot where slots come before it; at
    # its top it shows them. Paused (P) between the reads, so that no key
    # races an interval: each snapshot adds the next interval's samples,
    # in slots below the histogram's.
    low = [int(2 ** (i / 4)) for i in range(20, 32)]
    lower = [int(2 ** (i / 4)) for i in range(6, 20)]
    d2 = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d2, 'grp')
    gen.write_group(g, {'spread': {0: spread}}, BITS)

    def interval(t, samples, count):
        """The group's next snapshot (SAMPLES in all), read by unpausing
        top until it shows COUNT samples, then paused: its first whole
        screen with them."""
        m = len(t.out)
        tmp = os.path.join(d2, 'new')
        gen.write_group(tmp, {'spread': {0: samples}}, BITS)
        for f in ('spread', '_summary'):
            os.replace(os.path.join(tmp, f), os.path.join(g, f))
        want = ('spread: count %d' % count).encode()

        def counted(t):
            return [f.split(b'\x1b[J')[0] for f in t.out[m:].split(b'\x1b[H')[1:]
                    if b'\x1b[J' in f and want in f.split(b'\x1b[J')[0]]
        t.send(b'P')
        ok = t.until(counted)
        t.send(b'P')
        t.until(lambda t: b'paused' in t.out[m:].rsplit(b'\x1b[H', 1)[-1])
        f = re.sub(rb'\x1b\[[0-9;?]*[A-Za-z]', b'', counted(t)[0] if ok else b'')
        return f.decode(errors='replace').replace('\r', '').split('\n')

    def first_row(f):
        return [tuple(int(x) for x in mm.groups()) for ln in f
                for mm in [hist_row.match(ln)] if mm][:1]
    with running(['top', '--dir', d2, 'grp', '-i', '0.5'], 14, 100) as t:
        ok = t.until(lambda t: len(t.rows()) == 1)
        done, n = t.press(b'\nP', lambda t, n: said(t, n, 'more rows: PgDn') and
                          said(t, n, 'paused'))
        f = interval(t, spread * 2 + low, len(spread) + len(low))
        top = first_row(f)
        H.check('top: at the top of the view, slots that come before its first row are '
                'shown (%s)' % top, ok and done and top and top[0][0] <= max(low) and
                not any('rows above' in ln for ln in f), f)
        done, n = t.press(b'\x1b[6~', lambda t, n: said(t, n, 'rows above')) if done else \
            (0, n)
        was = first_row(t.frame(n))
        above = [ln for ln in t.frame(n) if 'rows above' in ln]
        f = interval(t, spread * 3 + low + lower, len(spread) + len(lower))
        now = [ln for ln in f if 'rows above' in ln]
        H.check('top: the view keeps its first row (%s) where slot rows come before it '
                '(%s, then %s)' % (was, above, now),
                ok and was and first_row(f) == was and above and now and
                int(now[0].split()[1]) > int(above[0].split()[1]), f)

    # A function traced since the read before (ggg) is marked +, one gone
    # (bbb) - and listed last, for that interval.
    # The function files change as the kernel's do, in step with the reads
    # of _summary, which come first.
    s0 = {'aaa': {0: [100] * 300}, 'bbb': {1: [2000000] * 4}}
    s1 = {'aaa': {0: [100] * 1000}, 'ggg': {1: [7000] * 4}}
    s2 = {'aaa': {0: [100] * 1001}, 'ggg': {1: [7000] * 4}}
    for count, want in (('1', ['aaa', '+ggg', '-bbb']), ('2', ['aaa', 'ggg'])):
        g = os.path.join(tempfile.mkdtemp(dir=H.TMP), 'grp')
        gen.write_group(g, s0, BITS)
        t = Pty(rows=30, cols=100)
        try:
            def change():
                os.unlink(os.path.join(g, 'bbb'))
                with open(os.path.join(g, 'ggg'), 'w', encoding='ascii') as f:
                    f.write(gen.render(s1['ggg'], BITS))
            rc, out, _, fed = fed_run(['top', g, '-i', '0.05', '-c', count],
                                      os.path.join(g, '_summary'),
                                      [gen.render_summary(s, BITS)
                                       for s in (s0, s1, s2)[:int(count) + 1]],
                                      tty=t, before={1: change})
            names = [r[0] for r in t.rows()]
            H.check('top, %s interval(s): %s' % (count, 'a new function marked +, a gone one '
                                                 '- (listed last)' if count == '1' else
                                                 'the marks last one interval'),
                    rc == 0 and not fed and names == want, (fed, t.frame()))
        finally:
            t.close()


# A job-control shell, as the session leader of the terminal (fd 0): runs
# argv[3:] as a job of its own process group in the foreground; says on fd
# argv[1] its pid, when the job stops, and continues it when fd argv[2]
# gives a byte; then says its status.
JOB_SHELL = r"""
import os, signal, sys
say, told = int(sys.argv[1]), int(sys.argv[2])
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
kid = os.fork()
if kid == 0:
    os.close(say)
    os.close(told)
    os.setpgid(0, 0)
    os.tcsetpgrp(0, os.getpid())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execv(sys.argv[3], sys.argv[3:])
# As shells do, from both sides: the child may have run its exec already,
# and then this one fails (EACCES), the group set.
try:
    os.setpgid(kid, kid)
except PermissionError:
    pass
os.write(say, b'%d\n' % kid)
while True:
    _, st = os.waitpid(kid, os.WUNTRACED)
    if not os.WIFSTOPPED(st):
        os.write(say, b'exit %d\n' % os.waitstatus_to_exitcode(st))
        break
    os.write(say, b'stopped\n')
    os.read(told, 1)
    os.tcsetpgrp(0, kid)
    os.kill(kid, signal.SIGCONT)
"""


def test_top_stop(d):
    """^Z: kstats top stops with the terminal restored, and takes it again
    when continued (fg), as a job of a shell with job control."""
    def said():
        """A line of the shell's, or '' after a hang."""
        line = b''
        deadline = time.time() + H.HANG
        while not line.endswith(b'\n') and \
                select.select([shell], [], [], max(0, deadline - time.time()))[0]:
            c = os.read(shell, 1)
            if not c:
                break
            line += c
        return line.decode().strip()

    t = Pty()
    hear, say = os.pipe()
    told, tell = os.pipe()
    job = ''
    try:
        t.p = subprocess.Popen(
            [sys.executable, '-c', JOB_SHELL, str(say), str(told),
             H.KSTATS, 'top', '--dir', d, 'grp', '-i', '1000'],
            stdin=t.slave, stdout=t.slave, stderr=t.slave, start_new_session=True,
            pass_fds=(say, told), preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        os.close(say)
        os.close(told)
        shell = hear
        job = said()
        ok = t.until(lambda t: len(t.rows()) == 6)
        t.send(b'\x1a')
        stopped = said()
        # What it wrote before it stopped, all read.
        H.check('top on a terminal, ^Z: stopped, the terminal restored while it is',
                ok and stopped == 'stopped' and t.until(Pty.restored),
                (stopped, t.text()[-300:]))
        n = len(t.out)
        os.write(tell, b'c')
        ok = t.until(lambda t: b'\x1b[?1049h' in t.out[n:] and len(t.rows()) == 6)
        H.check('top on a terminal, continued: the screen again, the terminal raw',
                ok and termios.tcgetattr(t.slave) != t.before, t.frame())
        t.send(b'q')
        status = said()
        t.wait()
        H.check('top on a terminal, q after ^Z and fg: exit 0, the terminal restored',
                status == 'exit 0' and t.restored(), (status, t.text()[-300:]))
    finally:
        # A job that did not end (a failure) ends here.
        if job.isdigit():
            try:
                os.kill(int(job), signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.close(hear)
        os.close(tell)
        t.close()


def om_series(out):
    """{labels without le: [(le, cumulative count)]} of OpenMetrics text."""
    by = {}
    for l in out.splitlines():
        m = re.match(r'(\w+)_bucket\{(.*),le="([^"]+)"\} (\d+)$', l)
        if m:
            by.setdefault((m[1], m[2]), []).append((float(m[3]), int(m[4])))
    return by


def promtool(out):
    if not shutil.which('promtool'):
        return False, 'promtool not found'
    p = subprocess.run(['promtool', 'check', 'metrics'], input=out,
                       capture_output=True, text=True, check=False)
    return p.returncode == 0, p.stdout + p.stderr


def test_group_interval(rng):
    """#43: kstats --interval SECS DIR of a group: each interval's table
    (with rate/s), JSON line or CSV rows of what its functions recorded;
    --openmetrics -o FILE the totals; a malformed read skipped, a reset
    said; what it cannot do refused."""
    funcs = group_funcs(rng)
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'vfs')
    gen.write_group(g, funcs, BITS)
    summ = os.path.join(g, '_summary')
    s0, s1, s2 = (take(funcs, f) for f in (0.3, 0.6, 1.0))
    snaps = [gen.render_summary(s, BITS) for s in (s0, s1, s2)]
    want = [{f: len(v) for f, v in between(a, b).items()} for a, b in ((s0, s1), (s1, s2))]
    cut = snaps[1][:len(snaps[1]) // 2].rsplit('\n', 1)[0] + '\nfunction vfs_read bits'
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', g], summ,
                                [snaps[0], cut, snaps[1], snaps[2]])
    tables = parse_tables(out)
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in tables]
    heads = [' '.join(h[:2] + h[4:]) for h, _ in tables]
    H.check('--interval SECS DIR: a table per interval (its rate/s too) of what each '
            'function recorded; a malformed read skipped, said once',
            rc == 0 and not fed and got == want and
            heads == ['interval %d group vfs functions 4 sort total bits %d (slots at most '
                      '%.3g%% wide)' % (i, BITS, 100 / 2 ** BITS) for i in (1, 2)] and
            out.count('rate/s') == 2 and err.count('skipped that read') == 1 and
            err.startswith('kstats: %s: line ' % summ), (rc, fed, out, err))
    # A _summary read empty, or cut at a line's end (rewritten in place):
    # functions of samples without a line; that read skipped, said.
    half = ''.join(snaps[1].splitlines(True)[:len(snaps[1].splitlines()) // 2])
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', g], summ,
                                [snaps[0], '', snaps[1], half, snaps[2]])
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in parse_tables(out)]
    H.check('--interval SECS DIR: a _summary read empty, or cut at a line\'s end: that '
            'read skipped, said; the next interval covers it',
            rc == 0 and not fed and got == want and err.count('skipped that read') == 1 and
            'no line, where the read before had' in err and 'cut short' in err,
            (rc, fed, out, err))
    # Cut at a line's end inside the last function's lines: its slots
    # above the cut lost, none below fewer. That read skipped, said; not
    # taken as the function's reset.
    lines = snaps[1].splitlines(True)
    last = lines[-1].split()[1]
    first = next(i for i, ln in enumerate(lines) if ln.split()[1] == last)
    inside = ''.join(lines[:first + 1])
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', g], summ,
                                [snaps[0], inside, snaps[1], snaps[2]])
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in parse_tables(out)]
    H.check('--interval SECS DIR: a _summary cut inside the last function\'s lines (%d of '
            '%d): that read skipped, said; no reset of %s' % (first + 1, len(lines), last),
            len(lines) - first > 1 and rc == 0 and not fed and got == want and
            err.count('skipped that read') == 1 and
            '%s: its lines end below the ' % last in err and 'cut short' in err and
            'counted from nothing' not in err, (rc, fed, out, err))
    # Its lines in descending order of slot, the counts growing: no read
    # is taken as cut short (the last line's slot is not the highest).
    def desc(text):
        ls = text.splitlines(True)
        at = next(i for i, ln in enumerate(ls) if ln.split()[1] == last)
        return ''.join(ls[:at] + sorted(ls[at:], key=lambda ln: -int(ln.split()[5])))
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', g], summ,
                                [desc(x) for x in snaps])
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in parse_tables(out)]
    H.check('--interval SECS DIR: the last function\'s lines in descending order of slot: '
            'no read skipped', rc == 0 and not fed and got == want and not err,
            (rc, fed, out, err))
    # The last function reset, its samples since all in lower slots: as a
    # cut, that read skipped, said; the same read again taken, a reset.
    low = min(gen.slot_of(v, BITS) for v in flat(s0[last]))
    vals = [v for v in flat(s0[last]) if gen.slot_of(v, BITS) == low]
    reset = gen.render_summary(dict(s0, **{last: {0: vals * 3}}), BITS)
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '1', g], summ,
                                [snaps[0], reset, reset])
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in parse_tables(out)]
    H.check('--interval SECS DIR: the last function reset to lower slots: the read skipped '
            'once, said; the next taken, its reset said',
            rc == 0 and not fed and got == [dict({f: 0 for f in s0}, **{last: 3 * len(vals)})]
            and err.count('skipped that read') == 1 and
            'interval 1: %s: a slot of fewer samples' % last in err, (rc, fed, out, err))
    # Empty twice: the second is taken (a reset of the group, nothing
    # called since), the next counts from nothing.
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', g], summ,
                                [snaps[1], '', '', snaps[2]])
    got = [{w[0]: int(w[1]) for w in rows} for _, rows in parse_tables(out)]
    H.check('--interval SECS DIR: a _summary empty twice: a reset, taken the second time',
            rc == 0 and not fed and got == [{f: 0 for f in funcs},
                                            {f: len(flat(v)) for f, v in s2.items()}] and
            err.count('skipped that read') == 1, (rc, fed, out, err))
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '1', g], summ,
                                [snaps[1], snaps[0]])
    H.check('--interval SECS DIR: a function with fewer samples than the read before is '
            'said, and counted from nothing',
            rc == 0 and not fed and all('interval 1: %s: a slot of fewer samples than the read '
                                        'before' % f in err for f in funcs) and
            {w[0]: int(w[1]) for w in parse_tables(out)[0][1]} ==
            {f: len(flat(v))
             for f, v in s0.items()}, (rc, fed, out, err))
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', '--json', g], summ, snaps)
    docs = [json.loads(ln) for ln in out.splitlines()] if rc == 0 else []
    H.check('--interval SECS --json DIR: a JSON line per interval, its functions\' rate, '
            'reset and stats (as a metric\'s line has them)',
            rc == 0 and not fed and [x['interval'] for x in docs] == [1, 2] and
            all(x['group'] == 'vfs' and x['seconds'] > 0 for x in docs) and
            [{f: v['stats']['count'] for f, v in x['functions'].items()} for x in docs] == want
            and all(abs(v['rate'] * x['seconds'] - v['stats']['count']) <=
                    0.011 * v['stats']['count'] + 0.1 and
                    v['reset'] is False for x in docs for v in x['functions'].values()),
            (rc, fed, out, err))
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '1', '--json', g], summ,
                                [snaps[1], snaps[0]])
    docs = [json.loads(ln) for ln in out.splitlines()] if rc == 0 else [{}]
    H.check('--interval SECS --json DIR: a function counted from nothing has "reset":true',
            rc == 0 and not fed and
            {f: (v['reset'], v['stats']['count']) for f, v in docs[0]['functions'].items()} ==
            {f: (True, len(flat(v))) for f, v in s0.items()}, (rc, fed, out, err))
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '2', '--csv', g], summ, snaps)
    rows = list(csv.reader(io.StringIO(out))) if rc == 0 else [[]]
    sums = [{}, {}]
    try:
        for r in rows[1:]:
            sums[int(r[0]) - 1][r[3]] = sums[int(r[0]) - 1].get(r[3], 0) + int(r[7])
    except (ValueError, IndexError):
        sums = None
    H.check('--interval SECS --csv DIR: one CSV, its header once, rows led by the '
            'interval, time, seconds and function',
            rc == 0 and not fed and rows[0][:4] == ['interval', 'time', 'seconds', 'function']
            and sums == want, (rc, fed, out[:500], err))
    om = os.path.join(d, 'vfs.prom')
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '1', '--openmetrics', '-o', om,
                                 g], summ, snaps[:2])
    with open(om, encoding='ascii') if os.path.exists(om) else io.StringIO() as f:
        text = f.read()
    counts = dict(re.findall(r'kstats_latency_count\{metric="vfs",function="([^"]*)"\} (\d+)',
                             text))
    H.check('--interval SECS --openmetrics -o FILE DIR: FILE the exposition of the totals '
            'so far, each function\'s',
            rc == 0 and not fed and not out and text.endswith('# EOF\n') and
            {f: int(c) for f, c in counts.items()} ==
            {f: len(flat(v)) for f, v in s1.items()}, (rc, fed, text[-300:], err))
    # A function gone (its file and lines): said, not listed.
    lost = 'vfs_fsync.isra.0'
    rest = {f: v for f, v in s1.items() if f != lost}
    rc, out, err, fed = fed_run(['--interval', '0.05', '-c', '1', g], summ,
                                [snaps[0], gen.render_summary(rest, BITS)],
                                after={0: lambda: os.unlink(os.path.join(g, lost))})
    tables = parse_tables(out)
    H.check('--interval SECS DIR: a function gone said, not listed',
            rc == 0 and not fed and len(tables) == 1 and
            sorted(w[0] for w in tables[0][1]) == sorted(rest) and
            'interval 1: %s: gone (' % lost in err, (rc, fed, out, err))
    # Ended by a signal while it writes: the exposition's temporary file
    # renamed first, none left behind (node_exporter's textfile directory
    # under systemd's restarts). A large group: writing takes most of
    # each interval.
    big = os.path.join(d, 'big')
    gen.write_synth_group(big, 1000, 8)
    prom = os.path.join(d, 'prom')
    os.makedirs(prom)
    ends = []
    for k in range(20):
        p = subprocess.Popen([H.KSTATS, '--interval', '0.01', '--openmetrics', '-o',
                              os.path.join(prom, 'k.prom'), big],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + H.HANG
        while not os.path.exists(os.path.join(prom, 'k.prom')) and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.2))
        p.send_signal(signal.SIGTERM if k % 2 else signal.SIGINT)
        p.communicate(timeout=H.HANG)
        ends.append(p.returncode)
    # One output, waiting for its input, ended by a signal: its temporary
    # file removed too, the signal's end kept.
    ones = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        p = subprocess.Popen([H.KSTATS, '--openmetrics', '--name', 'x', '-o',
                              os.path.join(prom, 'one.prom'), '-'], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + H.HANG
        while not [f for f in os.listdir(prom) if f.startswith('one.prom.tmp.')] and \
                time.time() < deadline:
            time.sleep(0.01)
        p.send_signal(sig)
        p.communicate(timeout=H.HANG)
        ones.append(p.returncode == -sig)
    left = [f for f in os.listdir(prom) if f != 'k.prom']
    H.check('--interval --openmetrics -o FILE DIR ended by SIGINT or SIGTERM, 20 times, and '
            '--openmetrics -o FILE - waiting for its input, by SIGTERM, SIGINT or SIGHUP: no '
            'temporary file left (%s)' % left, not left and
            all(r in (-signal.SIGINT, -signal.SIGTERM) for r in ends) and
            ones == [True] * 3, (left, ends, ones))
    gen.write_group(g, funcs, BITS)
    rc, out, err = H.run(['--interval', '1', '--openmetrics', '--series-max', '10', '-o',
                          os.path.join(d, 'big.prom'), g])
    H.check('--interval SECS --openmetrics --series-max 10 DIR: refused at once, exit 1, '
            'nothing written', rc == 1 and 'more than --series-max 10' in err and
            not [f for f in os.listdir(d) if f.startswith('big.prom')], (rc, err))
    for args, what in ((['--rows'], 'not --rows'), (['--per-cpu'], 'not --per-cpu'),
                       (['--hist'], 'not --hist')):
        rc, out, err = H.run(['--interval', '1'] + args + [g])
        H.check('--interval 1 %s DIR -> exit 1, "%s"' % (' '.join(args), what),
                rc == 1 and not out and '--interval of a group: ' + what in err, err)
    rc, out, err = H.run(['--interval', '1', '-s', 'count', os.path.join(g, 'vfs_read')])
    H.check('--interval 1 -s count METRIC -> exit 1, only for a group\'s table',
            rc == 1 and '--sort: only for the table of a group' in err, err)


def test_top_bad_read(rng):
    """#43.2: kstats top reading a _summary rewritten in place: a malformed
    read is skipped (no table), said once on stderr, and the next interval
    covers its time; the first read is still an error."""
    funcs = group_funcs(rng)
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'vfs')
    gen.write_group(g, funcs, BITS)
    s0, s1, s2 = (take(funcs, f) for f in (0.3, 0.6, 1.0))
    snaps = [gen.render_summary(s, BITS) for s in (s0, s1, s2)]
    cut = snaps[1][:len(snaps[1]) // 2].rsplit('\n', 1)[0] + '\nfunction vfs_read bits'
    rc, out, err, fed = fed_run(['top', '--dir', d, 'vfs', '-i', '0.05', '-c', '2'],
                                os.path.join(g, '_summary'), [snaps[0], cut, cut, snaps[1],
                                                              snaps[2]])
    tables = parse_tables(out)
    ok = rc == 0 and not fed and len(tables) == 2 and err.count('skipped that read') == 1
    if ok:
        rows = {w[0]: w for w in tables[0][1]}
        want = between(s0, s1)
        ok = all(int(rows[f][1]) == len(v) for f, v in want.items() if f in rows)
    H.check('top: two malformed reads skipped, said once, the next table covers them',
            ok, (rc, fed, out, err))
    rc, out, err, fed = fed_run(['top', '--dir', d, 'vfs', '-i', '0.05', '-c', '1'],
                                os.path.join(g, '_summary'), [cut, snaps[0]])
    H.check('top: a malformed first read is still an error (exit 2)',
            rc == 2 and 'expected' in err, (rc, out, err))
    # Without NAME, a metric of the directory read before, malformed now:
    # that read skipped too, the next table counts from the one before
    # (not from the start, as a row dropped as "not a metric" would).
    d = tempfile.mkdtemp(dir=H.TMP)
    m = [gen.render({0: [1000] * n, 1: [3000] * n}, BITS) for n in (1000, 1010, 1030)]
    cutm = m[1][:len(m[1]) // 2].rsplit('\n', 1)[0] + '\nCPU'
    rc, out, err, fed = fed_run(['top', '--dir', d, '-i', '0.05', '-c', '2'],
                                os.path.join(d, 'm'), [m[0], cutm, m[1], m[2]])
    tables = parse_tables(out)
    counts = [[w[1] for w in rows if w[0] == 'm'] for _, rows in tables]
    H.check('top without NAME: a metric malformed in one read skipped, said once, the '
            'next table counts from the read before (m: 20, then 40)',
            rc == 0 and not fed and counts == [['20'], ['40']] and
            err.count('skipped that read') == 1 and 'not a kstats metric' not in err,
            (rc, fed, out, err))

    # On a terminal, a key between a skipped read and the next: the rows
    # and the histogram (Enter) are still those of the last interval.
    one = {'aaa': {0: [1000] * 100}, 'bbb': {0: [5] * 3}}
    two = {'aaa': {0: [1000] * 150}, 'bbb': {0: [5] * 3}}
    three = {'aaa': {0: [1000] * 170}, 'bbb': {0: [5] * 3}}
    g = os.path.join(tempfile.mkdtemp(dir=H.TMP), 'grp')
    gen.write_group(g, one, BITS)
    t = Pty(rows=30, cols=100)
    seen = []

    def key():
        n = len(t.out)
        t.send(b'\n')
        t.until(lambda t: any('range' in ln for ln in t.frame(n)))
        f = t.frame(n)
        counts = [int(m[1]) for m in (re.search(r'\u2502 +(\d+) +[0-9.]+%', ln) for ln in f)
                  if m]
        seen.append((f[2] if len(f) > 2 else '', sum(counts), len(t.rows(n))))
    try:
        bad = gen.render_summary(two, BITS)[:20]
        rc, _, _, fed = fed_run(['top', g, '-i', '2', '-c', '2'], os.path.join(g, '_summary'),
                                [gen.render_summary(x, BITS) for x in (one, two)] + [bad] +
                                [gen.render_summary(three, BITS)], tty=t, after={2: key})
        H.check('top, a key after a skipped read: the histogram of the last interval '
                '(aaa: count 50, its rows 50), the rows kept',
                rc == 0 and not fed and seen and seen[0][0].startswith('aaa: count 50,') and
                seen[0][1] == 50, (fed, seen, t.frame()))
    finally:
        t.close()


def tmux_screen(args, rows, cols, ready, keys=None, then=None):
    """kstats ARGS in a tmux window of ROWS x COLS, until READY(lines) of
    its screen (or a hang): the screen's lines, as tmux shows them; with
    KEYS, those sent then, and the screen once THEN(lines)."""
    # A server of its own each time: one just killed may still hold a
    # socket of the same name.
    sock = tempfile.mktemp(prefix='tmux-', dir=H.TMP)
    tmux = ['tmux', '-S', sock]
    p = subprocess.run(tmux + ['new-session', '-d', '-x', str(cols), '-y', str(rows),
                               ' '.join(shlex.quote(a) for a in [H.KSTATS] + args)],
                       capture_output=True, text=True, check=False,
                       env=dict(os.environ, TERM='xterm'))
    if p.returncode:
        return ['tmux new-session: %s' % p.stderr.strip()]
    lines = []
    try:
        deadline = time.time() + H.HANG
        while time.time() < deadline:
            lines = subprocess.run(tmux + ['capture-pane', '-p'], capture_output=True,
                                   text=True, check=False).stdout.split('\n')[:rows]
            if ready(lines):
                if not keys:
                    break
                subprocess.run(tmux + ['send-keys'] + keys, check=False)
                keys, ready = None, then
            time.sleep(0.05)
        subprocess.run(tmux + ['send-keys', 'q'], check=False)
    finally:
        subprocess.run(tmux + ['kill-server'], capture_output=True, check=False)
    return lines


def test_top_view_narrow(rng):
    """#43.1: kstats top's view of a function (Enter) on a screen too
    narrow for its ranges: each row by its upper bound, every count whole
    and right (a count cut to its first digits read 10 times too low)."""
    d = tempfile.mkdtemp(dir=H.TMP)
    vals = [int(rng.lognormvariate(18.5, 0.7)) for _ in range(5000)]
    gen.write_group(os.path.join(d, 'g'), {'f': {0: vals}}, 1)
    want = {}
    for v in vals:
        hi = gen.slot_max(gen.slot_of(v, 1), 1)
        want[hi] = want.get(hi, 0) + 1
    bad = []
    for cols in (28, 32, 34, 36, 40):
        lines = tmux_screen(['top', '--dir', d, 'g', '-i', '1000'], 40, cols,
                            lambda ls: any(l.lstrip().startswith('f ') for l in ls), ['Enter'],
                            lambda ls: any(l.split()[-1:] == ['count'] or
                                           'count' in l.split() and 'range' in l.split()
                                           for l in ls))
        got = {}
        for ln in lines:
            m = re.match(r'^ *(?:<=(\d+)|\[\d+, (\d+)\]) [|\u2502].*[|\u2502] +(\d+)', ln)
            if m:
                got[int(m.group(1) or m.group(2))] = int(m.group(3))
        upper = any(re.match(r'^ *<=\d', ln) for ln in lines)
        if not got or any(want.get(k) != v for k, v in got.items()) or \
                any(len(ln) > cols for ln in lines) or upper != (cols < 37):
            bad.append((cols, got, lines))
    H.check('top\'s view at 28 to 40 columns of ranges of 9 digits: each count whole and '
            'right; below 37 (24 + 13) columns each row by its upper bound (<=hi)', not bad, bad)
    # Narrower, with units: counts whole, or "too narrow"; never a
    # scale of inf (a bar of 1 column halved to 0).
    bad = []
    for cols, args in ((20, []), (22, []), (24, ['-u', 'auto']), (26, ['-u', 'auto'])):
        lines = tmux_screen(['top', '--dir', d, 'g', '-i', '1000'] + args, 40, cols,
                            lambda ls: any(l.lstrip().startswith('f ') for l in ls), ['Enter'],
                            lambda ls: any('range' in l.split() or 'needs' in l.split()
                                           for l in ls))
        rows = [ln for ln in lines if re.match(r'^ *<=', ln)]
        counts = [int(ln.split()[-1]) for ln in rows if ln.split()[-1].isdigit()]
        narrow = any(re.match(r'^needs (\d+) columns$', ln) and
                     int(ln.split()[1]) > cols for ln in lines)
        if any('inf' in ln for ln in lines) or any(len(ln) > cols for ln in lines) or \
                (not narrow and (len(counts) != len(rows) or sorted(counts) !=
                                 sorted(want[k] for k in want if want[k] in counts))) or \
                (not narrow and not rows):
            bad.append((cols, args, lines))
    H.check('top\'s view at 20 to 26 columns (-u auto too): each count whole, or "needs N '
            'columns"; no scale of inf', not bad, bad)


def test_top_header_narrow():
    """#43.1: kstats top's header on a screen of 14 to 45 columns: its
    clauses whole, the last ones left out first, the counts never cut
    (197/30 for 197/300), the name cut to leave them room."""
    d = tempfile.mkdtemp(dir=H.TMP)
    name = 'a_very_long_group_name_here'
    gen.write_group(os.path.join(d, name), {'f%03d' % i: {0: [100 + i] * 3} if i % 3 else {}
                                           for i in range(300)}, BITS)
    form = re.compile(r'^(\S+): 200/300(, start)?(, total)?(, bits %d)?$' % BITS)
    bad = []
    for cols in (14, 16, 20, 24, 30, 35, 45):
        lines = tmux_screen(['top', '--dir', d, name, '-i', '1000'], 6, cols,
                            lambda ls: any(l.lstrip().startswith('f0') for l in ls))
        head = lines[0].rstrip() if lines else ''
        m = form.match(head)
        rest = len(head) - len(m.group(1)) if m else 0
        if not m or len(head) > cols or ('~' in m.group(1)) != (len(name) + rest > cols):
            bad.append((cols, head))
    H.check('top\'s header at 14 to 45 columns: each clause whole, the counts 200/300 never '
            'cut, the name cut (a~e) where they need its room', not bad, bad)


def test_top_filter_backslash():
    """kstats top's / filter matches a name as it is: x\\y types as x\\y,
    a text or a glob, though its row shows it x\\\\y (as ls -b)."""
    d = tempfile.mkdtemp(dir=H.TMP)
    gen.write_group(os.path.join(d, 'g'), {'x\\y': {0: [100] * 3}, 'xy': {0: [200] * 3},
                                           'zzz': {0: [300] * 3}}, BITS)
    got = []
    for typed in ('x\\y', 'x\\*'):
        lines = tmux_screen(['top', '--dir', d, 'g', '-i', '1000'], 10, 80,
                            lambda ls: any(l.lstrip().startswith('zzz') for l in ls),
                            ['/'] + list(typed) + ['Enter'],
                            lambda ls: any('1 of 3 shown' in l for l in ls))
        got.append([l.split()[0] for l in lines[3:] if l.split()])
    H.check('top: / x\\y and / x\\* (a glob, the backslash as it is): the row of x\\y alone',
            got == [['x\\\\y']] * 2, got)


def test_top_cut_escape():
    """A name cut to a narrow terminal's column keeps each escape of a
    control character (\\xNN) whole or leaves it out: never a part."""
    d = tempfile.mkdtemp(dir=H.TMP)
    name = 'p\x07' * 15 + 'q' * 10
    gen.write_group(os.path.join(d, 'g'), {name: {0: [100] * 5}, 'short': {0: [7] * 3}}, BITS)
    bad = []
    for cols in (40, 44, 48, 52, 56, 60):
        lines = tmux_screen(['top', '--dir', d, 'g', '-i', '1000'], 12, cols,
                            lambda ls: any(l.lstrip().startswith('short') for l in ls))
        row = next((l.split()[0] for l in lines if l.lstrip().startswith('p')), '')
        # Each escape whole: what is left is p, q and the cut's ~.
        if not row or set(row.replace('\\x07', '')) - set('pq~'):
            bad.append((cols, row, lines))
    H.check('top at 40 to 60 columns: a name cut keeps each \\x07 whole or leaves it out',
            not bad, bad)


def test_table_unique_names():
    """A group's table on a terminal of 70 columns: its names widened as
    far as tells apart those that can be (apart at their 31st character),
    though others are apart only deep in the middle."""
    d = tempfile.mkdtemp(dir=H.TMP)
    funcs = {'z' * 30 + c + 'z' * 30: {0: [100 * (i + 1)] * 5} for i, c in enumerate('12')}
    funcs.update({'y' * 40 + c + 'y' * 40: {0: [300 + 100 * i] * 5}
                  for i, c in enumerate('12')})
    gen.write_group(os.path.join(d, 'mix'), funcs, BITS)
    t = Pty(rows=24, cols=70)
    try:
        t.start(['-p', '50,90,99,99.9', os.path.join(d, 'mix')])
        rc = t.wait()
        zs = [ln.split()[0] for ln in t.text().splitlines() if ln.startswith('z')]
    finally:
        t.close()
    H.check('a group\'s table at 70 columns: names apart at their 31st character read '
            'apart (%s), though two others cannot' % zs,
            rc == 0 and len(zs) == 2 and zs[0] != zs[1], t.text())


def test_top_narrow(rng):
    """#43.1: kstats top on terminals of 50 to 160 columns and 3 to 24 lines
    drops whole columns, never digits; names get the room the numbers do
    not need; the header stays on screen."""
    d = tempfile.mkdtemp(dir=H.TMP)
    funcs = {'bio_unmap_x_request_one': {0: [613814314] * 40 + [805306367]},
             'bio_unmap_x_request_two': {1: [1200] * 30},
             'short': {0: [7] * 5}}
    gen.write_group(os.path.join(d, 'g'), funcs, BITS)
    rc, full, err = H.run([os.path.join(d, 'g') + '/'])
    want = {w[0]: w[1:] for w in parse_tables(full)[0][1]} if rc == 0 else {}
    bad = []
    for rows, cols in ((24, 50), (24, 60), (24, 80), (24, 160), (3, 80), (4, 30)):
        lines = tmux_screen(['top', '--dir', d, 'g', '-i', '1000'], rows, cols,
                            lambda ls: any(l.lstrip().startswith('function') for l in ls) or
                            (rows < 3 and ls and ls[0].startswith('kstats top')))
        size = '%dx%d' % (cols, rows)
        # The header: "kstats top: ..." or, where that is too wide, the
        # name (cut) and the rest: "g: 3/3, start, total, bits 1".
        if not lines or not (lines[0].startswith('kstats top') or
                             re.match(r'(paused )?\S+: 3/3, .*, bits \d', lines[0])):
            bad.append('%s: the header is not the first line: %s' % (size, lines))
            continue
        if any(len(l) > cols for l in lines):
            bad.append('%s: a line wider than the terminal' % size)
        head = next((l.split() for l in lines if l.lstrip().startswith('function')), None)
        if head is None:
            bad.append('%s: no column heads: %s' % (size, lines))
            continue
        for l in lines[lines.index(next(l for l in lines
                                        if l.lstrip().startswith('function'))) + 1:]:
            w = l.split()
            if not w:
                continue
            # The function of the row: its name, or a cut one ('~') whose
            # every number is one of that function's, whole.
            pre, _, post = w[0].partition('~')
            names = [f for f in want if f == w[0] or
                     ('~' in w[0] and f.startswith(pre) and f.endswith(post))]
            if not any(all(c in want[f] for c in w[1:]) for f in names):
                bad.append('%s: row %s: a number not whole, or no such function (%s)'
                           % (size, w, [want[f] for f in names]))
            if len(w) != len(head):
                bad.append('%s: row %s under heads %s' % (size, w, head))
        if rows >= 6:
            names = [l.split()[0] for l in lines if l.lstrip().startswith('bio_')]
            if len(set(names)) != 2:
                bad.append('%s: the two bio_unmap_x_ functions show as %s' % (size, names))
        if cols >= 160 and head != ['function', 'count', 'rate/s', 'p50', 'p99', 'max<=',
                                    'total', 'avg']:
            bad.append('%s: not every column: %s' % (size, head))
    H.check('top at 50, 60, 80 and 160 columns, 3 and 4 lines: whole numbers, whole '
            'columns dropped, names told apart (cut in the middle), the header on screen',
            rc == 0 and not bad, bad)


def test_control_names(rng):
    """#43.3: names reach the terminal escaped: a file or function named with
    an escape sequence clears no screen from the summary's input line, a
    group's function lines, or top's header and rows."""
    d = tempfile.mkdtemp(dir=H.TMP)
    bad = 'e\x1b[2Jx'
    g = os.path.join(d, 'g\x1b[2J')
    gen.write_group(g, {bad: {0: [100, 200, 300]}, 'plain': {1: [400]}}, BITS)
    runs = [H.run([os.path.join(g, bad)]), H.run([g + '/']), H.run(['--per-cpu', g + '/'])]
    with open(os.path.join(g, '_summary'), encoding='ascii', errors='surrogateescape') as f:
        snap = f.read()
    rc, out, err, fed = fed_run(['top', '--dir', d, 'g\x1b[2J', '-i', '0.05', '-c', '1'],
                                os.path.join(g, '_summary'), [snap, snap])
    runs.append((rc, out, err))
    ok = all(rc == 0 and '\x1b' not in out + err for rc, out, err in runs)
    ok = ok and 'input   %s' % os.path.join(g, bad).replace('\x1b', '\\x1b') in runs[0][1]
    ok = ok and 'group g\\x1b[2J ' in runs[1][1] and '\ne\\x1b[2Jx ' in runs[1][1]
    ok = ok and 'function e\\x1b[2Jx\n' in runs[2][1]
    ok = ok and 'e\\x1b[2Jx' in runs[3][1] and 'g\\x1b[2J' in runs[3][1]
    H.check('names with control characters are printed escaped (\\x1b): summary, '
            'group, top', ok, runs)
    # CSV and OpenMetrics show a name as the table does (\xNN), the
    # format's own quoting after: a group's functions, and a metric's
    # label from a file name with a newline ("n\\x0ay").
    q = os.path.join(d, 'q')
    gen.write_group(q, {bad: {0: [100]}, 'y"z': {0: [200]}, 'd\x7f': {0: [50]}}, BITS)
    with open(os.path.join(q, 'n\ny"z'), 'w', encoding='ascii') as f:
        f.write(gen.render({0: [300]}, BITS))
    fmts = [H.run(['--csv', q + '/']), H.run(['--openmetrics', q + '/']),
            H.run(['--openmetrics', os.path.join(q, 'n\ny"z')]), H.run(['--json', q + '/'])]
    good = [promtool(r[1]) for r in fmts[1:3]]
    H.check('--csv and --openmetrics: control characters of names as \\xNN (CSV quoted, '
            'OpenMetrics label escaped, valid by promtool); --json: \\u001b, \\u007f',
            [r[0] for r in fmts] == [0, 0, 0, 0] and
            all('\x1b' not in o + e and '\x7f' not in o + e for _, o, e in fmts) and
            '\nd\\x7f,' in fmts[0][1] and '"d\\u007f":' in fmts[3][1] and
            '\ne\\x1b[2Jx,' in fmts[0][1] and '\n"y""z",' in fmts[0][1] and
            'function="e\\\\x1b[2Jx"' in fmts[1][1] and
            'metric="n\\\\x0ay\\"z"' in fmts[2][1] and all(g for g, _ in good),
            (fmts, good))
    # And in the messages: --compare's heads, --fail-if's, an error
    # naming a malformed input, top's "not a metric" of a directory.
    a = os.path.join(g, bad)
    b = os.path.join(d, 'slow\x1b[2J')
    gen.write_group(b, {bad: {0: [1000, 2000, 3000] * 40}}, BITS)
    gen.write_group(os.path.join(d, 'fast'), {bad: {0: [100, 200, 300] * 40}}, BITS)
    trunc = os.path.join(d, 'cut\x1b[2J')
    with open(trunc, 'w', encoding='ascii') as f:
        f.write('CPU 0 slot 1 count')
    top_dir = os.path.join(d, 'plain')
    os.makedirs(top_dir)
    with open(os.path.join(top_dir, 'note\x1b[2J'), 'w', encoding='ascii') as f:
        f.write('not a metric\n')
    msgs = [H.run(['--compare', a, os.path.join(b, bad)]),
            H.run(['--compare', '--fail-if', 'p50>+5%', os.path.join(d, 'fast') + '/', b + '/']),
            H.run([trunc]),
            H.run(['top', '--dir', top_dir, '-n', '1', '-d', '0.01'])]
    H.check('control characters escaped in messages: --compare heads, --fail-if, a '
            'malformed input\'s error, top\'s skipped file',
            [r[0] for r in msgs] == [0, 3, 2, 0] and
            all('\x1b' not in out + err for _, out, err in msgs) and
            'e\\x1b[2Jx' in msgs[0][1].splitlines()[0] and
            'e\\x1b[2Jx changed by' in msgs[1][2] and 'cut\\x1b[2J' in msgs[2][2] and
            'note\\x1b[2J' in msgs[3][2], msgs)
    # A backslash as \\ (as ls -b): the text \x01 reads apart from the
    # character; names of 255 control characters, apart at their end,
    # whole in each format (distinct series, not cut in an escape).
    w = os.path.join(d, 'w')
    long_a, long_b = '\x01' * 254 + 'A', '\x01' * 254 + 'B'
    gen.write_group(w, {'back\\x01slash': {0: [100]}, 'back\x01slash': {0: [200]},
                        long_a: {0: [300]}, long_b: {0: [400]}}, BITS)
    outs = [H.run([w + '/']), H.run(['--csv', w + '/']), H.run(['--openmetrics', w + '/'])]
    table = {ln.split()[0] for ln in outs[0][1].splitlines()[2:] if ln.split()}
    fields = {r[0] for r in csv.reader(io.StringIO(outs[1][1]))} - {'function'}
    series = set(re.findall(r'_count\{metric="w",function="((?:[^"\\]|\\.)*)"\}', outs[2][1]))
    good, detail = promtool(outs[2][1])
    esc = '\\x01' * 254
    H.check('a backslash as \\\\: the text \\x01 and the character apart in the table, '
            '--csv and --openmetrics; names of 255 characters whole in each',
            [r[0] for r in outs] == [0, 0, 0] and
            {'back\\\\x01slash', 'back\\x01slash'} <= table and
            fields == {'back\\\\x01slash', 'back\\x01slash', esc + 'A', esc + 'B'} and
            series == {'back\\\\\\\\x01slash', 'back\\\\x01slash',
                       esc.replace('\\', '\\\\') + 'A', esc.replace('\\', '\\\\') + 'B'} and
            good, (outs, detail, table, fields, series))
    # --compare A B of long names whose last 27 characters start in an
    # escape: the head "..." and the rest after it, not part of it.
    text = gen.render({0: [1000] * 20}, BITS)
    pair = []
    for end in 'zw':
        pair.append(os.path.join(d, 'q' * 40 + '\x1b' + end * 25))
        with open(pair[-1], 'w', encoding='ascii') as f:
            f.write(text)
    rc, out, err = H.run(['--compare'] + pair)
    heads = out.splitlines()[0].split() if rc == 0 else []
    H.check('--compare A B: a head cut in an escape leaves it out whole (...zzz, not ...1bzzz)',
            heads[:2] == ['...' + 'z' * 25, '...' + 'w' * 25], (rc, out, err))


def test_group_input(rng):
    """kstats --openmetrics|--json|--csv DIR: a distribution per function."""
    funcs = group_funcs(rng)
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'vfs')
    gen.write_group(g, dict(funcs, vfs_never={}), BITS, possible=4)
    names = sorted(funcs) + ['vfs_never']

    for per_cpu in ([], ['--per-cpu']):
        rc, out, err = H.run(['--openmetrics'] + per_cpu + [g + '/'])
        by = om_series(out)
        lines = out.splitlines()
        if per_cpu:
            want = {('kstats_latency', 'metric="vfs",function="%s",cpu="%d"' % (f, c)): v
                    for f in funcs for c, v in funcs[f].items()}
        else:
            want = {('kstats_latency', 'metric="vfs",function="%s"' % f): flat(funcs.get(f, {}))
                    for f in names}
        ok = rc == 0 and lines[-1] == '# EOF' and lines.count('# TYPE kstats_latency histogram') == 1
        ok &= set(by) == set(want)
        les = {tuple(le for le, _ in b) for b in by.values()}
        ok &= len(les) == 1
        for key, vs in want.items():
            srt = sorted(vs)
            ok &= all(n == bisect.bisect_right(srt, le) if le != math.inf else n == len(vs)
                      for le, n in by.get(key, []))
            ok &= '%s_count{%s} %d' % (key[0], key[1], len(vs)) in lines
        good, detail = promtool(out)
        H.check('group --openmetrics %s: one family, a series per function%s (label '
                'function), one le set, exact counts, valid (promtool)'
                % (' '.join(per_cpu), ' and CPU' if per_cpu else ''), ok and good,
                (err, detail, out[:1500]))
    rc, out, err = H.run(['--openmetrics', '--input-unit', 'ns', '--name', 'fs', g])
    good, detail = promtool(out)
    H.check('group --openmetrics -u ns --name fs: kstats_latency_seconds, metric="fs"',
            rc == 0 and good and '# UNIT kstats_latency_seconds seconds' in out and
            'kstats_latency_seconds_count{metric="fs",function="vfs_read"} 5000' in out,
            (detail, out[:500]))
    rc, out, err = H.run(['--openmetrics', '--le-bits', '2', g])
    H.check('group --openmetrics --le-bits finer than the group\'s bits -> exit 1',
            rc == 1 and 'finer than' in err and '# EOF' not in out, err)

    rc, out, err = H.run(['--json', '-p', '50,99', g])
    try:
        st = json.loads(out)
    except ValueError:
        st = {}
    fs = st.get('functions', {})
    ok = rc == 0 and st.get('group') == 'vfs' and sorted(fs) == sorted(names)
    for f in funcs if ok else []:
        t = sorted(flat(funcs[f]))
        p = fs[f]['percentiles']['99']
        ok &= fs[f]['count'] == len(t) and fs[f]['bits'] == BITS
        ok &= p['lo'] <= t[rank(99, len(t)) - 1] <= p['hi']
        ok &= {c: x['count'] for c, x in fs[f]['cpus'].items()} == \
            {str(c): len(v) for c, v in funcs[f].items()}
    H.check('group --json: {"group", "functions": {FUNC: the JSON of its file}}, counts, '
            'p99 bounds, CPUs', ok and fs.get('vfs_never', {}).get('count') == 0, out[:1500])

    rc, out, err = H.run(['--csv', g])
    counts = {}
    try:
        for r in csv.DictReader(io.StringIO(out)):
            counts[r['function']] = counts.get(r['function'], 0) + int(r['count'])
    except (KeyError, ValueError, TypeError):
        counts = None
    H.check('group --csv: a function column, a header once, the count of each function',
            rc == 0 and out.count('slot,lo,hi') == 1 and
            counts == {f: len(flat(v)) for f, v in funcs.items()}, out[:500])

    rc, out, err = H.run([g])
    tables = parse_tables(out)
    ok = rc == 0 and len(tables) == 1 and tables[0][0] == [
        'group', 'vfs', 'functions', '5', 'sort', 'total', 'bits', str(BITS), '(slots', 'at',
        'most', '%.3g%%' % (100 / 2 ** BITS), 'wide)']
    rows = {w[0]: w for w in tables[0][1]} if ok else {}
    bad = [f for f in names if f not in rows or
           row_ok(rows[f], dict(expect_row(flat(funcs.get(f, {}))),
                                tol=total_tolerance(flat(funcs.get(f, {})))))]
    H.check('group DIR: the table of its functions from _summary, without a rate/s '
            'column (#43.12)', ok and not bad and 'rate/s' not in out, (bad, out, err))

    # A directory without _summary is not a group: as before.
    rc, _, err = H.run([d])
    H.check('a directory that is not a group -> exit 1, Is a directory, no _summary',
            rc == 1 and 'Is a directory, not a group\'s (it has no _summary)' in err, err)


UNIT_SCALE = {'ns': 1e-3, 'us': 1, 'ms': 1e3, 's': 1e6}


def unit_value(word):
    """A value of the table with -u us: '2.52ms' in us, or None."""
    m = re.fullmatch(r'([0-9.]+(?:e-?[0-9]+)?)(ns|us|ms|s)', word)
    return float(m[1]) * UNIT_SCALE[m[2]] if m else None


def pct_cols_ok(out, funcs, pcts):
    """A table whose columns after rate/s are p of PCTS, each in the slot
    of the true percentile of each function: '' if so, else what is wrong."""
    lines = out.splitlines()
    head = next((l.split() for l in lines if l.startswith('function ')), [])
    want = ['function', 'count'] + ['rate/s'] * ('rate/s' in head) + \
        ['p%g' % q for q in pcts] + ['max<=', 'total', 'avg']
    if head != want:
        return 'columns %s, not %s' % (head, want)
    tables = parse_tables(out)
    rows = {w[0]: w for w in tables[-1][1]} if tables else {}
    bad = []
    for f, by in funcs.items():
        v = sorted(flat(by))
        w = rows.get(f, [])
        for i, q in enumerate(pcts):
            slot = gen.slot_of(v[rank(q, len(v)) - 1], BITS)
            if len(w) != len(want) + ('rate/s' not in head) or \
                    gen.slot_of(int(w[3 + i]), BITS) != slot:
                bad.append('%s p%g: %s, not in slot %d' % (f, q, w, slot))
    return '; '.join(bad)


def units_ok(plain, with_unit, unit='us', shown=None):
    """The rows of WITH_UNIT (--input-unit UNIT) are those of PLAIN (their
    rates aside), each value with a unit (SHOWN if given: -u SHOWN), within
    3 significant digits: '' if so, else what is wrong."""
    a, b = parse_tables(plain), parse_tables(with_unit)
    rows = {w[0]: w for w in b[-1][1]} if b else {}
    bad = []
    for w in a[-1][1] if a else []:
        u = rows.get(w[0], [])
        if len(u) != len(w) or u[:2] != w[:2]:
            bad.append('%s: %s against %s' % (w[0], u, w))
            continue
        for i, (x, y) in enumerate(zip(w[3:], u[3:])):
            v = unit_value(y)
            if x == '-' and y == '-':
                continue
            x = float(x) * UNIT_SCALE[unit]
            if v is None or abs(v - x) > 0.01 * x + 0.001 * UNIT_SCALE[unit] or \
                    (shown and not re.fullmatch(r'[0-9.]+(e-?[0-9]+)?' + shown, y)):
                bad.append('%s: %s for %s us' % (w[0], y, x))
            # max<= (the last column but total and avg): rounded up, so that
            # it holds.
            elif i == len(w) - 6 and v < x:
                bad.append('%s: max<= %s, below %s us' % (w[0], y, x))
    return '; '.join(bad) if a and b else 'no table'


def test_max_bound():
    """max<= of the table: the upper bound of the slot of the largest
    sample, exact as an integer (2^64 - 1 too), rounded up with -u."""
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'grp')
    funcs = {'huge': {0: [5, 2 ** 64 - 1]}, 'odd': {1: [1000, 1500, 2100]}}
    gen.write_group(g, funcs, BITS)
    rc, out, err = H.run([g])
    tables = parse_tables(out)
    rows = {w[0]: w for w in tables[0][1]} if tables else {}
    head = next((l.split() for l in out.splitlines() if l.startswith('function ')), [])
    want = {f: str(gen.slot_max(gen.slot_of(max(flat(by)), BITS), BITS))
            for f, by in funcs.items()}
    H.check('group DIR: the column max<= is the upper bound of the slot of the largest '
            'sample, exact (2^64 - 1)', rc == 0 and 'max<=' in head and
            {f: w[5] for f, w in rows.items()} == want, (want, out, err))
    rc, out, err = H.run(['--input-unit', 'ns', g])
    tables = parse_tables(out)
    rows = {w[0]: w for w in tables[0][1]} if tables else {}
    v = unit_value(rows.get('odd', [''] * 6)[5])
    H.check('group DIR -u ns: max<= rounded up (%s: 3.08us, not 3.07us)' % want['odd'],
            rc == 0 and rows.get('odd', [''] * 6)[5] == '3.08us' and
            v is not None and v * 1000 >= int(want['odd']), out)


def test_top_local_name():
    """kstats top NAME, without a '/', is the group NAME of the current
    directory when there is one, as an INPUT is a file before a metric
    name; with --dir, NAME is in that directory."""
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'grp')
    gen.write_group(g, {'fa': {0: [100, 200]}, 'fb': {1: [300]}}, BITS)
    rc, out, err = H.run(['top', 'grp', '-c', '1', '-i', '0.01'], cwd=d)
    tables = parse_tables(out)
    H.check('top NAME: a group directory of that name here, without a /',
            rc == 0 and len(tables) == 1 and
            sorted(w[0] for w in tables[0][1]) == ['fa', 'fb'], (rc, out, err))
    e = tempfile.mkdtemp(dir=H.TMP)
    rc, out, err = H.run(['top', '--dir', e, 'grp', '-c', '1', '-i', '0.01'], cwd=d)
    H.check('top --dir DIR NAME: NAME in DIR, not the one here (an error naming DIR/NAME)',
            rc == 1 and os.path.join(e, 'grp') in err, (rc, out, err))


def test_group_table_options(rng):
    """The table of a group (DIR, and kstats top) takes -u and -p as a
    metric's summary does; --cpu, which a _summary (the sums of the CPUs)
    cannot give, is refused, and so is a -b that is not the group's."""
    funcs = group_funcs(rng)
    d = tempfile.mkdtemp(dir=H.TMP)
    g = os.path.join(d, 'vfs')
    gen.write_group(g, funcs, BITS, possible=4)

    rc, plain, err = H.run([g])
    rc2, out, err2 = H.run(['-p', '50,90,99.9', g])
    why = pct_cols_ok(out, funcs, (50, 90, 99.9))
    H.check('group DIR -p 50,90,99.9: the columns p50 p90 p99.9, each in its slot',
            rc == rc2 == 0 and not why, (why, out, err2))
    rc2, out, err2 = H.run(['--input-unit', 'us', g])
    why = units_ok(plain, out)
    H.check('group DIR -u us: each value of the table with its unit (us, ms, s)',
            rc == rc2 == 0 and not why, (why, out, err2))
    # max<= and total: 3 digits; a percentile at most 3, what its slot
    # supports (#43.8, test_resolution()).
    cells = [(w, i >= len(ln.split()) - 2) for ln in out.splitlines()[2:]
             for i, w in enumerate(ln.split()) if i >= 2]
    words = [w for w, _ in cells]
    nodigits = [w for w, three in cells if unit_value(w) is not None and
                (len(re.sub(r'[^0-9]', '', w).lstrip('0')) != 3 if three else
                 len(re.sub(r'[^0-9]', '', w).strip('0')) > 3)]
    H.check('group DIR -u us: max<= and total with 3 significant digits, trailing zeros '
            'kept (2.40us above 2.38us), as the summary has them; percentiles 3 at most',
            rc2 == 0 and words and not nodigits, (nodigits, out))
    rc2, out, err2 = H.run(['-n', '2', '-s', 'p99', g])
    tables = parse_tables(out)
    rows = tables[0][1] if tables else []
    full = parse_tables(H.run(['-s', 'p99', g])[1])
    every = full[0][1] if full else []
    vals = [float(w[4]) for w in every if w[4] != '-']
    H.check('group DIR -n 2 -s p99: the 2 rows of the largest p99, the header says sort p99',
            rc2 == 0 and len(rows) == 2 and rows == every[:2] and len(vals) > 2 and
            vals == sorted(vals, reverse=True) and head_sort(tables[0][0]) == 'p99',
            (out, err2, every))
    m = os.path.join(d, 'metric')
    with open(m, 'w', encoding='ascii') as f:
        f.write(gen.render(funcs['vfs_read'], BITS))
    rc2, out, err2 = H.run(['-n', '2', m])
    H.check('-n on a metric, not a group: a usage error naming it',
            rc2 == 1 and not out and H.usage_lines(err2) and 'is not a group' in err2 and
            m in err2, (out, err2))
    rc2, out, err2 = H.run(['--cpu', '1', g])
    H.check('group DIR --cpu 1: a usage error that says why (its _summary has no CPUs)',
            rc2 == 1 and not out and H.usage_lines(err2) and '--cpu' in err2 and
            '_summary' in err2, (out, err2))
    rc2, out, err2 = H.run(['--json', '--cpu', '1', g])
    try:
        fs = json.loads(out)['functions']
    except (ValueError, KeyError):
        fs = {}
    H.check('group DIR --json --cpu 1: the samples of CPU 1 of each function',
            rc2 == 0 and {f: x['count'] for f, x in fs.items()} ==
            {f: len(by.get(1, [])) for f, by in funcs.items()}, (out[:500], err2))
    rc2, out, err2 = H.run(['-b', str(BITS), g])
    H.check('group DIR -b BITS (the group\'s): the table as without it',
            rc2 == 0 and out == plain, (out, err2))
    rc2, out, err2 = H.run(['-b', str(BITS + 2), g])
    H.check('group DIR -b other than the group\'s bits: exit 2, inconsistent input',
            rc2 == 2 and not out and 'inconsistent input' in err2 and
            '--bits' in err2, (out, err2))

    # kstats top: -p as kstats's, and the sort by one of its columns.
    m = os.path.join(d, 'm')
    old = {0: flat(funcs['vfs_read'])[:1000]}
    new = {0: flat(funcs['vfs_read'])}
    rc, out, err, fed = fed_run(['top', '-p', '50,90', '-s', 'p90', '-i', '0.05', '-c', '1',
                                 m], m, [gen.render(old, BITS), gen.render(new, BITS)])
    why = pct_cols_ok(out, {'m': {0: flat(funcs['vfs_read'])[1000:]}}, (50, 90))
    tables = parse_tables(out)
    H.check('top -p 50,90 -s p90: the columns p50 p90 of the interval, sort p90',
            rc == 0 and not fed and not why and tables and head_sort(tables[0][0]) == 'p90', (why, fed, out, err))
    for args, what in ((['top', '-s', 'p99', '-p', '50,90'], "--sort: 'p99' is not"),
                       (['top', '--cpu', '1'], 'the sums of the CPUs')):
        rc, out, err = H.run(args + [g])
        H.check('usage: kstats %s DIR -> exit 1, "%s" in a line, then Try'
                % (' '.join(args), what), rc == 1 and not out and
                H.usage_lines(err) and what in err.splitlines()[0], err)


def test_terminal_width(rng):
    """#43: a group's table and its A/B (--compare DIR_A DIR_B) on a
    terminal fit its width: the intervals go first, then whole columns,
    never digits, what went said below; into a pipe, or where they fit,
    they are as they were."""
    def draw(mu, n):
        return [int(rng.lognormvariate(mu, 0.8)) for _ in range(n)]
    long_name = 'blk_mq_submit_bio_with_a_long_name_x'
    names = ['ext4_file_read_iter', 'do_sys_openat2', 'kmem_cache_alloc', 'tcp_sendmsg',
             long_name, '__do_softirq']
    a = {f: {0: draw(8 + 0.3 * i, 3000)} for i, f in enumerate(names)}
    b = {f: {0: draw(8 + 0.3 * i + (0.5 if f == 'tcp_sendmsg' else 0), 3000)}
         for i, f in enumerate(names)}
    d = tempfile.mkdtemp(dir=H.TMP)
    da, db = os.path.join(d, 'A'), os.path.join(d, 'B')
    gen.write_group(da, a, 3)
    gen.write_group(db, b, 3)
    env = {k: v for k, v in os.environ.items() if k != 'COLUMNS'}

    def on_tty(args, cols, extra=None):
        with running(args, 40, cols, dict(env, **(extra or {}))) as t:
            return t.wait(), t.text().replace('\r', '')

    def same_row(fitted, plain):
        """Whether FITTED is PLAIN's row with cells left out: its name
        whole or cut (start~end), each of its other words in PLAIN."""
        f, p = fitted.split(), plain.split()
        if not f or not p:
            return False
        name = f[0]
        if '~' in name:
            head, tail = name.split('~', 1)
            whole = p[0].startswith(head) and p[0].endswith(tail)
        else:
            whole = name == p[0]
        return whole and all(w in p[1:] for w in f[1:])
    bad = []
    for args, sizes in ((['--compare', da, db], (50, 80, 140, 200)), ([da], (40, 60, 120))):
        plain = subprocess.run([H.KSTATS] + args, capture_output=True, text=True,
                               check=False, env=env).stdout
        width = max(len(ln) for ln in plain.splitlines())
        prows = [ln for ln in plain.splitlines() if ln.split()[:1] and
                 any(ln.startswith(f[:8]) for f in names)]
        for cols in sizes:
            rc, out = on_tty(args, cols)
            lines = out.splitlines()
            rows = [ln for ln in lines if ln.split()[:1] and
                    any(ln.startswith(f[:8]) for f in names)]
            said = ' '.join(ln for ln in lines if 'left out' in ln or 'shows them' in ln)
            if rc or max(len(ln) for ln in lines) > cols:
                bad.append((args[0], cols, 'wider than the terminal', out))
            elif width <= cols and out != plain:
                bad.append((args[0], cols, 'not the plain table, which fits', out))
            elif width > cols and (len(rows) != len(prows) or 'left out for the width' not in
                                   said or not all(same_row(r, p) for r, p in zip(rows, prows))):
                bad.append((args[0], cols, 'rows or their cells not the plain table\'s', out))
    # The functions of one group only, named in lines of the width.
    dc = os.path.join(d, 'C')
    extra = ['%s_%d' % ('x' * 56, i) for i in range(6)]
    gen.write_group(dc, dict({f: b[f] for f in names[2:]}, **{f: b[names[0]] for f in extra}),
                    3)
    rc, out = on_tty(['--compare', da, dc], 80)
    lines = out.splitlines()
    if rc or max(len(ln) for ln in lines) > 80 or \
            not all(any(f in ln.split() for ln in lines) for f in extra + names[:2]):
        bad.append(('--compare A C', 80, 'the names of one group only', out))
    rc, out = on_tty(['--compare', da, db], 200, {'COLUMNS': '80'})
    H.check('a group\'s table (at 40, 60, 120 columns) and --compare of two (at 50, 80, 140, '
            '200): each line within the terminal, the cells kept those of the plain table, '
            'in its order, what went said; where it fits, the plain table; COLUMNS=80 on a '
            'terminal of 200 columns: 80',
            not bad and rc == 0 and max(len(ln) for ln in out.splitlines()) <= 80 and
            'left out for the width' in out, bad)
    # Names that differ in the middle only, cut: each still tells its
    # row apart (the '~' moved), in the table, its A/B and top.
    base = 'tcp_v4_do_rcv_established_fastpath_handler'
    many = ['%s_%d%s' % (base, i, suf) for i in range(25)
            for suf in ('', '.isra.0', '.constprop.0')]
    dm = os.path.join(d, 'M')
    gen.write_group(dm, {f: {0: draw(8, 200)} for f in many}, 3)
    bad = []
    for args, cols in (([dm], 40), ([dm], 60), (['--compare', dm, dm], 50), (['top'], 50)):
        if args == ['top']:
            with running(['top', '--dir', d, 'M', '-i', '1000'], 40, cols) as t:
                t.until(lambda t: len(t.rows()) >= 30)
                rc, shown = 0, [r[0].lstrip('+-') for r in t.rows()]
        else:
            rc, out = on_tty(args, cols)
            shown = [ln.split()[0] for ln in out.splitlines()
                     if ln.split()[:1] and ln.startswith(base[:9])]
        if rc or len(shown) < 30 or len(set(shown)) != len(shown) or \
                not all('~' in n for n in shown):
            bad.append((args[0], cols, rc, shown))
    H.check('75 names of 44 to 57 characters that differ in the middle, cut at 40 to 60 '
            'columns: each shown once (the table, --compare, top)', not bad, bad)
    rc, out = on_tty(['--compare', da, db], 80)
    first = next((ln for ln in out.splitlines() if ln.startswith('tcp_sendmsg')), '')
    H.check('--compare DIR_A DIR_B at 80 columns: the regressed function first, its mean\'s '
            'change without interval, significant (%s)' % first,
            out.splitlines()[1:2] == [first] and '[' not in first and
            re.search(r' \+[0-9.]+%( |$)', first) and not first.endswith('~'), out)


def test_usage():
    for args, what in ((['top', 'a', 'b'], '2 names'),
                       (['top', '-i', '0'], "--interval: '0' is not a positive"),
                       (['top', '-n', 'x'], "--iterations: 'x' is not a positive"),
                       (['top', '--lines', 'x'], "--lines: 'x' is not a positive"),
                       (['top', '-d', '0'], "--delay: '0' is not a positive"),
                       (['top', '-s', 'size'], "--sort: 'size' is not"),
                       (['top', '-n', '1', '--duration', '1'], 'not both'),
                       (['top', '--input-unit', 'parsecs'], "'parsecs' is not ns"),
                       (['trace', 'pcpu:vfs_*'], 'a glob is traced by fprobe: only'),
                       (['trace', 'vfs_*', '--per-cpu'], 'do not apply to a glob'),
                       (['trace', 'vfs_read', '-n', '5'], '--lines: only with a glob'),
                       (['trace', 'vfs_*', '--name', 'a/b'], 'is not a group name'),
                       (['--lines', '5', '--json', 'x'], '--lines: only for'),
                       (['-n', '5', '-s', 'name', '--csv', 'x'], '--lines and --sort: only for'),
                       # The option that rules the table out is named.
                       (['-n', '5', '--per-cpu', 'x'], 'kstats top), not with --per-cpu'),
                       (['--per-cpu', '-n', '5', 'x'], 'kstats top), not with --per-cpu'),
                       (['-n', '5', '--hist', 'x'], 'kstats top), not with --hist'),
                       (['-s', 'count', '--compare', 'x', 'y'], 'kstats top), not with --compare'),
                       (['--sort', 'p95', 'x'], "--sort: 'p95' is not")):
        rc, out, err = H.run(args)
        H.check('usage: kstats %s -> exit 1, "%s" in a line, then Try' % (' '.join(args), what),
                rc == 1 and not out and H.usage_lines(err) and what in err.splitlines()[0], err)
    rc, out, err = H.run(['top', '--dir', os.path.join(H.TMP, 'absent')])
    H.check('top --dir ABSENT -> exit 1, the directory, why', rc == 1 and 'absent' in err and
            'No such file' in err, err)
    rc, out, err = H.run(['top', '--dir', H.TMP, 'absent'])
    H.check('top NAME not there -> exit 1, its path', rc == 1 and
            os.path.join(H.TMP, 'absent') in err, err)
    rc, out, _ = H.run(['top', '--help'])
    rc2, out2, _ = H.run(['--help'])
    H.check('top --help; kstats --help names top, trace GLOB and group directories',
            rc == rc2 == 0 and 'usage: kstats top' in out and 'kstats top' in out2 and
            "GLOB" in out2 and 'group' in out2, out2)
    # The prose of the helps filled: no line of a paragraph (lines not
    # indented, up to a blank one or a sentence's end) could have taken
    # the next line's first word, at 75 columns.
    ragged = []
    for text in (out, out2):
        lines = text.split('\n')
        for a, b in zip(lines, lines[1:]):
            if (a and b and not a.startswith(' ') and not b.startswith(' ') and
                    a[-1] not in '.:' and
                    not a.startswith('usage:') and len(a) + 1 + len(b.split()[0]) <= 75):
                ragged.append((a, b))
        # Nor past 75 (prose) or 79 (an option's lines) columns.
        ragged += [ln for ln in lines if len(ln) > (79 if ln.startswith(' ') else 75)]
    H.check('kstats top --help and kstats --help: paragraphs filled, no line short of '
            'the next word, none past 75 columns (79 an option\'s)',
            rc == rc2 == 0 and not ragged, ragged)
    # Each key of the table's sorts, as the ? screen has them, in --help.
    said = ' '.join(out.split())
    H.check('kstats top --help names each sort key (t p c n m a r, R)',
            all(k in said for k in ('t total', 'p p99', 'c count', 'n name', 'm max<=',
                                    'a avg', 'r rate', 'R the sort reversed')), said)


class FakeKernel:
    """kstats/_control of a fake debugfs: a FIFO read as the kernel would
    take its commands; 'trace fprobe:GLOB as NAME ...' makes the group
    directory NAME of FUNCS, 'remove NAME' removes it."""

    def __init__(self, debugfs, funcs):
        self.kdir = os.path.join(debugfs, 'kstats')
        os.makedirs(self.kdir)
        self.control = os.path.join(self.kdir, '_control')
        os.mkfifo(self.control)
        self.funcs = funcs
        self.log = []
        self.cond = threading.Condition()
        self.th = threading.Thread(target=self.serve, daemon=True)
        self.th.start()

    def serve(self):
        # A FIFO open for writing again before this end saw the last
        # writer close joins that read: a command per line, as _control
        # takes a write of several lines.
        while True:
            with open(self.control, 'rb') as f:
                text = f.read().decode(errors='replace')
            for cmd in text.splitlines():
                cmd = cmd.strip()
                if cmd == 'STOP':
                    return
                w = cmd.split()
                if w[:1] == ['trace'] and 'as' in w:
                    # Made whole, then in place at once, as the kernel's.
                    tmp = tempfile.mkdtemp(dir=os.path.dirname(self.kdir))
                    gen.write_group(tmp, self.funcs, BITS)
                    os.rename(tmp, os.path.join(self.kdir, w[w.index('as') + 1]))
                elif w[:1] == ['remove'] and len(w) == 2:
                    shutil.rmtree(os.path.join(self.kdir, w[1]), ignore_errors=True)
                with self.cond:
                    self.log.append(cmd)
                    self.cond.notify_all()

    def commands(self, n):
        """The log once it has N commands done (kstats may exit before
        the last is taken from the FIFO), or what it has after a hang."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.log) >= n, timeout=H.HANG)
            return list(self.log)

    def clear(self):
        with self.cond:
            self.log.clear()

    def stop(self):
        fd = os.open(self.control, os.O_WRONLY)
        os.write(fd, b'STOP')
        os.close(fd)
        self.th.join()


def test_trace_glob(rng):
    """kstats trace 'GLOB' on a fake debugfs (mount namespace)."""
    if os.geteuid() != 0 or not shutil.which('unshare') or \
            H.run(['unshare', '-m', 'true'], raw=True)[0] != 0:
        print('SKIP: kstats trace GLOB: needs root and unshare -m (the VM test runs it)')
        return
    funcs = dict(group_funcs(rng), vfs_never={})
    d = tempfile.mkdtemp(dir=H.TMP)
    proc = os.path.join(d, 'proc')
    os.mkdir(proc)
    debugfs = os.path.join(d, 'debug')
    with open(os.path.join(proc, 'mounts'), 'w', encoding='ascii') as f:
        f.write('none %s debugfs rw,relatime 0 0\n' % debugfs)
    kern = FakeKernel(debugfs, funcs)
    # kstats sees the fake /proc/mounts; the command waits for the group.
    wrap = ['unshare', '-m', 'sh', '-c', 'mount --bind "$0" /proc && exec "$@"', proc, H.KSTATS]

    def wait_for(name):
        return ['sh', '-c', 'until [ -e %s/%s/_summary ]; do sleep 0.01; done; exit ${1:-0}'
                % (kern.kdir, name), 'sh']

    def gone():
        return not [n for n in os.listdir(kern.kdir) if n != '_control']

    try:
        # -u none: the numbers as recorded (kstats trace prints ns in units).
        rc, out, err = H.run(wrap + ['trace', 'vfs_*', '-u', 'none', '--',
                                    *wait_for('kstats-trace-*')], raw=True)
        tables = parse_tables(out)
        head = tables[0][0] if tables else []
        name = head[1] if len(head) > 1 else ''
        ok = rc == 0 and re.fullmatch(r'kstats-trace-\d+', name) and kern.commands(2) == [
            'trace fprobe:vfs_* as %s bits 1' % name, 'remove %s' % name] and gone()
        H.check("trace 'vfs_*' -- COMMAND: trace fprobe:vfs_* as kstats-trace-PID bits 1, "
                "then remove, on the fake _control", ok, (rc, kern.log, out, err))
        rows = {w[0]: w for w in tables[0][1]} if tables else {}
        secs = float(head[5]) if len(head) > 5 else 0
        bad = [f for f in funcs if f not in rows or
               row_ok(rows[f], dict(expect_row(flat(funcs[f]), secs),
                                    tol=total_tolerance(flat(funcs[f]))))]
        order = [w[0] for w in tables[0][1]] if tables else []
        # The run lasts (the command waits for the group): a rate.
        H.check("trace 'vfs_*': one table of every function of the group, over the run "
                "(count, rate, p50, p99, max, total), sorted by total", ok and not bad and
                secs > 0 and
                head[2:4] == ['functions', '5'] and
                order == sorted(funcs, key=lambda f: (-sum(flat(funcs[f])), f)),
                (bad, out))

        # -u and --percentiles (-p is --pid there), as for a group's directory.
        plain = out
        kern.clear()
        rc, out, err = H.run(wrap + ['trace', 'vfs_*', '--name', 'cols', '--percentiles',
                                     '50,90,99.9', '-u', 'none', '--', *wait_for('cols')],
                             raw=True)
        why = pct_cols_ok(out, {f: by for f, by in funcs.items() if by}, (50, 90, 99.9))
        # Each run's remove taken before the log is cleared for the next.
        cmds = kern.commands(2)
        H.check("trace 'vfs_*' --percentiles 50,90,99.9: the columns p50 p90 p99.9 of "
                "its table, each in its slot", rc == 0 and not why and cmds == [
                    'trace fprobe:vfs_* as cols bits 1', 'remove cols'], (why, cmds, out, err))
        kern.clear()
        rc, out, err = H.run(wrap + ['trace', 'vfs_*', '--name', 'unit', '--input-unit', 'us',
                                     '--', *wait_for('unit')], raw=True)
        why = units_ok(plain, out)
        cmds = kern.commands(2)
        H.check("trace 'vfs_*' --input-unit us: each value of its table with its unit",
                rc == 0 and not why and cmds == ['trace fprobe:vfs_* as unit bits 1',
                                                 'remove unit'], (why, cmds, out, err))
        # kstats trace knows its unit: nanoseconds, printed so by default;
        # -u ms: each value in ms.
        for args, shown in (([], None), (['-u', 'ms'], 'ms')):
            kern.clear()
            rc, out, err = H.run(wrap + ['trace', 'vfs_*', '--name', 'unit'] + args +
                                 ['--', *wait_for('unit')], raw=True)
            why = units_ok(plain, out, 'ns', shown)
            kern.commands(2)
            H.check("trace 'vfs_*' %s: its values nanoseconds, printed %s" %
                    (' '.join(args), 'in ms' if shown else 'with their units'),
                    rc == 0 and not why, (why, out, err))

        # --openmetrics over --series-max: the trace is gone once its
        # group is read, so written, and said.
        kern.clear()
        rc, out, err = H.run(wrap + ['trace', 'vfs_*', '--name', 'om', '--openmetrics',
                                     '--series-max', '10', '--', *wait_for('om')], raw=True)
        n = len([ln for ln in out.splitlines() if ln and not ln.startswith('#')])
        cmds = kern.commands(2)
        H.check("trace 'vfs_*' --openmetrics --series-max 10: the %d series written, "
                "the limit said on standard error, the group removed" % (5 * 67),
                rc == 0 and n == 5 * 67 and 'more than --series-max 10' in err and
                out.endswith('# EOF\n') and cmds == ['trace fprobe:vfs_* as om bits 1',
                                                     'remove om'], (rc, n, cmds, err))

        kern.clear()
        rc, out, err = H.run(wrap + ['trace', 'fprobe:vfs_*', '--name', 'mine', '-n', '2',
                                     '-p', '42', '--', *wait_for('mine'), '3'], raw=True)
        tables = parse_tables(out)
        H.check("trace 'fprobe:vfs_*' --name mine -n 2 -p 42, the command exits 3: exit 3, "
                "2 rows, the group removed", rc == 3 and kern.commands(2) == [
                    'trace fprobe:vfs_* as mine bits 1 pid 42', 'remove mine'] and gone() and
                len(tables) == 1 and len(tables[0][1]) == 2, (rc, kern.log, out, err))

        # Until SIGINT: the table, then the group removed.
        kern.clear()
        p = subprocess.Popen(wrap + ['trace', 'vfs_*', '--name', 'sig', '-b', '2', '--json'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + H.HANG
        while not os.path.exists(os.path.join(kern.kdir, 'sig', '_summary')) and \
                time.time() < deadline and p.poll() is None:
            time.sleep(0.01)
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=H.HANG)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        try:
            st = json.loads(out)
        except ValueError:
            st = {}
        H.check("trace 'vfs_*' --json until SIGINT: the JSON of each function (from "
                "_summary), then the group removed", p.returncode == 0 and
                kern.commands(2) == ['trace fprobe:vfs_* as sig bits 2', 'remove sig'] and
                gone() and
                st.get('group') == 'sig' and
                {f: x['count'] for f, x in st.get('functions', {}).items()} ==
                {f: len(flat(v)) for f, v in funcs.items()}, (p.returncode, kern.log, out, err))

        # MODULE:SYMBOL is the function's name, as the kernel names the
        # trace; only pcpu: and fprobe: are forms, taken off it.
        for spec, name in (('kstats_bench:ksdup_call', 'kstats_bench:ksdup_call'),
                           ('fprobe:kstats_bench:ksdup_call', 'kstats_bench:ksdup_call'),
                           ('pcpu:vfs_read', 'vfs_read')):
            kern.clear()
            rc, out, err = H.run(wrap + ['trace', spec, '--', 'true'], raw=True)
            H.check('trace %s: traced and removed as %s' % (spec, name),
                    kern.commands(2) == ['trace %s bits 3' % spec, 'remove %s' % name],
                    (rc, kern.log, out, err))
    finally:
        kern.stop()


def in_slot_digits(v, bits):
    """A percentile V (the mean of its slot) as tables print it (#43.8): the
    fewest significant digits, the last no coarser than the slot's width,
    whose rounding of V stays in V's slot."""
    s = gen.slot_of(v, bits)
    lo, hi = gen.slot_min(s, bits), gen.slot_max(s, bits)
    k = len(str(v))
    for d in range(1, k + 1):
        p = 10 ** (k - d)
        x = (v + p // 2) // p * p
        if p <= hi - lo + 1 and lo <= x <= hi:
            return x
    return v


def test_resolution(rng):
    """#43.8: a table's header says its frac_bits, and each percentile is
    printed to the digits its slot supports, never outside the slot."""
    d = os.path.join(H.TMP, 'resolution')
    for bits in (1, 3, 5):
        # Each function's samples all one value: its slots' means are it.
        vals = [rng.randrange(1000, 10 ** rng.randrange(4, 10)) for _ in range(12)]
        # 1576796: at frac_bits 1, 1600000 (2000000 is in its slot too,
        # 27% from it).
        vals += [185000, 161718, 196000, 1576796]
        funcs = {'f%02d' % i: {0: [v] * 3} for i, v in enumerate(vals)}
        g = os.path.join(d, 'b%d' % bits)
        gen.write_group(g, funcs, bits)
        rc, out, err = H.run([g, '-p', '50'])
        tables = parse_tables(out)
        head = tables[0][0] if tables else []
        rows = {w[0]: w for w in tables[0][1]} if tables else {}
        bad = ['%s: %s, not %d (of %d)' % (f, rows.get(f, ['?'] * 4)[3],
                                            in_slot_digits(funcs[f][0][0], bits), funcs[f][0][0])
               for f in funcs if rows.get(f, [''] * 4)[3] != str(in_slot_digits(funcs[f][0][0],
                                                                               bits))]
        H.check('group table at frac_bits %d: "bits %d (slots at most %.3g%% wide)" in its '
                'header, each p50 to the digits its slot supports (185000 as %d)'
                % (bits, bits, 100 / 2 ** bits, in_slot_digits(185000, bits)),
                rc == 0 and head[6:] == ['bits', str(bits), '(slots', 'at', 'most',
                                         '%.3g%%' % (100 / 2 ** bits), 'wide)'] and not bad,
                (bad, out, err))
    # With -u: the fewest digits within the slot, scaled; a rounding that
    # carries (995 to 1000) loses its zero (1us, not 1.0us).
    for bits, want in ((1, {'a': '190us', 'b': '6ms', 'c': '1us'}),
                       (8, {'a': '185us', 'b': '5.95ms', 'd': '161.7us'})):
        g = os.path.join(d, 'unit%d' % bits)
        vals = {'a': 185000, 'b': 5952173, 'c': 995, 'd': 161718}
        gen.write_group(g, {f: {0: [vals[f]] * 3} for f in want}, bits)
        rc, out, err = H.run(['--input-unit', 'ns', '-p', '50', g])
        rows = {w[0]: w[3] for w in (parse_tables(out) or [([], [])])[0][1]}
        H.check('group table -u ns at frac_bits %d: p50 %s' % (bits, ', '.join(
            '%s for %d ns' % (want[f], vals[f]) for f in sorted(want))),
                rc == 0 and rows == want, (rows, out, err))
    # Up to 2^64 - 1, exactly.
    g = os.path.join(d, 'huge')
    big = {'e19': 10 ** 19, 'top': 2 ** 64 - 1, 'h': 18 * 10 ** 18}
    gen.write_group(g, {f: {0: [v] * 2} for f, v in big.items()}, 1)
    rc, out, err = H.run(['-p', '50', g])
    rows = {w[0]: w[3] for w in (parse_tables(out) or [([], [])])[0][1]}
    want = {f: str(in_slot_digits(v, 1)) for f, v in big.items()}
    H.check('group table at frac_bits 1, values from 1e19 to 2^64 - 1: p50 %s' %
            ', '.join(want[f] for f in sorted(want)), rc == 0 and rows == want,
            (rows, want, out, err))
    # kstats top's screen says the width of the coarsest slots.
    rc, out, err = H.run(['top', '--dir', d, 'b1', '-b', '-c', '1', '-i', '0.05'])
    H.check('top into a pipe: "bits 1 (slots at most 50% wide)" in the header of each '
            'interval', rc == 0 and ' sort total bits 1 (slots at most 50% wide)\n' in out,
            (out, err))


def test_top_habits(rng):
    """top(1)'s and perf top's habits: -d SECS the delay between refreshes,
    -n N the iterations; --lines and --duration, the old meanings of -n
    and -d, long options."""
    d = os.path.join(H.TMP, 'habits')
    gen.write_group(os.path.join(d, 'grp'), {f: {0: [rng.randrange(100, 10 ** 6)
                                                     for _ in range(20)]}
                                             for f in ('a', 'b', 'c')}, BITS)
    rc, out, err = H.run(['top', '--dir', d, 'grp', '-b', '-d', '0.05', '-n', '3',
                          '--lines', '1'])
    tables = parse_tables(out)
    secs = [float(h[3]) for h, _ in tables if len(h) > 3]
    # The reads keep to a schedule of 0.05 s from the start: one late can
    # make the next shorter, never the three together.
    H.check('top -d 0.05 -n 3 --lines 1: 3 tables, each of 1 row, over 0.15 s at least',
            rc == 0 and len(tables) == 3 and all(len(r) == 1 for _, r in tables) and
            len(secs) == 3 and sum(secs) >= 0.149, (out, err))
    rc, out, err = H.run(['top', '--dir', d, 'grp', '-b', '-i', '0.05', '-c', '2'])
    H.check('top -i 0.05 -c 2: the same as -d 0.05 -n 2 (2 tables)',
            rc == 0 and len(parse_tables(out)) == 2, (out, err))
    # -u: the unit the values are printed in, of nanoseconds.
    snaps = [{f: {0: [rng.randrange(100, 10 ** 7) for _ in range(k * 20)]}
              for f in ('a', 'b', 'c')} for k in (1, 2)]
    outs = []
    for unit in ('none', 'us'):
        outs.append(fed_run(['top', '--dir', d, 'grp', '-b', '-d', '0.05', '-n', '1', '-u', unit],
                            os.path.join(d, 'grp', '_summary'),
                            [gen.render_summary(x, BITS) for x in snaps]))
    why = units_ok(outs[0][1], outs[1][1], 'ns', 'us')
    H.check('top -u us: every value in us (of ns); -u none: plain numbers',
            all(o[0] == 0 and not o[3] for o in outs) and not why and
            re.search(r'^a +40 +[0-9.]+ +[0-9]+ ', outs[0][1], re.M), (why, outs))


def tests(harness, rng):
    """Every test of this file, with the helpers of test_kstats (HARNESS)."""
    global H
    H = harness
    test_top_pipe(rng)
    test_top_all(rng)
    test_top_tty()
    test_top_browse()
    test_group_input(rng)
    test_resolution(rng)
    test_top_habits(rng)
    test_control_names(rng)
    test_top_narrow(rng)
    test_top_cut_escape()
    test_table_unique_names()
    test_top_bad_read(rng)
    test_group_interval(rng)
    test_group_table_options(rng)
    test_max_bound()
    test_top_local_name()
    test_usage()
    test_terminal_width(rng)
    test_trace_glob(rng)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import test_kstats as tk  # noqa: E402
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tk.KSTATS = os.path.abspath(sys.argv[1])
    seed = int(os.environ.get('KSTATS_TEST_SEED') or '20201')
    print('seed %d (KSTATS_TEST_SEED=N for another)' % seed, flush=True)
    tk.TMP = tempfile.mkdtemp(prefix='kstats-test.')
    try:
        tests(tk, random.Random(seed))
    finally:
        shutil.rmtree(tk.TMP)
    print('%d passed, %d failed' % (tk.RESULTS['passed'], tk.RESULTS['failed']))
    return 1 if tk.RESULTS['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
