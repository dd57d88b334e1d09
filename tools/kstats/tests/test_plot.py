#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""usage: test_plot.py KSTATS [--plot SCRIPT] [--count-with LOG]

Tests of kstats-plot (the kstats-plot.sh beside KSTATS, or SCRIPT) and of
harness/plot.sh, on inputs generated from known samples (kstats_gen.py);
they need gnuplot. The plots are read back from SVG: the texts and where
they are, the curves' points, the dashed marker lines, the plot's border;
pixels map to values through the axis' labelled ticks.

Prints PASS/FAIL lines, "test_plot.py: N passed, N failed", then, with
--count-with LOG (the output of test_kstats.py, as make test runs them),
one "N passed, N failed" line that counts the tests of both (a LOG
without its count line is one failure more); exits 1 on any failure.
"""
import json
import math
import os
import random
import re
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom
import xml.parsers.expat
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kstats_gen as gen  # noqa: E402

KSTATS = None
PLOT = None
TMP = None
RESULTS = {'passed': 0, 'failed': 0}
# A bound for a hung run, not a timing.
HANG = 120
SEED = 3232


def check(name, ok, detail=''):
    if ok:
        RESULTS['passed'] += 1
        print('PASS: ' + name, flush=True)
    else:
        RESULTS['failed'] += 1
        print('FAIL: %s %s' % (name, detail), flush=True)


def run(args, stdin=None, env=None, cwd=None):
    """Status, output, error of a command (-9 if it hangs: killed after
    HANG s, with every process that it started)."""
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                          start_new_session=True) as p:
        try:
            out, err = p.communicate(stdin, timeout=HANG)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return -9, out, err + '\nstill running after %d s: killed' % HANG
    return p.returncode, out, err


def plot(args, stdin=None, env=None, cwd=None):
    return run(['sh', PLOT] + args, stdin, env, cwd)


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    return path


def json_of(path, *args):
    rc, out, err = run([KSTATS, '--json'] + list(args) + [path])
    assert rc == 0, err
    return json.loads(out)


# Values of the tick labels: 2.5 us, 10 ms, 1 s with a unit (in s), 500,
# 1k, 2.5M without.
PREFIX = {'p': 1e-12, 'n': 1e-9, 'u': 1e-6, 'm': 1e-3, '': 1, 'k': 1e3, 'M': 1e6,
          'G': 1e9, 'T': 1e12, 'P': 1e15, 'E': 1e18}
WITH_UNIT = re.compile(r'^(0|(\d+(\.\d+)?)(e(\d+))? ([pnum]?)s)$')
NO_UNIT = re.compile(r'^(\d+(\.\d+)?)([pnumkMGTPE]?)$')
SCALE = {'ns': 1e-9, 'us': 1e-6, 'ms': 1e-3, 's': 1}


def label_value(label, unit):
    """The value of a tick label in the unit of the data; None if the
    label is not in the one style of the axis."""
    if unit:
        m = WITH_UNIT.match(label)
        if not m:
            return None
        if m.group(1) == '0':
            return 0.0
        return (float(m.group(2)) * 10 ** int(m.group(5) or 0) * PREFIX[m.group(6)] /
                SCALE[unit])
    m = NO_UNIT.match(label)
    return float(m.group(1)) * PREFIX[m.group(3)] if m else None


class Svg:
    """What a gnuplot SVG shows: texts (text, x, y, anchor, fill), the
    border (left, top, right, bottom), the dashed lines (x, colour), the
    curves {title: [(x, y)...]} in order, and the key's sample line of
    each {title: [(x, y)...]}."""

    def __init__(self, path):
        self.ok = False
        try:
            doc = xml.dom.minidom.parse(path)
        except (OSError, xml.parsers.expat.ExpatError):
            return
        self.ok = True

        def data(node):
            return ''.join(c.data if c.nodeType == c.TEXT_NODE else data(c)
                           for c in node.childNodes)
        self.texts = []
        for g in doc.getElementsByTagName('g'):
            m = re.match(r'translate\(([-\d.]+),([-\d.]+)\)', g.getAttribute('transform'))
            if not m:
                continue
            for t in g.childNodes:
                if t.nodeType == t.ELEMENT_NODE and t.tagName == 'text':
                    text = (data(t), float(m.group(1)), float(m.group(2)),
                            g.getAttribute('text-anchor'), g.getAttribute('fill'))
                    # A boxed label is written twice, for its box, then
                    # on it.
                    if text not in self.texts:
                        self.texts.append(text)
        self.border = None
        self.dashed = []
        self.dashed_ys = []
        segments = []
        # The white boxes (an opaque key), and whether each is drawn after
        # (over) every dashed line: in document order.
        self.white = []
        for p in doc.getElementsByTagName('*'):
            if p.tagName == 'polygon' and p.getAttribute('fill').replace(' ', '') == 'white':
                pts = [tuple(map(float, xy)) for xy in
                       re.findall(r'([-\d.]+),([-\d.]+)', p.getAttribute('points'))]
                xs, ys = [x for x, _ in pts], [y for _, y in pts]
                self.white.append(((min(xs), min(ys), max(xs), max(ys)), len(self.dashed)))
            if p.tagName != 'path':
                continue
            d = p.getAttribute('d')
            segments += [tuple(map(float, sub)) for sub in
                         re.findall(r'M\s*([-\d.]+),([-\d.]+)\s*L\s*([-\d.]+),([-\d.]+)', d)]
            pts = [tuple(map(float, xy)) for xy in re.findall(r'([-\d.]+),([-\d.]+)', d)]
            if self.border is None and d.strip().endswith('Z') and len(pts) == 5:
                xs, ys = [x for x, _ in pts], [y for _, y in pts]
                self.border = (min(xs), min(ys), max(xs), max(ys))
            if p.getAttribute('stroke-dasharray'):
                for sub in re.findall(r'M\s*([-\d.]+),([-\d.]+)\s*L\s*([-\d.]+),([-\d.]+)', d):
                    x0, y0, x1, y1 = map(float, sub)
                    if abs(x0 - x1) < 0.01 and abs(y0 - y1) > 10:
                        self.dashed.append((x0, re.sub(r'\s', '', p.getAttribute('stroke'))))
                        self.dashed_ys.append((min(y0, y1), max(y0, y1)))
        # The major ticks of the y axis: 9 pixels long, from the left
        # border (a minor one is 4.5). A label's y is its baseline.
        self.ymajor = [y0 for x0, y0, x1, y1 in segments if self.border and
                       abs(x0 - self.border[0]) < 0.01 and y0 == y1 and x1 - x0 > 6]
        self.curves = {}
        self.keys = {}
        groups = {}
        for g in doc.getElementsByTagName('g'):
            if not g.getAttribute('id').startswith('gnuplot_plot_'):
                continue
            t = g.getElementsByTagName('title')
            title = t[0].firstChild.data if t and t[0].firstChild else ''
            subs = []
            colour = None
            for p in g.getElementsByTagName('path'):
                colour = colour or re.sub(r'\s', '', p.getAttribute('stroke'))
                for sub in re.split(r'M', p.getAttribute('d'))[1:]:
                    subs.append([tuple(map(float, xy))
                                 for xy in re.findall(r'([-\d.]+),([-\d.]+)', sub)])
            groups.setdefault(title, []).append((subs, colour))
        for title, gs in groups.items():
            if len(gs) == 2:
                # An opaque key is drawn after the curves, over them: the
                # curve's group, then one with the key's sample line.
                (subs, colour), (key, _) = gs
                self.curves[title] = ([pt for s in subs for pt in s], colour)
                self.keys[title] = key[0] if key else []
            else:
                # The first is the key's sample of the line.
                subs, colour = gs[-1]
                self.curves[title] = ([pt for s in subs[1:] for pt in s], colour)
                self.keys[title] = subs[0] if subs else []

    def text_list(self):
        return [t[0] for t in self.texts]

    def xticks(self):
        """The labels below the border, left to right: (label, x)."""
        _, _, _, bottom = self.border
        return sorted(((t, x) for t, x, y, a, _ in self.texts
                       if a == 'middle' and bottom < y < bottom + 30), key=lambda t: t[1])

    def yticks(self):
        """The labels left of the border, bottom to top: (label, y of
        the major tick that each labels, just above its baseline)."""
        left = self.border[0]
        ticks = []
        for t, x, y, a, _ in self.texts:
            if a == 'end' and x < left:
                near = [m for m in self.ymajor if 0 <= y - m < 8]
                ticks.append((t, min(near, key=lambda m: y - m) if near else y))
        return sorted(ticks, key=lambda t: -t[1])


def axis_map(ticks, unit, log):
    """pixel -> value and value -> pixel of an axis, from its labelled
    ticks (at least two in the style of the axis); None otherwise."""
    pts = [(label_value(t, unit), p) for t, p in ticks]
    if len(pts) < 2 or any(v is None for v, _ in pts) or (log and any(v <= 0 for v, _ in pts)):
        return None
    f = math.log10 if log else (lambda v: v)
    (v0, p0), (v1, p1) = pts[0], pts[-1]
    if f(v1) == f(v0):
        return None
    a = (p1 - p0) / (f(v1) - f(v0))
    # Every tick where the first and last put it.
    if any(abs(p0 + a * (f(v) - f(v0)) - p) > 1 for v, p in pts):
        return None

    def to_value(p):
        u = f(v0) + (p - p0) / a
        return 10 ** u if log else u

    def to_pixel(v):
        return p0 + a * (f(v) - f(v0))
    return to_value, to_pixel


def svg_plot(args, name, stdin=None, env=None):
    """kstats-plot -t svg of args into NAME.svg: status, error, Svg."""
    img = os.path.join(TMP, name + '.svg')
    if os.path.exists(img):
        os.unlink(img)
    rc, _, err = plot(['-t', 'svg', '-o', img] + args, stdin, env)
    return rc, err, Svg(img)


def lognormal(rng, n, mu, sigma):
    return [max(1, int(rng.lognormvariate(mu, sigma))) for _ in range(n)]


def fake_bin():
    """A directory for PATH with a gnuplot that logs each run to
    $TMP/gnuplot.log, then runs the real one."""
    d = os.path.join(TMP, 'fakebin')
    if not os.path.isdir(d):
        os.mkdir(d)
        real = shutil.which('gnuplot')
        with open(os.path.join(d, 'gnuplot'), 'w', encoding='ascii') as f:
            f.write('#!/bin/sh\necho run >> "%s/gnuplot.log"\nexec "%s" "$@"\n' % (TMP, real))
        os.chmod(os.path.join(d, 'gnuplot'), 0o755)
    return d


def runs_logged(log):
    try:
        with open(os.path.join(TMP, log), encoding='ascii') as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0


# 8: kstats-plot's errors are kstats's, not gnuplot's.

def test_errors(rng):
    env = dict(os.environ, PATH=fake_bin() + os.pathsep + os.environ['PATH'])
    good = write('good.txt', gen.render({0: lognormal(rng, 2000, 9, 1)}, 3))
    empty = write('empty.txt', '')
    comments = write('comments.txt', '# nothing yet\n')
    garbage = write('garbage.txt', 'hello world\n')
    text = open(good).read()
    truncated = write('truncated.txt', ''.join(text.splitlines(True)[:5]))
    img = os.path.join(TMP, 'err.png')

    def one_line(err):
        return len(err.splitlines()) == 1 and 'gnuplot' not in err and \
            'range is invalid' not in err and 'plot.gp' not in err

    for path, what in ((empty, 'an empty file'), (comments, 'a file of comments only')):
        for args in ([], ['--cdf'], ['--spectrum'], ['--per-cpu'], ['-t', 'png', '-o', img]):
            if os.path.exists(img):
                os.unlink(img)
            before = runs_logged('gnuplot.log')
            rc, out, err = plot(args + [path], env=env)
            check('kstats-plot %s of %s -> exit 1, "kstats-plot: FILE: no samples", '
                  'gnuplot not run' % (' '.join(args), what),
                  rc == 1 and err == 'kstats-plot: %s: no samples\n' % path and
                  runs_logged('gnuplot.log') == before and not os.path.exists(img),
                  (rc, out[-300:], err))
    # A group's directory: which file to plot, in one line.
    grp = os.path.join(TMP, 'grp-dir')
    os.makedirs(grp, exist_ok=True)
    for args in ([grp], ['-t', 'png', '-o', img, grp], [good, grp]):
        rc, _, err = plot(args, env=env)
        check('kstats-plot %s -> exit 1, "a directory (a group?)" in one line, nothing of '
              'cat or of a temporary file' % ' '.join(a.replace(TMP, 'TMP') for a in args),
              rc == 1 and one_line(err) and 'a directory (a group?)' in err and
              'cat:' not in err and 'kstats-plot.' not in err.split(':', 1)[1], (rc, err))
    rc, _, err = plot(['-'], stdin='', env=env)
    check('kstats-plot - of nothing -> exit 1, "kstats-plot: standard input: no samples"',
          rc == 1 and err == 'kstats-plot: standard input: no samples\n', (rc, err))

    want = "line 1: expected 'slot S CPU C count N avg A p P'"
    for args in ([garbage], ['--per-cpu', garbage], ['--spectrum', garbage],
                 [good, garbage], ['--cdf', good, garbage]):
        rc, _, err = plot(args, env=env)
        check('kstats-plot %s -> exit 1, kstats\' message naming the file, not "-"'
              % ' '.join(os.path.basename(a) for a in args),
              rc == 1 and err.startswith('kstats-plot: %s: %s' % (garbage, want)) and
              one_line(err) and 'kstats: -:' not in err, (rc, err))
    rc, _, err = plot(['-'], stdin='hello world\n', env=env)
    check('kstats-plot - of a garbage text -> "kstats-plot: standard input: line 1: ..."',
          rc == 1 and err.startswith('kstats-plot: standard input: ' + want) and one_line(err),
          (rc, err))
    rc, _, err = plot([truncated], env=env)
    check('kstats-plot of a truncated file -> exit 1, "FILE: truncated input" (kstats\')',
          rc == 1 and err.startswith('kstats-plot: %s: truncated input' % truncated) and
          one_line(err), (rc, err))

    # The output: checked before gnuplot runs, or anything is read.
    rdonly = os.path.join(TMP, 'rdonly')
    os.mkdir(rdonly)
    os.chmod(rdonly, 0o555)
    cases = [(os.path.join(TMP, 'no', 'such', 'dir', 'x.png'), 'no directory ' +
              os.path.join(TMP, 'no', 'such', 'dir')),
             (TMP, 'a directory'),
             ('/proc/kstats-plot-test.png', 'cannot create it in /proc')]
    # root writes into a directory of mode 555.
    if os.geteuid() != 0:
        cases.append((os.path.join(rdonly, 'x.png'), 'cannot create it in ' + rdonly))
    for out, why in cases:
        for term in ('png', 'svg'):
            before = runs_logged('gnuplot.log')
            rc, _, err = plot(['-t', term, '-o', out, good], env=env)
            check('kstats-plot -t %s -o %s -> exit 1, "cannot write the image: %s", '
                  'gnuplot not run' % (term, out, why),
                  rc == 1 and err == 'kstats-plot: %s: cannot write the image: %s\n' % (out, why) and
                  runs_logged('gnuplot.log') == before, (rc, err))
    os.chmod(rdonly, 0o755)
    # An image that is there stays as it was on an error.
    keep = write('keep.png', 'the old image')
    rc, _, err = plot(['-t', 'png', '-o', keep, garbage], env=env)
    check('kstats-plot -o OLD of a garbage file: OLD left as it was',
          rc == 1 and open(keep).read() == 'the old image', (rc, err))
    rc, _, err = plot(['-t', 'png', '-o', keep, good], env=env)
    with open(keep, 'rb') as f:
        check('kstats-plot -o OLD of a good file: OLD is the new image',
              rc == 0 and f.read(4) == b'\x89PNG', (rc, err))
    # CPU lines without CPUS lines (grep 'CPU '): plotted, and kstats'
    # warning said once, naming the input.
    text = gen.render({0: lognormal(rng, 500, 9, 1), 1: lognormal(rng, 500, 9, 1)}, 3)
    cpu_only = write('cpuonly', ''.join(l for l in text.splitlines(True) if ' CPU ' in l))
    rc, out, err = plot(['-s', '60x15', cpu_only])
    check('kstats-plot of CPU lines only: plotted, kstats\' warning said once with the '
          'input\'s name', rc == 0 and out and err.count('no CPUS lines') == 1 and
          'cpuonly: no CPUS lines' in err, (rc, err))


# 12: names as they are, units, one style of ticks, the data's range,
# --xrange, percentile markers, the percentile spectrum.

def test_names_as_they_are(rng):
    text = gen.render({0: lognormal(rng, 500, 9, 1), 1: lognormal(rng, 500, 9, 1)}, 3)
    names = ['a_b^c{d}', 'x@y&z~w', 'under_score', r'back\slash']
    for n in names:
        write(n, text)
    cwd = TMP
    for args, want in (([names[0]], [names[0]]),
                       ([names[0], names[1]], names[:2]),
                       (['--cdf', names[2], names[3]], names[2:]),
                       (['--spectrum', names[0]], [names[0]]),
                       (['--per-cpu', names[0], names[1]],
                        ['%s CPU %d' % (n, c) for n in names[:2] for c in (0, 1)])):
        img = os.path.join(TMP, 'names.svg')
        rc, _, err = run(['sh', PLOT, '-t', 'svg', '-o', img] + args, cwd=cwd)
        s = Svg(img)
        # Enhanced text would draw a_b^c{d} as a, a subscript b, a
        # superscript c{d}: texts "a", "b", "c{d}" or without the marks.
        check('kstats-plot %s: the legend shows each name as it is (noenhanced)'
              % ' '.join(args), rc == 0 and s.ok and
              [t for t in s.text_list() if t in want] == want, (rc, err, s.ok and s.text_list()))
    series = write('a_b^c.series', 'interval 1 seconds 1.000 rate 10.0/s\n' +
                   run([KSTATS, '--csv', os.path.join(TMP, names[0])])[1])
    img = os.path.join(TMP, 'heat.svg')
    rc, _, err = run(['sh', PLOT, '--heatmap', '-t', 'svg', '-o', img, series])
    s = Svg(img)
    check('kstats-plot --heatmap of a_b^c.series: its title as it is',
          rc == 0 and s.ok and 'a_b^c.series' in s.text_list(), (rc, err))


def test_names_escaped(rng):
    """A name's control characters reach no terminal: \\xNN in the key,
    the title and the messages, as kstats prints them."""
    text = gen.render({0: lognormal(rng, 500, 9, 1)}, 3)
    name = write('e\x1b[2Jx', text)
    rc, out, err = plot(['-s', '100x30', name])
    check('kstats-plot NAME of an escape on the terminal: its key \\x1b, no escape',
          rc == 0 and 'e\\x1b[2Jx' in out and '\x1b' not in out + err, (rc, out, err))
    series = write('h\x1b[2J.series', 'interval 1 seconds 1.000 rate 10.0/s\n' +
                   run([KSTATS, '--csv', name])[1])
    img = os.path.join(TMP, 'heat-esc.svg')
    rc, _, err = run(['sh', PLOT, '--heatmap', '-t', 'svg', '-o', img, series])
    s = Svg(img)
    check('kstats-plot --heatmap of a name with an escape: its title \\x1b',
          rc == 0 and s.ok and 'h\\x1b[2J.series' in s.text_list(), (rc, err))
    bad = write('b\x1bad\nname', 'hello world\n')
    for args, path, why in ((['-'], 'standard input', None),
                            ([bad], bad, None),
                            ([bad + '.absent'], bad + '.absent', 'no such file or metric'),
                            (['-o', bad + '/x.png', '-t', 'png', name], bad + '/x.png',
                             'cannot write the image')):
        rc, out, err = plot(args, stdin='\x1b[2J\n' if args == ['-'] else None)
        shown = path.replace('\x1b', '\\x1b').replace('\n', '\\x0a')
        check('kstats-plot: an error on %s names it with \\xNN, no control character'
              % shown, rc == 1 and err.startswith('kstats-plot: %s: ' % shown) and
              (why is None or why in err) and err.count('\n') == 1 and '\x1b' not in err,
              (rc, err))
    rc, _, err = plot(['--cpus', '1\x1b[2J', name])
    check('kstats-plot: a usage error quotes its argument with \\xNN',
          rc == 1 and "'1\\x1b[2J'" in err and '\x1b' not in err, err)


def test_names_unique(rng):
    """Two inputs of one base name: each curve titled with the shortest
    end of its path that tells them apart (the same path twice: A and B)."""
    text = gen.render({0: lognormal(rng, 500, 9, 1), 1: lognormal(rng, 500, 9, 1)}, 3)
    for path in ('a/x.txt', 'b/x.txt', 'd1/run/x.txt', 'd2/run/x.txt', 'x.txt'):
        os.makedirs(os.path.join(TMP, 'same', os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(TMP, 'same', path), 'w', encoding='ascii') as f:
            f.write(text)
    d = os.path.join(TMP, 'same')
    for args, want in ((['a/x.txt', 'b/x.txt'], ['a/x.txt', 'b/x.txt']),
                       ([d + '/a/x.txt', 'b/x.txt'], ['a/x.txt', 'b/x.txt']),
                       (['d1/run/x.txt', 'd2/run/x.txt'], ['d1/run/x.txt', 'd2/run/x.txt']),
                       (['x.txt', 'a/x.txt'], ['x.txt', 'a/x.txt']),
                       (['a/x.txt', './a/x.txt'], ['a/x.txt', './a/x.txt']),
                       (['a/x.txt', 'a/x.txt'], ['x.txt (A)', 'x.txt (B)']),
                       (['--cdf', 'a/x.txt', 'b/x.txt'], ['a/x.txt', 'b/x.txt']),
                       (['--per-cpu', 'a/x.txt', 'b/x.txt'],
                        ['%s CPU %d' % (n, c) for n in ('a/x.txt', 'b/x.txt') for c in (0, 1)])):
        img = os.path.join(TMP, 'same.svg')
        if os.path.exists(img):
            os.unlink(img)
        rc, _, err = run(['sh', PLOT, '-t', 'svg', '-o', img] + args, cwd=d)
        s = Svg(img)
        check('kstats-plot %s: the legend tells the curves apart (%s)'
              % (' '.join(a.replace(d, 'DIR') for a in args), ', '.join(want)),
              rc == 0 and s.ok and list(s.curves) == want, (rc, err, s.ok and list(s.curves)))


def test_units_and_ticks(rng):
    # Samples from 2 to 40 us, ms and s, in ns, us, ms and s.
    for unit, div, want in (('ns', 1, '10 us'), ('us', 1, '10 ms'), ('ms', 1, '10 s'),
                            ('s', 1000, '10 s')):
        values = [int(2000 * 20 ** (i / 2000)) // div for i in range(2001)]
        path = write('units-' + unit, gen.render({0: values}, 3))
        for view in ([], ['--cdf'], ['--linear']):
            rc, err, s = svg_plot(view + ['--input-unit', unit, path], 'units')
            ticks = s.xticks() if s.ok else []
            styled = [t for t, _ in ticks if label_value(t, unit) is not None]
            check('kstats-plot -u %s %s of 2 to 40 %s: every value tick says its unit '
                  '(as "%s"), the axis is "latency"'
                  % (unit, ' '.join(view), want[3:], want),
                  rc == 0 and len(ticks) >= 3 and len(styled) == len(ticks) and
                  'latency' in s.text_list() and want in [t for t, _ in ticks],
                  (rc, err, ticks))
    # -u: the axis in one unit, of nanoseconds (--input-unit otherwise):
    # every tick in it, where the ticks of each value are in the plot
    # with a tick per unit (-u auto); -u none: plain numbers.
    values = [int(2000 * 20 ** (i / 2000)) for i in range(2001)]
    path = write('disp', gen.render({0: values}, 3))
    refs = {}
    for view in ([], ['--cdf']):
        rc, err, s = svg_plot(view + ['-u', 'auto', path], 'disp')
        refs[tuple(view)] = axis_map(s.xticks(), 'ns', True) if s.ok else None
    for args, unit in ((['-u', 'us'], 'us'), (['-u', 'ns'], 'ns'), (['-u', 'ms'], 'ms'),
                       (['-u', 'ms', '--input-unit', 'us'], 'ms')):
        for view in ([], ['--cdf']):
            ref = refs[tuple(view)]
            rc, err, s = svg_plot(view + args + [path], 'disp')
            ticks = s.xticks() if s.ok else []
            scale = 1000 if '--input-unit' in args else 1
            m = axis_map([(t, p) for t, p in ticks], 'ns', True) if ticks else None
            same = ref and m and all(abs(m[1](v * scale) - ref[1](v)) < 2
                                     for v in (3000, 10000, 30000))
            check('kstats-plot %s: every value tick in %s, where -u auto puts its value'
                  % (' '.join(view + args), unit),
                  rc == 0 and len(ticks) >= 3 and
                  all(t.endswith(' ' + unit) for t, _ in ticks) and
                  (same if scale == 1 else m is not None), (rc, err, ticks))
    # A narrow terminal: the finest nice step whose labels have room
    # (0, 50k, 100k at 40 columns; a step of 100k left 0 and 100k only).
    lin = write('lin', gen.render({0: [int(rng.lognormvariate(8, 1)) for _ in range(3000)] +
                                   [98000]}, 1))
    for cols, least in ((40, 3), (50, 3), (80, 6)):
        rc, out, err = plot(['-t', 'dumb', '-s', '%dx15' % cols, '--linear', lin])
        rows = out.splitlines()
        at = max((i for i, r in enumerate(rows) if re.match(r'^ +0 \+-+\+ *$', r)), default=None)
        labels = rows[at + 1].split() if at is not None and at + 1 < len(rows) else []
        vals = [label_value(t, None) for t in labels]
        steps = {round(b - a) for a, b in zip(vals, vals[1:])} if None not in vals else set()
        check('kstats-plot -t dumb -s %dx15 --linear of 0 to 100k: %d labels or more, evenly '
              'spaced (%s)' % (cols, least, ' '.join(labels)),
              rc == 0 and len(labels) >= least and vals[0] == 0 and len(steps) == 1, out)
    rc, err, s = svg_plot(['-u', 'none', path], 'disp')
    ticks = [t for t, _ in s.xticks()] if s.ok else []
    check('kstats-plot -u none: the ticks plain numbers (2k, 5k, 10k...), the axis "value"',
          rc == 0 and ticks and all(label_value(t, None) is not None for t in ticks) and
          'value' in s.text_list(), (rc, err, ticks))
    rc, _, err = plot(['-u', 'parsecs', path])
    check('kstats-plot -u parsecs -> exit 1, the choices said',
          rc == 1 and "'parsecs' is not ns, us, ms, s, auto or none" in err, err)
    # 1000 s to 1e9 s: the seconds' digits would grow to "1000000000 s"
    # and the labels run into each other: 1e5 s and above.
    huge = write('huge', gen.render({0: [int(1e12 * 1e6 ** (i / 2000)) for i in range(2001)]}, 3))
    for view in ([], ['--cdf']):
        rc, err, s = svg_plot(view + ['--input-unit', 'ns', huge], 'huge')
        ticks = [t for t, _ in s.xticks()] if s.ok else []
        check('kstats-plot %s of 1000 s to 1e9 s: ticks 1000 s, 10000 s, 1e5 s ... 1e9 s, '
              'none over 7 characters' % ' '.join(['--input-unit', 'ns'] + view),
              rc == 0 and ticks == ['1000 s', '10000 s'] + ['1e%d s' % k for k in range(5, 10)]
              and axis_map(s.xticks(), 'ns', True) is not None, (rc, err, ticks))
    # Without a unit: engineering notation throughout, 100 to 1M (gnuplot
    # alone writes 1000 beside 1x10^6).
    wide = write('wide', gen.render({0: [int(100 * 50000 ** (i / 3000)) for i in range(3001)]}, 3))
    for view in ([], ['--cdf']):
        rc, err, s = svg_plot(view + [wide], 'wide')
        ticks = [t for t, _ in s.xticks()] if s.ok else []
        check('kstats-plot %s of 100 to 5M without -u: ticks 100, 1k, 10k, 100k, 1M '
              '(one style)' % ' '.join(view),
              rc == 0 and ticks == ['100', '1k', '10k', '100k', '1M'] and
              all(label_value(t, None) is not None for t in ticks), (rc, err, ticks))
    # Within a decade, 3 us to 9 us: gnuplot alone puts no tick there.
    narrow = write('narrow', gen.render({0: [3000 + 3 * i for i in range(2000)]}, 3))
    for view in ([], ['--cdf'], ['--spectrum']):
        rc, err, s = svg_plot(view + ['--input-unit', 'ns', narrow], 'narrow')
        ticks = (s.yticks() if view == ['--spectrum'] else s.xticks()) if s.ok else []
        values = [label_value(t, 'ns') for t, _ in ticks]
        check('kstats-plot -u ns %s of 3 us to 9 us: 3 or more value ticks, in us'
              % ' '.join(view), rc == 0 and len(ticks) >= 3 and None not in values and
              all(t.endswith(' us') for t, _ in ticks), (rc, err, ticks))
    # The linear density, per 10^k units of value, k such that its top
    # reads 0.1 to 1: ticks 0, 0.1, 0.2..., never 5e-05 beside 0.0001.
    ln = write('lin', gen.render({0: lognormal(rng, 20000, 9, 1)}, 3))
    _, c, _ = run([KSTATS, '--csv', ln])
    rows = [r.split(',') for r in c.splitlines()[1:]]
    n = sum(int(r[3]) for r in rows)
    dmax = max(int(r[3]) / n / (int(r[2]) - int(r[1]) + 1) for r in rows)
    for unit, per in (('ns', r'(\d+) (ns|us|ms|s)'), (None, r'(\d+) units of value')):
        rc, err, s = svg_plot(['--linear'] + (['--input-unit', unit] if unit else []) + [ln], 'lin')
        label = [t for t in s.text_list() if t.startswith('fraction of samples per ')] \
            if s.ok else []
        m = label and re.fullmatch('fraction of samples per ' + per, label[0])
        scale = m and int(m.group(1)) * (PREFIX[m.group(2)[:-1]] * 1e9 if unit else 1)
        ticks = s.yticks() if s.ok else []
        ym = axis_map(ticks, None, False)
        top = ym and ym[0](min(y for _, y in s.curves['lin'][0]))
        check('kstats-plot --linear%s: density per %s, its top %.3g (%.3g expected) in '
              '0.1 to 1, y ticks as 0.1' % (' -u ' + unit if unit else '',
                                            m and m.group(0)[24:], top or 0,
                                            dmax * (scale or 0)),
              rc == 0 and m and ym and 0.1 <= top < 1 and
              abs(top - dmax * scale) <= 0.02 * top and
              all(re.fullmatch(r'\d+(\.\d+)?', t) for t, _ in ticks),
              (rc, err, label, ticks))
    # The heatmap: value ticks with the unit, colour ticks in one style.
    series = ''
    for i in range(4):
        rc, c, _ = run([KSTATS, '--csv', '-'],
                       stdin=gen.render({0: lognormal(rng, 3000, 9 + i * 0.3, 1)}, 3))
        series += 'interval %d seconds 1.000 rate 3000.0/s\n' % (i + 1) + c
    hm = write('units.series', series)
    img = os.path.join(TMP, 'units-heat.svg')
    rc, _, err = plot(['--heatmap', '--input-unit', 'ns', '-t', 'svg', '-o', img, hm])
    s = Svg(img)
    if s.ok:
        left, right = s.border[0], s.border[2]
        yt = [t for t, x, y, a, _ in s.texts if a == 'end' and x < left]
        cb = [t for t, x, y, a, _ in s.texts if a == 'start' and x > right]
    check('kstats-plot --heatmap -u ns: value ticks in us or ms, colour ticks as 10, 100, 1k',
          rc == 0 and s.ok and len(yt) >= 2 and
          all(label_value(t, 'ns') is not None for t in yt) and
          len(cb) >= 2 and all(label_value(t, None) is not None for t in cb),
          (rc, err, s.ok and (yt, cb)))
    # The palette's lightest colour, that of the sparsest boxes, stands out
    # from the white of "no samples" (it was #fff5eb, near white).
    fills = [tuple(map(int, c)) for c in
             re.findall(r'rgb\((\d+),\s*(\d+),\s*(\d+)\)', open(img).read())] \
        if s.ok else []
    boxes = [c for c in fills if c != (255, 255, 255) and max(c) - min(c) > 40]
    check('kstats-plot --heatmap: every box drawn in a colour that stands out from white '
          '(its darkest channel below 0xd0)',
          rc == 0 and len(boxes) >= 20 and all(min(c) < 0xd0 for c in boxes),
          sorted(set(boxes), key=min)[-3:])


def test_range(rng):
    """The value axis from the first to the last non-empty slot, with a
    small margin; --xrange MIN:MAX."""
    values = lognormal(rng, 5000, 9, 0.6)
    values = [v for v in values if 2000 <= v <= 40000]
    path = write('range', gen.render({0: values}, 3))
    st = json_of(path)
    first, last = st['min_bounds'][0], st['max_bounds'][1] + 1
    for view, log in (([], True), (['--cdf'], True), (['--linear'], False),
                      (['--linear', '--cdf'], False)):
        rc, err, s = svg_plot(view + ['--input-unit', 'ns', path], 'range')
        m = axis_map(s.xticks(), 'ns', log) if s.ok else None
        if m:
            lo, hi = m[0](s.border[0]), m[0](s.border[2])
        if log:
            ok = m and first / 1.5 < lo <= first and last <= hi < last * 1.5
        else:
            span = last - first
            ok = m and first - span * 0.1 <= lo <= first and last <= hi <= last + span * 0.1
        check('kstats-plot %s -u ns of %d to %d ns: the axis from about %d to %d ns'
              % (' '.join(view), min(values), max(values), first, last),
              rc == 0 and ok, (rc, err, m and (lo, hi)))
    for view, log in (([], True), (['--linear'], False), (['--spectrum'], True)):
        for xr, want in (('3000:30000', (3000, 30000)), ('5000:', (5000, None)),
                         (':8000', (None, 8000))):
            rc, err, s = svg_plot(view + ['--input-unit', 'ns', '--xrange', xr, path], 'xrange')
            if view == ['--spectrum']:
                m = axis_map(s.yticks(), 'ns', log) if s.ok else None
                ends = m and (m[0](s.border[3]), m[0](s.border[1]))
            else:
                m = axis_map(s.xticks(), 'ns', log) if s.ok else None
                ends = m and (m[0](s.border[0]), m[0](s.border[2]))
            ok = m and all(w is None or abs(e - w) <= w * 0.01 for e, w in zip(ends, want))
            check('kstats-plot %s --xrange %s: the value axis from %s to %s'
                  % (' '.join(view), xr, want[0] or 'the data', want[1] or 'the data'),
                  rc == 0 and ok, (rc, err, ends))
    for xr, why in (('abc', "is not MIN:MAX"), ('1:2:3', 'is not MIN:MAX'),
                    ('x:1', 'is not MIN:MAX (numbers)'), (':', 'is not MIN:MAX (numbers)'),
                    ('5:1', 'MIN is not below MAX'), ('0:10', 'MIN is 0 on a logarithmic axis'),
                    ('1;system("touch X"):2', 'is not MIN:MAX')):
        rc, out, err = plot(['--xrange', xr, path], cwd=TMP)
        check('kstats-plot --xrange %s -> exit 1, "%s", then Try' % (xr, why),
              rc == 1 and why in err.splitlines()[0] and
              err.splitlines()[-1] == "Try 'kstats-plot --help'." and
              not os.path.exists(os.path.join(TMP, 'X')), err)
    rc, err, s = svg_plot(['--linear', '--xrange', '0:50000', '--input-unit', 'ns', path], 'xrange0')
    check('kstats-plot --linear --xrange 0:50000 -u ns: from 0 to 50 us',
          rc == 0 and s.ok and [t for t, _ in s.xticks()][0] == '0' and
          [t for t, _ in s.xticks()][-1] == '50 us', (rc, err, s.ok and s.xticks()))


def test_markers(rng):
    """Percentile markers on the density and the CDF: a dashed vertical
    line at kstats' value of each percentile, labelled pQ."""
    a = write('mark-a', gen.render({0: lognormal(rng, 20000, 9, 1)}, 3))
    b = write('mark-b', gen.render({0: lognormal(rng, 20000, 10, 0.5)}, 3))
    for view in ([], ['--cdf'], ['--linear'], ['--linear', '--cdf']):
        log = '--linear' not in view
        for pcts, args in (('50,99', []), ('90,99.9', ['-p', '90,99.9'])):
            st = json_of(a, '-p', pcts)
            rc, err, s = svg_plot(view + args + ['--input-unit', 'ns', a], 'markers')
            m = axis_map(s.xticks(), 'ns', log) if s.ok else None
            bad = []
            for q in pcts.split(','):
                want = m[1](st['percentiles'][q]['value']) if m else 0
                lines = [x for x, _ in s.dashed if abs(x - want) < 1.5] if s.ok else []
                labels = [x for t, x, *_ in s.texts if t == 'p' + q] if s.ok else []
                # Right of the line; left of it (its text's end) near
                # the right border.
                if not lines or len(labels) != 1 or not want - 15 <= labels[0] <= want + 15:
                    bad.append((q, want, s.ok and s.dashed, labels))
            check('kstats-plot %s %s: dashed lines at kstats\' p%s, labelled'
                  % (' '.join(view), ' '.join(args), pcts.replace(',', ' and p')),
                  rc == 0 and m and not bad and len(s.dashed) == len(pcts.split(',')),
                  (rc, err, bad))
    # A percentile labelled as asked (not the p100 of %g's 6 digits),
    # without digits that add nothing (050, 99.90).
    rc, out, err = plot(['-s', '100x20', '-p', '050,99.9999999', a])
    rc2, out2, err2 = plot(['-s', '100x20', '-p', '99.90', a])
    check('kstats-plot -p 050,99.9999999 and -p 99.90: labelled p50, p99.9999999 and '
          'p99.9', rc == rc2 == 0 and 'p99.9999999' in out and ' p50' in out and
          'p100' not in out and 'p99.9 ' in out2 and 'p99.90' not in out2, (err, out, out2))
    rc, err, s = svg_plot(['-p', '', a], 'nomarkers')
    check("kstats-plot -p '': no markers", rc == 0 and s.ok and not s.dashed and
          not [t for t in s.text_list() if re.match(r'^p\d', t)], (rc, err))
    rc, err, s = svg_plot(['--spectrum', a], 'nomarkers')
    check('kstats-plot --spectrum: no markers (its axis is the percentiles)',
          rc == 0 and s.ok and not s.dashed, (rc, err))
    # Two inputs: the markers of each, in its curve's colour.
    rc, err, s = svg_plot(['--cdf', a, b], 'markers2')
    if s.ok:
        colours = [s.curves[n][1] for n in ('mark-a', 'mark-b')]
        by_colour = [sorted(x for x, c in s.dashed if c == col) for col in colours]
    check('kstats-plot --cdf A B: p50 and p99 of each, in the colour of its curve',
          rc == 0 and s.ok and colours[0] != colours[1] and
          [len(x) for x in by_colour] == [2, 2] and
          sorted(t for t in s.text_list() if t in ('p50', 'p99')) == ['p50'] * 2 + ['p99'] * 2,
          (rc, err, s.ok and (colours, s.dashed)))
    # The labels of the density above its curves; those of the CDF below
    # the curve of their input (that of the other may pass there).
    for view in ([], ['--cdf']):
        rc, err, s = svg_plot(view + [a, b], 'labels')
        labels = [(x, y, re.sub(r'\s', '', fill)) for t, x, y, _, fill in s.texts
                  if t in ('p50', 'p99')] if s.ok else []
        curves = [(pt, c[1]) for c in s.curves.values() for pt in c[0]] if s.ok else []
        if view:
            clash = [(lx, ly) for lx, ly, fill in labels for (x, y), colour in curves
                     if colour == fill and lx <= x <= lx + 25 and ly - 14 <= y <= ly + 2]
        else:
            clash = [(lx, ly) for lx, ly, _ in labels for (x, y), _ in curves if y <= ly + 2]
        check('kstats-plot %s A B: the markers\' labels clear of the curves'
              % ' '.join(view), rc == 0 and len(labels) == 4 and curves and not clash,
              (rc, err, clash[:3]))
    # The CDF's markers rise to the curve's height at their percentile
    # (q), not through the key above; the density's key is drawn on
    # white over the markers' lines (its curves stay below the key).
    rc, err, s = svg_plot(['--cdf', '-p', '50,90', a], 'cdfmarks')
    ym = axis_map(s.yticks(), None, False) if s.ok else None
    tops = sorted(round(ym[0](top), 3) for top, _ in s.dashed_ys) if ym else []
    check('kstats-plot --cdf -p 50,90: the markers rise to 0.5 and 0.9, the curve there',
          rc == 0 and len(tops) == 2 and abs(tops[0] - 0.5) < 0.01 and
          abs(tops[1] - 0.9) < 0.01, (rc, err, tops))
    for view, opaque in (([], True), (['--cdf'], False), (['--linear', '-p', ''], False)):
        rc, err, s = svg_plot(view + [a, b], 'opaque')
        samples = [pt for k in s.keys.values() for pt in k] if s.ok else []
        over = [box for box, after in s.white if after == len(s.dashed) and samples and
                all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in samples)] \
            if s.ok else []
        said = "on white, over the markers' lines" if opaque else \
            'not opaque (no curve hidden under it)'
        check('kstats-plot %s A B: the key %s' % (' '.join(view), said),
              rc == 0 and s.ok and samples and bool(over) == opaque, (rc, err, s.ok and s.white))
    # The labels clear of the key: its entries' texts (right-aligned, a
    # character at most 8 pixels wide, 12 high) and sample lines.
    for view in ([], ['--cdf'], ['--linear'], ['--linear', '--cdf']):
        rc, err, s = svg_plot(view + ['--input-unit', 'ns', a, b], 'key')
        boxes = []
        for t, x, y, anchor, _ in s.texts if s.ok else []:
            if t in s.keys and anchor == 'end':
                right = max([x] + [px for px, _ in s.keys[t]])
                boxes.append((t, x - 8 * len(t), y - 14, right, y + 4))
        clash = [(t, q) for q, x, y, *_ in (s.texts if s.ok else []) if re.match(r'^p\d', q)
                 for t, x0, y0, x1, y1 in boxes
                 if x - 2 < x1 and x + 8 * len(q) + 8 > x0 and y - 14 < y1 and y + 4 > y0]
        check('kstats-plot %s A B: the markers\' labels clear of the key'
              % ' '.join(view), rc == 0 and len(boxes) == 2 and not clash,
              (rc, err, boxes, clash))
    # The labels clear of each other: two close inputs, four percentiles
    # each, whose lines come in pairs a few pixels apart (a label's box: a
    # character at most 8 pixels wide, 12 high).
    c = write('mark-c', gen.render({0: lognormal(rng, 20000, 9.1, 1.05)}, 3))
    for view in ([], ['--cdf']):
        rc, err, s = svg_plot(view + ['--input-unit', 'ns', '-p', '50,90,99,99.9', a, c], 'apart')
        boxes = [(q, x, y - 12, x + 8 * len(q), y + 2) for q, x, y, *_ in
                 (s.texts if s.ok else []) if re.match(r'^p\d', q)]
        clash = [(p[0], q[0]) for i, p in enumerate(boxes) for q in boxes[i + 1:]
                 if p[1] < q[3] and q[1] < p[3] and p[2] < q[4] and q[2] < p[4]]
        check('kstats-plot %s A B, 4 percentiles each: the markers\' labels clear of '
              'each other' % ' '.join(view), rc == 0 and len(boxes) == 8 and not clash,
              (rc, err, clash, boxes))
    # A percentile at the right end of the axis: its label left of its
    # line, inside the border (a character at most 8 pixels wide).
    e = write('mark-e', gen.render({0: lognormal(rng, 5000, 7, 0.5) + [2 ** 63] * 60}, 3))
    rc, err, s = svg_plot(['--input-unit', 'ns', '-p', '50,99', e], 'edge')
    out = [(q, x, anchor) for q, x, y, anchor, _ in (s.texts if s.ok else [])
           if re.match(r'^p\d', q) and s.border and
           (x + 8 * len(q) > s.border[2] if anchor != 'end' else x > s.border[2])]
    check('kstats-plot: a marker\'s label at the right end of the axis stays inside the '
          'border, left of its line', rc == 0 and s.ok and s.border and not out,
          (rc, err, out, s.ok and s.border))
    for p in ('0', '101', 'x', '50,,99', '50,'):
        rc, _, err = plot(['-p', p, a])
        check('kstats-plot -p %s -> exit 1, not a list of percentiles' % p,
              rc == 1 and 'is not a list of percentiles' in err, err)


def test_terminal_key(rng):
    """#43.10: on the terminal (dumb), the markers' labels keep off the key:
    a metric captured in the VM whose p50 label landed on the key's line
    ("samplep50alloc"), and generated ones of one and two curves."""
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'kmalloc-vm')
    a = write('key-a', gen.render({0: lognormal(rng, 5000, 6, 0.3)}, 3))
    b = write('key-b', gen.render({0: lognormal(rng, 5000, 7, 0.3)}, 3))
    bad = []
    for args, names in (([corpus], ['kmalloc-vm']), ([a], ['key-a']), ([a, b], ['key-a', 'key-b']),
                        (['-s', '100,30', corpus], ['kmalloc-vm'])):
        rc, out, err = plot(args)
        # In the graph (|NAME ***), or below it, of two curves.
        keys = [n for n in names if re.search(r'(\|| )%s [^ ]{3,}' % re.escape(n), out)]
        if rc or keys != names:
            bad.append((args, rc, err, [l for l in out.splitlines()[:6]]))
    check('kstats-plot on the terminal: each name whole in the key, no marker label on it',
          not bad, bad)
    # The key in the graph, of 6 CPUs whose CDFs cross it (80% of the
    # samples in the first slot), CPU numbers of 1 and 4 digits: each
    # entry whole, drawn after the curves.
    bad = []
    for first in (0, 1000):
        path = write('early%d' % first, gen.render(
            {first + c: [100] * 4000 + lognormal(rng, 1000, 9 + 0.3 * c, 1.5)
             for c in range(6)}, 3))
        rc, out, err = plot(['-s', '40x21', '--per-cpu', '--cdf', '--input-unit', 'ns', path])
        names = ['early%d CPU %d' % (first, first + c) for c in range(6)]
        inside = [n for n in names if re.search(r'\|%s(?! *\|)' % re.escape(n), out)]
        if rc or inside != names:
            bad.append((first, rc, err, out))
    check('kstats-plot -s 40x21 --per-cpu --cdf, the key in the graph, curves crossing it: '
          'each CPU\'s entry whole', not bad, bad)


def test_terminal_labels(rng):
    """#43.10: on a small terminal, the rows of the markers' labels are a
    line apart (gnuplot rounds each to a line: 5% of 15 lines put two rows
    on one) and below the border; each label whole, none on the key."""
    a = write('lab-a', gen.render({0: lognormal(rng, 20000, 9, 1)}, 3))
    b = write('lab-b', gen.render({0: lognormal(rng, 20000, 9.3, 1.2)}, 3))
    bad = []
    for view in ([], ['--cdf']):
        for size in ('60x20', '80x24', '120x35'):
            rc, out, err = plot(view + ['-s', size, '-p', '0.1,1,5,50', '--input-unit', 'ns',
                                        a, b])
            lines = out.splitlines()
            for q in ('0.1', '1', '5', '50'):
                n = len(re.findall(r'(?<![\w.])p%s(?![\w.])' % re.escape(q), out))
                if n != 2:
                    bad.append('%s %s: p%s %d times, not 2' % (' '.join(view), size, q, n))
            if view == [] and not all(re.search(r' %s [*#]{3,}' % n, out)
                                      for n in ('lab-a', 'lab-b')):
                bad.append('%s: the key not whole: %s' % (size, lines[:6]))
            border = next((i for i, l in enumerate(lines) if re.match(r' *\+-{10,}', l)), 0)
            if re.search(r'p[0-9]', lines[border] if border else ''):
                bad.append('%s %s: a label on the border: %s' % (' '.join(view), size,
                                                                  lines[border]))
            if rc:
                bad.append((size, rc, err))
    check('kstats-plot on terminals of 60x20 to 120x35, density and CDF: the 8 labels of '
          'two inputs whole, off the border and the key', not bad, (bad, out))
    # 40 columns, --linear: markers near the left border, a character
    # apart: each label whole, once, the border kept.
    wide = write('lab-w', gen.render({c: lognormal(rng, 5000, 9 + 0.3 * c, 1.5)
                                      for c in range(6)}, 3))
    bad = []
    for path in (a, wide):
        for size in ('40x18', '40x24', '50x20'):
            rc, out, err = plot(['-s', size, '--linear', '-p', '50,90,99', '--input-unit', 'ns',
                                 path])
            lines = out.splitlines()
            top = next((i for i, ln in enumerate(lines) if re.match(r' *[0-9.]* *\+-{10,}', ln)),
                       0)
            graph = [ln for ln in lines[top + 1:] if re.match(r' *[0-9.]* *[|+]', ln)]
            counts = {q: len(re.findall(r'(?<![\w.])p%s(?![\w.])' % q, out))
                      for q in ('50', '90', '99')}
            border = [ln for ln in graph if not re.match(r' *[0-9.]* *[|+]', ln) or
                      re.match(r' *[0-9.]* +p', ln)]
            if rc or set(counts.values()) != {1} or border or not graph:
                bad.append((os.path.basename(path), size, rc, err, counts, border, out))
    check('kstats-plot --linear at 40 and 50 columns: p50, p90 and p99 each whole, once, '
          'off the left border', not bad, bad)


def test_terminal_frame(rng):
    """#43: on the terminal, the value axis' labels apart at 40 columns;
    the y axis' label, which dumb does not draw, as a line above the
    graph; a key of several curves (CPUs, two inputs) below the graph,
    where no curve crosses it; in an image, a key of more than two curves
    right of the graph, its labels clear of the markers'."""
    wide = write('wide', gen.render({c: lognormal(rng, 5000, 9 + 0.3 * c, 1.5) for c in range(6)}, 3))
    bad = []
    for size in ('40x15', '50x15', '60x20'):
        rc, out, err = plot(['-s', size, '--input-unit', 'ns', wide])
        lines = out.splitlines()
        bottom = [i for i, l in enumerate(lines) if re.match(r' *[0-9.]* *\+-{10,}\+ *$', l)]
        ticks = lines[bottom[-1] + 1].split('  ') if bottom else []
        ticks = [t.strip() for t in ticks if t.strip()]
        if rc or len(ticks) < 2 or not all(WITH_UNIT.match(t) for t in ticks):
            bad.append((size, rc, err, ticks, lines[bottom[-1] + 1] if bottom else out))
    check('kstats-plot -s 40x15 to 60x20: the value axis\' labels apart, each whole (2 or '
          'more)', not bad, bad)
    views = ((['--input-unit', 'ns'], 'fraction of samples per octave'),
             (['--linear', '--input-unit', 'ns'], 'fraction of samples per '),
             (['--cdf'], 'cumulative fraction'),
             (['--spectrum', '--input-unit', 'ns'], 'latency'))
    bad = []
    for args, ylabel in views:
        rc, out, err = plot(['-s', '60x20'] + args + [wide])
        lines = out.splitlines()
        top = next((i for i, l in enumerate(lines) if re.match(r' *[0-9.a-z ]*\+-{10,}', l)), 0)
        above = lines[top - 1].strip() if top else ''
        if rc or not above.startswith(ylabel) or \
                (args[0] == '--linear' and not re.match(ylabel + r'\d+ [num]?s$', above)):
            bad.append((args, rc, err, above))
    check('kstats-plot on the terminal: the y axis\' label on the line above the graph, '
          'alone (the density, per octave or per 10^k of a unit, the CDF, the spectrum)',
          not bad, bad)
    bad = []
    for args in (['--per-cpu'], ['--cpus', '0-5'], [wide]):
        rc, out, err = plot(['-s', '100x30', '--input-unit', 'ns'] + args + [wide])
        lines = out.splitlines()
        names = ['wide CPU %d' % c for c in range(6)] if args != [wide] else \
            ['wide (A)', 'wide (B)']
        inside = [l for l in lines if any('|' + n in l for n in names)]
        bottom = max((i for i, l in enumerate(lines) if re.match(r' *[0-9.]* *\+-{10,}', l)),
                     default=len(lines))
        below = '\n'.join(lines[bottom + 1:])
        if rc or inside or not all(re.search(re.escape(n) + r' [^ ]{5}', below) for n in names):
            bad.append((args, rc, err, inside, below))
    check('kstats-plot -s 100x30 --per-cpu, --cpus 0-5, two inputs: the key below the '
          'graph, each name and its line whole, none in the graph', not bad, bad)
    # Where the key below would leave the graph fewer than 8 lines, it
    # stays in the graph: its y ticks rise, the graph keeps its lines.
    rc, out, err = plot(['-s', '40x15', '--per-cpu', '--cdf', wide])
    rc4, out4, _ = plot(['-s', '40x40', '--spectrum', '--input-unit', 'ns', wide])
    yl = re.findall(r'^ *([0-9.]+ [num]?s) [+|]', out4, re.M)
    check('kstats-plot -s 40x40 --spectrum: the value axis (y) labelled as a tall '
          'terminal allows, not as its width (%s)' % yl, rc4 == 0 and len(yl) >= 5, out4)
    rc3, out3, err3 = plot(['-s', '080x024', wide])
    lines3 = out3.rstrip('\n').split('\n')
    check('kstats-plot -s 080x024: 80x24 (not octal), no form feed before it',
          rc3 == 0 and len(lines3) == 24 and max(len(l) for l in lines3) == 80 and
          '\f' not in out3, (rc3, err3, out3[:3]))
    # -o FILE of dumb: the text the pipe gets, into FILE; on a terminal
    # (a pty), the same in ANSI colours: neither with a form feed.
    txt = os.path.join(TMP, 'plot.txt')
    rc5, out5, err5 = plot(['-s', '80x24', '-o', txt, wide])
    with open(txt, encoding='utf-8', errors='replace') as f:
        saved = f.read() if rc5 == 0 else ''
    check('kstats-plot -t dumb -o FILE: FILE holds the text of the pipe, no form feed, '
          'nothing on standard output', rc5 == 0 and not out5 and saved == out3 and
          '\f' not in saved, (rc5, err5))
    master, slave = os.openpty()
    p = subprocess.Popen(['sh', PLOT, '-s', '80x24', wide], stdin=slave, stdout=slave,
                         stderr=subprocess.DEVNULL, env=dict(os.environ, TERM='xterm-256color'))
    os.close(slave)
    tty = b''
    deadline = time.time() + HANG
    while time.time() < deadline:
        if not select.select([master], [], [], 1)[0]:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    try:
        rc6 = p.wait(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        rc6 = -9
    plain = re.sub(r'\x1b\[[0-9;]*m', '', tty.decode('utf-8', 'replace').replace('\r\n', '\n'))

    def cells(text):
        # Where a character is drawn (a colour's curve is of lines, +-|).
        return [[i for i, c in enumerate(ln) if c != ' '] for ln in text.split('\n')]
    check('kstats-plot on a terminal (a pty): ANSI colours (256), no form feed, drawn in '
          'the cells of the pipe\'s plot once they are left out',
          rc6 == 0 and b'\x1b[38;5;' in tty and b'\f' not in tty and
          cells(plain.strip('\n')) == cells(out3.strip('\n')), (rc6, tty[:200], plain))
    rc2, out2, err2 = plot(['-s', '40x12', wide, wide])
    check('kstats-plot -s 40x15 --per-cpu --cdf: 6 curves fit neither below the graph nor in '
          'it -> exit 1, says so; -s 40x12 of two inputs, the same, no input blamed',
          rc == 1 and not out and err == 'kstats-plot: 6 curves do not fit a terminal of 15 '
          'lines: a taller -s WxH, or fewer CPUs (--cpus, --top)\n' and rc2 == 1 and
          err2 == 'kstats-plot: 2 curves do not fit a terminal of 12 lines: a taller -s WxH\n',
          (rc, out, err, rc2, err2))
    bad, refused = [], []
    wide7 = os.path.join(TMP, 'wide.tx')
    shutil.copy(wide, wide7)
    for size in ('40x20', '40x22', '40x30', '60x20'):
        for path in (wide, wide7):
            rc, out, err = plot(['-s', size, '--per-cpu', '--cdf', path])
            lines = out.splitlines()
            borders = [i for i, l in enumerate(lines) if re.match(r' *[0-9.]* *\+-{10,}', l)]
            yt = [float(m[1]) for l in lines[borders[0]:borders[-1] + 1] if borders
                  for m in [re.match(r' *([0-9.]+) [+|]', l)] if m]
            if rc == 1 and 'do not fit a terminal' in err:
                refused.append((size, os.path.basename(path)))
                continue
            if rc or len(borders) != 2 or borders[1] - borders[0] < 7 or \
                    yt != sorted(yt, reverse=True) or \
                    lines[borders[0] - 1].strip() != 'cumulative fraction':
                bad.append((size, os.path.basename(path), rc, err, borders, yt,
                            lines[borders[0] - 1] if borders else None))
    check('kstats-plot -s 40x20 to 60x20 --per-cpu --cdf (6 curves, names of 4 and 7): the '
          'graph 6 lines high or more, its y ticks in order, no marker line above it (or '
          'the size refused: %s)' % refused, not bad and len(refused) <= 2, bad)
    # At 40 columns, the title a line per clause, none dropped; the y
    # axis' label in a shorter form; the percentile axis labels apart.
    rc, out, err = plot(['-s', '40x18', '--cpus', '0,2', '--linear', wide])
    lines = [l.strip() for l in out.splitlines()]
    rc2, out2, err2 = plot(['-s', '40x15', '--spectrum', wide, wide])
    pl = out2.splitlines()
    bottom = max((i for i, l in enumerate(pl) if re.match(r' *\+-{10,}', l)), default=0)
    ticks = [t.strip() for t in pl[bottom + 1].split('  ') if t.strip()] if bottom else []
    check('kstats-plot -s 40x18 --cpus 0,2 --linear: each clause of the title a whole line, '
          'the y label shorter (%s); --spectrum at 40x15: its labels apart (%s)'
          % ([l for l in lines if l.startswith('fraction')], ticks),
          rc == 0 and rc2 == 0 and 'wide: 2 of its 6 CPUs,' in lines and
          'named by --cpus' in lines and 'markers: slot means,' in lines and
          (any(l.startswith('the axis ends at p99.9,') for l in lines) or
           'samples beyond' not in err) and max(len(l) for l in out.splitlines()) <= 40 and
          any(re.match(r'fraction per \d+ units of value$', l) for l in lines) and
          len(ticks) >= 2 and all(re.match(r'^[\d.]+%$', t) for t in ticks),
          (out, err, out2, err2))
    _, err, svg = svg_plot(['-s', '640x400', '--cpus', '0-5', '-p', '1,50', '--input-unit', 'ns',
                            wide], 'key6')
    keys = [(t, x, y) for t, x, y, _, _ in (svg.texts if svg.ok else [])
            if t.startswith('wide CPU')]
    labels = [(t, x, y) for t, x, y, _, _ in (svg.texts if svg.ok else []) if t in ('p1', 'p50')]
    check('kstats-plot -t svg --cpus 0-5: the key right of the graph, the markers\' labels '
          'in it', svg.ok and len(keys) == 6 and len(labels) == 2 and
          all(x > svg.border[2] for _, x, _ in keys) and
          all(svg.border[0] <= x < svg.border[2] for _, x, _ in labels),
          (err, keys, labels, svg.border if svg.ok else None))


def test_logy(rng):
    """#43.10: --logy, the density's axis logarithmic: a tail of 0.1% of
    the samples, flat at 0 on the linear axis, shows at its density."""
    n = 20000
    tail = lognormal(rng, 20, 14, 0.1)
    path = write('logy', gen.render({0: lognormal(rng, n - 20, 9, 0.5) + tail}, 3))
    rc, err, s = svg_plot(['--logy', '--input-unit', 'ns', path], 'logy')
    ym = axis_map(s.yticks(), None, True) if s.ok else None
    xm = axis_map(s.xticks(), 'ns', True) if s.ok else None
    pts = list(s.curves.values())[0][0] if s.ok and s.curves else []
    # The densest slot of the tail, per octave (as curves.awk).
    dens = {}
    for v in tail:
        k = gen.slot_of(v, 3)
        dens[k] = dens.get(k, 0) + 1
    want = max(c / n / math.log2((gen.slot_max(k, 3) + 1) / gen.slot_min(k, 3))
               for k, c in dens.items())
    lo, hi = min(tail) * 0.8, max(tail) * 1.25
    got = max((ym[0](y) for x, y in pts if lo <= xm[0](x) <= hi), default=0) \
        if ym and xm else 0
    check('kstats-plot --logy: a log y axis; the 0.1%% tail at its density (%.3g, '
          'expected %.3g)' % (got, want),
          rc == 0 and ym is not None and abs(got - want) < want * 0.1, (rc, err, s.ok and
                                                                         s.yticks()))
    for view in (['--cdf'], ['--spectrum']):
        rc, _, err = plot(view + ['--logy', path])
        check('kstats-plot %s --logy -> exit 1: the density\'s axis only' % view[0],
              rc == 1 and "--logy: the density's axis" in err, err)


def test_linear_cut(rng):
    """#43.10: on a linear axis, a few samples far out would squeeze the
    distribution into the first pixels: the axis ends at the slot of
    p99.9, said on standard error and in the title with the samples
    beyond; --xrange MIN:MAX shows them."""
    body = lognormal(rng, 20000, 9, 0.3)
    path = write('cut', gen.render({0: body + [10 ** 8] * 5}, 3))
    v = sorted(body + [10 ** 8] * 5)
    end = gen.slot_max(gen.slot_of(v[math.ceil(0.999 * len(v)) - 1], 3), 3) + 1
    rc, err, s = svg_plot(['--linear', '--input-unit', 'ns', path], 'cut')
    xm = axis_map(s.xticks(), 'ns', False) if s.ok else None
    right = xm[0](s.border[2]) if xm else 0
    beyond = sum(1 for x in v if gen.slot_min(gen.slot_of(x, 3), 3) >= end)
    check('kstats-plot --linear with 5 samples at 100 ms: the axis ends at p99.9 (%d ns; '
          'got %d), the %d samples beyond said on stderr and in the title'
          % (end, right, beyond),
          rc == 0 and end <= right <= end * 1.1 and
          'the value axis ends at p99.9' in err and ': %d samples beyond it' % beyond in err and
          any('%d samples beyond' % beyond in t for t in s.text_list()),
          (rc, err, s.ok and s.xticks()))
    rc, err, s = svg_plot(['--linear', '--input-unit', 'ns', '--xrange', '0:2e8', path], 'cut')
    xm = axis_map(s.xticks(), 'ns', False) if s.ok else None
    check('kstats-plot --linear --xrange 0:2e8: the whole axis, nothing said',
          rc == 0 and xm and abs(xm[0](s.border[2]) - 2e8) < 2e6 and not err, (rc, err))


def test_cpus(rng):
    """#43.9: --cpus LIST names the CPUs drawn (one curve each, as
    --per-cpu), whatever their tail or samples: the title says so."""
    by_cpu = {c: lognormal(rng, 2000 if c != 5 else 50, 8, 0.5) for c in range(12)}
    path = write('cpus12', gen.render(by_cpu, 3))
    for arg, want in (('5,0-2', [0, 1, 2, 5]), ('11', [11]), ('3,3', [3])):
        rc, err, s = svg_plot(['--cpus', arg, path], 'cpus')
        titles = list(s.curves) if s.ok else []
        check('kstats-plot --cpus %s: a curve for CPUs %s, the title says they were named'
              % (arg, want), rc == 0 and titles == ['cpus12 CPU %d' % c for c in want] and
              any('%d of its 12 CPUs, named by --cpus' % len(want) in t
                  for t in s.text_list()), (rc, err, titles))
    for arg, why in (('12', 'no CPU 12 with samples in it'), ('1-x', 'is not a list of CPUs'),
                     ('', 'is not a list of CPUs'), ('3-1', 'is not a list of CPUs'),
                     ('0-99', 'names more than 64 CPUs')):
        rc, out, err = plot(['--cpus', arg, path])
        check('kstats-plot --cpus %r -> exit 1: %s' % (arg, why),
              rc == 1 and why in err and not out, err)
    rc, _, err = plot(['--cpus', '1', '--top', '2', path])
    check('kstats-plot --cpus and --top -> exit 1: one of them', rc == 1 and 'one of them' in err,
          err)


def test_marker_resolution(rng):
    """#43.7: the title says what the markers resolve: each is the mean of
    its slot, the true percentile within X% of it, X of the widest side
    of the slots marked (rounded up to 2 digits: it holds)."""
    for bits in (1, 3, 6):
        path = write('res%d' % bits, gen.render({0: lognormal(rng, 20000, 10, 1)}, bits))
        st = json_of(path, '-p', '50,99')
        want = max(100 * max(p['value'] - p['lo'], p['hi'] + 1 - p['value']) / p['value']
                   for p in st['percentiles'].values())
        rc, err, s = svg_plot(['--input-unit', 'ns', path], 'res')
        said = [re.search(r'the true value within ([0-9.]+)%', t) for t in s.text_list()] \
            if s.ok else []
        said = [float(m[1]) for m in said if m]
        check('kstats-plot of frac_bits %d: the title says the markers resolve to %.3g%% '
              '(within 2 digits, not below)' % (bits, want),
              rc == 0 and len(said) == 1 and want <= said[0] <= want * 1.1 + 0.01,
              (rc, err, said))
    rc, err, s = svg_plot(['-p', '', path], 'res')
    check("kstats-plot -p '': no markers, nothing said of them",
          rc == 0 and s.ok and not [t for t in s.text_list() if 'markers' in t], (rc, err))


class Screen:
    """The screen of an Xvfb run with -fbdir: its XWD image, which the
    server keeps up to date, read as rows of pixels."""

    def __init__(self, path):
        self.path = path
        self.w = self.h = 0
        self.rows = []

    def grab(self):
        try:
            with open(self.path, 'rb') as f:
                d = f.read()
            h = struct.unpack('>25I', d[:100])
        except (OSError, struct.error):
            return False
        size, self.w, self.h, bpl, ncolours = h[0], h[4], h[5], h[12], h[19]
        off = size + ncolours * 12
        # 32 bits a pixel, least significant byte first: B, G, R, unused.
        self.rows = [d[off + y * bpl:off + y * bpl + 4 * self.w] for y in range(self.h)]
        return len(self.rows) == self.h and all(len(r) == 4 * self.w for r in self.rows)

    def find(self, rgb):
        """The pixels of colour RGB: (x, y)."""
        px = bytes((rgb[2], rgb[1], rgb[0]))
        pts = []
        for y, r in enumerate(self.rows):
            i = r.find(px)
            while i >= 0:
                if i % 4 == 0:
                    pts.append((i // 4, y))
                i = r.find(px, i + 1)
        return pts

    def png(self, path):
        raw = b''.join(b'\0' + bytes(v for x in range(self.w)
                                     for v in (r[4 * x + 2], r[4 * x + 1], r[4 * x]))
                       for r in self.rows)

        def chunk(kind, data):
            return (struct.pack('>I', len(data)) + kind + data +
                    struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
        with open(path, 'wb') as f:
            f.write(b'\x89PNG\r\n\x1a\n' +
                    chunk(b'IHDR', struct.pack('>IIBBBBB', self.w, self.h, 8, 2, 0, 0, 0)) +
                    chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def test_window(rng):
    """#43: live plots in a gnuplot window, as the RFC showed them:
    kstats-plot -t x11 -i SECS on an X display (Xvfb here), the window
    redrawn in place as the metric changes; -t x11 without -i, a window
    that stays. The screen is read from Xvfb's framebuffer; with
    KSTATS_SHOTS=DIR its screenshots are kept there as PNG."""
    if not shutil.which('Xvfb') or \
            'x11' not in run(['gnuplot', '-e', 'set terminal'])[1] + \
            run(['gnuplot', '-e', 'set terminal'])[2]:
        check('kstats-plot -t x11: Xvfb and a gnuplot with x11 are installed '
              '(Debian: xvfb, gnuplot-x11)', False)
        return
    env = {k: v for k, v in os.environ.items() if k != 'DISPLAY'}
    rc, _, err = plot(['-t', 'x11', '-i', '1', 'x'], env=env)
    check('kstats-plot -t x11 without a display -> exit 1, says so',
          rc == 1 and 'no display (DISPLAY is not set)' in err, err)
    rc, _, err = plot(['-t', 'x11', '-o', 'x.png', 'x'], env=dict(env, DISPLAY=':9'))
    check('kstats-plot -t x11 -o FILE -> exit 1: a window', rc == 1 and 'is a window' in err, err)
    fb = tempfile.mkdtemp(dir=TMP)
    rfd, wfd = os.pipe()
    x = subprocess.Popen(['Xvfb', '-displayfd', str(wfd), '-screen', '0', '800x600x24',
                          '-fbdir', fb, '-nolisten', 'tcp'], pass_fds=(wfd,),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    os.close(wfd)
    shots = os.environ.get('KSTATS_SHOTS')
    p = None
    try:
        with os.fdopen(rfd) as f:
            display = ':' + f.readline().strip()
        env['DISPLAY'] = display
        scr = Screen(os.path.join(fb, 'Xvfb_screen0'))
        violet = (148, 0, 211)     # gnuplot's first line type
        path = os.path.join(TMP, 'live')

        def put(values):
            with open(path + '.new', 'w', encoding='ascii') as f:
                f.write(gen.render({0: values}, 3))
            os.rename(path + '.new', path)

        def until(pred):
            deadline = time.time() + HANG
            while time.time() < deadline:
                if scr.grab() and pred():
                    return True
                time.sleep(0.05)
            return False

        def centre():
            pts = scr.find(violet)
            return sum(x for x, _ in pts) / len(pts) if len(pts) > 200 else None

        def window():
            """The window: the box of its white pixels, but its bottom,
            where gnuplot's status line (the mouse's coordinates) is
            painted white only once drawn, after the first plot or not."""
            pts = scr.find((255, 255, 255))
            return (min(x for x, _ in pts), min(y for _, y in pts),
                    max(x for x, _ in pts)) if pts else None
        put(lognormal(rng, 20000, 8, 0.5))
        # A fixed axis (--xrange), as a live view is watched; SIGINT's
        # default action (make may run the tests with it ignored, and a
        # shell cannot trap a signal ignored when it starts).
        p = subprocess.Popen(['sh', PLOT, '-t', 'x11', '-s', '640x480', '-i', '0.2',
                              '--input-unit', 'ns', '--xrange', '100:1e6', path], env=env,
                             start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = until(lambda: centre() is not None)
        c1, w1 = (centre(), window()) if first else (None, None)
        if shots and first:
            os.makedirs(shots, exist_ok=True)
            scr.png(os.path.join(shots, 'x11-live-1.png'))
        # The metric 30 times slower: the curve moves right, in the same
        # window.
        put(lognormal(rng, 20000, 8 + math.log(30), 0.5))
        moved = first and until(lambda: centre() is not None and centre() > c1 + 100)
        c2, w2 = (centre(), window()) if moved else (None, None)
        if shots and moved:
            scr.png(os.path.join(shots, 'x11-live-2.png'))
        check('kstats-plot -t x11 -i 0.2: the density in a window, redrawn in place when the '
              'metric changes (the curve from x %s to %s, the window %s then %s)'
              % (c1 and round(c1), c2 and round(c2), w1, w2),
              first and moved and w1 == w2 and w1[2] - w1[0] >= 600, p.poll())
        os.killpg(p.pid, signal.SIGINT)
        try:
            _, err = p.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
        # 130 from the shell's trap, also when gnuplot, which the
        # terminal's SIGINT reaches too, ended first (test_live_interrupt).
        check('kstats-plot -t x11 -i: Ctrl-C ends it (status 130), nothing said',
              p.returncode == 130 and not err.strip(), (p.returncode, err))
        # Without -i: the window stays once kstats-plot is done.
        rc, _, err = plot(['-t', 'x11', '-s', '640x480', '--input-unit', 'ns', '--xrange',
                           '100:1e6', path], env=env)
        stays = rc == 0 and until(lambda: centre() is not None and abs(centre() - c2) < 20)
        if shots and stays:
            scr.png(os.path.join(shots, 'x11-once.png'))
        check('kstats-plot -t x11: the plot in a window that stays once it is done (exit 0)',
              stays, (rc, err))
    finally:
        if p and p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        os.killpg(x.pid, signal.SIGTERM)
        x.wait()


def test_live_interrupt(rng):
    """#43: Ctrl-C of a live plot (-i) ends it with 130 also when the
    terminal's SIGINT ended gnuplot first. That race, made certain: the
    shell stopped, gnuplot ended and reaped... by the shell once it runs
    again, with the SIGINT pending for it."""
    path = write('live-int', gen.render({0: lognormal(rng, 2000, 8, 0.5)}, 3))
    rcs = []
    for _ in range(3):
        p = subprocess.Popen(['sh', PLOT, '-s', '60x20', '-i', '0.2', path],
                             start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        gp, deadline = None, time.time() + HANG
        while gp is None and time.time() < deadline and p.poll() is None:
            # The shell's child gnuplot, from /proc/*/stat (comm, ppid).
            for k in (int(d) for d in os.listdir('/proc') if d.isdigit()):
                try:
                    with open('/proc/%d/stat' % k) as f:
                        comm, rest = f.read().rsplit(')', 1)
                except OSError:
                    continue
                if comm.endswith('(gnuplot') and int(rest.split()[1]) == p.pid:
                    gp = k
            time.sleep(0.05)
        if gp is None:
            p.kill()
            rcs.append(('no gnuplot', p.communicate()[1]))
            continue
        os.kill(p.pid, signal.SIGSTOP)
        # gnuplot a zombie, for the stopped shell to reap; SIGINT again
        # while it ignores it (during its system(), the reread).
        while time.time() < deadline:
            with open('/proc/%d/stat' % gp) as f:
                if f.read().rsplit(')', 1)[1].split()[0] == 'Z':
                    break
            os.kill(gp, signal.SIGINT)
            time.sleep(0.05)
        os.kill(p.pid, signal.SIGINT)
        os.kill(p.pid, signal.SIGCONT)
        try:
            _, err = p.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
        rcs.append((p.returncode, err.strip()))
    check('kstats-plot -i: Ctrl-C once gnuplot has ended (the terminal\'s SIGINT reached '
          'it first): status 130, nothing said (3 runs)',
          rcs == [(130, '')] * 3, rcs)


def test_plot_review(rng):
    """#43, from a review and a user's trial of kstats-plot: the label rows
    of a short terminal keep the y axis; the cut axis and --xrange MIN;
    the samples beyond it said of each input; a title of several parts a
    line each on a terminal; --logy's axis of the slots drawn; a display
    without a server; --cpus with --top."""
    a = write('rv-a', gen.render({0: lognormal(rng, 20000, 9, 1)}, 3))
    rc, out, err = plot(['-s', '40x12', '-p', '10,20,30,40,50,60,70,80,90,99', a])
    yt = [float(m) for m in re.findall(r'^ *(-?[0-9.]+) [+|]', out, re.M)]
    check('kstats-plot -s 40x12 with 10 markers: the y axis from 0 up, the curve drawn',
          rc == 0 and yt and min(yt) >= 0 and max(yt) > 0 and '*' in out, (rc, err, out))
    body = lognormal(rng, 20000, 9, 0.3)
    b1 = write('rv-b1', gen.render({0: body + [10 ** 8] * 4}, 3))
    b2 = write('rv-b2', gen.render({0: body + [10 ** 8] * 5}, 3))
    rc, err, s = svg_plot(['--linear', '--input-unit', 'ns', '--xrange', '50000:', b1], 'rv')
    xm = axis_map(s.xticks(), 'ns', False) if s.ok else None
    check('kstats-plot --linear --xrange 50000: (MIN past p99.9): no cut, the axis from 50 us '
          'to the data', rc == 0 and xm and abs(xm[0](s.border[0]) - 50000) < 1000 and
          xm[0](s.border[2]) > 1e8 and not err, (rc, err))
    rc, _, err = plot(['--linear', '-s', '80x20', b1, b2])
    notes = re.findall(r'^kstats-plot: (.*): the value axis ends at p99.9 of the inputs '
                       r'\(.*\): (\d+) samples beyond it', err, re.M)
    check('kstats-plot --linear A B: the samples beyond the cut said of each input',
          rc == 0 and sorted((os.path.basename(f), int(c)) for f, c in notes) ==
          [('rv-b1', 4 + sum(1 for v in body if v >= 22528)),
           ('rv-b2', 5 + sum(1 for v in body if v >= 22528))] or
          len(notes) == 2 and all(f.endswith(('rv-b1', 'rv-b2')) for f, _ in notes), err)
    rc, out, err = plot(['--linear', '-s', '80x20', '--input-unit', 'ns', b1])
    check('kstats-plot --linear on 80x20: the title a line each part (the cut, the '
          'markers)', rc == 0 and re.search(r'^ +the axis ends at p99.9, \d+ samples beyond',
                                            out, re.M) and
          re.search(r'^ +markers: slot means', out, re.M), out)
    rc, _, err = plot(['-t', 'x11', a], env=dict(os.environ, DISPLAY=':97'))
    check('kstats-plot -t x11 on a display without a server -> exit 1, says so',
          rc == 1 and 'no X server on display :97' in err, err)
    rc, _, err = plot(['--cpus', '0', '--top', '8', a])
    check('kstats-plot --cpus with --top 8 (its default, given) -> exit 1',
          rc == 1 and 'one of them' in err, err)
    rc, err, s = svg_plot(['--linear', '--logy', '--input-unit', 'ns', b1], 'rv')
    ym = axis_map(s.yticks(), None, True) if s.ok else None
    check('kstats-plot --linear --logy cut at p99.9: the y axis from the least density '
          'drawn, not of the slots past the cut (its bottom %s)'
          % (ym and '%.3g' % ym[0](s.border[3])),
          rc == 0 and ym and ym[0](s.border[3]) > 1e-7, (rc, err, s.ok and s.yticks()))


def test_spectrum(rng):
    """x = 1/(1-p) on a log axis labelled 0%, 90%, 99%...; y the value of
    the percentile; the curve goes on to the last sample."""
    n = 20000
    values = lognormal(rng, n - 30, 9, 0.5) + lognormal(rng, 30, 13, 0.3)
    path = write('spectrum', gen.render({0: values[:12000], 1: values[12000:]}, 3))
    st = json_of(path, '-p', '50,99,99.9')
    for view, log in (([], True), (['--linear'], False)):
        rc, err, s = svg_plot(['--spectrum', '--input-unit', 'ns'] + view + [path], 'spectrum')
        if not s.ok:
            check('kstats-plot --spectrum %s: an image' % ' '.join(view), False, (rc, err))
            continue
        xt = [t for t, _ in s.xticks()]
        check('kstats-plot --spectrum %s: x ticks 0%%, 50%%, 90%%, 99%%, 99.9%%, 99.99%%'
              % ' '.join(view), xt == ['0%', '50%', '90%', '99%', '99.9%', '99.99%'], xt)
        ypos = {t: p for t, p in s.xticks()}
        ym = axis_map(s.yticks(), 'ns', log)
        pts = s.curves.get('spectrum', ([], None))[0]
        # x of the pixels, on the axis of 1/(1-p) (1 at 0%, 100 at 99%).
        xm = lambda px: 10 ** ((px - ypos['0%']) / (ypos['99%'] - ypos['0%']) * 2)  # noqa: E731
        bad = []
        if not ym or not pts:
            bad.append('no y axis or curve')
        else:
            right = max(pts, key=lambda p: p[0])
            top = min(pts, key=lambda p: p[1])
            if abs(xm(right[0]) - n) > n * 0.02:
                bad.append('ends at 1/(1-p) = %g, not %d' % (xm(right[0]), n))
            # The last step is at the mean of the max's slot, within
            # the max's bounds.
            mlo, mhi = st['max_bounds']
            if not mlo * 0.98 <= ym[0](top[1]) <= mhi * 1.02:
                bad.append('top at %g, not in the max slot [%g, %g]'
                           % (ym[0](top[1]), mlo, mhi))
            for q in ('50', '99', '99.9'):
                # The sample of rank r = ceil(q n / 100) is the p of
                # (r - 1/2) / n, halfway between r - 1 and r, where the
                # curve has the value of the slot that holds it.
                r = math.ceil(float(q) / 100 * n)
                x = n / (n - r + 0.5)
                px = ypos['0%'] + math.log10(x) / 2 * (ypos['99%'] - ypos['0%'])
                # At a step, the higher value (the smaller pixel y)
                # is the one past it.
                y = [py for qx, py in sorted(pts, key=lambda p: (p[0], -p[1])) if qx <= px]
                v = ym[0](y[-1]) if y else None
                if v is None or abs(v - st['percentiles'][q]['value']) > 1 + \
                        st['percentiles'][q]['value'] * 0.02:
                    bad.append('p%s: %s, not %g' % (q, v, st['percentiles'][q]['value']))
        check('kstats-plot --spectrum %s: the value of p50, p99 and p99.9 at 50%%, 99%%, '
              '99.9%%, on to the max at the last sample' % ' '.join(view),
              rc == 0 and not bad, (rc, err, bad))
    other = write('spectrum-b', gen.render({0: lognormal(rng, 5000, 9.5, 0.4)}, 3))
    rc, err, s = svg_plot(['--spectrum', path, other], 'spectrum2')
    check('kstats-plot --spectrum A B: a curve each',
          rc == 0 and s.ok and list(s.curves) == ['spectrum', 'spectrum-b'], (rc, err))
    rc, _, err = plot(['--spectrum', '--cdf', path])
    check('kstats-plot --spectrum --cdf -> exit 1, one of them',
          rc == 1 and 'one of them' in err, err)
    # An option that would do nothing is refused, naming it; the same
    # option where it acts is accepted ('-p ""' asks for no markers).
    img = os.path.join(TMP, 'ignored.png')
    for args, why in ((['--spectrum', '-p', '50'], '-p: no markers on --spectrum'),
                      (['--spectrum', '--percentiles', '90,99'],
                       '--percentiles: no markers on --spectrum'),
                      (['--heatmap', '-t', 'png', '-o', img, '-p', '50'],
                       '-p: no markers on --heatmap'),
                      (['--heatmap', '-t', 'png', '-o', img, '--linear'],
                       "--linear: --heatmap's value axis is logarithmic only"),
                      (['--top', '3'], '--top: the CPUs with the slowest p99, with --per-cpu')):
        rc, out, err = plot(args + [path])
        check('kstats-plot %s -> exit 1, "%s"' % (' '.join(args).replace(img, 'X.png'), why),
              rc == 1 and out == '' and err.startswith('kstats-plot: ' + why) and
              not os.path.exists(img), err)
    for args in (['--spectrum', '-p', ''], ['--cdf', '-p', '50'], ['--per-cpu', '--top', '3']):
        rc, out, err = plot(args + ['-s', '100,30', path])
        check('kstats-plot %s: accepted' % ' '.join(args), rc == 0 and out, (rc, err))
    # On the terminal too.
    rc, out, err = plot(['--spectrum', '-s', '100,30', path])
    check('kstats-plot --spectrum on the terminal: 90% and 99.9% on the axis',
          rc == 0 and '90%' in out and '99.9%' in out, (rc, out[-500:], err))


# 13: --per-cpu reads each input once, runs kstats once per input and
# gnuplot once; the top N CPUs.

def test_per_cpu(rng):
    # A kstats-plot beside a kstats that logs its runs, and a gnuplot that
    # logs its own.
    d = os.path.join(TMP, 'counted')
    os.mkdir(d)
    shutil.copy(PLOT, os.path.join(d, 'kstats-plot.sh'))
    shutil.copytree(os.path.join(os.path.dirname(PLOT), 'plot'), os.path.join(d, 'plot'))
    with open(os.path.join(d, 'kstats'), 'w', encoding='ascii') as f:
        f.write('#!/bin/sh\necho run >> "%s/kstats.log"\nexec "%s" "$@"\n' % (TMP, KSTATS))
    os.chmod(os.path.join(d, 'kstats'), 0o755)
    env = dict(os.environ, PATH=fake_bin() + os.pathsep + os.environ['PATH'])
    # 20 CPUs, CPU c with 100 + 10 c samples, each slower than the one
    # before: the CPUs chosen are those of the slowest p99, then of the
    # most samples, as the CPU lines say.
    by_cpu = {c: lognormal(rng, 100 + 10 * c, 8 + c * 0.05, 0.7) for c in range(20)}
    text = gen.render(by_cpu, 3)
    path = write('cpus20', text)
    few = write('cpus3', gen.render({c: by_cpu[c] for c in (0, 4, 9)}, 3))

    def slowest(text, n):
        p99, tot = {}, {}
        for line in text.splitlines():
            w = line.split()
            if w[2] == 'CPU' and int(w[5]):
                c = int(w[3])
                tot[c] = tot.get(c, 0) + int(w[5])
                if float(w[9]) >= 0.99 and int(w[1]) < p99.get(c, 1 << 30):
                    p99[c] = int(w[1])
        return sorted(sorted(tot, key=lambda c: (-p99[c], -tot[c], c))[:n])
    top8 = slowest(text, 8)
    for args, kruns, want, note in (
            (['--per-cpu', path], 1, top8, 8),
            (['--per-cpu', '--top', '3', path], 1, slowest(text, 3), 3),
            (['--per-cpu', '--top', '20', '--cdf', path], 1, list(range(20)), None),
            (['--per-cpu', '--spectrum', few], 1, [0, 4, 9], None),
            (['--per-cpu', path, few], 2, None, 8)):
        for log in ('kstats.log', 'gnuplot.log'):
            if os.path.exists(os.path.join(TMP, log)):
                os.unlink(os.path.join(TMP, log))
        img = os.path.join(TMP, 'cpus.svg')
        rc, _, err = run(['sh', os.path.join(d, 'kstats-plot.sh'), '-t', 'svg', '-o', img] +
                         args, env=env)
        s = Svg(img)
        titles = list(s.curves) if s.ok else []
        if want is None:
            want_titles = (['cpus20 CPU %d' % c for c in top8] +
                           ['cpus3 CPU %d' % c for c in (0, 4, 9)])
        else:
            want_titles = ['%s CPU %d' % (os.path.basename(args[-1]), c) for c in want]
        said = 'the %d of its 20 CPUs, those with the slowest p99' % note if note else None
        check('kstats-plot %s: kstats run %d time(s), gnuplot once; the curves %s'
              % (' '.join(os.path.basename(a) for a in args), kruns,
                 'of the %d CPUs with the slowest p99, said in the title and on '
                 'standard error' % note if note else 'of every CPU'),
              rc == 0 and runs_logged('kstats.log') == kruns and
              runs_logged('gnuplot.log') == 1 and titles == want_titles and
              (err == 'kstats-plot: %s: %s\n' % (path, said) and
               any(t.startswith('cpus20: ' + said) for t in s.text_list()) if note
               else err == ''),
              (rc, err, runs_logged('kstats.log'), runs_logged('gnuplot.log'), titles))
    # #43, 9: 16 CPUs, one of them 4 times slower with a tenth of the
    # others' samples: among the 4 chosen, whatever its share.
    slow = {c: lognormal(rng, 2000 if c != 5 else 200, 9 if c != 5 else 9 + math.log(4), 0.3)
            for c in range(16)}
    slow_path = write('slowcpu', gen.render(slow, 3))
    img = os.path.join(TMP, 'slowcpu.svg')
    rc, _, err = run(['sh', PLOT, '-t', 'svg', '-o', img, '--per-cpu', '--top', '4', slow_path])
    s = Svg(img)
    check('kstats-plot --per-cpu --top 4: a CPU 4 times slower with a tenth of the samples '
          'is among them, and the rule is said',
          rc == 0 and s.ok and 'slowcpu CPU 5' in s.curves and len(s.curves) == 4 and
          'the 4 of its 16 CPUs, those with the slowest p99' in err,
          (rc, err, list(s.curves) if s.ok else None))
    for top in ('0', 'x', '-1', '1;system("touch X")'):
        rc, _, err = plot(['--per-cpu', '--top', top, path], cwd=TMP)
        check('kstats-plot --top %s -> exit 1, not a number of CPUs' % top,
              rc == 1 and 'is not a number of CPUs' in err and
              not os.path.exists(os.path.join(TMP, 'X')), err)
    # Each CPU's curve is that CPU's distribution: the CDF of CPU 17 of
    # --per-cpu is the CDF of CPU 17's lines alone (the same points on
    # the same axes).
    text = open(path).read()
    cpu17 = write('cpu17', ''.join(l for l in text.splitlines(True) if l.split()[2:4] == ['CPU', '17']))
    axes = ['--cdf', '-p', '', '--xrange', '100:100000']
    _, err1, s1 = svg_plot(axes + ['--per-cpu', '--top', '20', path], 'percpu')
    _, err2, s2 = svg_plot(axes + [cpu17], 'cpu17')
    p1 = s1.curves.get('cpus20 CPU 17', ([], None))[0] if s1.ok else []
    p2 = s2.curves.get('cpu17', ([], None))[0] if s2.ok else []

    def values(s, pts):
        """The points in the axes' values (the key of 20 CPUs right of
        the graph makes it narrower than that of one curve)."""
        xm = axis_map(s.xticks(), None, True) if s.ok else None
        ym = axis_map(s.yticks(), None, False) if s.ok else None
        return [(xm[0](x), ym[0](y)) for x, y in pts] if xm and ym else []
    v1, v2 = values(s1, p1), values(s2, p2)
    same = len(v1) == len(v2) and all(abs(math.log(a[0] / b[0])) < 0.01 and abs(a[1] - b[1]) < 0.005
                                      for a, b in zip(v1, v2))
    check('kstats-plot --per-cpu --cdf: the curve of CPU 17 is the CDF of its lines alone',
          len(p1) > 10 and same, (err1, err2, len(p1), len(p2), v1[:5], v2[:5]))
    rc, _, err = plot(['--per-cpu', '-'], stdin=''.join(l for l in text.splitlines(True)
                                                        if ' CPUS ' in l))
    check('kstats-plot --per-cpu of CPUS lines only -> exit 1, no CPU lines',
          rc == 1 and err.startswith('kstats-plot: standard input: no CPU lines'), err)


# 15: kstats-plot's awk and sh files: found beside it (plot/) or where
# make install puts them (../share/kstats/plot), said when missing;
# plot/ticks.awk's labels, run on their own.

def test_files():
    good = os.path.join(os.path.dirname(PLOT), 'tests', 'corpus', 'two-slots')
    if not os.path.exists(good):
        good = write('two', gen.render({0: [100, 200, 300], 1: [150, 2500]}, 3))
    inst = os.path.join(TMP, 'inst')
    os.makedirs(os.path.join(inst, 'bin'))
    shutil.copy(PLOT, os.path.join(inst, 'bin', 'kstats-plot'))
    shutil.copy(KSTATS, os.path.join(inst, 'bin', 'kstats'))
    shutil.copytree(os.path.join(os.path.dirname(PLOT), 'plot'),
                    os.path.join(inst, 'share', 'kstats', 'plot'))
    rc, out, err = run(['sh', os.path.join(inst, 'bin', 'kstats-plot'), '-t', 'dumb', good])
    check('kstats-plot installed: its files from ../share/kstats/plot',
          rc == 0 and os.path.basename(good) in out, (rc, err))
    alone = os.path.join(TMP, 'alone')
    os.mkdir(alone)
    shutil.copy(PLOT, os.path.join(alone, 'kstats-plot.sh'))
    shutil.copy(KSTATS, os.path.join(alone, 'kstats'))
    rc, out, err = run(['sh', os.path.join(alone, 'kstats-plot.sh'), '-t', 'dumb', good])
    check('kstats-plot without its files -> exit 1, says where it looked',
          rc == 1 and 'its files are not in' in err and len(err.splitlines()) == 1, (rc, err))
    labels = write('labels.awk', 'BEGIN { print eng(2.5e-6, "s"); print eng(1e-3, "s"); '
                   'print eng(10000, "s"); print eng(1e5, "s"); print eng(500, ""); '
                   'print eng(1000, ""); print eng(1.5e6, ""); print eng(0, "s") }\n')
    rc, out, err = run(['awk', '-f', os.path.join(os.path.dirname(PLOT), 'plot', 'ticks.awk'),
                        '-f', labels])
    want = ['2.5 us', '1 ms', '10000 s', '1e5 s', '500', '1k', '1.5M', '0']
    check('plot/ticks.awk on its own: engineering labels %s' % want,
          rc == 0 and out.splitlines() == want, (rc, out, err))


def test_harness_plot():
    """harness/plot.sh: no file name reaches a shell or gnuplot as code."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                          'harness', 'plot.sh')
    if not os.path.exists(script) or not shutil.which('bash') or not shutil.which('gcc'):
        print('SKIP: harness/plot.sh (not in this tree, or no bash or gcc)')
        return
    d = os.path.join(TMP, 'harness')
    os.mkdir(d)
    names = ["a';touch INJECTED;'b", '$(touch X)', '`touch Y`', '"; system("touch G"); "',
             'x"y\'z']
    text = gen.render({0: [int(1000 * 1.001 ** i) for i in range(3000)]}, 3)
    # need_pkgs reads the installed packages from this list: no apt-get.
    pkgs = write('pkgs', 'gnuplot-x11\n')
    env = dict(os.environ, KSTATS_PKG_SIMULATE=pkgs)
    for n in names:
        with open(os.path.join(d, n), 'w', encoding='ascii') as f:
            f.write(text)
        for what in ('pdf', 'cdf'):
            rc, out, err = run(['bash', script, n, what], env=env, cwd=d)
            check('harness/plot.sh %r %s: plotted, titled with the name' % (n, what),
                  rc == 0 and n in out and out.count('*') > 10, (rc, out[-400:], err))
    check('harness/plot.sh: no command in a name ran (no file INJECTED, X, Y or G made)',
          sorted(os.listdir(d)) == sorted(names), os.listdir(d))


def count_with(log):
    """The counts of test_kstats.py's output LOG: its last count line."""
    try:
        with open(log, encoding='utf-8', errors='replace') as f:
            counts = re.findall(r'^(\d+) passed, (\d+) failed$', f.read(), re.M)
    except OSError as e:
        counts = []
        print('FAIL: %s: %s' % (log, e))
    if not counts:
        print('FAIL: %s: no "N passed, N failed" line (the tests stopped midway?)' % log)
        return 0, 1
    return int(counts[-1][0]), int(counts[-1][1])


def main():
    global KSTATS, PLOT, TMP
    args = sys.argv[1:]
    log = None
    if len(args) >= 3 and args[-2] == '--count-with':
        log = args[-1]
        args = args[:-2]
    if len(args) == 3 and args[1] == '--plot':
        PLOT = os.path.abspath(args[2])
        args = args[:1]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    KSTATS = os.path.abspath(args[0])
    PLOT = PLOT or os.path.join(os.path.dirname(KSTATS), 'kstats-plot.sh')
    TMP = tempfile.mkdtemp(prefix='kstats-plot-test.')
    rng = random.Random(SEED)
    try:
        if not shutil.which('gnuplot'):
            check('kstats-plot: gnuplot is installed', False)
        else:
            test_errors(rng)
            test_names_as_they_are(rng)
            test_names_unique(rng)
            test_names_escaped(rng)
            test_units_and_ticks(rng)
            test_range(rng)
            test_markers(rng)
            test_terminal_key(rng)
            test_terminal_labels(rng)
            test_terminal_frame(random.Random('%s-frame' % SEED))
            test_logy(rng)
            test_linear_cut(rng)
            test_cpus(rng)
            test_marker_resolution(rng)
            test_window(rng)
            test_live_interrupt(random.Random('%s-live' % SEED))
            test_plot_review(rng)
            test_spectrum(rng)
            test_per_cpu(rng)
            test_files()
            test_harness_plot()
    finally:
        for root, dirs, _ in os.walk(TMP):
            for x in dirs:
                os.chmod(os.path.join(root, x), stat.S_IRWXU)
        shutil.rmtree(TMP)
    print('test_plot.py: %d passed, %d failed' % (RESULTS['passed'], RESULTS['failed']))
    passed, failed = RESULTS['passed'], RESULTS['failed']
    if log:
        p, f = count_with(log)
        passed += p
        failed += f
        print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
