#!/usr/bin/env python3
"""The multilingual check's corpus: every section-1 man page that all the given languages translate
(bench/multilingual: manpages-de, -fr, -es of Debian bookworm, manpages-l10n 4.18.1, GPL-3+;
bench/cjk: manpages-ja and manpages-zh), one document per page and language: title = the NAME
line, text = the NAME line and the DESCRIPTION section (first 2,000 characters). Rendered with
man(1) as a reader sees them. Usage: corpus.py SET_DIR [LANG…] > corpus.jsonl (default de fr es;
SET_DIR holds x-LANG/ for each: its package unpacked, pages under usr/share/man/LANG/man1)."""
import gzip, json, os, re, subprocess, sys

LANGS = tuple(sys.argv[2:]) or ("de", "fr", "es")
DESCRIPTION = {"BESCHREIBUNG", "DESCRIPTION", "DESCRIPCIÓN", "説明", "描述", "说明"}

def pages(root, lang):
    d = os.path.join(root, f"x-{lang}", "usr", "share", "man", lang, "man1")
    return {f[: -len(".1.gz")]: os.path.join(d, f) for f in os.listdir(d) if f.endswith(".1.gz")}

def render(path):
    env = dict(os.environ, MANWIDTH="10000", LC_ALL="C.UTF-8")
    out = subprocess.run(["man", "-l", path], capture_output=True, env=env, timeout=60).stdout
    return subprocess.run(["col", "-b"], input=out, capture_output=True).stdout.decode("utf-8", "replace")

def sections(text):
    out, name = {}, None
    for line in text.splitlines():
        if re.match(r"^[^\s].*[^\s]$", line) and line.upper() == line and "(" not in line:
            name = line.strip()
            out.setdefault(name, [])
        elif name is not None and line.strip():
            out[name].append(" ".join(line.split()))
    return out

def main():
    root = sys.argv[1]
    found = {l: pages(root, l) for l in LANGS}
    common = sorted(set.intersection(*(set(p) for p in found.values())))
    for cmd in common:
        for lang in LANGS:
            secs = sections(render(found[lang][cmd]))
            if not secs:
                continue
            first = next(iter(secs.values()))
            title = first[0] if first else cmd
            desc = next((v for k, v in secs.items() if k in DESCRIPTION), [])
            text = " ".join([title] + desc)[:2000]
            print(json.dumps({"_id": f"{lang}/{cmd}", "title": title, "text": text}, ensure_ascii=False))

main()
