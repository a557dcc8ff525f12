#!/usr/bin/env python3
"""The layer map holds itself (run by `make lint`):

1. every `brain-*` dependency of a crate lives on a lower floor of crates/README.md's table, or on
   its own floor when the row's "may import" cell names it (`brain-team`: `(brain-vec)`);
2. no crate's modules import each other in a circle (`use crate::a` in b and `use crate::b` in a,
   through any number of modules, in every import form: `crate::a::x`, grouped `crate::{a, b}`,
   nested groups, `super::` paths that climb to the crate root; test modules and comments are not
   counted);
3. `rusqlite` is a dependency of brain-store (state.sqlite's owner), brain-chrome (Chrome's own
   database) and brain-ingest (Cursor's and OpenCode's own databases) only;
4. the environment is read in `crates/brain-doc/src/env.rs` only (its table is the one list of the
   variables brain reads): no other source file of a crate or a binary calls `std::env::var`
   (build scripts, examples and test code aside).

Exit 1 with one line per violation; prints nothing when all hold.
"""
import os
import re
import sys

# The repository to check: this script's, or the one given as the first argument (the checker's
# own test plants a circle in a scratch tree).
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SQLITE_OWNERS = {"brain-store", "brain-chrome", "brain-ingest"}


def floors():
    """crate → (floor number, the crates its "may import" cell names), from the table in
    crates/README.md."""
    out, floor = {}, None
    with open(os.path.join(ROOT, "crates", "README.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2 or not cells[1].startswith("`brain-"):
                continue
            m = re.match(r"(\d+)", cells[0])
            if m:
                floor = int(m.group(1))
            named = set(re.findall(r"`(brain-[a-z-]+)`", cells[-1])) if len(cells) > 3 else set()
            out[cells[1].strip("`")] = (floor, named)
    return out


def deps(crate_dir):
    """Names of the [dependencies] of a crate (not dev-dependencies)."""
    names, on = [], False
    with open(os.path.join(crate_dir, "Cargo.toml"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("["):
                on = line.strip() == "[dependencies]"
                continue
            m = re.match(r"([A-Za-z0-9_-]+)\s*=", line)
            if on and m:
                names.append(m.group(1))
    return names


def crate_paths(code):
    """The first module of every `crate::` path in `code`, every import form: `crate::a::b`,
    grouped `crate::{a, b::c}` and nested groups `crate::{a::{x, y}, b}`."""
    found = set()
    for m in re.finditer(r"crate::", code):
        i = m.end()
        if i < len(code) and code[i] == "{":
            depth, j, start = 0, i, i + 1
            while j < len(code):  # the brace that closes the group
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                if depth == 0:
                    break
                j += 1
            group, depth, item = code[start:j], 0, ""
            for c in group + ",":
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                if c == "," and depth == 0:
                    name = re.match(r"\s*([a-z_][a-z0-9_]*)", item)
                    if name and name.group(1) != "self":
                        found.add(name.group(1))
                    item = ""
                else:
                    item += c
        else:
            name = re.match(r"([a-z_][a-z0-9_]*)", code[i:])
            if name:
                found.add(name.group(1))
    return found


def super_paths(code, rel):
    """The top-level modules that `super::` paths in the file at `rel` (e.g. `pages/search`) name:
    from a file two folders deep, `super::super::x` is `crate::x`."""
    found = set()
    parts = rel.split("/")
    if parts[-1] == "mod":
        parts = parts[:-1]
    for m in re.finditer(r"\b((?:super::)+)(\{[^;]*\}|[a-z_][a-z0-9_]*)", code):
        ups = m.group(1).count("super::")
        base = parts[: len(parts) - ups]
        if base:
            continue  # still inside a top-level module: not an arrow between two of them
        tail = m.group(2)
        names = re.findall(r"[{,]\s*([a-z_][a-z0-9_]*)", tail) if tail.startswith("{") else [tail]
        found.update(n for n in names if n != "self")
    return found


def module_graph(src):
    """top-level module → the top-level modules it imports (`crate::`, grouped or not, and
    `super::` paths that climb to the crate root)."""
    graph = {}
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)[:-3].replace(os.sep, "/")
            top = rel.split("/")[0]
            if top in ("lib", "main"):
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read().split("#[cfg(test)]")[0]
            code = "\n".join(l for l in text.splitlines() if not l.strip().startswith("//"))
            found = crate_paths(code) | super_paths(code, rel)
            graph.setdefault(top, set()).update(found - {top})
    return {k: {d for d in v if d in graph} for k, v in graph.items()}


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


ENV_OWNER = os.path.join("crates", "brain-doc", "src", "env.rs")


def env_readers():
    """Source files outside brain_doc::env that read the environment themselves."""
    out = []
    for top in ("crates", "bin"):
        base = os.path.join(ROOT, top)
        if not os.path.isdir(base):
            continue
        for pkg in sorted(os.listdir(base)):
            src = os.path.join(base, pkg, "src")
            for dirpath, _, files in os.walk(src):
                for name in sorted(files):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, ROOT)
                    if not name.endswith(".rs") or name == "tests.rs" or rel == ENV_OWNER:
                        continue
                    with open(path, encoding="utf-8") as f:
                        code = f.read().split("#[cfg(test)]")[0]
                    if re.search(r"\benv::var(_os)?\s*\(", code):
                        out.append(f"{rel} reads the environment: ask brain_doc::env (one table of every variable)")
    return out


def main():
    problems = []
    floor = floors()
    crates_dir = os.path.join(ROOT, "crates")
    for name in sorted(os.listdir(crates_dir)):
        crate_dir = os.path.join(crates_dir, name)
        if not os.path.isfile(os.path.join(crate_dir, "Cargo.toml")):
            continue
        if name not in floor:
            problems.append(f"{name}: not in crates/README.md's layer map")
            continue
        own, named = floor[name]
        for dep in deps(crate_dir):
            theirs = floor.get(dep, (99, set()))[0]
            sideways = theirs == own and dep in named
            if dep.startswith("brain-") and theirs >= own and not sideways:
                problems.append(
                    f"{name} (floor {own}) depends on {dep} (floor {floor.get(dep, ('?',))[0]}):"
                    " a crate imports only from lower floors (or one its row names on its own floor)"
                )
            if dep == "rusqlite" and name not in SQLITE_OWNERS:
                problems.append(f"{name} depends on rusqlite: state.sqlite is brain-store's alone")
        for comp in cycles(module_graph(os.path.join(crate_dir, "src"))):
            problems.append(f"{name}: modules import each other in a circle: {' → '.join(comp)}")
    problems.extend(env_readers())
    for name in sorted(os.listdir(os.path.join(ROOT, "bin"))):
        if "rusqlite" in deps(os.path.join(ROOT, "bin", name)):
            problems.append(f"bin/{name} depends on rusqlite: go through brain_store::Registry")
    for p in problems:
        print(f"check-layers: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
