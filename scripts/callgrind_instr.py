#!/usr/bin/env python3
"""Prints one function's self cost per instruction from a callgrind profile taken with
--dump-instr=yes, beside `objdump -d -l` of the binary: the instructions an event runs once are
those counted once an event (docs/performance.md, "The JSON decoding thread's fixed part of an
event"). Usage: callgrind_instr.py CALLGRIND_OUT FUNCTION BINARY (FUNCTION: the name callgrind
gives, e.g. `step`). The profile's addresses are taken as objdump's: for trak's CLI (a PIE) the
counts fall on the instruction starts objdump lists."""
import collections
import re
import subprocess
import sys


def position(tok, prev):
    """A callgrind position: absolute, relative to the last (+N, -N) or the same (*)."""
    if tok == '*':
        return prev
    if tok[0] in '+-':
        return prev + int(tok, 0)
    return int(tok, 0)


def main():
    path, want, binary = sys.argv[1:4]
    names, cost = {}, collections.Counter()
    fn, addr, line, call_cost = None, 0, 0, False
    for ln in open(path):
        ln = ln.rstrip('\n')
        if not ln:
            continue
        m = re.match(r'(c?fn)=\((\d+)\)(?: (.*))?', ln)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == 'fn':
                fn = names[m.group(2)]
            continue
        if ln.startswith('calls='):
            call_cost = True  # the next line is a call's inclusive cost, not this function's
            continue
        if ln[0].isdigit() or ln[0] in '+-*':
            parts = ln.split()
            addr = position(parts[0], addr)
            if len(parts) > 2:
                line = position(parts[1], line)
            if call_cost:
                call_cost = False
            elif fn == want or (fn or '').startswith(want + ' '):
                cost[addr] += int(parts[-1])
    print('total', sum(cost.values()))
    if not cost:
        return
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-l',
                          '--start-address=%#x' % min(cost), '--stop-address=%#x' % (max(cost) + 16),
                          binary], capture_output=True, text=True, check=True).stdout
    for d in dis.splitlines():
        m = re.match(r'\s*([0-9a-f]+):', d)
        print('%10d  %s' % (cost.get(int(m.group(1), 16), 0), d) if m else ' ' * 12 + d)


if __name__ == '__main__':
    main()
