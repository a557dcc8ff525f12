"""gdb script: the walk of one command through the project's own code (bench/walk/run.sh).

Every function symbol of the project's crates and binaries (listed by `nm` in $WALK_SYMBOLS, one
address a line) gets a breakpoint; each hit on the main thread records the stack of the frames
whose source is a file of crates/ or bin/ (file, function and pc, outermost first). The stacks go to $WALK_OUT as JSON."""
import json
import os
import gdb

OUT = os.environ["WALK_OUT"]
stacks = []


def ours(f):
    sal = f.find_sal()
    if sal is None or sal.symtab is None:
        return None
    name = sal.symtab.filename
    for top in ("crates/", "bin/"):
        at = name.find(top)
        if at == 0 or (at > 0 and name[at - 1] == "/" and "/.cargo/" not in name):
            return name[at:]
    return None


class Hit(gdb.Breakpoint):
    def stop(self):
        if gdb.selected_thread().num != 1:
            return False
        out = []
        f = gdb.newest_frame()
        while f is not None:
            file = ours(f)
            if file:
                # The pc: the function's entry for the newest frame, the call site for the others.
                out.append([file, f.name() or "?", f.pc()])
            f = f.older()
        stacks.append(out[::-1])
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
n = 0
with open(os.environ["WALK_SYMBOLS"]) as f:
    for addr in f.read().split():
        try:
            Hit("*0x" + addr, internal=True)
            n += 1
        except gdb.error:
            pass
gdb.write(f"walk: {n} breakpoints\n", gdb.STDERR)
gdb.execute("run")
with open(OUT, "w") as f:
    json.dump(stacks, f)
