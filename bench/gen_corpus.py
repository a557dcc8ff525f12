#!/usr/bin/env python3
"""Generate a deterministic, sessions-like markdown corpus for indexing benchmarks.

    python3 bench/gen_corpus.py OUT_DIR [--files 10000] [--mb 200] [--seed 7] [--vocab pairs|zipf]

Writes OUT_DIR/YYYY/MM/<session-id>.md: YAML frontmatter (id, title, date, project, branch, agent,
tags, source) and a body shaped like `jsonl2md` output (## Conversation with **User**/**Assistant**
turns, fenced code, shell commands with flags, file paths, snake_case/camelCase identifiers, error
strings and stack traces; ## Tools Used). The same arguments always give byte-identical files. The
total size is close to --mb megabytes (file sizes are skewed like real transcripts: many small, a
few very long).

--vocab picks how identifiers and paths are made:
  pairs  every identifier a fresh random word pair (the original generator, kept for comparison: the
         10,000-file corpus holds ~1.4 M distinct identifier terms);
  zipf   identifiers and paths drawn from fixed pools (3,000 identifiers, 1,200 paths) with Zipf
         weights (s = 1.07), so a few recur everywhere and most are rare — as in real transcripts
         (3,439 distinct identifier terms over all of ../shared/corpora).
"""

import argparse
import os
import random

WORDS = (
    "the index query search result session agent memory build test cache config error retry "
    "timeout lock writer reader commit merge segment token stem phrase filter collection partition "
    "ranking score passage snippet latency budget freshness hook pipeline stage record stream shell "
    "terminal cursor branch deploy review refactor migrate schema column table row vector embed model "
    "prompt context window compact summary decision because however therefore instead simple fast slow "
    "small large first last again every never always maybe probably check verify measure compare fix "
    "broken works failed passed green red flaky crash panic leak memory thread async await future "
    "mutex channel queue worker batch file folder path glob walk watch notify event log trace span"
).split()
PROJECTS = ["brain", "qmd", "webapp", "infra", "ml-pipeline", "dotfiles", "billing", "search-svc", "mobile", "docs-site"]
AGENTS = ["claude", "claude", "claude", "codex", "gemini"]
MODULES = ["config", "index", "query", "server", "client", "auth", "cache", "store", "parser", "render", "worker", "router"]
EXTS = ["rs", "py", "ts", "go", "md", "toml", "yaml", "sql"]
ERRORS = [
    "ModuleNotFoundError: No module named '{m}'",
    "error[E0502]: cannot borrow `{i}` as mutable because it is also borrowed as immutable",
    "TypeError: Cannot read properties of undefined (reading '{i}')",
    "ENOENT: no such file or directory, open '{p}'",
    "panicked at '{i}: called `Option::unwrap()` on a `None` value', {p}:{n}:5",
    "fatal: not a git repository (or any of the parent directories): .git",
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "thread 'main' has overflowed its stack",
    "SQLITE_BUSY: database is locked",
]
COMMANDS = [
    "cargo test --workspace -- --nocapture",
    "cargo build --release -p {m}",
    "git commit -am 'fix {i}' --no-verify",
    "git rebase -i HEAD~{n}",
    "npm run build -- --watch",
    "pytest -k {i} -x --maxfail=1",
    "docker compose up -d {m}",
    "rg -n '{i}' {p}",
    "kubectl rollout restart deploy/{m}",
    "qmd search '{w}' --json -n 10",
]


VOCAB = "pairs"
POOLS = {}


def zipf_pool(r, make, n, s=1.07):
    """`n` items made by `make(r)` (deduplicated) and their cumulative Zipf weights."""
    items, seen = [], set()
    while len(items) < n:
        x = make(r)
        if x not in seen:
            seen.add(x)
            items.append(x)
    cum, t = [], 0.0
    for k in range(1, n + 1):
        t += 1.0 / k**s
        cum.append(t)
    return items, cum


def ident(r):
    if VOCAB == "zipf":
        items, cum = POOLS["ident"]
        return r.choices(items, cum_weights=cum)[0]
    return pair_ident(r)


def pair_ident(r):
    a, b = r.choice(WORDS), r.choice(WORDS)
    style = r.randrange(4)
    if style == 0:
        return f"{a}_{b}"
    if style == 1:
        return a + b.capitalize()
    if style == 2:
        return f"{a.capitalize()}{b.capitalize()}"
    return f"{r.choice(MODULES)}::{a}_{b}"


def path(r):
    if VOCAB == "zipf":
        items, cum = POOLS["path"]
        return r.choices(items, cum_weights=cum)[0]
    return pair_path(r)


def pair_path(r):
    return f"src/{r.choice(MODULES)}/{r.choice(WORDS)}_{r.choice(WORDS)}.{r.choice(EXTS)}"


def fill(r, template):
    return template.format(m=r.choice(MODULES), i=ident(r), p=path(r), n=r.randrange(1, 400), w=r.choice(WORDS))


def sentence(r):
    n = r.randrange(6, 22)
    words = [r.choice(WORDS) for _ in range(n)]
    k = r.randrange(4)
    if k == 0:
        words.insert(r.randrange(n), f"`{ident(r)}`")
    elif k == 1:
        words.insert(r.randrange(n), f"`{path(r)}`")
    return " ".join(words).capitalize() + "."


def code_block(r):
    lang = r.choice(["rust", "python", "bash", "text"])
    lines = []
    for _ in range(r.randrange(3, 18)):
        kind = r.randrange(4)
        if kind == 0:
            lines.append(f"let {ident(r)} = {ident(r)}(&{r.choice(WORDS)})?;")
        elif kind == 1:
            lines.append(fill(r, r.choice(COMMANDS)))
        elif kind == 2:
            lines.append(fill(r, r.choice(ERRORS)))
        else:
            lines.append(f"    at {ident(r)} ({path(r)}:{r.randrange(1, 900)})")
    return f"```{lang}\n" + "\n".join(lines) + "\n```"


def turn(r, role):
    parts = []
    for _ in range(r.randrange(1, 5)):
        k = r.random()
        if k < 0.6:
            parts.append(" ".join(sentence(r) for _ in range(r.randrange(1, 6))))
        elif k < 0.8:
            parts.append(code_block(r))
        elif k < 0.9:
            parts.append("Error: " + fill(r, r.choice(ERRORS)))
        else:
            parts.append("Ran `" + fill(r, r.choice(COMMANDS)) + "`")
    return f"**{role}**: " + "\n\n".join(parts)


def session(r, i, target_bytes):
    year = 2025 + (i * 7 // 10000) % 2
    month = 1 + (i * 13) % 12
    day = 1 + (i * 17) % 28
    sid = f"{r.getrandbits(32):08x}-{r.getrandbits(16):04x}-{r.getrandbits(16):04x}-{i:012x}"
    agent = r.choice(AGENTS)
    project = r.choice(PROJECTS)
    title = sentence(r)[:70].rstrip(".")
    fm = [
        "---",
        f"id: brain/{year}/{month:02d}/{sid}.md",
        f"title: '{title}'",
        f"date: {year}-{month:02d}-{day:02d}T{r.randrange(24):02d}:{r.randrange(60):02d}:00Z",
        "collection: brain",
        f"path: {year}/{month:02d}/{sid}.md",
        f"session_id: {sid}",
        f"project: {project}",
        f"branch: {r.choice(['main', 'dev', 'fix/' + r.choice(WORDS)])}",
        f"agent: {agent}",
        f"tags: [{r.choice(WORDS)}, {r.choice(WORDS)}]",
        "source:",
        "  type: session",
        f"  agent: {agent}",
        f"  file: ~/.{agent}/projects/{project}/{sid}.jsonl",
        "---",
    ]
    body = ["## Conversation", ""]
    size = 0
    role = "User"
    while size < target_bytes:
        t = turn(r, role)
        body.append(t)
        body.append("")
        size += len(t) + 1
        role = "Assistant" if role == "User" else "User"
    body += ["## Tools Used", ""] + [f"- {r.choice(['Bash', 'Read', 'Edit', 'Grep'])}: `{path(r)}`" for _ in range(r.randrange(1, 6))]
    return f"{year}/{month:02d}/{sid}.md", "\n".join(fm) + "\n" + "\n".join(body) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--vocab", choices=["pairs", "zipf"], default="pairs")
    a = ap.parse_args()
    r = random.Random(a.seed)
    global VOCAB
    VOCAB = a.vocab
    if VOCAB == "zipf":
        pr = random.Random(a.seed * 1000 + 1)
        POOLS["ident"] = zipf_pool(pr, pair_ident, 3000)
        POOLS["path"] = zipf_pool(pr, pair_path, 1200)
    mean = a.mb * 1_000_000 / a.files
    total = 0
    for i in range(a.files):
        # Log-normal sizes (sigma 1): most sessions short, a few very long, mean ≈ `mean`.
        target = int(min(r.lognormvariate(0, 1) / 1.6487 * mean, 40 * mean))
        rel, text = session(r, i, max(target, 300))
        p = os.path.join(a.out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode())
    print(f"gen_corpus: {a.files} files, {total / 1e6:.1f} MB ({a.vocab} vocabulary) in {a.out}")


if __name__ == "__main__":
    main()
