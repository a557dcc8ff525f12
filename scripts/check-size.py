#!/usr/bin/env python3
"""The size rules (docs/DEVELOPING.md; STYLE.md's "one stage, one small file"), checked: no function of crates/ or bin/ over 150 lines and at most
10 over 100, no file over 600 non-test lines. Test code (`#[cfg(test)]` modules, `tests.rs`,
`tests/`, `examples/`, `benches/`) does not count.

    python3 scripts/check-size.py            # the check (exit 1 when a rule is broken)
    python3 scripts/check-size.py --report   # every long function and file, and the line count

A function's lines run from its `fn` line to its closing brace; a file's non-test lines are its
lines outside test modules, blank lines and comments included (what a reader scrolls past).
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONG_FN, MAX_FN, MAX_LONG_FNS, MAX_FILE = 100, 150, 10, 600

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")
TEST_MOD = re.compile(r"^\s*#\[cfg\(test\)\]")


def code_of(line, state):
    """`line` with strings, chars and comments blanked (braces in them do not count). `state`
    carries an open block comment or raw/plain string across lines."""
    out, i, n = [], 0, len(line)
    while i < n:
        if state["block"]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state["block"], i = False, j + 2
            continue
        if state["raw"] is not None:
            end = '"' + "#" * state["raw"]
            j = line.find(end, i)
            if j < 0:
                return "".join(out)
            state["raw"], i = None, j + len(end)
            continue
        if state["str"]:
            while i < n:
                if line[i] == "\\":
                    i += 2
                    continue
                if line[i] == '"':
                    state["str"] = False
                    i += 1
                    break
                i += 1
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"], i = True, i + 2
            continue
        m = re.match(r'b?r(#*)"', line[i:])
        if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
            state["raw"], i = len(m.group(1)), i + len(m.group(0))
            continue
        if c == '"':
            state["str"], i = True, i + 1
            continue
        if c == "'":
            m = re.match(r"'(\\.[^']*|[^'\\])'", line[i:])
            if m:
                i += len(m.group(0))
                continue
        out.append(c)
        i += 1
    return "".join(out)


def scan(path):
    """(non-test lines, [(fn name, first line, length)]) of one file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    state = {"block": False, "raw": None, "str": False}
    depth, test_until, pending_test = 0, None, False
    fns, open_fns = [], []  # open_fns: (name, start, depth at open)
    counted = 0
    for no, raw in enumerate(lines, 1):
        in_test = test_until is not None
        if not in_test and TEST_MOD.match(raw):
            pending_test = True
        code = code_of(raw, state)
        m = FN.match(code) if not in_test else None
        if m:
            open_fns.append((m.group(7), no, depth))
        before = depth
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                while open_fns and depth == open_fns[-1][2]:
                    name, start, _ = open_fns.pop()
                    fns.append((name, start, no - start + 1))
                if test_until is not None and depth == test_until:
                    test_until = None
        # A declaration without a body (a trait method) closes on its `;`.
        if open_fns and open_fns[-1][1] == no and code.rstrip().endswith(";") and depth == before:
            open_fns.pop()
        if pending_test and depth > before:
            test_until, pending_test = before, False
        if not in_test and test_until is None:
            counted += 1
    return counted, fns


def sources():
    for top in ("crates", "bin"):
        for p in sorted((ROOT / top).rglob("*.rs")):
            rel = p.relative_to(ROOT)
            parts = set(rel.parts)
            if parts & {"tests", "examples", "benches", "target"} or p.name == "tests.rs":
                continue
            yield rel, p


def main():
    report = "--report" in sys.argv
    total, long_fns, big_files = 0, [], []
    for rel, p in sources():
        counted, fns = scan(p)
        total += counted
        if counted > MAX_FILE:
            big_files.append((counted, str(rel)))
        long_fns += [(n, f"{rel}:{start}", name) for name, start, n in fns if n > LONG_FN]
    long_fns.sort(reverse=True)
    too_long = [f for f in long_fns if f[0] > MAX_FN]
    failed = bool(too_long) or len(long_fns) > MAX_LONG_FNS or bool(big_files)
    if report or failed:
        for n, at, name in long_fns:
            print(f"{n:4} lines  fn {name}  {at}")
        for n, rel in sorted(big_files, reverse=True):
            print(f"{n:4} lines  file {rel}")
        print(f"{len(long_fns)} functions over {LONG_FN} lines (at most {MAX_LONG_FNS}), "
              f"{len(too_long)} over {MAX_FN} (none), {len(big_files)} files over {MAX_FILE} "
              f"non-test lines (none); {total} non-test lines in crates/ and bin/")
    if failed:
        print("check-size: split the long ones into named steps (STYLE.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
