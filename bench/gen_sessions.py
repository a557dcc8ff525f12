#!/usr/bin/env python3
"""Deterministic synthetic agent transcripts for the jsonl2md benchmark.

usage: gen_sessions.py OUT_DIR TOTAL_MB [N_FILES]

Writes Claude Code sessions (80%) and Codex rollouts (20%) in the shapes of ../shared/corpora: split
assistant messages, thinking, tool_use/tool_result pairs with large results (the bulk of real
transcripts' bytes), sidechains. Sizes vary from a few KB to a few MB, like real sessions.
"""
import json, os, random, sys

out, total_mb = sys.argv[1], float(sys.argv[2])
n_files = int(sys.argv[3]) if len(sys.argv) > 3 else max(1, int(total_mb * 4))
rng = random.Random(42)
WORDS = ("index rank fusion token session cargo build error panic thread tantivy query parser schema "
         "vector embed chunk markdown frontmatter redact secret lock writer reader commit merge branch "
         "timeout retry backoff cache latency memory signal recency importance").split()
os.makedirs(out, exist_ok=True)

def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))

def blob(kb):
    lines = []
    size = 0
    while size < kb * 1024:
        l = f"{rng.randint(1, 999):>4}: fn {rng.choice(WORDS)}_{rng.choice(WORDS)}() -> Result<(), Error> {{ {words(8)} }}"
        lines.append(l)
        size += len(l) + 1
    return "\n".join(lines)

def claude(path, target):
    sid = os.path.basename(path)[:-6]
    base = dict(isSidechain=False, userType="external", cwd="/home/dev/code/project", sessionId=sid, version="2.1.3", gitBranch="main")
    ts = 0
    parent = None
    size = 0
    with open(path, "w") as f:
        i = 0
        while size < target:
            i += 1
            ts += 7
            stamp = f"2026-0{1 + i % 9}-1{i % 9}T10:{(ts // 60) % 60:02d}:{ts % 60:02d}.000Z"
            u = dict(parentUuid=parent, **base, type="user", uuid=f"u{i}", timestamp=stamp,
                     message={"role": "user", "content": f"Why does {rng.choice(WORDS)} fail? {words(30)}"})
            a1 = dict(parentUuid=f"u{i}", **base, type="assistant", uuid=f"a{i}", timestamp=stamp, requestId=f"r{i}",
                      message={"model": "claude-opus-4-5", "id": f"msg_{i}", "role": "assistant",
                               "content": [{"type": "thinking", "thinking": words(60), "signature": "sig"}]})
            a2 = dict(parentUuid=f"a{i}", **base, type="assistant", uuid=f"b{i}", timestamp=stamp, requestId=f"r{i}",
                      message={"model": "claude-opus-4-5", "id": f"msg_{i}", "role": "assistant",
                               "content": [{"type": "text", "text": words(50)},
                                           {"type": "tool_use", "id": f"t{i}", "name": rng.choice(["Bash", "Read", "Grep"]),
                                            "input": {"command": f"cargo test -p {rng.choice(WORDS)}", "file_path": f"src/{rng.choice(WORDS)}.rs", "pattern": rng.choice(WORDS)}}]})
            res = blob(rng.choice([1, 4, 16, 48]))
            r = dict(parentUuid=f"b{i}", **base, type="user", uuid=f"r{i}", timestamp=stamp,
                     message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": res, "is_error": rng.random() < 0.1}]},
                     toolUseResult={"stdout": res, "stderr": "", "interrupted": False})
            for line in (u, a1, a2, r):
                s = json.dumps(line)
                f.write(s + "\n")
                size += len(s) + 1
            parent = f"r{i}"
    return size

def codex(path, target):
    size = 0
    with open(path, "w") as f:
        def w(o):
            nonlocal size
            s = json.dumps(o)
            f.write(s + "\n")
            size += len(s) + 1
        w({"timestamp": "2026-05-12T10:00:00.000Z", "type": "session_meta", "payload": {"id": os.path.basename(path)[8:-6], "cwd": "/home/dev/api", "cli_version": "0.130.0", "git": {"branch": "main"}}})
        i = 0
        while size < target:
            i += 1
            t = f"2026-05-12T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
            text = f"Fix {rng.choice(WORDS)} {words(20)}"
            w({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}})
            w({"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": text}})
            w({"timestamp": t, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": f"c{i}", "arguments": json.dumps({"command": ["bash", "-lc", f"rg {rng.choice(WORDS)}"]})}})
            w({"timestamp": t, "type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{i}", "output": json.dumps({"output": blob(rng.choice([1, 8, 32])), "metadata": {"exit_code": 0}})}})
            w({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": words(40)}]}})
    return size

total = 0
per_file = total_mb * 1e6 / n_files
for k in range(n_files):
    target = int(per_file * rng.choice([0.1, 0.5, 1.0, 1.5, 1.9]))
    if k % 5 == 4:
        total += codex(os.path.join(out, f"rollout-2026-05-12T10-00-00-{k:08d}-0000-7000-8000-000000000000.jsonl"), target)
    else:
        total += claude(os.path.join(out, f"{k:08d}-aaaa-4bbb-8ccc-{k:012d}.jsonl"), target)
print(f"{n_files} files, {total / 1e6:.0f} MB in {out}", file=sys.stderr)
