#!/usr/bin/env python3
"""Checks the trace processor's layering from its #include lines (src/processor/README.md).

Each file of src/processor belongs to a folder (import/proto, import/json, import/ftrace,
import/systrace and import/util count as folders of their own; import/ is the core). A folder
depends on another when one of its files includes a header of the other. The check fails
(exit 1, one line per problem) when:
  - the folders of FOLDERS depend on each other in a cycle;
  - a file of tables/, sql/, analysis/ or export/ includes a header of import/.
Usage: scripts/processor_layers.py [--graph] [repo root]
"""
import os
import re
import sys

FOLDERS = ["import", "import/proto", "import/json", "import/ftrace", "import/systrace",
           "tables", "sql", "analysis", "export"]
NO_IMPORTER = ["tables", "sql", "analysis", "export"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"processor/([^"]+)"', re.M)


def folder_of(path):
    """The folder a path under src/processor belongs to ('' for the top)."""
    parts = path.split("/")[:-1]
    if parts[:1] == ["import"] and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0] if parts else ""


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.join(args[0] if args else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "src", "processor")
    edges = {}  # (from, to) -> first file that makes it
    problems = []
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, name), root)
            src = folder_of(path)
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                dst = folder_of(inc)
                if src in NO_IMPORTER and dst.startswith("import"):
                    problems.append(f"{path} includes processor/{inc}: {src}/ may not include "
                                    "an importer header")
                if src != dst:
                    edges.setdefault((src, dst), path + " -> " + inc)
    # cycles among FOLDERS: a depth-first search over their edges
    adj = {f: sorted(d for (s, d) in edges if s == f and d in FOLDERS) for f in FOLDERS}
    state, stack = {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for d in adj[f]:
            if state.get(d) == 1:
                cyc = stack[stack.index(d):] + [d]
                problems.append("cycle: " + " -> ".join(cyc) + " (" + "; ".join(
                    edges[(a, b)] for a, b in zip(cyc, cyc[1:])) + ")")
            elif not state.get(d):
                visit(d)
        stack.pop()
        state[f] = 2

    for f in FOLDERS:
        if not state.get(f):
            visit(f)
    if graph:
        for (s, d), why in sorted(edges.items()):
            print(f"{s or '.'} -> {d or '.'}    ({why})")
    for p in problems:
        print("processor_layers: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
