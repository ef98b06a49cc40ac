#!/usr/bin/env python3
"""Docs as tests: every fenced block of README.md and docs/*.md preceded by a marker comment

    <!-- run: cwd=DIR trace=FILE -->

runs with the built `trak` first on PATH, in a scratch copy of DIR (a path in the repository;
default: a scratch directory whose top-level entries link to the repository's, so paths from
the root work and new files stay out of the tree). Blocks with the same session=NAME share one
directory, in the order of the page.

- ```sh blocks of commands: each command (a line, with its backslash continuations and quoted
  newlines) must exit 0, or N when it ends with the comment `# exit N`.
- ```sh blocks in transcript form (`$ command` lines followed by their output): each command's
  stdout and stderr together must be the lines shown (trailing spaces aside; a line `...`
  stands for any lines); exit status as above.
- ```sql blocks run as `trak query FILE -q BLOCK` (FILE from trace=) and must exit 0.
- ```python blocks are left to python/tests/test_docs.py (pytest), which imports blocks() and
  matches() from here.

Usage: docs_examples.py TRAK SOURCE_DIR MIN_BLOCKS"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = None  # the repository (main() sets it)
MARKER = re.compile(r"^<!--\s*run:?(.*?)-->\s*$")
failures = []


def blocks(path):
    """Yields (line number, options, language, lines) of each marked block of a file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            opts = dict(kv.split("=", 1) for kv in m.group(1).split())
            lang = lines[i + 1][3:].strip()
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield i + 2, opts, lang, lines[i + 2:j]
            i = j
        i += 1


def complete(command):
    """True when `command` ends outside quotes and here-documents and not with a continuation
    backslash."""
    m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", command)
    if m and not re.search(r"^" + m.group(1) + r"$", command[m.end():], re.M):
        return False
    quote, escaped = None, False
    for c in command:
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif quote and c == quote:
            quote = None
        elif not quote and c in "'\"":
            quote = c
    return quote is None and not escaped


def expected_status(command):
    m = re.search(r"#\s*exit (\d+)\b[^'\"]*$", command)
    return int(m.group(1)) if m else 0


def matches(want, got):
    """want's lines equal got's; a `...` line in want stands for any run of lines."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


sessions = {}


def workdir(opts, scratch):
    """The block's directory; blocks naming the same session=NAME share one, in page order."""
    if "session" in opts and opts["session"] in sessions:
        return sessions[opts["session"]]
    if "session" in opts:
        scratch = tempfile.mkdtemp()
        sessions[opts["session"]] = os.path.join(scratch, "work")
    cwd = os.path.join(scratch, "work")
    if "cwd" in opts and opts["cwd"] != ".":
        shutil.copytree(os.path.join(root, opts["cwd"]), cwd)
    else:
        os.mkdir(cwd)
        for entry in os.listdir(root):
            if not entry.startswith(".") and not entry.startswith("build"):
                os.symlink(os.path.join(root, entry), os.path.join(cwd, entry))
    return cwd


def run(command, cwd, env):
    p = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


def check_block(where, opts, lang, lines, env):
    scratch = tempfile.mkdtemp()
    try:
        cwd = workdir(opts, scratch)
        if lang == "sql":
            with open(os.path.join(scratch, "block.sql"), "w") as f:
                f.write("\n".join(lines) + "\n")
            status, out = run(f"trak query {opts['trace']} -q {scratch}/block.sql", cwd, env)
            if status:
                failures.append(f"{where}: the SQL fails (exit {status}):\n{out}")
            return
        transcript = any(l.startswith("$ ") for l in lines)
        steps = []  # (command, expected output lines or None)
        k = 0
        while k < len(lines):
            line = lines[k]
            if transcript and not line.startswith("$ "):
                k += 1
                continue
            command = line[2:] if transcript else line
            while not complete(command) and k + 1 < len(lines):
                k += 1
                command += "\n" + lines[k]
            k += 1
            shown = None
            if transcript:
                shown = []
                while k < len(lines) and not lines[k].startswith("$ "):
                    shown.append(lines[k].rstrip())
                    k += 1
            if command.strip() and not command.strip().startswith("#"):
                steps.append((command, shown))
        for command, shown in steps:
            status, out = run(command, cwd, env)
            if status != expected_status(command):
                failures.append(f"{where}: `{command}` exits {status}:\n{out}")
                return
            got = [l.rstrip() for l in out.split("\n")]
            while got and not got[-1]:
                got.pop()
            if shown is not None and not matches(shown, got):
                failures.append(f"{where}: `{command}` prints:\n" + "\n".join(got) +
                                "\n--- but the page shows:\n" + "\n".join(shown))
    finally:
        shutil.rmtree(scratch)


def main():
    global root
    trak, root, min_blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bindir = tempfile.mkdtemp()
    os.symlink(os.path.abspath(trak), os.path.join(bindir, "trak"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], LC_ALL="C.UTF-8")
    pages = [os.path.join(root, "README.md")] + sorted(
        os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs"))
        if f.endswith(".md"))
    count = 0
    for page in pages:
        for line, opts, lang, lines in blocks(page):
            if lang == "python":
                continue
            count += 1
            check_block(f"{os.path.relpath(page, root)}:{line}", opts, lang, lines, env)
    shutil.rmtree(bindir)
    for cwd in sessions.values():
        shutil.rmtree(os.path.dirname(cwd))
    for f in failures:
        print("FAIL " + f)
    if count < min_blocks:
        print(f"FAIL: only {count} runnable blocks in the docs; expected at least {min_blocks}")
        failures.append("count")
    if failures:
        sys.exit(1)
    print(f"{count} runnable doc blocks pass")


if __name__ == "__main__":
    main()
