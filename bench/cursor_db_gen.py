#!/usr/bin/env python3
"""A large synthetic Cursor IDE `User/` folder for bench/cursor.sh: one global state.vscdb with
COMPOSERS composers of BUBBLES bubbles each (split storage, Cursor 3 shapes as in
../shared/corpora/cursor/built-here/GENERATE.py), plus unrelated ItemTable rows. Deterministic.

usage: cursor_db_gen.py OUT_USER_DIR [COMPOSERS] [BUBBLES]
       cursor_db_gen.py --bump DB K    (composer K gains a bubble, as when Cursor records a turn)
"""
import json
import os
import random
import sqlite3
import sys

if sys.argv[1] == "--bump":
    c = sqlite3.connect(sys.argv[2])
    k = int(sys.argv[3])
    cid = f"{k:08x}-0000-4000-8000-{k:012x}"
    key = f"composerData:{cid}"
    v = json.loads(c.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()[0])
    bid = f"bench-{len(v['fullConversationHeadersOnly'])}"
    v["fullConversationHeadersOnly"].append({"bubbleId": bid, "type": 1})
    c.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(v), key))
    c.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
              (f"bubbleId:{cid}:{bid}", json.dumps({"type": 1, "bubbleId": bid, "text": "one more question"})))
    c.commit()
    sys.exit(0)

out = sys.argv[1]
composers = int(sys.argv[2]) if len(sys.argv) > 2 else 500
per = int(sys.argv[3]) if len(sys.argv) > 3 else 200
rng = random.Random(26)
WORDS = ("parse test index cargo build error token vector schema migrate retry lock cache query "
         "commit branch release flaky timeout socket buffer thread async await panic trait").split()


def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def j(o):
    return json.dumps(o, separators=(",", ":"))


path = os.path.join(out, "globalStorage", "state.vscdb")
os.makedirs(os.path.dirname(path), exist_ok=True)
if os.path.exists(path):
    os.remove(path)
c = sqlite3.connect(path)
c.execute("PRAGMA journal_mode=WAL")
c.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
c.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
T0 = 1_767_261_600_000
for k in range(composers):
    cid = f"{k:08x}-0000-4000-8000-{k:012x}"
    rows, headers = [], []
    for b in range(per):
        bid = f"b{b:05d}-{k:08x}"
        typ = 1 if b % 4 == 0 else 2
        ms = T0 + k * 3_600_000 + b * 1000
        bubble = {"_v": 3, "type": typ, "bubbleId": bid, "createdAt": ms, "text": ""}
        if typ == 1:
            bubble["text"] = words(30)
        elif b % 4 == 1:
            bubble.update(capabilityType=15, toolFormerData={
                "name": "run_terminal_command_v2", "toolCallId": f"call_{b}", "status": "completed",
                "params": j({"command": f"cargo test -p {rng.choice(WORDS)}"}),
                "result": j({"output": words(40), "exitCode": 0})})
        elif b % 4 == 2:
            bubble.update(capabilityType=30, thinking={"text": words(60)})
        else:
            bubble["text"] = words(250)
        rows.append((f"bubbleId:{cid}:{bid}", j(bubble)))
        headers.append({"bubbleId": bid, "type": typ})
    composer = {"_v": 16, "composerId": cid, "name": words(5), "createdAt": T0 + k * 3_600_000,
                "lastUpdatedAt": T0 + k * 3_600_000 + per * 1000, "fullConversationHeadersOnly": headers,
                "workspaceIdentifier": {"id": "w", "uri": {"fsPath": f"/home/dev/proj-{k % 7}"}}}
    rows.append((f"composerData:{cid}", j(composer)))
    c.executemany("INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)", rows)
for i in range(2000):
    c.execute("INSERT INTO ItemTable VALUES (?, ?)", (f"workbench.state.{i}", words(50)))
c.commit()
c.close()
print(path, os.path.getsize(path))
