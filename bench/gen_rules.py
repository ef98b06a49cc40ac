#!/usr/bin/env python3
# Writes the slice description rules used for the describe_slice figures of docs/performance.md
# (over the traces of bench/import_bench): bench/gen_rules.py /tmp/an_rules.pbtxt
import sys
lines = ['rule { name: "*" category: "cat_[0-3]" description: "fallback by category" }']
for i in range(50):
    lines.append('rule { name: "Task::Run_%d*" thread_name: "*" description: "glob %d" '
                 'doc_link: "https://example.com/%d" }' % (i, i, i))
for i in range(0, 200, 2):
    lines.append('rule { name: "Task::Run_%d" ancestor: "Task::Run_1*" '
                 'description: "exact %d under a glob ancestor" }' % (i, i))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
