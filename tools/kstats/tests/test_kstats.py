#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run with the path of the kstats binary as its argument.

Tests of the kstats tool on fixtures generated from known samples: every
percentile must hold the true percentile of the samples within its bounds,
and counts, mean, min, max and MAD must agree with the samples. Prints
"seed N" first: the seed of the random samples, 20201 unless the
environment gives KSTATS_TEST_SEED=N (to repeat a run, or try others);
then PASS/FAIL lines and "N passed, N failed"; exits 1 on any failure.
"""
import bisect
import csv
import errno
import fractions
import io
import json
import math
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import xml.dom.minidom
import xml.parsers.expat

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kstats_gen as gen  # noqa: E402
import test_top  # noqa: E402

KSTATS = None
TMP = None
# --hist draws with UTF-8's blocks where the locale is UTF-8, ASCII
# elsewhere: every run in a UTF-8 locale but where a test says otherwise.
os.environ['LC_ALL'] = 'C.UTF-8'
PCTS = [50, 90, 95, 99, 99.9]
RESULTS = {'passed': 0, 'failed': 0}
# The tool prints seconds and times to the millisecond.
EPS = 0.001
# A bound for a hung run of the tool, not a timing: a slow machine only
# takes longer.
HANG = 60
UMASK = os.umask(0o22)
os.umask(UMASK)


def check(name, ok, detail=''):
    if ok:
        RESULTS['passed'] += 1
        print('PASS: ' + name)
    else:
        RESULTS['failed'] += 1
        print('FAIL: %s %s' % (name, detail))


def run(args, stdin=None, raw=False, cwd=None, env=None):
    """Status (-9 if it hangs: killed after HANG s), output, error."""
    try:
        p = subprocess.run(args if raw else [KSTATS] + args, input=stdin,
                           capture_output=True, text=True, check=False, timeout=HANG,
                           cwd=cwd, env=env)
    except subprocess.TimeoutExpired as e:
        text = [x.decode(errors='replace') if isinstance(x, bytes) else x or ''
                for x in (e.stdout, e.stderr)]
        return -9, text[0], text[1] + '\nstill running after %d s: killed' % HANG
    return p.returncode, p.stdout, p.stderr


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, 'w', encoding='ascii') as f:
        f.write(text)
    return path


def usage_lines(err, tool='kstats'):
    """A usage error's two lines: 'TOOL: what is wrong', then where to read more."""
    lines = err.splitlines()
    return (len(lines) == 2 and lines[0].startswith(tool + ': ') and
            lines[1] == "Try '%s --help'." % tool)


def rank(q, n):
    return min(max(math.ceil(q / 100 * n), 1), n)


def truth(values):
    v = sorted(values)
    n = len(v)
    med = v[rank(50, n) - 1]
    dev = sorted(abs(x - med) for x in v)
    return {'n': n, 'mean': sum(v) / n, 'min': v[0], 'max': v[-1],
            'pct': {q: v[rank(q, n) - 1] for q in PCTS},
            'mad': dev[rank(50, n) - 1]}


def mean_tolerance(values, bits):
    """The kernel keeps means rounded down, cut to 16 bits of the offset."""
    worst = 0
    for s in {gen.slot_of(x, bits) for x in values}:
        width = gen.slot_max(s, bits) - gen.slot_min(s, bits) + 1
        worst = max(worst, 1 + width / 2 ** 15)
    return worst


def check_stats(name, st, values, bits):
    t = truth(values)
    ok = st['count'] == t['n']
    ok &= abs(st['mean'] - t['mean']) <= mean_tolerance(values, bits) + 1e-9 * t['mean']
    ok &= st['min_bounds'][0] <= t['min'] <= st['min_bounds'][1]
    ok &= st['max_bounds'][0] <= t['max'] <= st['max_bounds'][1]
    bad = []
    for q in PCTS:
        p = st['percentiles']['%g' % q]
        if not (p['lo'] <= t['pct'][q] <= p['hi'] and p['lo'] <= p['value'] <= p['hi'] + 1):
            bad.append('p%g: true %d not in [%d, %d]' % (q, t['pct'][q], p['lo'], p['hi']))
    if not st['mad_lo'] - 1e-6 <= t['mad'] <= st['mad_hi'] + 1e-6:
        bad.append('mad %d not in [%g, %g]' % (t['mad'], st['mad_lo'], st['mad_hi']))
    check(name, ok and not bad,
          '%s mean %s vs %s' % (bad, st.get('mean'), t['mean']))


def shapes(rng):
    """Name, frac_bits, {cpu: samples}: every shape the issue lists."""
    def lognormal(n, mu=8, sigma=1.0):
        return [int(rng.lognormvariate(mu, sigma)) for _ in range(n)]

    yield 'lognormal bits 3', 3, {c: lognormal(5000) for c in range(4)}
    yield 'lognormal bits 0', 0, {c: lognormal(3000) for c in range(2)}
    yield 'lognormal bits 8', 8, {c: lognormal(3000, 12, 2) for c in range(2)}
    yield 'bimodal bits 3', 3, {0: lognormal(4000, 6, 0.2) + lognormal(1000, 11, 0.3),
                                1: lognormal(3000, 6, 0.2)}
    yield 'one slot', 3, {0: [1000] * 777, 2: [1001] * 3}
    yield 'one sample', 3, {5: [42]}
    yield 'many CPUs', 3, {c: lognormal(40) for c in range(256)}
    yield 'huge values near 2^64', 3, {0: [2 ** 64 - 1 - rng.randrange(2 ** 60)
                                          for _ in range(2000)] + [2 ** 64 - 1, 0]}
    yield 'huge values bits 8', 8, {0: [2 ** 64 - 1 - rng.randrange(2 ** 56)
                                       for _ in range(2000)]}
    yield 'huge values bits 0', 0, {1: [rng.randrange(2 ** 64) for _ in range(2000)]}


def test_fixtures(rng):
    for name, bits, by_cpu in shapes(rng):
        path = write('fixture', gen.render(by_cpu, bits))
        rc, out, err = run(['--json', '-p', ','.join('%g' % q for q in PCTS), path])
        if rc:
            check(name, False, err)
            continue
        st = json.loads(out)
        check(name + ': bits inferred', st['bits'] == bits, st['bits'])
        values = [v for vs in by_cpu.values() for v in vs]
        check_stats(name + ': all CPUs', st, values, bits)
        cpus_ok = sorted(int(c) for c in st['cpus']) == sorted(by_cpu)
        for c, vs in by_cpu.items():
            cs = st['cpus'][str(c)]
            cpus_ok &= cs['count'] == len(vs)
            t = truth(vs)
            for q in PCTS:
                p = cs['percentiles']['%g' % q]
                cpus_ok &= p['lo'] <= t['pct'][q] <= p['hi']
        check(name + ': per CPU', cpus_ok)

        # Without the CPUS lines (grep CPU), and with only them.
        text = gen.render(by_cpu, bits)
        only_cpu = ''.join(l for l in text.splitlines(True) if ' CPUS ' not in l)
        only_all = ''.join(l for l in text.splitlines(True) if ' CPUS ' in l)
        a = json.loads(run(['--json', write('a', only_cpu)])[1])
        b = json.loads(run(['--json', '-'], only_all)[1])
        bounds = [{q: (p['lo'], p['hi']) for q, p in x['percentiles'].items()}
                  for x in (a, b)]
        check(name + ': CPU lines alone, CPUS lines alone',
              a['count'] == b['count'] == len(values) and bounds[0] == bounds[1])
    empty = write('empty', '')
    rc, out, _ = run(['--json', empty])
    check('empty metric', rc == 0 and json.loads(out)['count'] == 0, out)


def test_csv_openmetrics(rng):
    by_cpu = {c: [int(rng.lognormvariate(9, 1)) for _ in range(3000)] for c in range(3)}
    values = [v for vs in by_cpu.values() for v in vs]
    path = write('m', gen.render(by_cpu, 3))
    rc, out, _ = run(['--csv', path])
    rows = list(csv.DictReader(io.StringIO(out)))
    ok = rc == 0 and sum(int(r['count']) for r in rows) == len(values)
    ok &= all(gen.slot_min(int(r['slot']), 3) == int(r['lo']) and
              gen.slot_max(int(r['slot']), 3) == int(r['hi']) and
              int(r['lo']) <= float(r['mean']) <= int(r['hi']) for r in rows)
    cdf = [float(r['cdf']) for r in rows]
    ok &= cdf == sorted(cdf) and abs(cdf[-1] - 1) < 1e-9
    ok &= len(rows) == len({gen.slot_of(v, 3) for v in values})
    check('CSV: one row per slot, counts, bounds, CDF', ok)

    def series(out):
        """{labels without le: [(le, cumulative count)]}, and the sums."""
        by, sums = {}, {}
        for l in out.splitlines():
            m = re.match(r'(\w+)_bucket\{(.*),le="([^"]+)"\} (\d+)$', l)
            if m:
                by.setdefault((m[1], m[2]), []).append((float(m[3]), int(m[4])))
            m = re.match(r'(\w+)_sum\{(.*)\} (\S+)$', l)
            if m:
                sums[(m[1], m[2])] = float(m[3])
        return by, sums

    def promtool(out):
        if not shutil.which('promtool'):
            return False, 'promtool not found'
        p = subprocess.run(['promtool', 'check', 'metrics'], input=out,
                           capture_output=True, text=True, check=False)
        return p.returncode == 0, p.stdout + p.stderr

    for per_cpu in ([], ['--per-cpu']):
        rc, out, _ = run(['--openmetrics', '--name', 'test.metric'] + per_cpu + [path])
        lines = out.splitlines()
        by, _ = series(out)
        ok = rc == 0 and lines[-1] == '# EOF'
        ok &= '# TYPE kstats_latency histogram' in lines
        want = {('kstats_latency', 'metric="test.metric"'): values} if not per_cpu else \
            {('kstats_latency', 'metric="test.metric",cpu="%d"' % c): vs
             for c, vs in by_cpu.items()}
        ok &= set(by) == set(want)
        les = {tuple(le for le, _ in b) for b in by.values()}
        ok &= len(les) == 1 and len(next(iter(les))) < 100
        # Each bucket counts exactly the samples <= le, empty ones included.
        for key, vs in want.items():
            srt = sorted(vs)
            ok &= all(n == bisect.bisect_right(srt, le) if le != math.inf else n == len(vs)
                      for le, n in by.get(key, []))
            ok &= '%s_count{%s} %d' % (key[0], key[1], len(vs)) in lines
        good, detail = promtool(out)
        check('OpenMetrics %s: one le set under 100 buckets, exact counts, valid (promtool)'
              % ' '.join(per_cpu), ok and good, detail + out[:2000])

    # The family in seconds with -u; --le-bits as fine as the input.
    rc, out, _ = run(['--openmetrics', '--input-unit', 'us', '--le-bits', '3', path])
    by, sums = series(out)
    b = by.get(('kstats_latency_seconds', 'metric="m"'), [])
    srt = sorted(values)
    ok = rc == 0 and len(b) == (65 - 3) << 3 and '# UNIT kstats_latency_seconds seconds' in out
    ok &= all(n == bisect.bisect_right(srt, le * 1e6 * (1 + 1e-11)) if le != math.inf
              else n == len(values) for le, n in b)
    ok &= abs(sums.get(('kstats_latency_seconds', 'metric="m"'), 0) * 1e6 - sum(values)) <= \
        len(values) * mean_tolerance(values, 3)
    good, detail = promtool(out)
    check('OpenMetrics -u us --le-bits 3: kstats_latency_seconds, a bucket per slot, '
          'values in seconds', ok and good, detail + out[:2000])
    rc, out, err = run(['--openmetrics', '--le-bits', '4', path])
    check('OpenMetrics --le-bits finer than the input -> exit 1, says so',
          rc == 1 and 'finer than the input' in err and not out, err)

    # -o: a temporary file renamed; nothing left on an error.
    d = tempfile.mkdtemp(dir=TMP)
    target = os.path.join(d, 'kstats.prom')
    rc, out, _ = run(['--openmetrics', '-o', target, path])
    rc2, want_text, _ = run(['--openmetrics', path])
    with open(target, encoding='ascii') as f:
        got = f.read()
    mode = os.stat(target).st_mode & 0o777
    check('-o FILE: written whole through a renamed temporary file, mode by umask',
          rc == 0 and not out and got == want_text and os.listdir(d) == ['kstats.prom'] and
          mode == 0o666 & ~UMASK, (os.listdir(d), oct(mode)))
    rc, out, err = run(['--openmetrics', '--le-bits', '4', '-o', target, path])
    with open(target, encoding='ascii') as f:
        same = f.read() == got
    check('-o FILE: an error leaves FILE as it was and no temporary file',
          rc == 1 and same and os.listdir(d) == ['kstats.prom'], (os.listdir(d), err))
    rc, _, err = run(['-o', os.path.join(d, 'no/such/dir'), path])
    check('-o in a missing directory -> exit 1, the reason', rc == 1 and
          'No such file or directory' in err, err)


def test_merge(rng):
    hosts = [{c: [int(rng.lognormvariate(9, 0.5)) for _ in range(2000)] for c in range(3)},
             {c: [int(rng.lognormvariate(10, 0.7)) for _ in range(3000)] for c in range(2)}]
    paths = [write('host%d' % i, gen.render(h, 3)) for i, h in enumerate(hosts)]
    every = [v for h in hosts for vs in h.values() for v in vs]
    rc, out, _ = run(['--merge', '--json'] + paths)
    st = json.loads(out) if rc == 0 else {}
    if st:
        check_stats('--merge: two hosts summed, the stats of all their samples', st, every, 3)
    else:
        check('--merge: two hosts summed', False, out)
    cpus = st.get('cpus', {})
    check('--merge: CPU N is the sum of each input\'s CPU N',
          {c: v.get('count') for c, v in cpus.items()} == {'0': 5000, '1': 5000, '2': 2000},
          out[:500])
    # The second input of 'on an earlier line' is on a CPU that the first
    # lacks: none of its slots can be given twice before its CPUS line
    # disagrees, whatever the seed.
    other = write('cpu5', gen.render({5: [5]}, 3))
    for a, b, why in ((paths[0], paths[0], 'given twice'),
                      (paths[0], other, 'on an earlier line')):
        with open(a, encoding='ascii') as f, open(b, encoding='ascii') as g:
            rc, _, err = run(['-'], stdin=f.read() + g.read())
        check('two inputs concatenated -> exit 2, %s, a hint at --merge' % why,
              rc == 2 and why in err and '--merge' in err, err)
    rc, _, err = run(['--merge', paths[0], os.path.join(TMP, 'absent')])
    check('--merge with a missing input -> exit 1, its name', rc == 1 and 'absent' in err, err)


def free_port():
    with socket.socket() as so:
        so.bind(('127.0.0.1', 0))
        return so.getsockname()[1]


def prom_query(port, query):
    url = 'http://127.0.0.1:%d/api/v1/query?%s' % (
        port, urllib.parse.urlencode({'query': query}))
    with urllib.request.urlopen(url, timeout=5) as r:
        res = json.load(r)
    return res['data']['result'] if res.get('status') == 'success' else []


def test_prometheus(rng):
    """
    The real thing, on loopback only: two node_exporters (two "hosts" with
    different distributions, textfile collector) scraped by Prometheus;
    histogram_quantile() of the sum over both lies within the bounds that
    kstats --merge prints for the same two inputs.
    """
    exe = {x: shutil.which(x) for x in ('prometheus', 'prometheus-node-exporter')}
    if not all(exe.values()):
        check('Prometheus: prometheus and prometheus-node-exporter are installed', False,
              exe)
        return
    hosts = [{c: [int(rng.lognormvariate(9, 0.5)) for _ in range(20000)] for c in range(3)},
             {c: [int(rng.lognormvariate(10.5, 0.8)) for _ in range(10000)] for c in range(2)}]
    inputs = [write('softirq.%d' % i, gen.render(h, 3)) for i, h in enumerate(hosts)]
    procs, ports = [], []
    try:
        for i, path in enumerate(inputs):
            d = tempfile.mkdtemp(dir=TMP)
            for name, extra in (('softirq', []), ('softirq_fine', ['--le-bits', '3'])):
                rc, _, err = run(['--openmetrics', '--input-unit', 'ns', '--per-cpu', '--name', name,
                                  '-o', os.path.join(d, name + '.prom')] + extra + [path])
                if rc:
                    check('Prometheus: kstats --openmetrics -o', False, err)
                    return
            ports.append(free_port())
            procs.append(subprocess.Popen(
                [exe['prometheus-node-exporter'], '--collector.disable-defaults',
                 '--collector.textfile', '--collector.textfile.directory=' + d,
                 '--web.listen-address=127.0.0.1:%d' % ports[-1]],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        port = free_port()
        conf = write('prometheus.yml', 'global:\n  scrape_interval: 1s\n'
                     'scrape_configs:\n  - job_name: kstats\n    static_configs:\n'
                     '      - targets: [%s]\n' % ', '.join("'127.0.0.1:%d'" % p for p in ports))
        procs.append(subprocess.Popen(
            [exe['prometheus'], '--config.file=' + conf,
             '--storage.tsdb.path=' + tempfile.mkdtemp(dir=TMP),
             '--web.listen-address=127.0.0.1:%d' % port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        # Both hosts scraped, every CPU's series there.
        series = []
        deadline = time.time() + 60
        while time.time() < deadline and len(series) != 5:
            time.sleep(1)
            try:
                series = prom_query(port, 'kstats_latency_seconds_count{metric="softirq"}')
            except (OSError, ValueError):
                series = []
        if len(series) != 5:
            check('Prometheus scrapes both node_exporters: 5 series', False, series)
            return
        for q in (0.5, 0.99, 0.999):
            rc, out, _ = run(['--merge', '--json', '-p', '%g' % (q * 100)] + inputs)
            pct = json.loads(out)['percentiles']['%g' % (q * 100)]
            for name, bits in (('softirq_fine', 3), ('softirq', 0)):
                res = prom_query(port, 'histogram_quantile(%g, sum by (le) '
                                 '(kstats_latency_seconds_bucket{metric="%s"}))' % (q, name))
                est = float(res[0]['value'][1]) * 1e9 if res else math.nan
                # Prometheus' bucket of the percentile: (le before, le].
                s = gen.slot_of(pct['lo'], bits)
                lo = gen.slot_max(s - 1, bits) if s else 0
                hi = gen.slot_max(s, bits)
                tol = 1e-9 * hi
                if bits == 3:
                    what = 'within kstats --merge bounds [%d, %d]' % (pct['lo'], pct['hi'])
                    ok = pct['lo'] - 1 - tol <= est <= pct['hi'] + tol
                else:
                    what = 'within the bucket (%d, %d] that holds them' % (lo, hi)
                    ok = lo - tol <= est <= hi + tol and lo < pct['lo'] <= pct['hi'] <= hi
                check('Prometheus: histogram_quantile(%g, sum by (le)) over two hosts, '
                      '--le-bits %d: %.0f, %s' % (q, bits, est, what), ok, res)
    finally:
        for pr in procs:
            pr.terminate()
        for pr in procs:
            try:
                pr.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()


HIST_ROW = re.compile('^ *\\[([^],]+), ([^]]+)\\]( [a-z]+)? \u2502([\u2592\u2591 ]*)\u2502 *(\\d+) +'
                      '([\\d.]+)%(.*)$')


def hist_rows(out):
    """The rows of --hist: [{lo, hi (as printed), dark, light (the bar's
    blocks), count, cum (%), marks (percentiles)}]; and its scale, the
    samples per octave of one dark block (None if not said)."""
    rows = []
    scale = re.search(r'^\u2592 = ([\d.e+-]+) samples per octave', out, re.M)
    for l in out.splitlines():
        m = HIST_ROW.match(l)
        if m:
            # A unit after the range is both bounds' ("[1.024, 1.151] us").
            unit = m[3] or ''
            rows.append({'lo': m[1] + unit, 'hi': m[2] + unit, 'dark': m[4].count('\u2592'),
                         'light': m[4].count('\u2591'), 'width': len(m[4]),
                         'count': int(m[5]), 'cum': float(m[6]),
                         'marks': re.findall(r'p[\d.]+', m[7]), 'unit': unit.strip()})
    return (float(scale[1]) if scale else None), rows


def test_density(rng):
    """Densities: a log-uniform distribution is flat, not a sawtooth."""
    values = [int(2 ** rng.uniform(10, 20)) for _ in range(200000)]
    path = write('loguniform', gen.render({0: values[:100000], 1: values[100000:]}, 3))
    rc, out, _ = run(['--csv', path])
    rows = list(csv.DictReader(io.StringIO(out)))
    inner = [r for r in rows if 2 ** 11 <= int(r['lo']) and int(r['hi']) < 2 ** 19]
    dens = [float(r['per_octave']) for r in inner]
    counts = [int(r['count']) for r in inner]
    ok = rc == 0 and abs(sum(float(r['fraction']) for r in rows) - 1) < 1e-4 and dens
    ok = ok and max(dens) / min(dens) < 1.3 and max(counts) / min(counts) > 1.7
    check('--csv: per_octave of a log-uniform distribution is flat (counts are not)',
          ok, (dens[:20], counts[:20]))
    per_unit = all(abs(float(r['per_unit']) * (int(r['hi']) - int(r['lo']) + 1) -
                       float(r['fraction'])) < 1e-6 for r in rows)
    check('--csv: per_unit is the fraction over the slot width', rc == 0 and per_unit)

    rc, out, _ = run(['--hist', path])
    _, rows = hist_rows(out)
    bars = [r['dark'] for r in rows if 2 ** 11 <= int(r['lo']) and int(r['hi']) < 2 ** 19]
    check('--hist: the density bars of a log-uniform distribution are even',
          rc == 0 and bars and min(bars) >= 0.75 * max(bars), bars)
    cum = [r['cum'] for r in rows]
    marks = [m for r in rows for m in r['marks']]
    t = truth(values)
    where = {m: int(r['lo']) for r in rows for m in r['marks']}
    ok = rc == 0 and rows and cum == sorted(cum) and abs(cum[-1] - 100) < 1e-9
    ok &= sorted(marks) == sorted('p%g' % q for q in PCTS)
    ok &= all(gen.slot_of(where['p%g' % q], 3) == gen.slot_of(t['pct'][q], 3)
              for q in PCTS if 'p%g' % q in where)
    check('--hist: cumulative %, each percentile marked once in its slot\'s row', ok, out[:3000])
    rc, out, _ = run(['--hist', '--log2', path])
    _, rows = hist_rows(out)
    ok = rc == 0 and len(rows) == 10 and sum(r['count'] for r in rows) == len(values)
    ok &= all(int(r['lo']) == 2 ** (10 + i) and int(r['hi']) == 2 ** (11 + i) - 1
              for i, r in enumerate(rows))
    check('--hist --log2: a row per power of 2, every sample', ok, out)
    rc, _, err = run(['--log2', path])
    check('--log2 without --hist -> exit 1', rc == 1 and '--hist' in err, err)
    return path


def test_compare(rng):
    def draw(scale, seed, n=100000):
        r = random.Random(seed)
        return {0: [int(r.lognormvariate(10, 0.5) * scale) for _ in range(n)]}

    a = write('before', gen.render(draw(1.0, 1), 3))
    b = write('after', gen.render(draw(1.05, 2), 3))
    c = write('again', gen.render(draw(1.0, 3), 3))
    d = write('slower', gen.render(draw(1.5, 4), 3))

    def pvalue(out):
        for w in out.split():
            if w.startswith('p-value='):
                return float(w[8:])
        return None

    def rows(out):
        return {l.split()[0]: l for l in out.splitlines()
                if re.match(r'(mean|p[0-9.]+) ', l)}

    def change(row):
        return float(row.split()[3].rstrip('%'))
    rc, out, _ = run(['--compare', a, b])
    p = pvalue(out)
    r = rows(out)
    check('compare: a 5%% shift on 1e5 samples is found (p=%s)' % p,
          rc == 0 and p is not None and p < 0.01 and 'mean' in r and
          3 < change(r['mean']) < 7, out)
    check('compare: the 5% shift of the mean lies outside its interval (no ~)',
          'mean' in r and not r['mean'].endswith('~'), out)
    heads = out.splitlines()[0].split()
    def names(h, f):
        return h == f or (h.startswith('...') and f.endswith(h[3:]) and
                          len(h) >= 14)
    check('compare: the column heads are the file names (a long one: its end)',
          len(heads) > 2 and names(heads[0], a) and names(heads[1], b), heads)
    # Two paths that end alike: heads cut in the middle (start~end), apart.
    same = []
    for run_dir, src in (('run_before_the_patch', a), ('run_after_the_patch', b)):
        os.makedirs(os.path.join(TMP, run_dir), exist_ok=True)
        with open(src, encoding='ascii') as f:
            same.append(write(os.path.join(run_dir, 'blk_mq_submit_bio_and_its_long_name'),
                              f.read()))
    rc, out, _ = run(['--compare'] + same)
    heads = out.splitlines()[0].split() if rc == 0 else []

    def cut_of(h, f):
        pre, _, post = h.partition('~')
        return h == f or ('~' in h and f.startswith(pre) and f.endswith(post))
    check('compare: paths that end alike head their columns apart, each a cut of its '
          'path', len(heads) > 2 and heads[0] != heads[1] and cut_of(heads[0], same[0]) and
          cut_of(heads[1], same[1]), heads)
    check('compare: D is explained in words',
          'the largest gap between the two CDFs' in out and 'independent' in out, out)
    # A path against itself, or two that differ only deep in the middle:
    # no width tells them apart, so the columns stay 30 wide.
    deep = []
    for run_dir in ('run_of_a_kernel_with_a_very_long_name_%s_and_the_same_end_of_a_name'
                    '_long_enough_to_keep_it_from_any_head_of_60' % x
                    for x in 'ab'):
        os.makedirs(os.path.join(TMP, run_dir), exist_ok=True)
        with open(same[0], encoding='ascii') as f:
            deep.append(write(os.path.join(run_dir, 'f'), f.read()))
    for pair, what in (([same[0], same[0]], 'a path against itself'),
                       (deep, 'paths apart only deep in the middle')):
        rc, out, _ = run(['--compare'] + pair)
        head = out.splitlines()[0] if rc == 0 else ''
        check('compare: %s: the columns not widened (heads of 30)' % what,
              rc == 0 and [len(h) for h in head.split()[:2]] == [30, 30], head)
    rc, out, _ = run(['--compare', a, c])
    p = pvalue(out)
    r = rows(out)
    check('compare: two draws of one distribution differ by noise (p=%s)' % p,
          rc == 0 and p is not None and p > 0.01, out)
    check('compare: two draws of one distribution: every change is marked ~',
          len(r) == 1 + len(PCTS) and all(l.endswith('~') for l in r.values()), out)
    rc, out, _ = run(['--compare', a, d])
    r = rows(out)
    check('compare: a 50% shift: no change is marked ~',
          rc == 0 and len(r) == 1 + len(PCTS) and
          not any(l.endswith('~') for l in r.values()), out)
    # Far in the tail of Kolmogorov's distribution, where exp() underflows.
    check('compare: a 50%% shift on 1e5 samples is different (p=%s)' % pvalue(out),
          pvalue(out) is not None and pvalue(out) < 1e-6 and
          '(different, at 1%)' in out, out)
    e = write('disjoint', gen.render({0: [5] * 2000}, 3))
    f = write('disjoint2', gen.render({0: [5000] * 2000}, 3))
    rc, out, _ = run(['--compare', e, f])
    check('compare: two disjoint distributions are different (p=%s)' % pvalue(out),
          rc == 0 and pvalue(out) == 0 and 'D=1.000000' in out, out)
    small = write('small', gen.render(draw(1.0, 5, 500), 3))
    rc, out, _ = run(['--compare', small, a])
    r = rows(out)
    check('compare: p99.9 of 500 samples: too few for an interval, not marked',
          rc == 0 and 'too few samples' in r.get('p99.9', '') and
          not r.get('p99.9', '').endswith('~') and '[' in r.get('p50', ''), out)
    # Zeros: a percentile of 0 prints its change in absolute terms.
    z = write('zeros', gen.render({0: [0] * 900 + [100] * 100}, 3))
    y = write('ones', gen.render({0: [1] * 900 + [100] * 100}, 3))
    rc, out, _ = run(['--compare', z, y])
    check('compare: values of 0 print no inf or nan',
          rc == 0 and not re.search(r'\b(inf|nan)\b', out, re.I) and '(A is 0)' in out, out)
    # #43, 7: the change to the precision its interval supports: whole
    # points where it spans 10 or more, one decimal from 1, two below.
    la = write('logn_a', gen.render({0: [int(rng.lognormvariate(9, 1)) for _ in range(5000)]}, 3))
    lb = write('logn_b', gen.render({0: [int(rng.lognormvariate(9, 1)) for _ in range(5000)]}, 3))
    rc, out, _ = run(['--compare', la, lb])
    bad = []
    for name, row in rows(out).items():
        ch = row.split()[3]
        iv = re.search(r'\[([-+][\d.]+)%, ([-+][\d.]+)%\]', row)
        if not iv:
            continue
        span = float(iv.group(2)) - float(iv.group(1))
        dec = len(ch.rstrip('%').partition('.')[2])
        if dec != (0 if span >= 10 else 1 if span >= 1 else 2) or ch in ('-0%', '-0.0%'):
            bad.append(row)
    check('compare: each change to what its interval supports (whole points where it '
          'spans 10, no "-0%")', rc == 0 and rows(out) and not bad, bad or out)
    # A mean of 0 against one of 0.5 (sizes, not nanoseconds): B's mean
    # with its digits, the change in absolute terms, "~" as the printed
    # interval holds 0 or not.
    z = write('zeros', gen.render({0: [0] * 1000}, 3))
    h = write('halves', gen.render({0: [0] * 500 + [1] * 500}, 3))
    rc, out, _ = run(['--compare', z, h])
    m = rows(out).get('mean', '').split()
    iv = re.search(r'\[(-?[\d.]+), (-?[\d.]+)\]', ' '.join(m))
    check('compare: A\'s mean 0, B\'s 0.5: "0.5", the change "+0.5", "~" as its interval',
          rc == 0 and m[1:4] == ['0', '0.5', '+0.5'] and m[-3:] == ['(A', 'is', '0)'] and iv and
          (('~' in m) == (float(iv.group(1)) <= 0 <= float(iv.group(2)))), out)
    # One huge sample in A: the normal interval of the mean would reach
    # below -100% (B's mean below 0) and past B's largest slot.
    o = write('outlier', gen.render({0: [100, 120, 10 ** 9]}, 3))
    q = write('quiet', gen.render({0: [100, 110, 105]}, 3))
    rc, out, _ = run(['--compare', o, q])
    m = re.search(r'^mean .*\[([-+][0-9.]+)%, ([-+][0-9.]+)%\]', out, re.M)
    # The mean's change is a ratio: its interval from the log of B's mean
    # over A's. Four samples near 2^64 against 10000 of about 2.5 us: a
    # change of -100% to within 0.1%, both ends; 3 outliers of 10 ms in A:
    # wide, but nowhere near -100%, as B's mean is known to 1%.
    tiny = [int(rng.lognormvariate(7.8, 0.3)) for _ in range(10000)]
    tb = write('tiny', gen.render({0: tiny}, 3))
    huge = write('huge4', gen.render({0: [2 ** 64 - k * 1000 for k in (1, 3, 4, 5)]}, 3))
    mid = write('mid3', gen.render({0: tiny[:9997] + [10 ** 7] * 3}, 3))
    ends = []
    for x in (huge, mid):
        rc, out, _ = run(['--compare', x, tb])
        m = re.search(r'^mean .*\[([-+][0-9.]+)%, ([-+][0-9.]+)%\]', out, re.M)
        ends.append((float(m.group(1)), float(m.group(2))) if rc == 0 and m else None)
    check('compare: the interval of the mean change is that of a ratio: [-100%%, -99.9%%] '
          'for A 10^15 times B, and far from -100%% where B is known (%s)' % (ends,),
          ends[0] is not None and ends[0][0] >= -100 and ends[0][1] <= -99.9 and
          ends[1] is not None and -95 < ends[1][0] < -40 < ends[1][1] < 0, ends)
    check('compare: the interval of the mean stays within what values can be '
          '(not below -100%, not above B\'s largest slot less A\'s least)',
          rc == 0 and m is not None and float(m.group(1)) >= -100 and
          float(m.group(2)) * 333333407 / 100 <= 111 - 96 + 1, out)
    # Percentiles: the change is B's over A's, each within its interval,
    # so never below -100%; a bound that rounds to 0 gets more decimals
    # (-0.04%, not -0.0%), and "~" is there if and only if the printed
    # interval holds 0. A at bits 1 (wide slots) against B at bits 3.
    r = random.Random(7)
    wa = write('wide-a', gen.render({0: [int(r.lognormvariate(8, 1)) for _ in range(5000)]}, 1))
    nb = write('narrow-b', gen.render({0: [int(r.lognormvariate(7.6, 1))
                                           for _ in range(80000)]}, 3))
    rc, out, _ = run(['--compare', '--input-unit', 'ns', wa, nb])
    rows = re.findall(r'^(p[\d.]+) .*\[([-+][0-9.]+)%, ([-+][0-9.]+)%\]( +~)?$', out, re.M)
    check('compare: percentile intervals above -100%, no bound printed as -0.0%, "~" '
          'exactly where the printed interval holds 0 (A at bits 1, B at bits 3)',
          rc == 0 and len(rows) >= 4 and
          all(float(lo) > -100 and float(hi) <= 0 for _, lo, hi, _ in rows) and
          not re.search(r'[-+]0\.0%', out) and
          all(bool(t) == (float(lo) <= 0 <= float(hi)) for _, lo, hi, t in rows), out)


def follow_reads(args, snapshots):
    """
    kstats ARGS PATH (with --interval and --count) where each read of
    PATH gets the next of SNAPSHOTS, in step with the tool's reads and not
    with time: PATH is a FIFO, whose open by the tool waits for a writer;
    the FIFO of the next read replaces PATH before the current one is
    closed, so that the tool cannot read one twice. None in SNAPSHOTS:
    PATH is removed until the tool says it waits for it. After the last,
    PATH is a regular file of it. Returns the status (-9 on a hang),
    the standard output and error, and what went wrong in the feeding
    ('' if nothing).
    """
    d = tempfile.mkdtemp(dir=TMP)
    path, errpath = os.path.join(d, 'live'), os.path.join(d, 'err')
    os.mkfifo(path)
    stop = threading.Event()
    fed = []

    def writer():
        """The write end of PATH once the tool opens it, or None if stopped."""
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

    def said(text):
        with open(errpath, encoding='ascii', errors='replace') as f:
            return text in f.read()

    def feed():
        try:
            for i, text in enumerate(snapshots):
                if text is None:
                    while not said('waiting for it'):
                        if stop.wait(0.01):
                            fed.append('the tool never said it waits for the metric')
                            return
                    os.mkfifo(path)
                    continue
                fd = writer()
                if fd is None:
                    fed.append('snapshot %d of %d not read' % (i + 1, len(snapshots)))
                    return
                try:
                    data = text.encode('ascii')
                    while data:
                        data = data[os.write(fd, data):]
                    # What the next read finds, in place before this one ends.
                    if i + 1 == len(snapshots):
                        with open(path + '.tmp', 'w', encoding='ascii') as f:
                            f.write(text)
                        os.rename(path + '.tmp', path)
                    elif snapshots[i + 1] is None:
                        os.unlink(path)
                    else:
                        os.mkfifo(path + '.tmp')
                        os.rename(path + '.tmp', path)
                finally:
                    os.close(fd)
        except OSError as e:
            fed.append('feeding: %s' % e)

    with open(errpath, 'w', encoding='ascii') as errf:
        th = threading.Thread(target=feed, daemon=True)
        th.start()
        try:
            p = subprocess.run([KSTATS] + args + [path], stdout=subprocess.PIPE,
                               stderr=errf, text=True, check=False, timeout=HANG)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc, out = -9, e.stdout or ''
            out = out.decode() if isinstance(out, bytes) else out
            fed.append('kstats still running after %d s: killed' % HANG)
    stop.set()
    th.join()
    with open(errpath, encoding='ascii', errors='replace') as f:
        err = f.read()
    return rc, out, err, '; '.join(fed)


def test_man_examples():
    """Each example of kstats.1 that runs kstats on its inputs (not trace,
    top, or a shell's line) takes its options: no usage error."""
    man = os.path.join(os.path.dirname(KSTATS), 'kstats.1')
    with open(man, encoding='utf-8') as f:
        text = f.read()
    ex = text[text.index('.SH EXAMPLES'):]
    ex = ex[:ex.index('.SH', 4)]
    bad, n = [], 0
    for line in ex.splitlines():
        line = line.replace('\\-', '-')
        if not line.startswith('kstats ') or any(c in line for c in '|;&>') or \
                line.split()[1] in ('trace', 'top'):
            continue
        n += 1
        args = shlex.split(line)[1:]
        # Its -o FILE here, not in the system's directories.
        args = [os.path.join(TMP, 'example.out') if i and args[i - 1] == '-o' else a
                for i, a in enumerate(args)]
        rc, _, err = run(args)
        if rc == 1 and "Try 'kstats --help'" in err:
            bad.append((line, err))
    check('kstats.1: its %d examples of kstats on inputs take their options' % n,
          n >= 5 and not bad, bad)


def test_group_diff(rng):
    """#43: --diff OLD NEW of two snapshots of a group's directory: the
    table of what each function recorded between them (from _summary),
    each function as --diff of its files has it; a function new in NEW
    counted whole, one reset from nothing, one gone not listed: said."""
    def draw(mu, n):
        return [int(rng.lognormvariate(mu, 1)) for _ in range(n)]
    old = {'vfs_read': {0: draw(8, 1000)}, 'vfs_write': {0: draw(9, 500), 1: draw(9, 300)},
           'gone_fn': {0: draw(7, 10)}, 'reset_fn': {0: draw(8, 50)}}
    new = {f: {c: list(v) for c, v in by_cpu.items()} for f, by_cpu in old.items()
           if f != 'gone_fn'}
    new['vfs_read'][0] += draw(10, 400)
    new['vfs_write'][1] += draw(9, 20)
    new['reset_fn'] = {0: draw(8, 5)}
    new['new_fn'] = {1: draw(7, 7)}
    d = tempfile.mkdtemp(dir=TMP)
    do, dn = os.path.join(d, 'old', 'grp'), os.path.join(d, 'new', 'grp')
    gen.write_group(do, old, 1)
    gen.write_group(dn, new, 1)
    rc, out, err = run(['--diff', do, dn])
    lines = out.splitlines()
    counts = {l.split()[0]: int(l.split()[1]) for l in lines[2:] if l.split()}
    check('--diff OLD_DIR NEW_DIR: the table of the samples between them, a row per '
          'function of NEW (one new counted whole, one reset from nothing), none of OLD only',
          rc == 0 and
          lines[:1] == ['group grp functions 4 sort total bits 1 (slots at most 50% wide)'] and
          lines[1].split()[:2] == ['function', 'count'] and 'rate/s' not in lines[1] and
          counts == {'vfs_read': 400, 'vfs_write': 20, 'reset_fn': 5, 'new_fn': 7},
          out + err)
    check('--diff OLD_DIR NEW_DIR: the reset and the function gone said on standard error',
          'kstats: --diff: 1 function with a slot of fewer samples in %s than in %s' % (dn, do)
          in err and 'counted from nothing: reset_fn\n' in err and
          'kstats: --diff: 1 function of %s not in %s (not listed): gone_fn\n' % (do, dn) in err
          and err.count('\n') == 3, err)
    check('--diff OLD_DIR NEW_DIR: a function new in NEW said, counted whole',
          'kstats: --diff: 1 function of samples in %s and none in %s (new, or first called), '
          'counted whole: new_fn\n' % (dn, do) in err, err)
    # OLD's _summary cut short (an interrupted copy): its functions with
    # a file of samples and no line said, not counted silently whole.
    cut = os.path.join(d, 'cut', 'grp')
    gen.write_group(cut, old, 1)
    with open(os.path.join(cut, '_summary'), encoding='ascii') as f:
        lines = f.readlines()
    kept = lines[:len(lines) // 2]
    with open(os.path.join(cut, '_summary'), 'w', encoding='ascii') as f:
        f.writelines(kept)
    lost = sorted({ln.split()[1] for ln in lines} - {ln.split()[1] for ln in kept})
    rc2, _, err2 = run(['--diff', cut, dn])
    check('--diff OLD_DIR NEW_DIR, OLD\'s _summary cut short: its %d functions with a file of '
          'samples and no line said' % len(lost), lost and
          '--diff: %s: %d function%s with a file of samples and no line in its _summary' %
          (cut, len(lost), 's' if len(lost) > 1 else '') in err2 and
          all(f in err2.split('copied?):')[1].split('\n')[0] for f in lost), (rc2, err2))
    rc, out, _ = run(['--diff', '--json', do, dn])
    funcs = json.loads(out)['functions'] if rc == 0 else {}
    same = []
    for f in ('vfs_read', 'vfs_write', 'new_fn'):
        # A function new in NEW: all of its file.
        rc2, out2, err2 = run(['--json', os.path.join(dn, f)] if f == 'new_fn' else
                              ['--diff', '--json', os.path.join(do, f), os.path.join(dn, f)])
        want = json.loads(out2) if rc2 == 0 else {'error': err2}
        want.pop('cpus', None)
        got = dict(funcs.get(f, {}))
        got.pop('cpus', None)
        same.append(got == want or (f, got, want))
    check('--diff --json OLD_DIR NEW_DIR: each function as --diff of its two files has it '
          '(all CPUs)', rc == 0 and sorted(funcs) == ['new_fn', 'reset_fn', 'vfs_read',
                                                        'vfs_write'] and
          all(x is True for x in same), same)
    rc, out, err = run(['-s', 'rate', dn])
    check('kstats -s rate DIR -> exit 1: a snapshot\'s table has no rate/s column',
          rc == 1 and not out and '--sort rate: only for a table with a rate/s column' in err,
          (rc, out, err))
    rc, out, _ = run(['--diff', '-s', 'count', '-n', '2', do, dn])
    check('--diff -s count -n 2 OLD_DIR NEW_DIR: the 2 functions of the most samples',
          rc == 0 and [l.split()[0] for l in out.splitlines()[2:]] == ['vfs_read', 'vfs_write'],
          out)
    rc, out, _ = run(['--diff', '--csv', do, dn])
    check('--diff --csv OLD_DIR NEW_DIR: rows led by the function',
          rc == 0 and out.startswith('function,') and
          {l.split(',')[0] for l in out.splitlines()[1:]} ==
          {'vfs_read', 'vfs_write', 'reset_fn', 'new_fn'}, out)
    rc, out, _ = run(['--diff', '--hist', do, dn])
    rc2, out2, _ = run(['--diff', '--hist', do, do])
    check('--diff --hist OLD_DIR NEW_DIR: each function\'s histogram; of a function '
          'without samples between them, "no samples", not a legend over no rows',
          rc == 0 and out.count('function ') == 4 and out.count('  range ') == 4 and
          rc2 == 0 and out2.rstrip('\n').split('\n\n') ==
          ['function %s\nno samples' % f for f in sorted(old)] and
          'range' not in out2, (out, out2))
    coarse = os.path.join(d, 'coarse', 'grp')
    gen.write_group(coarse, new, 3)
    for args, code, what in ((['--per-cpu', do, dn], 1, '--diff of groups: not --per-cpu'),
                             (['--hgrm', do, dn], 1, '--diff --hgrm: of one function\'s '
                              'file (DIR/FUNC), not of a group'),
                             (['--bits', '3', do, dn], 2, '%s: inconsistent input: its '
                              '_summary has bits 1, not 3 (--bits)' % do),
                             ([do, os.path.join(dn, 'vfs_read')], 1,
                              '--diff: two groups (directories), or two metrics'),
                             (['-s', 'count', os.path.join(do, 'vfs_read'),
                               os.path.join(dn, 'vfs_read')], 1, '--sort: only for the table'),
                             ([do, coarse], 2, 'frac_bits 1 in %s, 3 in %s' % (do, coarse)),
                             (['-s', 'rate', do, dn], 1,
                              '--sort rate: only for a table with a rate/s column'),
                             # reset_fn's 5 samples and 50 may have a slot either way.
                             ([dn, do], 2, ' of 3 functions have a slot of fewer '
                              'samples than in %s: not a later snapshot' % dn),
                             (['--openmetrics', '--series-max', '10', do, dn], 1,
                              'more than --series-max 10'),
                             ([os.path.join(d, 'nope'), dn], 1,
                              '%s: No such file or directory' % os.path.join(d, 'nope'))):
        rc, out, err = run(['--diff'] + args)
        check('--diff %s -> exit %d, "%s"' % (' '.join(a.replace(d, 'D') for a in args), code,
                                               what.replace(d, 'D')),
              rc == code and not out and what in err, (rc, out, err))


def test_group_merge(rng):
    """#43: --merge of groups' directories (runs, hosts): the table of
    each function summed over the groups that have it, at the coarsest
    frac_bits (said), each function as --merge of its files has it."""
    def draw(mu, n):
        return [int(rng.lognormvariate(mu, 1)) for _ in range(n)]
    a = {'f1': {0: draw(8, 1000)}, 'f2': {1: draw(6, 30)}, 'only_a': {0: draw(5, 3)}}
    b = {'f1': {0: draw(9, 600), 2: draw(9, 50)}, 'f2': {0: draw(6, 20)},
         'only_b': {1: draw(5, 4)}}
    d = tempfile.mkdtemp(dir=TMP)
    da, db = os.path.join(d, 'host1', 'grp'), os.path.join(d, 'host2', 'grp')
    gen.write_group(da, a, 1)
    gen.write_group(db, b, 3)
    rc, out, err = run(['--merge', da, db])
    lines = out.splitlines()
    counts = {l.split()[0]: int(l.split()[1]) for l in lines[2:] if l.split()}
    check('--merge DIR_A DIR_B: the table of each function summed over both (one of one '
          'group whole), at the coarsest frac_bits, said',
          rc == 0 and
          lines[:1] == ['group grp functions 4 sort total bits 1 (slots at most 50% wide)'] and
          counts == {'f1': 1650, 'f2': 50, 'only_a': 3, 'only_b': 4} and
          err == 'kstats: --merge: the groups\' frac_bits differ: %s has 1, %s has 3; merged '
          'at frac_bits 1, the coarsest (exact: each of its slots is a union of finer '
          'ones)\n' % (da, db), out + err)
    # The finer group first: its rows made coarser too.
    rc, out, _ = run(['--merge', '--json', db + '/', da])
    doc = json.loads(out) if rc == 0 else {}
    same = []
    for f in ('f1', 'f2'):
        rc2, out2, err2 = run(['--merge', '--json', os.path.join(db, f), os.path.join(da, f)])
        want = json.loads(out2) if rc2 == 0 else {'error': err2}
        want.pop('cpus', None)
        got = dict(doc.get('functions', {}).get(f, {}))
        got.pop('cpus', None)
        same.append(got == want or (f, got, want))
    check('--merge --json DIR_B/ DIR_A: the group named as both are, each function as '
          '--merge of its files has it (all CPUs)', rc == 0 and doc.get('group') == 'grp' and
          all(x is True for x in same), same)
    other = os.path.join(d, 'other')
    gen.write_group(other, a, 1)
    rc, out, _ = run(['--merge', '-s', 'count', '-n', '1', da, other])
    check('--merge -s count -n 1 of groups of different names: "merged", the function of '
          'the most samples', rc == 0 and out.splitlines()[0].startswith('group merged ') and
          [l.split()[0] for l in out.splitlines()[2:]] == ['f1'], out)
    for args, what in (([da, os.path.join(db, 'f1')], 'groups (directories) or metrics, '
                        'not both'),
                       (['--openmetrics', '--series-max', '10', da, db],
                        'more than --series-max 10'),
                       (['--per-cpu', da, db], '--merge of groups: not --per-cpu'),
                       ([da, os.path.join(d, 'nope')], '%s: No such file or directory'
                        % os.path.join(d, 'nope')),
                       (['-n', '1', os.path.join(da, 'f1'), os.path.join(db, 'f1')],
                        '--lines: only for the table')):
        rc, out, err = run(['--merge'] + args)
        check('--merge %s -> exit 1, "%s"' % (' '.join(x.replace(d, 'D') for x in args), what),
              rc == 1 and not out and what in err, (rc, out, err))


def test_group_compare(rng):
    """#43: A/B of a whole group: kstats --compare DIR_A DIR_B compares every
    function of both, a row each, the significant change first; --json of
    it; --fail-if STAT>N% exits 3 naming the functions whose change's
    interval lies beyond N%."""
    def draw(mu, n):
        return [int(rng.lognormvariate(mu, 0.5)) for _ in range(n)]
    a = {'vfs_read': {0: draw(8, 3000)}, 'vfs_write': {1: draw(9, 3000)},
         'vfs_open': {0: draw(7, 2000)}, 'only_in_a': {0: draw(7, 100)}}
    b = {'vfs_read': {0: draw(8, 3000)}, 'vfs_write': {1: [int(v * 1.5) for v in draw(9, 3000)]},
         'vfs_open': {0: draw(7, 2000)}, 'only_in_b': {0: draw(7, 100)}}
    d = tempfile.mkdtemp(dir=TMP)
    da, db = os.path.join(d, 'A'), os.path.join(d, 'B')
    gen.write_group(da, a, 3)
    gen.write_group(db, b, 3)
    rc, out, err = run(['--compare', da, db])
    rows = [l.split() for l in out.splitlines()[1:4]]
    ok = rc == 0 and [r[0] for r in rows[:1]] == ['vfs_write'] and \
        sorted(r[0] for r in rows) == ['vfs_open', 'vfs_read', 'vfs_write'] and \
        '~' not in ' '.join(rows[0]) and 'in %s only (1): only_in_a\n' % da in out and \
        'in %s only (1): only_in_b\n' % db in out and \
        out.splitlines()[0].split()[-5:] == ['mean', 'p50', 'p99', 'ks', 'p']
    check('--compare DIR_A DIR_B: a row per function of both (mean, p50, p99), the '
          'regressed one first, its changes significant (no ~), those of one group named',
          ok, out + err)
    rc, out, err = run(['--compare', '-u', 'ms', da, db])
    row = [l.split() for l in out.splitlines() if l.startswith('vfs_write ')]
    want = sum(a['vfs_write'][1]) / 3000 / 1e6
    ok = rc == 0 and len(row) == 1 and row[0][4] == 'ms' and \
        abs(float(row[0][3]) - want) <= want * 0.005 and row[0][5].startswith('+')
    check('--compare -u ms DIR_A DIR_B: each cell starts with A\'s value in ms (vfs_write\'s '
          'mean %.4g ms), then the change' % want, ok, out + err)
    # The changes start in one column, the values end in one, down the table.
    body = [l for l in out.splitlines() if l.split()[:1] in (['vfs_write'], ['vfs_read'],
                                                             ['vfs_open'])]
    starts = {tuple(m.start() for m in re.finditer(r' [-+]\d+(\.\d+)?% \[', l)) for l in body}
    ends = {tuple(m.end() for m in re.finditer(r'\d ms(?= [-+])', l)) for l in body}
    check('--compare DIR_A DIR_B: A\'s values right aligned, the changes left aligned, in '
          'each column', len(body) == 3 and len(starts) == 1 and len(ends) == 1 and
          len(next(iter(starts))) == 3, out)
    rc, out, err = run(['--compare', '--json', '-p', '99', da, db])
    try:
        fs = json.loads(out)['functions']
    except (ValueError, KeyError):
        fs = {}
    try:
        js = json.loads(out)
    except ValueError:
        js = {}
    check('--compare --json DIR_A DIR_B: each function, its p99 and mean with the '
          'change and its interval (in % too), ks_p; those of one group',
          rc == 0 and sorted(fs) == ['vfs_open', 'vfs_read', 'vfs_write'] and
          fs['vfs_write']['p99']['same'] is False and fs['vfs_write']['ks_p'] < 0.01 and
          fs['vfs_write']['count_a'] == 3000 and
          fs['vfs_write']['p99']['lo_pct'] > 0 and
          abs(fs['vfs_write']['mean']['change_pct'] - 50) < 5 and
          js.get('only_a') == ['only_in_a'] and js.get('only_b') == ['only_in_b'],
          out[:800] + err)
    # Functions of different frac_bits: compared at the coarser, said with
    # the inputs, the count and a function's two bits.
    fine = os.path.join(d, 'FINE')
    gen.write_group(fine, a, 1)
    rc2, _, err2 = run(['--compare', fine, db])
    check('--compare DIR_A DIR_B of frac_bits 1 and 3: "%d functions of different frac_bits '
          'in A and B compared at the coarser (F: 1 and 3)"' % len(set(a) & set(b)),
          rc2 == 0 and re.search(r'--compare: %d functions of different frac_bits in %s and %s '
                                 r'compared at the coarser \(\S+: 1 and 3\)' %
                                 (len(set(a) & set(b)), re.escape(fine), re.escape(db)), err2),
          err2)
    # A copy of _summary alone: --compare reads each function's file, and
    # would compare none; an error, not a gate passed.
    only = os.path.join(d, 'only')
    os.makedirs(only)
    shutil.copy(os.path.join(da, '_summary'), only)
    rc2, out2, err2 = run(['--compare', '--fail-if', 'mean>+1%', only, db])
    check('--compare --fail-if DIR_A DIR_B, DIR_A a copy of _summary alone -> exit 2, "%d '
          'functions of its _summary without a file"' % len(a),
          rc2 == 2 and not out2 and '--compare: %s: %d functions of its _summary without a '
          'file' % (only, len(a)) in err2, (rc2, out2, err2))
    # A _summary cut mid-line in a copy: --compare does not read it, and
    # compares the files as before.
    cutsum = os.path.join(d, 'CUTSUM')
    shutil.copytree(da, cutsum)
    with open(os.path.join(cutsum, '_summary'), 'r+', encoding='ascii') as f:
        f.truncate(len(f.read()) // 2 + 3)
    rc2, out2, err2 = run(['--compare', '--json', cutsum, db])
    whole = run(['--compare', '--json', da, db])[1]
    try:
        same = json.loads(out2)['functions'] == json.loads(whole)['functions']
    except (ValueError, KeyError):
        same = False
    check('--compare DIR_A DIR_B, DIR_A\'s _summary cut mid-line: compared from the files, '
          'as of the whole copy', rc2 == 0 and same and not err2, (rc2, err2, out2[:300]))
    # Every sample 7 in A and 13 in B (exact slots): the change is 6
    # exactly, +85.714285...%; its interval's bounds rounded outwards to
    # 3 decimals, as the text's are to its digits: [85.714, 85.715].
    ga, gb = os.path.join(d, 'GA'), os.path.join(d, 'GB')
    gen.write_group(ga, {'f': {0: [7] * 1000}}, 3)
    gen.write_group(gb, {'f': {0: [13] * 1000}}, 3)
    rc2, out2, err2 = run(['--compare', '--json', '-p', '99', ga, gb])
    try:
        f = json.loads(out2)['functions']['f']
    except (ValueError, KeyError):
        f = {}
    check('--compare --json DIR_A DIR_B: lo_pct and hi_pct rounded outwards (+6 of 7: '
          '85.714, 85.715)', rc2 == 0 and
          [(f[k]['lo_pct'], f[k]['hi_pct'], f[k]['change_lo'], f[k]['change_hi'])
           for k in ('mean', 'p99')] == [(85.714, 85.715, 6, 6)] * 2, (out2, err2))
    # A change of the mean significant by a hair (its interval's end
    # 0.0002% off 0): that bound kept off 0, with its sign, as the text
    # keeps it ([+0.0002, ...]), not 0.000 beside "same":false.
    near = random.Random(1)
    base = [near.randint(1000000, 1100000) for _ in range(20000)]
    gen.write_group(os.path.join(d, 'NA'), {'f': {0: base}}, 6)
    signs = []
    for shift in (578, -578):
        gen.write_group(os.path.join(d, 'NB'), {'f': {0: [v + shift for v in base]}}, 6)
        rc2, out2, _ = run(['--compare', '--json', '-p', '50', os.path.join(d, 'NA'),
                            os.path.join(d, 'NB')])
        try:
            m = json.loads(out2)['functions']['f']['mean']
            signs.append((m['same'], m['lo_pct'] > 0 if shift > 0 else m['hi_pct'] < 0,
                          m['change_lo'] > 0 if shift > 0 else m['change_hi'] < 0))
        except (ValueError, KeyError):
            signs.append(out2)
    check('--compare --json: a bound within 0.0005 of 0 kept off 0, its sign kept '
          '(+578 and -578 of 1.05e6: lo_pct > 0, hi_pct < 0, "same":false)',
          signs == [(False, True, True)] * 2, signs)
    rc, out, err = run(['--compare', '-p', '50,99', '--fail-if', 'p99>+5%',
                        '--fail-if', 'mean>+10%', da, db])
    named = re.findall(r'--fail-if (\S+): (\S+) changed', err)
    # The interval said is the table's, rounded outwards as it is.
    said = {k: v for k, v in re.findall(r'--fail-if (\w+)[<>]\S*: vfs_write changed by \S+ '
                                        r'(\[[-+\d.]+%, [-+\d.]+%\])', err)}
    row = next((l for l in out.splitlines() if l.startswith('vfs_write ')), '')
    cells = re.findall(r'\[[-+\d.]+, [-+\d.]+\]', row)
    check('--compare --fail-if: the interval said on stderr is the table\'s (%s)' % said,
          len(cells) == 3 and said.get('mean', '').replace('%', '') == cells[0] and
          said.get('p99', '').replace('%', '') == cells[2], (said, row))
    # The change too, to the table's decimals (+60%, not +59.7%).
    changes = dict(re.findall(r'--fail-if (\w+)[<>]\S*: vfs_write changed by (\S+) ', err))
    shown = re.findall(r'([-+][\d.]+%) \[', row)
    check('--compare --fail-if: the change said on stderr as the table prints it (%s, %s)'
          % (changes, shown), len(shown) == 3 and changes.get('mean') == shown[0] and
          changes.get('p99') == shown[2], (err, row))
    # Blanks in a rule, as in PromQL; the rule said without them.
    rc2, out2, err2 = run(['--compare', '-p', '50,99', '--fail-if', ' p99 > +5 % ',
                           '--fail-if', 'mean>+10%', da, db])
    check('--compare --fail-if \' p99 > +5 % \': as \'p99>+5%\'',
          rc2 == rc and out2 == out and err2 == err, (rc2, err2))
    # A rule that no function can be tested by says so; the status is 0.
    rc2, out2, err2 = run(['--compare', '-p', '99.99', '--fail-if', 'p99.99>+5%', da, db])
    check('--compare -p 99.99 --fail-if \'p99.99>+5%\' of 2000 to 3000 samples (too few for '
          'its interval): "not tested for 3 of 3 functions" on stderr, exit 0',
          rc2 == 0 and err2 == 'kstats: --fail-if p99.99>+5%: not tested for 3 of 3 '
          'functions: no samples in A or B, or too few for an interval\n', (rc2, err2))
    check('--compare DIRs --fail-if \'p99>+5%\' --fail-if \'mean>+10%\': exit 3, each '
          'rule naming the regressed function only',
          rc == 3 and sorted(named) == [('mean>+10%', 'vfs_write'), ('p99>+5%', 'vfs_write')],
          (rc, err))
    rc, out, err = run(['--compare', '--fail-if', 'mean>+70%', da, db])
    check('--compare DIRs --fail-if \'mean>+70%\', above the interval of the change '
          '(about +50%): exit 0', rc == 0 and 'fail-if' not in err, (rc, err))
    rc, out, err = run(['--compare', '-p', '50,99', '--fail-if', 'p99<-5%', da, db])
    check('--compare DIRs --fail-if \'p99<-5%\' (nothing got faster): exit 0',
          rc == 0 and 'fail-if' not in err, (rc, err))
    rc, out, err = run(['--compare', '--fail-if', 'mean>+70%', os.path.join(da, 'vfs_write'),
                        os.path.join(db, 'vfs_write')])
    rc2, out2, err2 = run(['--compare', '--fail-if', 'mean>+20%',
                           os.path.join(da, 'vfs_write'), os.path.join(db, 'vfs_write')])
    check('--compare A B --fail-if: 0 under the threshold (+70%), 3 over it (+20%)',
          rc == 0 and rc2 == 3 and 'vfs_write changed by +' in err2, (rc, err, rc2, err2))
    for args, what in ((['--fail-if', 'p99>5%', da], 'only with --compare'),
                       (['--compare', '--fail-if', 'p42>5%', da, db], 'not mean or a percentile'),
                       (['--compare', '--fail-if', 'p99>5', da, db], 'is a percentage'),
                       (['--compare', da, os.path.join(db, 'vfs_read')], 'two groups'),
                       (['--compare', '--json', os.path.join(da, 'vfs_read'),
                         os.path.join(db, 'vfs_read')], 'of two groups')):
        rc, out, err = run(args)
        check('usage: kstats %s -> exit 1, "%s"' % (' '.join(a if '/' not in a else
                                                               os.path.basename(a)
                                                               for a in args), what),
              rc == 1 and not out and what in err, err)
    # A's mean 0 in a group's row: the absolute change, B's 0.5 with its
    # digits, ~ as its interval holds 0, marked (A is 0).
    za, zb = os.path.join(d, 'ZA'), os.path.join(d, 'ZB')
    gen.write_group(za, {'zero': {0: [0] * 200}, 'x': {0: [100] * 200}}, 3)
    gen.write_group(zb, {'zero': {0: [0] * 100 + [1] * 100}, 'x': {0: [100] * 200}}, 3)
    rc, out, err = run(['--compare', za, zb])
    row = next((l for l in out.splitlines() if l.startswith('zero ')), '')
    check('--compare DIR_A DIR_B, A\'s mean 0: "0 +0.5 [0, 1] ~ (A is 0)" in its row',
          rc == 0 and re.search(r' 0 \+0\.5 \[0, 1\] ~ \(A is 0\)', row), (out, err))
    # A percentile of A and B as the tables print it: to the digits its
    # slot supports (a group's default frac_bits 1: slots up to 50% wide).
    ca, cb = os.path.join(d, 'CA'), os.path.join(d, 'CB')
    gen.write_group(ca, {'f': {0: [int(rng.lognormvariate(10, 1)) for _ in range(3000)]}}, 1)
    gen.write_group(cb, {'f': {0: [int(rng.lognormvariate(10.3, 1)) for _ in range(3000)]}}, 1)
    tables = []
    for g in (ca, cb):
        rc, out, _ = run([g])
        tables.append(out.splitlines()[2].split()[2:4] if rc == 0 else None)
    rc, out, _ = run(['--compare', '-p', '50,99', os.path.join(ca, 'f'), os.path.join(cb, 'f')])
    pair = {l.split()[0]: l.split()[1:3] for l in out.splitlines() if re.match(r'p\d', l)}
    rc2, out2, _ = run(['--compare', ca, cb])
    # The row's plain numbers after the counts: A's mean, p50, p99.
    cells = [t for t in out2.splitlines()[1].split()[3:] if re.fullmatch(r'\d+(\.\d+)?', t)] \
        if rc2 == 0 else []
    check('--compare A B at frac_bits 1: p50 and p99 of A and B to the digits their slots '
          'support, as the groups\' tables print them; the group A/B row\'s A cells too',
          rc == 0 and tables[0] and tables[1] and
          [pair.get('p50', [None])[0], pair.get('p99', [None])[0]] == tables[0] and
          [pair.get('p50', [None, None])[1], pair.get('p99', [None, None])[1]] == tables[1]
          and cells[1:3] == tables[0], (tables, pair, out2))


def test_underscore_names(rng):
    """A function's file may start with '_' (__do_softirq, __schedule):
    only the kernel's own files (_summary, _control, error_log) are no
    function's, in --compare, --json of a group and top --files."""
    funcs = {'__do_softirq': {0: [int(rng.lognormvariate(8, 0.5)) for _ in range(500)]},
             '_x': {1: [int(rng.lognormvariate(7, 0.5)) for _ in range(300)]},
             'vfs_read': {0: [int(rng.lognormvariate(9, 0.5)) for _ in range(400)]}}
    d = tempfile.mkdtemp(dir=TMP)
    da, db = os.path.join(d, 'A'), os.path.join(d, 'B')
    gen.write_group(da, funcs, 3)
    gen.write_group(db, funcs, 3)
    for extra in ('_control', 'error_log'):
        with open(os.path.join(da, extra), 'w') as f:
            f.write('not a metric\n')
    rc, out, err = run(['--compare', da, db])
    rows = sorted(l.split()[0] for l in out.splitlines()[1:] if l.split()[1:2] == ['500'] or
                  l.split()[1:2] == ['300'] or l.split()[1:2] == ['400'])
    check('--compare of groups: __do_softirq and _x compared, _summary, _control and '
          'error_log not', rc == 0 and rows == ['__do_softirq', '_x', 'vfs_read'] and
          'only' not in out, out + err)
    rc, out, err = run(['--json', da])
    try:
        names = sorted(json.loads(out)['functions'])
    except (ValueError, KeyError):
        names = None
    check('--json DIR: __do_softirq and _x among the functions',
          rc == 0 and names == ['__do_softirq', '_x', 'vfs_read'], out[:300] + err)
    rc, out, err = run(['top', '--files', '--dir', d, 'A', '-b', '-n', '1'])
    listed = sorted(l.split()[0] for l in out.splitlines()[2:] if l.strip())
    check('top --files: __do_softirq and _x listed, the kernel\'s files not',
          rc == 0 and listed == ['__do_softirq', '_x', 'vfs_read'], out + err)


def test_bad_live_read(rng):
    """#43.2: a live read of malformed text (a file rewritten in place while
    read) skips that interval, says so once, and reads again: --interval
    and the textfile exporter go on; the first read is still an error."""
    values = [int(rng.lognormvariate(8, 1)) for _ in range(300)]
    a, b, c = (gen.render({0: values[:n]}, 3) for n in (100, 200, 300))
    cut = b[:len(b) // 2]               # a read that met the rewrite halfway
    for args in (['--interval', '0.05', '--count', '2', '--json'],
                 ['--interval', '0.05', '--count', '2', '--openmetrics', '--name', 'm']):
        rc, out, err, fed = follow_reads(args, [a, cut, cut, b, c])
        if '--json' in args:
            counts = [json.loads(line)['stats']['count'] for line in out.splitlines()]
            ok = counts == [100, 100]
        else:
            ok = out.count('# EOF') == 2 and 'kstats_latency_count{metric="m"} 200' in out
        check('kstats %s: two malformed reads skipped, said once, the intervals go on'
              % ' '.join(args[2:]),
              rc == 0 and not fed and ok and err.count('skipped that read') == 1,
              (rc, fed, out, err))
    rc, out, err, fed = follow_reads(['--interval', '0.05', '--count', '1'], [cut, a])
    check('--interval: a malformed first read is still an error (exit 2)',
          rc == 2 and not out and 'truncated' in err, (rc, out, err))


def test_diff_interval(rng):
    values = [int(rng.lognormvariate(8, 1)) for _ in range(4000)]
    old = write('old', gen.render({0: values[:1500], 1: values[1500:2000]}, 3))
    new = write('new', gen.render({0: values[:3000],
                                   1: values[1500:2000] + values[3000:]}, 3))
    rc, out, err = run(['--diff', '--json', old, new])
    if rc:
        check('diff', False, err)
        return
    st = json.loads(out)
    # In between, CPU 0 recorded values[1500:3000] and CPU 1 values[3000:].
    want = json.loads(run(['--json', write('between', gen.render(
        {0: values[1500:3000], 1: values[3000:]}, 3))])[1])
    bounds = [{q: (p['lo'], p['hi']) for q, p in x['percentiles'].items()}
              for x in (st, want)]
    check('diff: the samples recorded in between',
          st['count'] == 2500 and st['cpus']['0']['count'] == 1500 and
          st['cpus']['1']['count'] == 1000 and bounds[0] == bounds[1], st['count'])
    rc, _, err = run(['--diff', new, old])
    check('diff: an earlier snapshot second is an error', rc == 2 and 'lost samples' in err, err)
    # The old snapshot's first slot is higher than the new one's: its
    # histogram was allocated with more slots (a capacity that grows from
    # the first slot read), and the difference read past the new one's.
    for n, vals in ((1, [1280]), (3, [1280, 100, 1000])):
        old = write('old-hi', gen.render({0: [1792, 1920]}, 3))
        new = write('new-lo', gen.render({0: vals + [1792, 1920]}, 3))
        rc, out, err = run(['--diff', '--json', old, new])
        st = json.loads(out) if rc == 0 else {}
        check('diff: a new snapshot whose first slot is lower than the old one\'s: count %d' % n,
              st.get('count') == n, (rc, out, err))

    # --interval: the samples between two reads, over the time measured
    # between them: never less than the interval asked (what is above it
    # is this machine's load: 10 times is only a bound for a hang).
    rc, out, err, fed = follow_reads(['--interval', '1', '--count', '1'],
                                     [gen.render({0: values[:1000]}, 3),
                                      gen.render({0: values[:1700]}, 3)])
    m = re.search(r'^interval 1 seconds ([0-9.]+) rate ([0-9.]+)/s$', out, re.M)
    check('interval: the samples of the interval, their rate over the measured time, '
          'at least the interval',
          rc == 0 and not fed and 'count   700' in out and m and
          1 - EPS <= float(m.group(1)) < 10 and
          abs(float(m.group(2)) * float(m.group(1)) / 700 - 1) < 0.01, (fed, out, err))

    def follow(args, steps, count=None):
        """kstats ARGS --interval 0.5 on a metric that holds values[:1000]
        at the start, then each of STEPS (None: removed) in turn, one per
        read of the tool (follow_reads), for COUNT intervals (default:
        one per step)."""
        return follow_reads(args + ['--interval', '0.5', '--count', str(count or len(steps))],
                            [gen.render({0: values[:1000]}, 3)] + steps)

    # A reset (fewer samples), then growth again: reported, and followed.
    rc, out, err, fed = follow(['--rows'], [gen.render({0: values[:200]}, 3),
                                            gen.render({0: values[:500]}, 3)])
    rows = out.splitlines()
    check('interval --rows: a header, a line per interval, a reset said and followed',
          rc == 0 and not fed and len(rows) == 3 and
          rows[0].split() == ['time', 'interval', 'count', 'rate/s', 'p50', 'p90', 'p99',
                              'max<=', 'total', 'avg'] and
          rows[1].split()[2] == '200' and rows[1].endswith('(reset)') and
          rows[2].split()[2] == '300' and 'reset; counting from it again' in err,
          (fed, out, err))
    # The same with CPUS lines only (a metric cut to its totals).
    def cpus_only(text):
        return ''.join(l + '\n' for l in text.splitlines() if ' CPUS ' in l)
    rc, out, err, fed = follow_reads(
        ['--rows', '--interval', '0.5', '--count', '2'],
        [cpus_only(gen.render({0: values[:1000]}, 3)), cpus_only(gen.render({0: values[:200]}, 3)),
         cpus_only(gen.render({0: values[:500]}, 3))])
    rows = out.splitlines()
    check('interval --rows, CPUS lines only: a reset said and followed',
          rc == 0 and not fed and len(rows) == 3 and
          rows[1].split()[2] == '200' and rows[1].endswith('(reset)') and
          rows[2].split()[2] == '300', (fed, out, err))
    rc, out, err, fed = follow(['--rows', '-p', '50,99.9'], [gen.render({0: values[:200]}, 3)])
    check('interval --rows -p 50,99.9: those percentiles',
          rc == 0 and not fed and
          out.split()[:7] == ['time', 'interval', 'count', 'rate/s', 'p50', 'p99.9', 'max<='],
          (fed, out, err))
    rc, _, err = run(['--rows', '-'], stdin='')
    check('--rows without --interval -> exit 1', rc == 1 and 'only with --interval' in err, err)
    # Removed, then back: waited for.
    rc, out, err, fed = follow(['--rows'], [None, gen.render({0: values[:100]}, 3),
                                            gen.render({0: values[:150]}, 3)], 2)
    rows = out.splitlines()
    check('interval: a metric that goes is waited for, and followed when back',
          rc == 0 and not fed and 'waiting for it' in err and
          'back; counting from it again' in err and
          [r.split()[2] for r in rows[1:]] == ['100', '50'], (fed, out, err))
    # JSON Lines, each with its time (between the start and the end of the
    # run) and its interval (at least the 0.5 s asked; 10 times: a hang).
    before = time.time()
    rc, out, err, fed = follow(['--json'], [gen.render({0: values[:1100]}, 3),
                                            gen.render({0: values[:1400]}, 3)])
    after = time.time()
    try:
        recs = [json.loads(line) for line in out.splitlines()]
    except ValueError:
        recs = []
    check('interval --json: JSON Lines with interval, time, seconds, rate, stats',
          rc == 0 and not fed and len(recs) == 2 and
          [r['stats']['count'] for r in recs] == [100, 300] and
          all(before - EPS <= r['time'] <= after + EPS and 0.5 - EPS <= r['seconds'] < 5 and
              abs(r['rate'] * r['seconds'] / r['stats']['count'] - 1) < 0.01 and
              r['reset'] is False for r in recs), (fed, out, err))


def test_malformed():
    good = 'slot 55  CPU  1    count       18 avg      480 p 1.000000\n'
    cases = [
        ('garbage', 'hello\n', 1),
        ('second line bad', good + 'slot 56 CPU 1 count 1 avg 500\n', 2),
        ('bad CPU word', 'slot 55 CPUX 1 count 1 avg 480 p 1.000000\n', 1),
        ('negative count', 'slot 55 CPU 1 count -1 avg 480 p 1.000000\n', 1),
        ('zero count', 'slot 55 CPU 1 count 0 avg 480 p 1.000000\n', 1),
        ('huge number', 'slot 55 CPU 1 count 99999999999999999999 avg 480 p 1.000000\n', 1),
        ('bad fraction', 'slot 55 CPU 1 count 1 avg 480 p 1.5\n', 1),
        ('fraction over 1', 'slot 55 CPU 1 count 1 avg 480 p 1.000001\n', 1),
        ('slot out of range', 'slot 99999 CPU 1 count 1 avg 480 p 1.000000\n', 1),
        ('mean outside every slot', good + good.replace('55 ', '56 ').replace('480', '9'), 2),
        ('duplicate slot', good + good, 2),
        ('NUL byte', good + 'slot 5\0 CPU 1 count 1 avg 5 p 1.000000\n', 2),
        ('long line', good + 'slot ' + '9' * 500 + '\n', 2),
        ('extra field', 'slot 55 CPU 1 count 18 avg 480 p 1.000000 x\n', 1),
        ('CPUS disagree', good + 'slot 55  CPUS 4    count       17 avg      480 p 1.000000\n', 0),
        ('binary', '\x01\x02\xff\n', 1),
    ]
    for name, text, line in cases:
        rc, out, err = run(['-'], text)
        where = ('line %d' % line) if line else 'inconsistent'
        check('malformed input: %s -> exit 2, %s' % (name, where),
              rc == 2 and where in err and not out, 'rc %d: %s' % (rc, err))
    rc, _, err = run(['--bits', '8', write('b3', gen.render({0: [480, 20130]}, 3))])
    check('--bits that does not fit the data -> exit 2', rc == 2 and 'inconsistent' in err, err)


def test_truncated(rng):
    """
    An input cut at a line boundary: the kernel prints p, the cumulative
    fraction of each CPU's samples and of all CPUs' (the CPUS lines),
    rounded down to millionths, so that only the last line of each ends
    at 1.000000. Any other end is a truncated input, in every mode, each
    input checked as read.
    """
    by_cpu = {c: [int(rng.lognormvariate(8, 1)) for _ in range(300)] for c in range(3)}
    text = gen.render(by_cpu, 3)
    lines = text.splitlines(True)
    whole = write('whole', text)
    rc, out, err = run(['--json', whole])
    check('truncated: the whole metric is read', rc == 0 and json.loads(out)['count'] == 900,
          out + err)
    bad = []
    for n in range(1, len(lines)):
        cut = write('cut', ''.join(lines[:n]))
        rc, out, err = run(['--input-unit', 'ns', cut])
        if not (rc == 2 and not out and 'truncated' in err and cut in err):
            bad.append('%d lines: rc %d %s' % (n, rc, (out + err)[:200]))
    check('truncated: an input cut after any of its %d first lines -> exit 2, "truncated", '
          'its name' % (len(lines) - 1), not bad, bad[:3])
    # As the issue's example: the last line a CPUS line below p 1.
    n = max(i for i, l in enumerate(lines[:len(lines) // 2]) if ' CPUS ' in l) + 1
    p = lines[n - 1].split()[-1]
    cut_text = ''.join(lines[:n])
    cut = write('cut', cut_text)
    rc, out, err = run(['--input-unit', 'ns', cut])
    check('truncated: says which lines stay below p 1, where',
          rc == 2 and 'CPUS lines reach p %s at most (line %d), not 1.000000' % (p, n) in err, err)
    # By CPU, the highest slot first: p 1 comes first, not last.
    rc, out, err = run(['--json', '-'], ''.join(sorted(
        lines, key=lambda l: (l.split()[2:4], -int(l.split()[1])))))
    check('truncated: a whole metric whose lines are in another order is read',
          rc == 0 and json.loads(out)['count'] == 900, out + err)
    cpu_only = [l for l in lines if ' CPUS ' not in l]
    rc, out, err = run(['-'], ''.join(cpu_only[:len(cpu_only) // 2]))
    check('truncated: CPU lines only, cut, from standard input -> exit 2, the CPU, -',
          rc == 2 and 'truncated' in err and 'lines of CPU ' in err and
          err.startswith('kstats: -: '), err)
    # Cut between two CPUs, without CPUS lines: nothing to check it by,
    # said on stderr; a whole input (CPUS lines) says nothing.
    first = [l for l in cpu_only if l.split()[3] == cpu_only[0].split()[3]]
    rc, out, err = run(['-'], ''.join(first))
    check('CPU lines only, cut between CPUs: read, and said on stderr with the last CPU',
          rc == 0 and 'kstats: -: no CPUS lines: CPUs up to %s summed; one cut off is not seen'
          % first[0].split()[3] in err, err)
    rc, out, err = run(['-'], ''.join(lines))
    check('a whole input: nothing on stderr', rc == 0 and err == '', err)
    for args, what in ((['--merge', whole, cut], '--merge'),
                       (['--diff', cut, whole], '--diff, the old snapshot'),
                       (['--diff', whole, cut], '--diff, the new snapshot'),
                       (['--compare', whole, cut], '--compare'),
                       (['-'], 'standard input')):
        rc, out, err = run(args, stdin=cut_text if args == ['-'] else None)
        who = '-' if args == ['-'] else cut
        check('truncated: %s -> exit 2, "truncated", the file' % what,
              rc == 2 and not out and 'truncated' in err and 'kstats: %s: ' % who in err, err)
    rc, out, err, fed = follow_reads(['--interval', '0.2', '--count', '2'], [cut_text])
    check('truncated: the first snapshot of --interval -> exit 2, "truncated" (a later one '
          'is skipped: test_bad_live_read)',
          rc == 2 and 'truncated' in err and not out and not fed, (fed, out, err))


def test_out_of_range():
    """Counts, and their sums over lines, CPUs and inputs, fit in 64 bits."""
    m = 2 ** 64 - 1

    def metric(rows, all_rows=True, cpu_rows=True):
        """rows: (slot, cpu, count, avg, p) for the CPU lines; the CPUS
        lines the same, with CPUS 1."""
        out = ''
        for slot, cpu, count, avg, p in rows:
            if cpu_rows:
                out += 'slot %d CPU %d count %d avg %d p %s\n' % (slot, cpu, count, avg, p)
            if all_rows:
                out += 'slot %d CPUS 1 count %d avg %d p %s\n' % (slot, count, avg, p)
        return out

    # Slot 63 of frac_bits 3 holds 960 to 1023.
    two = [(0, 0, m, 0, '0.500000'), (63, 0, m, 1000, '1.000000')]
    for name, text, line in (
            ('two slots of 2^64 - 1', metric(two), 3),
            ('two slots of 2^64 - 1, CPUS lines only', metric(two, cpu_rows=False), 2),
            ('two slots of 2^64 - 1, CPU lines only', metric(two, all_rows=False), 2),
            ('two CPUs of 2^64 - 1 in a slot, CPU lines only',
             metric([(63, 0, m, 1000, '1.000000'), (63, 1, m, 1000, '1.000000')],
                    all_rows=False), 2),
            ('a count of 23 digits', metric([(63, 0, 10 ** 22, 1000, '1.000000')]), 1),
            ('a count of 2^64', metric([(63, 0, 2 ** 64, 1000, '1.000000')]), 1),
            ('an avg of 2^64', metric([(63, 0, 1, 2 ** 64, '1.000000')]), 1)):
        path = write('range', text)
        rc, out, err = run([path])
        check('out of range: %s -> exit 2, "out of range", the file, line %d' % (name, line),
              rc == 2 and not out and 'out of range' in err and
              'kstats: %s: line %d: ' % (path, line) in err, err)
    # 2^64 - 1 itself fits; so do sums of values beyond it (doubles, as
    # the kernel's sums of offsets hold them: values near 2^64 have them).
    rc, out, err = run(['--json', write('max', metric([(63, 0, m, 1000, '1.000000')]))])
    st = json.loads(out) if rc == 0 else {}
    check('out of range: a count of 2^64 - 1 fits', st.get('count') == m and
          st.get('mean') == 1000, out + err)
    top = gen.slot_of(m, 3)
    rc, out, err = run(['--json', write('max', metric([(top, 0, m, m, '1.000000')]))])
    st = json.loads(out) if rc == 0 else {}
    check('out of range: 2^64 - 1 samples of 2^64 - 1 (a sum of values beyond 64 bits)',
          st.get('count') == m and abs(st.get('mean', 0) / m - 1) < 1e-12, out + err)
    half = write('big', metric([(63, 0, 2 ** 63 - 1, 1000, '1.000000')]))
    rc, out, err = run(['--merge', '--json', half, half])
    st = json.loads(out) if rc == 0 else {}
    check('out of range: --merge of two inputs of 2^63 - 1 samples: 2^64 - 2, mean 1000',
          st.get('count') == 2 ** 64 - 2 and st.get('mean') == 1000 and
          st.get('cpus', {}).get('0', {}).get('count') == 2 ** 64 - 2, out + err)
    rc, out, err = run(['--merge', half, half, half])
    check('out of range: --merge of three inputs of 2^63 - 1 samples -> exit 2, '
          '"out of range", the input', rc == 2 and not out and 'out of range' in err and
          half in err, err)


def test_usage_errors():
    """A usage error says what is wrong, in a line, then where to read more."""
    f = write('usage', gen.render({0: [5, 500]}, 3))
    for args, what in ((['trace'], 'trace: no function'),
                       ([f, f], '2 inputs where one was expected'),
                       (['--compare', f], '--compare: two inputs, A and B, not 1'),
                       (['--diff', f, f, f], '--diff: two inputs, OLD and NEW, not 3'),
                       ([], 'no input'),
                       (['--merge'], 'no input'),
                       (['--frobnicate', f], "'--frobnicate'"),
                       (['-x', f], "'x'"),
                       ([f, '--bits'], "'--bits'"),
                       (['trace', 'f', '--frobnicate'], "'--frobnicate'"),
                       (['--log2', f], '--log2: only with --hist')):
        rc, out, err = run(args)
        check('usage: kstats %s -> exit 1, "%s" in a line, then Try' %
              (' '.join(os.path.basename(a) for a in args), what),
              rc == 1 and not out and usage_lines(err) and what in err.splitlines()[0], err)
    plot = os.path.join(os.path.dirname(KSTATS), 'kstats-plot.sh')
    for args, what in ((['a', 'b', 'c'], '3 inputs: at most two'),
                       ([], 'no input'),
                       (['--frobnicate', 'a'], "unknown option '--frobnicate'"),
                       (['-t', 'png', '-o'], "option '-o' needs an argument"),
                       (['-', '-'], 'standard input) given twice'),
                       (['--heatmap', '-t', 'png', '-o', 'x.png', 'a', 'b'],
                        '--heatmap: one input'),
                       (['-s', '9,9; system("touch X")', 'a'], 'is not WxH'),
                       # #43, 10: sizes gnuplot refuses ("size: out of range"),
                       # or too small for the plot's axes and key.
                       (['-s', '0x0', 'a'], "'0x0' is out of range: 40 to 1000 characters"),
                       (['-s', '100x5', 'a'], 'is out of range'),
                       (['-t', 'png', '-o', 'x.png', '-s', '100x100', 'a'],
                        "'100x100' is out of range: 200 to 10000 pixels"),
                       (['-i', '1; system("touch X")', 'a'], 'is not a number of seconds')):
        rc, out, err = run(['sh', plot] + args, raw=True, cwd=TMP)
        check('usage: kstats-plot %s -> exit 1, "%s" in a line, then Try' % (' '.join(args), what),
              rc == 1 and not out and usage_lines(err, 'kstats-plot') and
              what in err.splitlines()[0], err)


def test_series_max(rng):
    """#43: --openmetrics refuses more series than --series-max (100000 by
    default) before writing any, and says how many; --series-max 0 writes
    them all."""
    d = os.path.join(TMP, 'series-max')
    funcs = {'f%03d' % i: {c: [rng.randrange(100, 10 ** 6) for _ in range(5)]
                           for c in range(64)} for i in range(30)}
    gen.write_group(d, funcs, 1)
    each = (65 - 0) + 2     # the buckets of --le-bits 0, _sum, _count
    want = 30 * 64 * each
    target = os.path.join(TMP, 'series-max.prom')
    rc, out, err = run(['--openmetrics', '--per-cpu', '-o', target, d])
    check('--openmetrics --per-cpu of 30 functions x 64 CPUs: %d series, refused '
          '(exit 1, the count said, no file)' % want,
          rc == 1 and ('%d series' % want) in err and '--series-max' in err and
          not os.path.exists(target) and not [f for f in os.listdir(TMP)
                                               if f.startswith('series-max.prom')],
          (rc, err))
    rc, out, err = run(['--openmetrics', '--per-cpu', '--series-max', '0', d])
    n = len([ln for ln in out.splitlines() if ln and not ln.startswith('#')])
    check('--series-max 0: every series written (%d)' % want,
          rc == 0 and n == want and out.endswith('# EOF\n'), (rc, n, err[-300:]))
    rc, out, err = run(['--openmetrics', d])
    n = len([ln for ln in out.splitlines() if ln and not ln.startswith('#')])
    check('--openmetrics of the group without --per-cpu: %d series, under the limit'
          % (30 * each), rc == 0 and n == 30 * each, (rc, n, err[-300:]))
    one = os.path.join(d, 'f000')
    rc, out, err = run(['--openmetrics', '--per-cpu', '--series-max', str(64 * each - 1), one])
    check('--series-max one below a metric\'s 64 CPUs x %d: refused, nothing written' % each,
          rc == 1 and out == '' and ('%d series' % (64 * each)) in err, (rc, out[:200], err))
    rc, out, err = run(['--openmetrics', '--per-cpu', '--series-max', str(64 * each), one])
    check('--series-max equal to a metric\'s series: written', rc == 0 and
          out.endswith('# EOF\n'), (rc, err))
    rc, out, err = run(['--openmetrics', '--series-max', '5', one])
    check('--series-max 5 of one metric: refused, "1 label set" (not "sets")',
          rc == 1 and out == '' and '(1 label set of ' in err, err)
    rc, _, err = run(['--series-max', '5', one])
    check('--series-max without --openmetrics: a usage error',
          rc == 1 and '--series-max: only with --openmetrics' in err, err)


def test_hgrm(rng):
    """#43: --hgrm, HdrHistogram's percentile distribution: a row per
    non-empty slot (its upper bound, the fraction and count up to it,
    1/(1-fraction) but on the last), the footer, the header as
    HdrHistogram prints it; with -u, milliseconds."""
    for bits in (0, 3, 5):
        values = [int(rng.lognormvariate(9, 1.3)) + 1 for _ in range(3000)]
        path = write('hgrm-%d' % bits, gen.render({0: values[:1500], 2: values[1500:]}, bits))
        rc, out, err = run(['--hgrm', path])
        lines = out.splitlines()
        slots = sorted({gen.slot_of(v, bits) for v in values})
        n = len(values)
        bad = []
        if lines[:2] != ['%12s %14s %10s %14s' % ('Value', 'Percentile', 'TotalCount',
                                                   '1/(1-Percentile)'), '']:
            bad.append('header %r' % lines[:2])
        rows = [ln.split() for ln in lines[2:] if not ln.startswith('#')]
        # HdrHistogram's first row: the lowest slot at percentile 0.
        first = sum(1 for v in values if gen.slot_of(v, bits) == slots[0])
        if rows[:1] != [['%.3f' % gen.slot_max(slots[0], bits), '0.000000000000',
                         str(first), '1.00']]:
            bad.append('first row %s' % rows[:1])
        rows = rows[1:]
        if len(rows) != len(slots):
            bad.append('%d rows for %d non-empty slots' % (len(rows), len(slots)))
        cum = 0
        for s, w in zip(slots, rows):
            cum += sum(1 for v in values if gen.slot_of(v, bits) == s)
            p = cum / n
            if float(w[0]) != gen.slot_max(s, bits) or int(w[2]) != cum or \
                    abs(float(w[1]) - p) > 1e-12 or \
                    (len(w) != (3 if cum == n else 4)) or \
                    (cum < n and abs(float(w[3]) - 1 / (1 - p)) > 0.006):
                bad.append('slot %d: %s' % (s, w))
                break
        foot = [ln for ln in lines if ln.startswith('#[')]
        want_max = '#[Max     = %12.3f, Total count    = %12d]' % (gen.slot_max(slots[-1], bits), n)
        if len(foot) != 3 or foot[1] != want_max or \
                foot[2] != '#[Buckets = %12d, SubBuckets     = %12d]' % (65 - bits, 1 << bits):
            bad.append('footer %s' % foot)
        check('--hgrm at frac_bits %d: a row per non-empty slot, bounds, fractions and '
              'counts right, the footer' % bits, rc == 0 and not bad, (bad, out[:400], err))
    rc, out2, err = run(['--hgrm', '--input-unit', 'us', path])
    vals = [float(ln.split()[0]) for ln in out2.splitlines()[3:] if ln and not ln.startswith('#')]
    top = write('hgrm-top', gen.render({0: [2 ** 64 - 1] * 3}, 1))
    rc, out3, err = run(['--hgrm', top])
    check('--hgrm: 2^64 - 1 exactly, as the rows\' value and the max',
          rc == 0 and out3.count('18446744073709551615.000') == 3, out3)
    gdir = os.path.join(TMP, 'hgrm-group')
    gen.write_group(gdir, {'a': {0: [5, 6]}}, 1)
    check('--hgrm -u us: the values in milliseconds, to the nanosecond',
          rc == 0 and vals == [round(gen.slot_max(s, 5) / 1e3, 6) for s in slots], out2[:300])
    for args, want in ((['--hgrm', '-p', '50', path], '--percentiles: not with --hgrm'),
                       (['--hgrm', '--per-cpu', path], '--hgrm: one distribution'),
                       (['--hgrm', '--interval', '1', path], '--hgrm: one distribution'),
                       (['--hgrm', '--json', path], 'one at a time'),
                       (['--hgrm', gdir], "--hgrm: of one function's file")):
        rc, _, err = run(args)
        check('%s: a usage error' % ' '.join(args[:-1]), rc == 1 and want in err, err)


def test_leaf():
    """The leaf modules (parse, stats, format) linked alone: tests/leaf_test.c."""
    prog = os.path.join(os.path.dirname(KSTATS), 'tests', 'leaf_test')
    rc, out, err = run([prog], raw=True)
    lines = [ln for ln in out.splitlines() if ln.startswith(('ok ', 'not ok '))]
    check('leaf modules alone: tests/leaf_test runs its checks, exit 0',
          rc == 0 and len(lines) >= 10, (rc, out[-300:], err[-300:]))
    for ln in lines:
        what = re.sub(r'^(not )?ok [0-9]+ ', '', ln).split(' # ')[0]
        check('leaf modules alone: ' + what, ln.startswith('ok '), ln)


def test_misc(rng):
    values = [int(rng.lognormvariate(9, 1)) for _ in range(2000)]
    path = write('misc', gen.render({0: values, 3: values[:10]}, 3))
    rc, out, _ = run(['--hist', path])
    slots = {gen.slot_of(v, 3) for v in values}
    _, rows = hist_rows(out)
    lines = out.splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:1] == ['range']]
    check('--hist: a row per slot, from the first to the last',
          rc == 0 and len(rows) == max(slots) - min(slots) + 1 and
          head and len(lines) == head[0] + 1 + len(rows), out)
    rc, out, _ = run(['--input-unit', 'ns', path])
    check('--unit ns prints time units', rc == 0 and ' us' in out, out)
    rc, out, _ = run(['--per-cpu', path])
    rows = out.splitlines()
    check('--per-cpu: a row per CPU and one for all',
          rc == 0 and [r.split()[0] for r in rows] == ['cpu', '0', '3', 'all'] and
          rows[2].split()[1] == '10', out)
    rc, out, _ = run(['--cpu', '3', '--json', path])
    check('--cpu N', rc == 0 and json.loads(out)['count'] == 10, out)
    rc, out, _ = run(['-p', '10,99.99', '--json', path])
    check('-p chooses percentiles', rc == 0 and
          sorted(json.loads(out)['percentiles']) == ['10', '99.99'], out)
    rc, out, _ = run(['-p', '99.9999999', path])
    rc2, js, _ = run(['-p', '99.9999999', '--json', path])
    check('-p 99.9999999 is labelled as asked, not p100',
          rc == 0 and rc2 == 0 and 'p99.9999999' in out and 'p100' not in out and
          sorted(json.loads(js)['percentiles']) == ['99.9999999'], out + js)
    rc, _, _ = run(['-p', '101', path])
    check('-p out of range -> exit 1', rc == 1)
    rc, out, _ = run(['--help'])
    check('--help', rc == 0 and 'usage: kstats' in out)
    rc, _, err = run(['no_such_metric_name'])
    check('unknown metric name -> exit 1', rc == 1 and 'no_such_metric_name' in err, err)
    for unit, expect in (('ns', ' us'), ('us', ' ms'), ('ms', ' s'), ('s', ' s')):
        rc, out, err = run(['--input-unit', unit, path])
        mean = [r for r in out.splitlines() if r.startswith('mean')]
        check('--input-unit %s: values read as %s, printed scaled' % (unit, unit),
              rc == 0 and mean and mean[0].endswith(expect), out + err)
    rc, _, err = run(['--input-unit', 'parsecs', path])
    check('--input-unit parsecs -> exit 1', rc == 1 and "'parsecs' is not ns, us, ms, s" in err,
          err)
    rc, _, err = run(['-u', 'parsecs', path])
    check('-u parsecs -> exit 1, the choices said',
          rc == 1 and "'parsecs' is not ns, us, ms, s, auto or none" in err, err)
    rc, out, _ = run(['--version'])
    check('--version', rc == 0 and re.match(r'^kstats \d+\.\d+', out), out)
    text = open(path).read()
    rc, out, err = run(['--json', '-'], stdin='# a comment\n' + text.replace('\n', '\n# more\n', 1))
    check('# comment lines are skipped', rc == 0 and json.loads(out)['count'] == 2010, out + err)
    rc, _, err = run([TMP])
    check('a directory without _summary: exit 1, Is a directory, not a group\'s, once',
          rc == 1 and err.count('Is a directory, not a group\'s (it has no _summary)') == 1
          and err.count(TMP) == 1, err)
    fd = os.open(TMP, os.O_RDONLY)
    try:
        p = subprocess.run([KSTATS, '-'], stdin=fd, capture_output=True, text=True)
    finally:
        os.close(fd)
    check('a directory on standard input: exit 1, Is a directory',
          p.returncode == 1 and p.stderr.strip() == 'kstats: -: Is a directory', p.stderr)
    rc, _, err = run(['--compare', TMP, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     'corpus', 'two-slots')])
    check('--compare of a directory without _summary: exit 1, says why it is not a group',
          rc == 1 and 'not a group\'s (it has no _summary)' in err, err)
    # A group's directory and a metric to --merge: said as such.
    grp = os.path.join(TMP, 'agroup')
    gen.write_group(grp, {'f': {0: [100, 200]}}, 3)
    bad = []
    for args in (['--merge', grp, path], ['--hist', '--merge', path, grp + '/']):
        rc, _, err = run(args)
        if rc != 1 or '--merge: groups (directories) or metrics, not both' not in err or \
                'no _summary' in err:
            bad.append((args, rc, err))
    check('--merge of a group\'s directory and a metric: exit 1, "groups (directories) or '
          'metrics, not both", not "no _summary"', not bad, bad)
    rc, out, err = run(['--cpu', '99', '--json', path])
    check('--cpu 99 on CPUs 0..3 -> exit 2 (an input error), names CPUs 0 to 3',
          rc == 2 and not out and 'CPUs 0 to 3 only' in err, out + err)
    # CPUS 4, samples on CPU 1 only: CPU 3 exists and recorded nothing.
    two = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'corpus', 'two-slots')
    rc, out, err = run(['--cpu', '3', '--json', two])
    check('--cpu 3 of CPUS 4 with no sample there: no warning, no samples',
          rc == 0 and err == '' and json.loads(out)['count'] == 0, out + err)
    rc, out, err = run(['--cpu', '4', '--json', two])
    check('--cpu 4 of CPUS 4 -> exit 2, names CPUs 0 to 3',
          rc == 2 and not out and 'CPUs 0 to 3 only' in err, out + err)
    test_display_unit(rng)


def summary_values(out):
    """The values of a summary's lines (mean, min, max, pQ, mad): the
    words that end with a unit, or are numbers, after the first."""
    vals = []
    for line in out.splitlines():
        w = line.replace('[', ' ').replace(']', ' ').replace(',', ' ').split()
        if w[:1] and (w[0] in ('mean', 'min', 'max', 'mad') or re.fullmatch(r'p[0-9.]+', w[0])):
            vals += [x for x in w[1:] if x not in ('>=', '<=')]
    return vals


def test_display_unit(rng):
    """#43: -u chooses the unit the values are printed in (funclatency's
    -u/-m, perf's usecs), --input-unit the unit they are in (ns unless
    said); -u auto each value in its own unit, -u none plain numbers."""
    values = [int(rng.lognormvariate(11, 1.5)) for _ in range(3000)]
    path = write('disp', gen.render({0: values}, 3))
    rc, plain, _ = run([path])
    _, auto, _ = run(['--input-unit', 'ns', path])
    for args, unit, scale in ((['-u', 'us'], 'us', 1e-3), (['-u', 'ms'], 'ms', 1e-6),
                              (['-u', 'ns'], 'ns', 1),
                              (['-u', 'ms', '--input-unit', 'us'], 'ms', 1e-3),
                              (['--input-unit', 'us', '-u', 'ns'], 'ns', 1e3)):
        rc, out, err = run(args + [path])
        p, u = summary_values(plain), out.split('\n')
        # The summary with units: a number and its unit, two words.
        vals = [(float(a), b) for a, b in zip(summary_values(out)[0::2],
                                               summary_values(out)[1::2])
                if re.fullmatch(r'[0-9.]+(e-?[0-9]+)?', a)]
        bad = [(x, v) for x, v in zip(p, vals) if v[1] != unit or
               abs(v[0] - float(x) * scale) > 0.01 * float(x) * scale + 1e-9 * scale]
        check('%s: every value of the summary in %s, as the plain one scaled (within 3 '
              'significant digits)' % (' '.join(args), unit),
              rc == 0 and len(vals) == len(p) and not bad, (bad[:4], out, err, u[:1]))
    _, out, _ = run(['-u', 'auto', path])
    check('-u auto: as --input-unit ns (each value scaled to its unit)', out == auto, out)
    # 0 as 0; below 0.001 and from 10^6 of the unit on, a power of ten.
    tiny = write('disp-tiny', gen.render({0: [rng.randrange(0, 51) for _ in range(1000)]}, 3))
    huge = write('disp-huge', gen.render({0: [2 ** 64 - 1, 10 ** 18, 123]}, 3))
    for args, p in ((['-u', 'ms'], tiny), (['-u', 's'], tiny), (['-u', 'ms'], huge),
                    (['-u', 'ns'], huge)):
        rc, out, err = run(args + [p])
        nums = re.findall(r'(?<![\w.])([0-9][0-9.]*(?:e-?[0-9]+)?) (?:ns|us|ms|s)\b', out)
        bad = [x for x in nums if re.match(r'0\.0*$|0\.000', x) or
               ('e' not in x and len(x.replace('.', '')) > 7)]
        check('%s of %s: 0 as "0", no number of more than 7 digits or below 0.001 '
              'written out (%d values)' % (' '.join(args), os.path.basename(p), len(nums)),
              rc == 0 and nums and not bad and (p != tiny or ' 0 %s' % args[1] in out),
              (bad, out, err))
    _, out, _ = run(['-u', 'none', path])
    check('-u none: plain numbers, as without -u', out == plain, out)
    for out_opt, why in (('--openmetrics', 'writes seconds'), ('--hgrm', 'milliseconds'),
                         ('--json', 'as recorded')):
        rc, out, err = run(['-u', 'us', out_opt, path])
        check('-u us %s -> exit 1: its unit is fixed (%s); --input-unit named'
              % (out_opt, why), rc == 1 and not out and why in err and '--input-unit' in err,
              err)
    _, out, _ = run(['--hist', '-u', 'us', path], env=dict(os.environ, COLUMNS='120'))
    ranges = re.findall(r'\[([0-9.]+), ([0-9.]+)\] ?(ns|us|ms|s)?', out)
    bad = []
    for lo, hi, unit in ranges:
        k = gen.slot_of(round(float(lo) * 1000), 3)
        if unit != 'us' or (round(float(lo) * 1000), round(float(hi) * 1000)) != \
                (gen.slot_min(k, 3), gen.slot_max(k, 3)):
            bad.append((lo, hi, unit))
    check('--hist -u us: every range exact, in us', ranges and not bad, (bad, out))



def test_trace_usage():
    """kstats trace's usage errors; the tracing itself runs in the VM
    (tools/testing/selftests/kstats/kstats_tool_test.sh)."""
    rc, _, err = run(['trace'])
    check('trace without FUNC -> exit 1, says so (a line, then Try)',
          rc == 1 and usage_lines(err) and 'no function' in err, err)
    rc, _, err = run(['trace', 'f', '-d', '1', '--', 'true'])
    check('trace: -d and a command -> exit 1', rc == 1 and 'not both' in err, err)
    rc, _, err = run(['trace', 'f', '-d', 'x'])
    check('trace -d x -> exit 1', rc == 1 and "'x' is not a positive" in err, err)
    rc, _, err = run(['trace', 'f', '--interval', '1'])
    check('trace --interval -> exit 1', rc == 1 and 'do not apply' in err, err)
    rc, _, err = run(['trace', '-d', '1', 'f'])
    check('trace: options before FUNC -> exit 1, FUNC first',
          rc == 1 and 'function comes first' in err, err)
    rc, _, err = run(['-d', '1', 'f'])
    check('-d without trace -> exit 1', rc == 1, err)
    if os.geteuid() == 0:
        rc, _, err = run(['setpriv', '--reuid=65534', '--clear-groups', KSTATS,
                          'trace', 'f', '-d', '1'], raw=True)
    else:
        rc, _, err = run(['trace', 'f', '-d', '1'])
    check('trace as a user -> exit 1, needs root', rc == 1 and 'needs root' in err, err)
    # Without debugfs: said, with how to mount it (unmounted in a mount
    # namespace of its own where this machine has it).
    if (os.geteuid() == 0 and shutil.which('unshare') and
            run(['unshare', '-m', 'true'], raw=True)[0] == 0):
        script = ('for m in $(awk \'$3 == "debugfs" { print $2 }\' /proc/mounts); do '
                  'umount -l "$m" || exit 9; done; exec "$0" trace f -d 1')
        rc, _, err = run(['unshare', '-m', 'sh', '-c', script, KSTATS], raw=True)
        check('trace without debugfs -> exit 1, how to mount it',
              rc == 1 and 'debugfs is not mounted: mount -t debugfs' in err, err)
    for args, why in ((['trace', 'f', '--pid', '0'], 'not a process id'),
                      (['trace', 'f', '--pid', 'x'], 'not a process id'),
                      (['trace', 'f', '--cgroup', 'a/b'], 'cgroup v2 path'),
                      (['trace', 'f', '--cgroup', '/a b'], 'cgroup v2 path'),
                      # -p and -c as funclatency's: PID and cgroup.
                      (['trace', 'f', '-p', 'x'], "--pid: 'x' is not a process id"),
                      (['trace', 'f', '-c', 'a/b'], "--cgroup: 'a/b' is not a cgroup v2"),
                      (['trace', 'f', '--percentiles', '200'], "--percentiles: '200'"),
                      (['trace', 'f', '--count', '1'], 'do not apply'),
                      (['--interval', '1', '-'], 'not on standard input'),
                      (['--merge', '-', '-'], 'standard input) given twice'),
                      (['--pid', '5', 'x'], 'only for kstats trace'),
                      (['--cgroup', '/x', 'x'], 'only for kstats trace')):
        rc, _, err = run(args)
        check('%s -> exit 1, %s' % (' '.join(args), why), rc == 1 and why in err, err)


def test_plot(rng, flat):
    """kstats-plot, next to the tool (needs gnuplot)."""
    plot = os.path.join(os.path.dirname(KSTATS), 'kstats-plot.sh')
    if not shutil.which('gnuplot'):
        check('kstats-plot: gnuplot is installed', False)
        return
    values = [int(rng.lognormvariate(8, 1)) for _ in range(1000)]
    text = gen.render({0: values[:600], 2: values[600:]}, 3)
    cpu_only = ''.join(l + '\n' for l in text.splitlines() if ' CPU ' in l)
    tmpdir = os.path.join(TMP, 'plot-tmp')
    os.mkdir(tmpdir)
    env = dict(os.environ, TMPDIR=tmpdir)

    def plot_run(args, stdin):
        p = subprocess.run(['sh', plot] + args, input=stdin, capture_output=True,
                           text=True, check=False, env=env)
        return p.returncode, p.stdout, p.stderr

    rc, full, err = plot_run(['-s', '80,20', '-'], text)
    check('kstats-plot -: plots standard input', rc == 0 and '*' in full, full + err)
    check('kstats-plot -: no temporary file left', os.listdir(tmpdir) == [],
          str(os.listdir(tmpdir)))
    check('kstats-plot into a pipe: no colour codes', '\x1b[' not in full, repr(full[:200]))
    rc, out, err = plot_run(['-s', '80,20', '-'], cpu_only)
    check('kstats-plot: CPU lines only are summed, the same plot, kstats\' warning said',
          rc == 0 and out == full and err.count('no CPUS lines') == 1, out + err)
    rc, _, err = plot_run(['-c', '-'], text)
    check('kstats-plot -c (no longer --cdf) -> exit 1, an unknown option',
          rc == 1 and usage_lines(err, 'kstats-plot') and "unknown option '-c'" in err, err)
    rc, out, _ = plot_run(['--version'], '')
    check('kstats-plot --version', rc == 0 and out.startswith('kstats-plot '), out)
    # Density: a log-uniform distribution plots flat (raw counts per slot
    # would be a sawtooth, with steps at each power of two). Its samples
    # spread evenly, not drawn: the noise of random ones can span a third
    # row of the plot, for some seeds (KSTATS_TEST_SEED=11).
    even = [int(2 ** (10 + 10 * (i + 0.5) / 200000)) for i in range(200000)]
    rc, out, err = plot_run(['-s', '100,30', '-'], gen.render({0: even}, 3))

    def area(line):
        """The plot's area in LINE: between its borders, without the '-'
        of their tick marks ("-+", "+-", or "-*" where the line lies on a
        tick's row)."""
        if line.count('|') < 2:
            return ''
        a = line[line.index('|') + 1:line.rindex('|')]
        a = ' ' + a[1:] if a[:1] == '-' and a[1:2] != ' ' else a
        return a[:-1] + ' ' if a[-1:] == '-' and a[-2:-1] != ' ' else a
    # The key's row is "- *******": the title of standard input, -.
    grid = [a for a in map(area, out.splitlines()) if '*' in a and '-' not in a]
    cols = [i for l in grid for i, ch in enumerate(l) if ch == '*']
    lo, hi = (min(cols), max(cols)) if cols else (0, 0)
    mid = {r for r, l in enumerate(grid) for i, ch in enumerate(l)
           if ch == '*' and lo + (hi - lo) * 0.3 <= i <= lo + (hi - lo) * 0.7}
    check('kstats-plot: a log-uniform distribution plots flat (density per octave)',
          rc == 0 and cols and len(mid) <= 2, out + err)

    # A heatmap of kstats --interval --csv output: the median moves up
    # for a while. The intervals below are built as kstats prints them:
    # one CSV, each row led by its interval, time and seconds (as
    # test_interval_formats checks); and as it printed them before #32, a
    # line "interval N seconds S rate R/s" above each interval's CSV.
    series = old = ''
    for i in range(12):
        vs = [int(rng.lognormvariate(9 + (1 if 4 <= i < 8 else 0), 0.4)) for _ in range(2000)]
        rc, c, _ = run(['--csv', '-'], stdin=gen.render({0: vs}, 3))
        head, *rows = c.splitlines(True)
        if not i:
            series = 'interval,time,seconds,' + head
        series += ''.join('%d,%.3f,1.000,' % (i + 1, 1.7e9 + i + 1) + r for r in rows)
        old += 'interval %d seconds 1.000 rate 2000.0/s\n' % (i + 1) + c
    hm = write('series', series)
    for term, magic, path in (('png', b'\x89PNG', hm), ('svg', b'<?xml', hm),
                              ('png', b'\x89PNG', write('old-series', old))):
        img = os.path.join(TMP, 'heat.' + term)
        rc, out, err = plot_run(['--heatmap', '-t', term, '-o', img, path], '')
        with open(img, 'rb') if os.path.exists(img) else io.BytesIO() as f:
            data = f.read()
        check('kstats-plot --heatmap -t %s: an image of the intervals%s' %
              (term, ' (the format before #32)' if path != hm else ''),
              rc == 0 and data.startswith(magic) and len(data) > 5000, err)
    rc, _, err = plot_run(['--heatmap', hm], '')
    check('kstats-plot --heatmap on the terminal -> exit 1, says -t png|svg',
          rc == 1 and '-t png' in err, err)
    rc, _, err = plot_run(['--heatmap', '-t', 'png', '-o', os.path.join(TMP, 'x.png'), flat], '')
    check('kstats-plot --heatmap of input without intervals -> exit 1, says what it needs',
          rc == 1 and '--interval' in err, err)
    check('kstats-plot --heatmap: no temporary file left', os.listdir(tmpdir) == [],
          str(os.listdir(tmpdir)))
    rc, _, err = plot_run(['-'], 'slot x\n')
    check('kstats-plot: malformed input -> exit 1, kstats\' message',
          rc == 1 and 'line 1' in err, err)
    man = os.path.join(os.path.dirname(KSTATS), 'kstats-plot.1')
    check('kstats-plot has a man page', os.path.exists(man) and
          '.SH OPTIONS' in open(man).read())
    test_plot_names(plot, text, hm)


def svg_text(path):
    """The titles of an SVG plot's curves (gnuplot writes a newline in one
    as \\n) and all its texts; None, None if it is not valid SVG."""
    try:
        doc = xml.dom.minidom.parse(path)
    except (OSError, xml.parsers.expat.ExpatError):
        return None, None
    titles = []
    for g in doc.getElementsByTagName('g'):
        if g.getAttribute('id').startswith('gnuplot_plot_'):
            t = g.getElementsByTagName('title')
            # An opaque key is drawn again after the curves: a second
            # group of the same plot (its id).
            if g.getAttribute('id') not in [i for i, _ in titles]:
                titles.append((g.getAttribute('id'),
                               t[0].firstChild.data if t and t[0].firstChild else ''))
    titles = [t for _, t in titles]
    def data(node):
        return ''.join(c.data if c.nodeType == c.TEXT_NODE else data(c) for c in node.childNodes)
    return titles, [data(t) for t in doc.getElementsByTagName('text')]


# ssh -- HOST COMMAND..., as OpenSSH: the remote shell runs the words of
# COMMAND joined by spaces; the metrics of /sys/kernel/debug/kstats/ are
# those of $FAKE_REMOTE.
FAKE_SSH = r"""#!/bin/sh
[ "$1" = -- ] && shift
[ "$1" = testhost ] || { echo "ssh: $1: not the test's host" >&2; exit 255; }
shift
cmd=$(printf '%s\n' "$*" | sed "s|/sys/kernel/debug/kstats/|$FAKE_REMOTE/|")
exec sh -c "$cmd"
"""


def test_plot_names(plot, text, series):
    """
    kstats-plot passes no input name to a shell or to gnuplot as code
    (#32): with quotes, spaces, $(...), backquotes, newlines in the names
    of its inputs and output, each plot works, runs nothing, and its
    legend shows the name as it is, but for its control characters
    (\\xNN).
    """
    names = ["a';touch INJECTED;'b", "it's run.txt", 'say "hi" twice', '$(touch X)',
             '`touch Y`', 'new\nline', 'ends in a newline\n',
             '\'"; system("touch G"); "', '-starts with a dash', 'back\\slash & <tag>']
    # The inputs, and where the plots run: a 'touch' would write there.
    d = os.path.join(TMP, 'names')
    out = os.path.join(TMP, 'names-out')
    os.mkdir(d)
    os.mkdir(out)
    for n in names:
        with open(os.path.join(d, n), 'w', encoding='ascii') as f:
            f.write(text)
    heat = names[0] + '.series'
    shutil.copy(series, os.path.join(d, heat))

    def plot_in(args, env=None):
        rc, _, err = run(['sh', plot] + args, raw=True, cwd=d, env=env)
        return rc, err

    def shown(n):
        # A control character as kstats shows it (a newline: \x0a).
        return n.replace('\n', '\\x0a')

    for i, n in enumerate(names):
        img = os.path.join(out, 'it\'s "%d"\n.svg' % i)
        rc, err = plot_in(['-t', 'svg', '-o', img, '--', n])
        titles, _ = svg_text(img)
        check('kstats-plot of %r (into an SVG whose name has quotes): its curve, '
              'titled with the name' % n, rc == 0 and titles == [shown(n)], (rc, err, titles))
    img = os.path.join(out, 'cpus.svg')
    rc, err = plot_in(['--per-cpu', '--cdf', '-t', 'svg', '-o', img, '--', names[0], names[3]])
    titles, _ = svg_text(img)
    want = [shown(n) + ' CPU %d' % c for n in (names[0], names[3]) for c in (0, 2)]
    check('kstats-plot --per-cpu of two such names: a curve per CPU, "NAME CPU N"',
          rc == 0 and titles == want, (rc, err, titles))
    img = os.path.join(out, 'heat.svg')
    rc, err = plot_in(['--heatmap', '-t', 'svg', '-o', img, '--', heat])
    _, texts = svg_text(img)
    check('kstats-plot --heatmap of %r: the name as its title' % heat,
          rc == 0 and texts and heat in texts, (rc, err, texts))
    img = os.path.join(out, 'q.png')
    rc, err = plot_in(['-t', 'png', '-o', img, names[0]])
    with open(img, 'rb') if os.path.exists(img) else io.BytesIO() as f:
        png = f.read()
    check('kstats-plot -t png -o q.png %r: the image (the issue\'s example)' % names[0],
          rc == 0 and png.startswith(b'\x89PNG'), err)
    # -H: the metric's name goes to the remote shell quoted.
    fake = os.path.join(TMP, 'fakebin')
    os.mkdir(fake)
    with open(os.path.join(fake, 'ssh'), 'w', encoding='ascii') as f:
        f.write(FAKE_SSH)
    os.chmod(os.path.join(fake, 'ssh'), 0o755)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ['PATH'], FAKE_REMOTE=d)
    img = os.path.join(out, 'host.svg')
    rc, err = plot_in(['-H', 'testhost', '-t', 'svg', '-o', img, '--', names[3], names[6]], env)
    titles, _ = svg_text(img)
    check('kstats-plot -H HOST of %r and %r: read through ssh, titled with the names'
          % (names[3], names[6]), rc == 0 and titles == [shown(names[3]), shown(names[6])],
          (rc, err, titles))
    ran = [os.path.join(r, f) for r, _, fs in os.walk(TMP) for f in fs
           if f in ('INJECTED', 'X', 'Y', 'G')]
    check('kstats-plot: no command in a name ran (no file INJECTED, X, Y or G made), '
          'the inputs are as they were', not ran and
          sorted(os.listdir(d)) == sorted(names + [heat]), (ran, os.listdir(d)))


UNIT_NS = {'ns': 1, 'us': 10 ** 3, 'ms': 10 ** 6, 's': 10 ** 9}


def value_ns(text, unit='ns'):
    """A number printed with -u UNIT ("1.03 us"), or plain, as a Fraction of ns
    (of the unit recorded, UNIT)."""
    words = text.split()
    scale = fractions.Fraction(UNIT_NS[words[1]], UNIT_NS[unit]) if len(words) > 1 else 1
    return fractions.Fraction(words[0]) * scale


def brackets(out):
    """{row name: (lo, hi)} of the [lo, hi] of each line of a summary."""
    return {l.split()[0]: m.groups() for l in out.splitlines()
            for m in [re.search(r'\[([^],]+), ([^]]+)\]', l)] if m}


def test_exact_bounds(rng):
    """
    #32, 5: bounds print exactly, above 2^53 too (a double has 53 bits):
    OpenMetrics' le are the slots' bounds, in seconds with -u their exact
    decimal; the summary's [lo, hi] are the integers, or rounded outwards
    with -u, so that what is printed holds.
    """
    values = ([2 ** 64 - 1 - rng.randrange(2 ** 62) for _ in range(500)] +
              [2 ** 41 + rng.randrange(2 ** 45) for _ in range(500)] +
              [rng.randrange(5000) for _ in range(500)] + [2 ** 64 - 1, 0, 2 ** 63 - 1])
    srt = sorted(values)
    path = write('huge', gen.render({0: values}, 3))
    for unit, scale in ((None, 1), ('ns', 10 ** 9), ('us', 10 ** 6), ('ms', 10 ** 3),
                        ('s', 1)):
        rc, out, err = run(['--openmetrics', '--le-bits', '3'] +
                           (['--input-unit', unit] if unit else []) + [path])
        les = re.findall(r'_bucket\{metric="huge",le="([^"]+)"\} (\d+)$', out, re.M)
        bad = []
        for k, (le, n) in enumerate(les[:-1]):
            exact = fractions.Fraction(le) * scale
            if exact != gen.slot_max(k, 3) or int(n) != bisect.bisect_right(srt, exact):
                bad.append('slot %d: le="%s" for %d, %s samples' % (k, le,
                                                                   gen.slot_max(k, 3), n))
        check('OpenMetrics%s --le-bits 3: every le is the exact bound of its slot (%d '
              'buckets, up to 2^64 - 1), each count exact' % (' -u ' + unit if unit else '',
                                                              len(les) - 1),
              rc == 0 and len(les) == (65 - 3) << 3 and les[-1][0] == '+Inf' and not bad,
              (bad[:4], err))
    pcts = '1,50,90,99.9,100'
    rc, out, _ = run(['--json', '-p', pcts, path])
    st = json.loads(out) if rc == 0 else {'percentiles': {}}
    want = {'p' + q: (p['lo'], p['hi']) for q, p in st['percentiles'].items()}
    rc, out, err = run(['-p', pcts, path])
    got = {k: (int(a), int(b)) for k, (a, b) in brackets(out).items() if k in want}
    check('summary: the bounds of percentiles past 2^53 are the exact integers',
          rc == 0 and len(want) == 5 and got == want, (want, got, err))
    rc, out, err = run(['--input-unit', 'ns', '-p', pcts, path])
    got = {k: (value_ns(a), value_ns(b)) for k, (a, b) in brackets(out).items() if k in want}
    check('summary -u ns: each [lo, hi] printed holds the slot, rounded outwards '
          'by less than 1%',
          rc == 0 and len(got) == 5 and
          all(lo * 0.99 <= got[k][0] <= lo and hi <= got[k][1] <= hi * 1.01
              for k, (lo, hi) in want.items()), (want, got, err))


def sig_digits(text):
    """The significant digits of a number printed with its unit: '2.40 us': 3."""
    return len(text.split()[0].lstrip('-').replace('.', '').lstrip('0'))


def test_sig_digits(rng):
    """#32, 11: the values of a column print with 3 significant digits each, with
    -u (2.40 us above 2.38 us, not 2.4 us)."""
    by_cpu = {0: [2400] * 50, 1: [2380] * 50, 2: [int(rng.lognormvariate(8, 1))
                                                  for _ in range(300)], 3: [5] * 3}
    path = write('sig', gen.render(by_cpu, 3))
    rc, out, err = run(['--input-unit', 'ns', '--per-cpu', path])
    rows = [l.split('  ') for l in out.splitlines()[1:]]
    cells = [c.strip() for r in rows for c in r[1:] if c.strip() and not c.strip().isdigit()]
    means = {l.split()[0]: ' '.join(l.split()[2:4]) for l in out.splitlines()[1:]}
    check('-u ns --per-cpu: every value of the table has 3 significant digits '
          '(2.40 us above 2.38 us, 5.00 ns; 0 is 0)',
          rc == 0 and means.get('0') == '2.40 us' and means.get('1') == '2.38 us' and
          means.get('3') == '5.00 ns' and len(cells) >= 4 * 7 and
          all((sig_digits(c) == 3 or c.split()[0] == '0') and c.split()[1] in UNIT_NS
              for c in cells),
          (cells, out, err))
    rc, out, err = run(['--input-unit', 'ns', '--cpu', '0', path])
    values = [l.split()[1] + ' ' + l.split()[2] for l in out.splitlines()
              if re.match(r'(mean|p[\d.]+) ', l)]
    check('-u ns: the mean and percentiles of 2400 ns print as 2.40 us',
          rc == 0 and len(values) == 6 and set(values) == {'2.40 us'}, out + err)
    # From 100000 s on, a power of ten: 1.85e9 s, not 1850000000 s (the
    # column would widen with every digit of the seconds).
    huge = write('sig-huge', gen.render({0: [1850 * 10 ** 15] * 10 + [2 * 10 ** 14] * 10}, 3))
    rc, out, err = run(['--input-unit', 'ns', huge])
    vals = [v for l in out.splitlines() if re.match(r'(mean|min|max|p[\d.]+|mad) ', l)
            for v in re.findall(r'([\d.]+(?:e\d+)?) s\b', l)]
    p50 = [l.split()[1] for l in out.splitlines() if l.startswith('p50 ')]
    check('-u ns of 2e5 s and 1.85e9 s: values from 1e5 s on as 1.85e9 s, each of 3 '
          'significant digits and at most 7 characters',
          rc == 0 and p50 == ['2.00e5'] and len(vals) >= 12 and
          all(len(v) <= 7 and float(v) > 0 for v in vals) and
          all(re.fullmatch(r'\d\.\d\de\d+', v) for v in vals if float(v) >= 1e5),
          (vals, out, err))


def test_min_max(rng):
    """
    #32, 4: the smallest and largest samples lie in the first and last
    slots, not at their means: uniform samples from 1000 to 2000 printed
    min 1011 [960, 1023] and max 1959 [1920, 2047], neither true. The
    bounds that hold are printed, and JSON's fields are the bounds.
    """
    values = [rng.randint(1000, 2000) for _ in range(5000)] + [1000, 2000]
    path = write('uniform', gen.render({0: values[:2500], 1: values[2500:]}, 3))
    rc, out, err = run([path])
    rows = {l.split()[0]: l.split()[1:] for l in out.splitlines()}
    check('summary: min >= 960 [960, 1023], max <= 2047 [1920, 2047]: bounds, no slot mean',
          rc == 0 and rows.get('min') == ['>=', '960', '[960,', '1023]'] and
          rows.get('max') == ['<=', '2047', '[1920,', '2047]'], out + err)
    rc, out, err = run(['--input-unit', 'ns', path])
    rows = {l.split()[0]: ' '.join(l.split()[1:]) for l in out.splitlines()}
    check('summary -u ns: min >= 960 ns, max <= 2.05 us (the bound rounded up: it holds)',
          rc == 0 and rows.get('min') == '>= 960 ns [960 ns, 1.03 us]' and
          rows.get('max') == '<= 2.05 us [1.92 us, 2.05 us]', out + err)
    rc, out, err = run(['--json', path])
    st = json.loads(out) if rc == 0 else {}
    every = [st] + list(st.get('cpus', {}).values())
    check('JSON: min_bounds and max_bounds, no "min" or "max" (slot means), '
          'on the CPUs too',
          len(every) == 3 and
          all('min' not in s and 'max' not in s and s['min_bounds'] == [960, 1023] and
              s['max_bounds'] == [1920, 2047] for s in every), out + err)
    # --rows: max<=, the bound of the last slot.
    rc, out, err, fed = follow_reads(['--rows', '--interval', '0.1', '--count', '1'],
                                     [gen.render({0: [5]}, 3), gen.render({0: [5] + values}, 3)])
    rows = out.splitlines()
    check('interval --rows: max<= is the bound of the last slot, 2047',
          rc == 0 and not fed and len(rows) == 2 and rows[0].split()[-3] == 'max<=' and
          rows[1].split()[-3] == '2047', (fed, out, err))


def test_names_units(rng):
    """#32, 11: OpenMetrics of standard input is named by --name or refused (it
    was metric="-"), and so is each interval's (it was metric="interval");
    JSON with -u says its unit."""
    values = [int(rng.lognormvariate(8, 1)) for _ in range(500)]
    text = gen.render({0: values}, 3)
    path = write('named', text)
    for args in (['--openmetrics', '-'], ['--openmetrics', '--input-unit', 'ns', '-'],
                 ['--openmetrics', '--diff', path, '-']):
        rc, out, err = run(args, stdin=text)
        check('kstats %s: no metric name -> exit 1, says to give --name' % ' '.join(
            os.path.basename(a) for a in args),
              rc == 1 and not out and usage_lines(err) and '--name NAME' in err and
              'standard input' in err, out + err)
    rc, out, err = run(['--openmetrics', '--name', 'disk.read', '-'], stdin=text)
    labels = set(re.findall(r'\{(metric="[^"]*")', out))
    check('--openmetrics --name disk.read -: metric="disk.read"',
          rc == 0 and labels == {'metric="disk.read"'}, out[:500] + err)
    rc, out, err = run(['--openmetrics', '--merge', path, '-'], stdin=text)
    check('--openmetrics --merge FILE -: metric="merged", as before',
          rc == 0 and set(re.findall(r'\{(metric="[^"]*")', out)) == {'metric="merged"'},
          out[:300] + err)
    rc, out, err, fed = follow_reads(['--openmetrics', '--interval', '0.1', '--count', '1'],
                                     [text, gen.render({0: values + [5]}, 3)])
    check('--interval --openmetrics: metric is the input\'s name, not "interval"',
          rc == 0 and not fed and set(re.findall(r'\{(metric="[^"]*")', out)) ==
          {'metric="live"'}, (fed, out[:300], err))
    rc, plain, _ = run(['--json', path])
    for unit in ('ns', 'us', 'ms', 's'):
        rc, out, err = run(['--json', '--input-unit', unit, path])
        st = json.loads(out) if rc == 0 else {}
        # The values are as recorded, -u or not: only the unit is added.
        same = dict(st)
        same.pop('unit', None)
        check('--json -u %s: "unit": "%s", the values as without -u' % (unit, unit),
              st.get('unit') == unit and same == json.loads(plain), out + err)
    check('--json without -u: no unit', rc == 0 and 'unit' not in json.loads(plain), plain)


def test_refused_options(rng):
    """
    #32, 6: an option that would do nothing where it is given is a usage
    error (exit 1, a line, then Try), not ignored; --cpu N past the input's
    CPUs is an input error (exit 2), and --cpu N's output says it is CPU N.
    """
    by_cpu = {c: [int(rng.lognormvariate(8, 1)) for _ in range(200)] for c in range(4)}
    path = write('four', gen.render(by_cpu, 3))
    for args, what in (
            (['--per-cpu', '--hist'], '--per-cpu: not with --hist'),
            (['--per-cpu', '--csv'], '--per-cpu: not with --csv'),
            (['--per-cpu', '--json'], '--per-cpu: not with --json'),
            (['--per-cpu', '--compare', path], '--per-cpu: not with --compare'),
            (['--per-cpu', '--rows', '--interval', '1'], '--per-cpu: not with --rows'),
            (['--per-cpu', '--cpu', '1'], '--cpu and --per-cpu: one or the other'),
            (['--count', '3'], '--count: only with --interval'),
            (['-c', '3', '--merge', path], '--count: only with --interval'),
            (['--le-bits', '1'], '--le-bits: only with --openmetrics'),
            (['--le-bits', '1', '--json'], '--le-bits: only with --openmetrics'),
            (['--name', 'x'], '--name: only with --openmetrics'),
            (['--name', 'x', '--csv'], '--name: only with --openmetrics'),
            (['--rows'], '--rows: only with --interval'),
            (['--rows', '--json', '--interval', '1'], '--rows: its own lines'),
            (['--compare', '--json', path], '--compare --json: of two groups'),
            (['--compare', '--hist', path], '--compare: its own text'),
            (['--json', '--csv'], 'one at a time'),
            (['--hist', '--openmetrics'], 'one at a time'),
            (['--cpu', '1', '--openmetrics'], '--cpu: not with --openmetrics'),
            (['-p', '50', '--csv'], '--percentiles: not with --csv'),
            (['-p', '50', '--openmetrics'], '--percentiles: not with --openmetrics'),
            (['--input-unit', 'ns', '--csv'], '--input-unit: not with --csv'),
            (['-u', 'us', '--csv'], '--unit: not with --csv')):
        rc, out, err = run(args + [path])
        check('kstats %s FILE -> exit 1, "%s" in a line, then Try' % (' '.join(
            os.path.basename(a) for a in args), what),
              rc == 1 and not out and usage_lines(err) and what in err.splitlines()[0], err)
    # What stays allowed: each option where it does something.
    for args in (['--per-cpu'], ['--per-cpu', '--openmetrics'], ['--per-cpu', '--merge'],
                 ['--le-bits', '2', '--openmetrics'], ['--name', 'x', '--openmetrics'],
                 ['--cpu', '1', '--csv'], ['--cpu', '1', '--hist'], ['-p', '50', '--hist'],
                 ['--input-unit', 'ns', '--openmetrics'], ['--input-unit', 'ns', '--json'], ['--json', '--json']):
        rc, out, err = run(args + [path])
        check('kstats %s FILE: accepted' % ' '.join(args), rc == 0 and out and not err, err)
    rc, out, err, fed = follow_reads(['--interval', '0.1', '--count', '1', '--per-cpu'],
                                     [gen.render(by_cpu, 3), gen.render(by_cpu, 3)])
    check('--interval --per-cpu (text): accepted, a row per CPU',
          rc == 0 and not fed and re.search(r'^all ', out, re.M), (fed, out, err))
    # --cpu past the CPUs of the input: an error of the input, in every mode.
    for args in (['--cpu', '9'], ['--cpu', '4'], ['--cpu', '9', '--json'],
                 ['--cpu', '9', '--csv'], ['--cpu', '9', '--hist'],
                 ['--cpu', '9', '--compare', path], ['--cpu', '9', '--merge', path]):
        rc, out, err = run(args + [path])
        check('kstats %s FILE of CPUs 0 to 3 -> exit 2, says so' % ' '.join(
            os.path.basename(a) for a in args),
              rc == 2 and not out and '--cpu %s: the input has CPUs 0 to 3 only' % args[1] in err,
              out + err)
    rc, out, err, fed = follow_reads(['--interval', '0.1', '--count', '1', '--rows', '--cpu', '9'],
                                     [gen.render(by_cpu, 3), gen.render(by_cpu, 3)])
    check('--interval --rows --cpu 9 of CPUs 0 to 3 -> exit 2 at the first read',
          rc == 2 and 'CPUs 0 to 3 only' in err, (fed, out, err))
    # --cpu 2 says it is CPU 2.
    n2 = len(by_cpu[2])
    rc, out, err = run(['--cpu', '2', path])
    check('--cpu 2: the summary says cpu 2', rc == 0 and 'cpu     2' in out.splitlines() and
          'count   %d' % n2 in out.splitlines(), out + err)
    rc, out, err = run(['--cpu', '2', '--json', path])
    st = json.loads(out) if rc == 0 else {}
    check('--cpu 2 --json: "cpu": 2, its count', st.get('cpu') == 2 and st.get('count') == n2 and
          'cpu' not in json.loads(run(['--json', path])[1]), out + err)
    rc, out, err = run(['--cpu', '2', '--csv', path])
    rows = list(csv.DictReader(io.StringIO(out)))
    check('--cpu 2 --csv: a last column cpu, 2 on every row',
          rc == 0 and rows and list(rows[0])[-1] == 'cpu' and
          all(r['cpu'] == '2' for r in rows) and sum(int(r['count']) for r in rows) == n2,
          out + err)
    rc, out, err = run(['--cpu', '2', '--hist', path])
    check('--cpu 2 --hist: says cpu 2 first', rc == 0 and out.startswith('cpu 2\n'), out + err)
    rc, out, err = run(['--cpu', '2', '--compare', path, path])
    check('--cpu 2 --compare: its head says cpu 2', rc == 0 and out.startswith('cpu 2 '),
          out + err)
    rc, out, err, fed = follow_reads(['--interval', '0.1', '--count', '1', '--rows', '--cpu', '2'],
                                     [gen.render({0: [5]}, 3, 4), gen.render(by_cpu, 3)])
    check('--interval --rows --cpu 2: says cpu 2 above its header',
          rc == 0 and not fed and out.startswith('cpu 2\n'), (fed, out, err))


def test_merge_bits(rng):
    """
    #32, 9: --merge of inputs of different frac_bits sums them at the
    coarsest, where each slot is a union of finer ones: every count exact,
    as if all the samples had been recorded at that frac_bits; said on
    standard error, with each input's name and frac_bits.
    """
    vs = [[int(rng.lognormvariate(8, 1)) for _ in range(2000)] for _ in range(3)]
    a = write('fine5', gen.render({0: vs[0], 1: vs[1]}, 5))
    b = write('coarse3', gen.render({0: vs[2]}, 3))
    c = write('fine8', gen.render({2: vs[2][:500]}, 8))
    every = vs[0] + vs[1] + vs[2]

    def slots(out):
        return [(r['slot'], r['lo'], r['hi'], r['count'])
                for r in csv.DictReader(io.StringIO(out))]
    rc, out, err = run(['--merge', '--csv', a, b])
    want = slots(run(['--csv', write('as3', gen.render({0: vs[0] + vs[2], 1: vs[1]}, 3))])[1])
    check('--merge of frac_bits 5 and 3: the slots and counts of the samples at frac_bits 3',
          rc == 0 and slots(out) == want and len(want) > 20, (err, out[:300]))
    first = err.splitlines()[0] if err else ''
    check('--merge of frac_bits 5 and 3: said on stderr, a line naming each input and its '
          'frac_bits, and the coarsest',
          len(err.splitlines()) == 1 and '%s has 5' % a in first and '%s has 3' % b in first and
          'merged at frac_bits 3, the coarsest' in first, err)
    rc, out, err = run(['--merge', '--json', '-p', ','.join('%g' % q for q in PCTS), a, b])
    st = json.loads(out) if rc == 0 else {}
    if st:
        check_stats('--merge of frac_bits 5 and 3: the stats of all the samples, at frac_bits 3',
                    st, every, 3)
    check('--merge of frac_bits 5 and 3: bits 3, CPU N summed from each input\'s',
          st.get('bits') == 3 and {k: v['count'] for k, v in st.get('cpus', {}).items()} ==
          {'0': 4000, '1': 2000}, out[:300] + err)
    rc, out, err = run(['--merge', '--csv', c, a, b])
    want = slots(run(['--csv', write('as3', gen.render(
        {0: vs[0] + vs[2], 1: vs[1], 2: vs[2][:500]}, 3))])[1])
    check('--merge of frac_bits 8, 5 and 3: at 3, every count exact',
          rc == 0 and slots(out) == want and '%s has 8' % c in err, (err, out[:300]))
    rc, out, err = run(['--merge', '--csv', a, a])
    check('--merge of inputs of one frac_bits: nothing said on stderr', rc == 0 and not err, err)

    # --compare as --merge: at the coarsest, said on stderr. The same
    # samples at frac_bits 3 give the same counts at every slot boundary:
    # the same KS test; the values, slot means, may differ within a slot.
    d5, d3 = tempfile.mkdtemp(dir=TMP), tempfile.mkdtemp(dir=TMP)
    for d, bits in ((d5, 5), (d3, 3)):
        with open(os.path.join(d, 'A'), 'w', encoding='ascii') as f:
            f.write(gen.render({0: vs[0], 1: vs[1]}, bits))
        shutil.copy(b, os.path.join(d, 'B'))
    for cpu in ([], ['--cpu', '0']):
        rc, out, err = run(['--compare'] + cpu + ['A', 'B'], cwd=d5)
        rc3, want, err3 = run(['--compare'] + cpu + ['A', 'B'], cwd=d3)
        lines, wlines = out.splitlines(), want.splitlines()
        ks = [l for l in lines if l.startswith('ks D=')]
        first = err.splitlines()[0] if err else ''
        check('--compare %sof frac_bits 5 and 3: at frac_bits 3 (the KS test and counts of '
              'the samples at 3), said on stderr with each input\'s frac_bits'
              % ' '.join(cpu + ['']), rc == rc3 == 0 and not err3 and
              len(err.splitlines()) == 1 and 'A has 5' in first and 'B has 3' in first and
              'compared at frac_bits 3, the coarsest' in first and
              [l.split()[0] for l in lines if l.split()] ==
              [l.split()[0] for l in wlines if l.split()] and
              lines[1] == wlines[1] and len(ks) == 1 and ks[0] in wlines, (err, out, want))


def test_interval_formats(rng):
    """
    #32, 10: --interval --csv is one CSV (a header once, interval, time and
    seconds columns, no text line); --interval --openmetrics is a valid
    exposition per interval, nothing else; --interval --json stays JSON
    Lines (test_diff_interval). --interval --openmetrics exposes counters:
    the totals since the start, monotonic over resets.
    """
    values = [int(rng.lognormvariate(8, 1)) for _ in range(3000)]
    snaps = [gen.render({0: values[:n], 1: values[:n // 2]}, 3)
             for n in (1000, 1400, 1400, 2200)]
    before = time.time()
    rc, out, err, fed = follow_reads(['--csv', '--interval', '0.2', '--count', '3'], snaps)
    after = time.time()
    rows = list(csv.reader(io.StringIO(out)))
    head = ['interval', 'time', 'seconds', 'slot', 'lo', 'hi', 'count', 'mean', 'cdf',
            'fraction', 'per_octave', 'per_unit']
    body = [dict(zip(head, r + [''] * len(head))) for r in rows[1:]]

    def number(x):
        try:
            float(x)
            return True
        except ValueError:
            return False
    counts = {}
    for r in body:
        if r['count'].isdigit():
            counts[r['interval']] = counts.get(r['interval'], 0) + int(r['count'])
    check('--interval --csv: one CSV, the header once, every row of %d numbers' % len(head),
          rc == 0 and not fed and rows and rows[0] == head and len(body) > 10 and
          all(len(r) == len(head) and all(map(number, r)) for r in rows[1:]), (fed, out, err))
    # 600 samples in the first interval, none in the second, 1200 in the third.
    check('--interval --csv: each row\'s interval, time (between the start and end of the '
          'run), seconds (at least the interval)',
          counts == {'1': 600, '3': 1200} and
          all(number(r['time']) and before - EPS <= float(r['time']) <= after + EPS and
              number(r['seconds']) and 0.2 - EPS <= float(r['seconds']) < 10 for r in body),
          (counts, out[:500]))
    rc, out, err, fed = follow_reads(['--csv', '--cpu', '1', '--interval', '0.2', '--count', '1'],
                                     snaps[:2])
    rows = list(csv.reader(io.StringIO(out)))
    check('--interval --csv --cpu 1: the header once, a last column cpu',
          rc == 0 and not fed and rows[0] == head + ['cpu'] and
          all(r[-1] == '1' and len(r) == len(head) + 1 and r[6].isdigit() for r in rows[1:]) and
          sum(int(r[6]) for r in rows[1:]) == 200, (fed, out, err))
    rc, out, err, fed = follow_reads(['--openmetrics', '--input-unit', 'ns', '--interval', '0.2',
                                      '--count', '3'], snaps)
    parts = out.split('# EOF\n')
    ok = rc == 0 and not fed and len(parts) == 4 and parts[-1] == ''
    detail = ''
    for p in parts[:-1]:
        ok &= p.startswith('# HELP kstats_latency_seconds ')
        if shutil.which('promtool'):
            pr = subprocess.run(['promtool', 'check', 'metrics'], input=p + '# EOF\n',
                                capture_output=True, text=True, check=False)
            ok &= pr.returncode == 0
            detail += pr.stdout + pr.stderr
        else:
            ok = False
            detail = 'promtool not found'
    counts = re.findall(r'^kstats_latency_seconds_count\{metric="live"\} (\d+)$', out, re.M)
    check('--interval --openmetrics: an exposition per interval, each valid (promtool), '
          'nothing between them, each the totals since the start (counters)',
          ok and counts == ['600', '600', '1800'], (fed, detail, out[:400], err))
    # -o: each exposition replaces FILE whole (node_exporter's textfile
    # collector), through a temporary file; the last one stays.
    d = tempfile.mkdtemp(dir=TMP)
    target = os.path.join(d, 'live.prom')
    rc, out2, err, fed = follow_reads(['--openmetrics', '--input-unit', 'ns', '--interval', '0.2',
                                       '--count', '3', '-o', target], snaps)
    got = open(target, encoding='ascii').read() if os.path.exists(target) else ''
    check('--interval --openmetrics -o FILE: FILE holds the last exposition whole, '
          'nothing on standard output, no temporary file left',
          rc == 0 and not fed and not out2 and os.listdir(d) == ['live.prom'] and
          got == parts[2] + '# EOF\n', (fed, os.listdir(d), got[-300:], err))
    rc, out2, err = run(['--csv', '--interval', '1', '-o', target, 'x'])
    check('--interval -o in another format than --openmetrics: refused, says why',
          rc == 1 and 'only --openmetrics' in err and not out2, (rc, err))

    # Counters: every _bucket, _sum and _count of an exposition at least
    # those of the one before, also over a reset of the metric (the
    # interval counts from the new snapshot, as --interval has it); the
    # last exposition's buckets those of every interval's samples.
    def expo(n):
        return {0: values[:n], 1: values[:n // 2]}
    snaps = [gen.render(expo(n), 3) for n in (1000, 1400, 300, 700)]
    intervals = [values[1000:1400] + values[500:700], values[:300] + values[:150],
                 values[300:700] + values[150:350]]
    for per_cpu in ([], ['--per-cpu']):
        rc, out, err, fed = follow_reads(['--openmetrics', '--input-unit', 'ns', '--interval', '0.2',
                                          '--count', '3'] + per_cpu, snaps)
        series, valid = [], bool(shutil.which('promtool'))
        for p in out.split('# EOF\n')[:-1]:
            if valid:
                pr = subprocess.run(['promtool', 'check', 'metrics'], input=p + '# EOF\n',
                                    capture_output=True, text=True, check=False)
                valid = pr.returncode == 0
            by = {}
            for l in p.splitlines():
                m = re.match(r'(kstats_latency_seconds_\w+)\{(.*)\} (\S+)$', l)
                if m:
                    by[(m[1], m[2])] = float(m[3])
            series.append(by)
        mono = len(series) == 3 and all(
            set(a) <= set(b) and all(b[k] >= a[k] for k in a)
            for a, b in zip(series, series[1:]))
        want = sorted(x for iv in intervals for x in iv)
        last = series[-1] if series else {}
        if not per_cpu:
            exact = last.get(('kstats_latency_seconds_count', 'metric="live"')) == len(want)
            for (name, labels), v in last.items():
                m = re.search(r'le="([^"]+)"', labels)
                if name.endswith('_bucket') and m and m[1] != '+Inf':
                    le = fractions.Fraction(m[1]) * 10 ** 9
                    exact &= v == bisect.bisect_right(want, le)
        else:
            exact = sum(v for (name, _), v in last.items()
                        if name.endswith('_count')) == len(want)
        check('--interval --openmetrics %s: counters, monotonic over a reset; the last '
              'exposition holds every interval\'s samples; valid (promtool)'
              % ' '.join(per_cpu), rc == 0 and not fed and mono and exact and valid and
              'reset' in err,
              (fed, err, out[-1500:]))


def test_hist(rng):
    """
    #32, 14: --hist as funclatency and bpftrace print it: each row labelled
    with its slot's range, the empty slots between two modes shown, a scale
    for the bar, the bar closed so that the count and the cumulative % read
    apart from it, also where it is long.
    """
    low = [int(rng.lognormvariate(6, 0.2)) for _ in range(3000)]
    high = [int(rng.lognormvariate(11, 0.3)) for _ in range(1000)]
    values = low + high
    path = write('bimodal', gen.render({0: values}, 3))
    used = sorted({gen.slot_of(v, 3) for v in values})
    counts = {s: 0 for s in range(used[0], used[-1] + 1)}
    for v in values:
        counts[gen.slot_of(v, 3)] += 1
    rc, out, err = run(['--hist', path], env=dict(os.environ, COLUMNS='120'))
    scale, rows = hist_rows(out)
    check('--hist: a row per slot from the first to the last, each labelled [lo, hi] '
          'with its count', rc == 0 and
          [(int(r['lo']), int(r['hi']), r['count']) for r in rows] ==
          [(gen.slot_min(s, 3), gen.slot_max(s, 3), n) for s, n in counts.items()],
          out[:2000] + err)
    gap = [r for r in rows if r['count'] == 0 and max(low) < int(r['lo']) < min(high)]
    check('--hist: the empty slots between the two modes are shown (%d rows), blank: '
          'no density, no cumulative shade' % len(gap),
          len(gap) > 20 and all(r['dark'] == 0 and r['light'] == 0 for r in gap), out[:2000])
    unmarked = [r for r in rows if r['count'] and not r['dark'] + r['light']]
    check('--hist: a slot with samples has a mark at least (%d without one)' % len(unmarked),
          rows and not unmarked, unmarked[:3])
    # One dark block is SCALE samples per octave: each bar is the slot's.
    bad = [r for r in rows if abs(r['dark'] - r['count'] / math.log2(
        (int(r['hi']) + 1) / int(r['lo'])) / scale) > 0.5 + 1e-9] if scale else rows
    check('--hist: a scale above the rows ("\u2592 = %s samples per octave"), each bar '
          'the slot\'s density on it' % scale,
          scale and not bad and max(r['dark'] for r in rows) >= 10, (bad[:3], out[:600]))
    full = [r for r in rows if r['dark'] + r['light'] == r['width']]
    check('--hist: the bar is closed, the count and cum%% apart from it, also where the '
          'bar is full (%d rows)' % len(full),
          len(rows) == len(out.splitlines()) - 2 and full and
          all(r['width'] == rows[0]['width'] for r in rows) and
          [r['cum'] for r in rows] == sorted(r['cum'] for r in rows) and
          rows[-1]['cum'] == 100, out[-600:])
    rc, out, err = run(['--hist', '--input-unit', 'ns', path], env=dict(os.environ, COLUMNS='120'))
    _, rows = hist_rows(out)
    check('--hist -u ns: the ranges exact in their unit, said once where both bounds '
          'have it ([1.024, 1.151] us, [960 ns, 1.023 us])',
          rc == 0 and len(rows) == len(counts) and
          all(value_ns(r['lo']) == gen.slot_min(s, 3) and value_ns(r['hi']) == gen.slot_max(s, 3)
              for r, s in zip(rows, counts)) and '[1.024, 1.151] us \u2502' in out and
          '[960 ns, 1.023 us] \u2502' in out, out[:1500])
    # #43, 4: the width it follows, labels and legend included; ASCII where
    # the locale is not UTF-8. One slot holds every percentile: its row has
    # the most labels.
    one = write('oneslot', gen.render({0: [1000] * 500}, 3))
    for cols in (80, 60, 50, 40):
        wide = []
        for p in (path, one):
            rc, out, err = run(['--hist', '--input-unit', 'ns', p],
                               env=dict(os.environ, COLUMNS=str(cols)))
            wide += [l for l in out.splitlines() if len(l) > cols] if rc == 0 else [err]
        check('--hist --input-unit ns, COLUMNS=%d: no line wider, legend and percentiles '
              'included (at 50 the percentiles\' column left out, at 40 the cum%%)' % cols,
              not wide, wide[:3])
    # At 40 columns: the range, the bar and the count, whole.
    rc, out, err = run(['--hist', '--input-unit', 'ns', path], env=dict(os.environ, COLUMNS='40'))
    got = [re.match('^ *\\[([^],]+), ([^]]+)\\]( [a-z]+)? \u2502[\u2592\u2591 ]+\u2502 *(\\d+)$', l)
           for l in out.splitlines()[1:]]
    got = [(value_ns(m[1] + (m[3] or '')), value_ns(m[2] + (m[3] or '')), int(m[4]))
           for m in got if m]
    check('--hist --input-unit ns, COLUMNS=40: each row its exact range and count, the '
          'cum% left out', rc == 0 and got ==
          [(gen.slot_min(s, 3), gen.slot_max(s, 3), n) for s, n in counts.items()],
          out[:1500] + err)
    rc, out, err = run(['--hist', path], env=dict(os.environ, LC_ALL='C', COLUMNS='80'))
    check('--hist, LC_ALL=C: ASCII only (# density, . cumulative, | frame)',
          rc == 0 and out.isascii() and '# = ' in out and
          sum(1 for l in out.splitlines()
              if re.match(r'\s*\[\d+, \d+\] \|[#. ]+\|', l)) == len(counts), out[:800])


def test_rows_time_total(rng):
    """
    #32, 15: --rows has a time column, the interval's end as funclatency -T
    prints it (HH:MM:SS, local time), and a total: the sum of the
    interval's samples, the time spent in what they measure.
    """
    values = [int(rng.lognormvariate(9, 1)) for _ in range(3000)]
    snaps = [gen.render({0: values[:n]}, 3) for n in (500, 1500, 1500, 3000)]
    before = time.time()
    rc, out, err, fed = follow_reads(['--rows', '--interval', '0.2', '--count', '3'], snaps)
    after = time.time()
    rows = out.splitlines()
    # Any second the run went through, local time (around midnight too).
    clocks = {time.strftime('%H:%M:%S', time.localtime(t))
              for t in range(int(before), int(after) + 2)}
    check('interval --rows: a first column time, HH:MM:SS of each interval\'s end',
          rc == 0 and not fed and len(rows) == 4 and rows[0].split()[0] == 'time' and
          all(r.split()[0] in clocks for r in rows[1:]), (fed, out, err, sorted(clocks)))
    want = [sum(values[500:1500]), 0, sum(values[1500:3000])]
    got = [float(r.split()[-2]) if r.split()[-2].isdigit() else None for r in rows[1:]]
    tol = mean_tolerance(values, 3)
    check('interval --rows: a column total, the sum of the interval\'s samples',
          rc == 0 and rows and rows[0].split()[-2] == 'total' and len(got) == 3 and
          None not in got and all(abs(g - w) <= tol * 1500 + 1 for g, w in zip(got, want)),
          (got, want, out))
    rc, out, err, fed = follow_reads(['--rows', '--input-unit', 'ns', '--interval', '0.2', '--count', '1'],
                                     snaps[:2])
    rows = out.splitlines()
    total = value_ns(' '.join(rows[1].split()[-4:-2])) if len(rows) == 2 else 0
    check('interval --rows -u ns: the total with its unit, to 3 significant digits',
          rc == 0 and not fed and abs(total / want[0] - 1) < 0.005 and
          sig_digits(' '.join(rows[1].split()[-4:-2])) == 3, (total, want[0], out, err))
    # The percentiles as a table's: the digits their slot supports (#43.8).
    snaps = [gen.render({0: [161718] * n}, b) for b, n in ((1, 10), (1, 20))]
    rc, out, err, fed = follow_reads(['--rows', '-p', '50', '--interval', '0.2', '--count', '1'],
                                     snaps)
    rows = out.splitlines()
    check('interval --rows at frac_bits 1: p50 160000 for samples of 161718, as the tables',
          rc == 0 and not fed and len(rows) == 2 and rows[1].split()[4] == '160000',
          (out, err))


def main():
    global KSTATS, TMP
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    KSTATS = os.path.abspath(sys.argv[1])
    try:
        seed = int(os.environ.get('KSTATS_TEST_SEED') or '20201')
    except ValueError:
        print('KSTATS_TEST_SEED=%s: not an integer' % os.environ['KSTATS_TEST_SEED'],
              file=sys.stderr)
        return 2
    print('seed %d (KSTATS_TEST_SEED=N for another)' % seed, flush=True)
    TMP = tempfile.mkdtemp(prefix='kstats-test.')
    rng = random.Random(seed)
    try:
        test_fixtures(rng)
        test_csv_openmetrics(rng)
        test_merge(rng)
        test_prometheus(rng)
        flat = test_density(rng)
        test_compare(rng)
        test_diff_interval(rng)
        test_bad_live_read(random.Random('%d-badread' % seed))
        test_group_compare(random.Random('%d-groupab' % seed))
        test_group_diff(random.Random('%d-groupdiff' % seed))
        test_man_examples()
        test_group_merge(random.Random('%d-groupmerge' % seed))
        test_underscore_names(random.Random('%d-underscore' % seed))
        test_malformed()
        test_truncated(rng)
        test_out_of_range()
        test_usage_errors()
        test_misc(rng)
        test_leaf()
        test_hgrm(random.Random('%d-hgrm' % seed))
        test_series_max(random.Random('%d-series' % seed))
        test_trace_usage()
        test_plot(rng, flat)
        # #32's tests: random numbers of their own, the others' as they were.
        test_exact_bounds(random.Random('%d-exact' % seed))
        test_sig_digits(random.Random('%d-sig' % seed))
        test_min_max(random.Random('%d-minmax' % seed))
        test_names_units(random.Random('%d-names' % seed))
        test_refused_options(random.Random('%d-refused' % seed))
        test_merge_bits(random.Random('%d-merge' % seed))
        test_interval_formats(random.Random('%d-interval' % seed))
        test_hist(random.Random('%d-hist' % seed))
        test_rows_time_total(random.Random('%d-rows' % seed))
        test_top.tests(sys.modules[__name__], rng)
    finally:
        shutil.rmtree(TMP)
    print('%d passed, %d failed' % (RESULTS['passed'], RESULTS['failed']))
    return 1 if RESULTS['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
