#!/usr/bin/env python3
"""The viewer's memory scenario of issue #28 (`trak ui` <= 1.2x `trak query` on the same trace).

    bench/ui_memory.py build/trak TRACE OUTDIR

Serves TRACE with `TRAK ui`, asks what a page asks for (the track list, the first screen of
every track at 1600 px, the area selection's aggregates and flame graph over the whole trace,
12 zoom and pan steps, the aggregates and flame graph of the last view), prints the server's
peak resident memory (VmHWM) after the first screen and at the end, and writes every answer
into OUTDIR: two builds' OUTDIRs compared with `diff -r` show whether their answers are the
same byte for byte. Compare with `/usr/bin/time -v TRAK query TRACE 'select 1'`.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

WIDTH = 1600


def main():
    trak, trace, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    server = subprocess.Popen([trak, 'ui', trace, '--port', '0'], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    url = None
    while not url:  # warnings about the trace may come first
        line = server.stdout.readline().decode()
        if not line:
            sys.exit('trak ui did not serve %s' % trace)
        found = re.search(r'http://\S+/', line)
        url = found and found.group(0)

    def get(path, name):
        with urllib.request.urlopen(url + path, timeout=3600) as r:
            body = r.read()
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(body)
        return body

    def peak_kb():
        with open('/proc/%d/status' % server.pid) as f:
            return next(int(l.split()[1]) for l in f if l.startswith('VmHWM'))

    tracks = json.loads(get('api/tracks', 'tracks.json'))
    ids = ','.join(str(t[0]) for t in tracks['tracks'])
    start, end = tracks['start'], tracks['end']

    def screen(a, b, tag):
        px = max(1, (b - a + WIDTH - 1) // WIDTH)
        for what in ('slices', 'counters'):
            get('api/%s?tracks=%s&start=%d&end=%d&px=%d' % (what, ids, a, b, px),
                '%s_%s.json' % (what, tag))

    def area(a, b, tag):
        for what in ('aggregate', 'flamegraph'):
            get('api/%s?tracks=%s&start=%d&end=%d' % (what, ids, a, b), '%s%s.json' % (what, tag))

    screen(start, end, 'first')
    print('after the first screen: VmHWM %d kB' % peak_kb())
    area(start, end, '')
    a, b = start, end
    for i in range(12):  # zoom in 2x towards the middle, then pan right by half a screen
        span = b - a
        if i % 2 == 0 and span > 2000:
            a, b = a + span // 4, b - span // 4
        else:
            a, b = a + span // 2, b + span // 2
            if b > end:
                a, b = a - (b - end), end
        screen(a, b, 'step%02d' % i)
    area(a, b, '_last')
    time.sleep(1)
    print('at the end: VmHWM %d kB' % peak_kb())
    server.send_signal(signal.SIGINT)
    server.wait()


if __name__ == '__main__':
    main()
