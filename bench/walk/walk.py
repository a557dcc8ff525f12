#!/usr/bin/env python3
"""The walk of one command from the stacks bench/walk/trace.py recorded: the files execution
passes through in order, as stays (consecutive moments in one file), the files, the returns to a
file already left, and how often each file is entered.

    python3 bench/walk/walk.py STACKS.json [--within FILE] [--show]

How the stacks become a walk:
* each recorded stack ends in a fresh call (a breakpoint at a function's entry); the frames it
  shares with the stack before (same file and function at the same depth, all but its newest) are
  the same invocations, so between two stacks execution returned to the deepest shared frame
  (landing in each caller's file on the way), then called down to the new one;
* a loop is one excursion: a call made again from the same call site of the same invocation of
  its caller (the next word of a query, the next hit of a list) is not walked again, nor anything
  it calls; a second call from another place (a search run again) is walked;
* `--within FILE` keeps the stacks that pass through FILE (`bin/brain/src/cmd/ask.rs`: the ask,
  without the argument parsing before it)."""
import json
import re
import sys
from collections import Counter


def compress(stacks):
    """The stacks left when a call made again from the same call site of the same invocation (a
    loop's next turn) is dropped with its callees."""
    kept, prev, ids = [], [], []
    next_id, seen, skipped = 0, set(), set()
    for full in stacks:
        cur = [(f[0], f[1]) for f in full]
        if not cur:
            continue
        p = 0
        while p < len(prev) and p < len(cur) - 1 and prev[p] == cur[p]:
            p += 1
        ids = ids[:p]
        for k in range(p, len(cur)):
            ids.append(next_id)
            next_id += 1
            # The caller's invocation and the place in it the call was made from.
            site = (ids[k - 1], full[k - 1][2]) if k > 0 else (-1, 0)
            if site in seen:
                skipped.add(ids[k])
            seen.add(site)
        prev = cur
        if not any(i in skipped for i in ids):
            kept.append(cur)
    return kept


def walk(stacks):
    seq, prev = [], []
    for cur in stacks:
        p = 0
        while p < len(prev) and p < len(cur) - 1 and prev[p] == cur[p]:
            p += 1
        for k in range(len(prev) - 2, p - 2, -1):
            if k >= 0:
                seq.append(prev[k][0])
        seq.extend(f[0] for f in cur[p:])
        prev = cur
    for k in range(len(prev) - 2, -1, -1):
        seq.append(prev[k][0])
    stays = []
    for f in seq:
        if not stays or stays[-1] != f:
            stays.append(f)
    return stays


def main():
    args = sys.argv[1:]
    stacks = json.load(open(args[0]))
    if "--within" in args:
        within = args[args.index("--within") + 1]
        stacks = [s for s in stacks if any(f[0] == within for f in s)]
    kept = compress(stacks)
    stays = walk(kept)
    left, returns = set(), 0
    for i, f in enumerate(stays):
        if f in left:
            returns += 1
        if i > 0:
            left.add(stays[i - 1])
    entered = Counter(stays)
    engine = "crates/brain-rank/src/engine.rs"
    calls_in = Counter(
        re.sub(r"::h[0-9a-f]{16}$", "", s[-1][1])
        for s in kept
        if s[-1][0] == engine and (len(s) < 2 or s[-2][0] != engine)
    )
    print(json.dumps({
        "calls": len(stacks),
        "walked": len(kept),
        "stays": len(stays),
        "files": len(entered),
        "returns": returns,
        "engine_rs_stays": entered.get(engine, 0),
        "engine_rs_called_from_outside": sum(calls_in.values()),
        "engine_rs_calls": sorted(calls_in.items()),
        "top": entered.most_common(6),
    }))
    if "--show" in args:
        for f in stays:
            print(f)


if __name__ == "__main__":
    main()
