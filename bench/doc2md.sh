#!/usr/bin/env bash
# doc2md on real public documents (issue 57): text recovered against a reference, pages per second,
# CPU time, peak RSS.
#
#   bench/doc2md.sh            # RUNS=3 runs of each conversion; the median is reported
#
# The documents:
# - PDF and HTML: Debian's documentation packages debian-faq 11.1, developers-reference 12.18 and
#   debian-reference-en 2.100 (DFSG licences: GPL-2+, MIT-style, GPL-2+), fetched with apt-get and
#   pinned by sha256, each ship one manual as HTML pages, a PDF and plain text. The plain text is
#   the reference for both.
# - DOCX: the 46 Word files of python-docx 1.1.2's source distribution (MIT; PyPI, pinned by
#   sha256); the reference is what python-docx itself reads from each (paragraphs and table cells,
#   in a venv under $BENCH_DIR).
# Text recovered: recall = the share of the reference's words (lower-cased runs of letters and
# digits, counted with repeats) found in doc2md's bodies; precision = the share of doc2md's words
# found in the reference. Peak RSS is the largest process of the run (doc2md or its PDF child).
#
# Measured 2026-11-29 on the 2-core AMD EPYC VM (release build, RUNS=3, medians; CPU = user + sys of
# doc2md and its PDF child):
#   set                          docs  pages   wall s  CPU s  pages/s  peak RSS  recall precision
#   pdf debian-faq                   1     73     0.17   0.17      429     13 MB   0.985     0.965
#   pdf developers-reference         1    114     1.16   1.17       98     16 MB   0.996     0.959
#   pdf debian-reference             1    261     0.67   0.67      390     42 MB   0.987     0.975
#   html debian-faq                 17      -     0.01   0.01        -     10 MB   0.903     1.000
#   html developers-reference       10      -     0.02   0.02        -     11 MB   0.992     0.997
#   html debian-reference           15      -     0.03   0.06        -     12 MB   0.965     1.000
#   docx python-docx tests          45      -     0.01   0.01        -     10 MB   0.977     0.996
# Damaged copies (below; measured 2026-11-29 with the dev build, DOC2MD=target/debug/doc2md, which
# also checks arithmetic overflow): 257 files -> 115 documents + 142 reasons (69 not a DOCX zip, 39
# a broken word/document.xml, 34 not a readable PDF), 0 unaccounted, 0 panics, exit 64; 17.0 s
# wall, 16.6 s CPU, peak RSS 43 MB.
# The developers-reference PDF is slower because pdf-extract gives up on its fonts page after page
# and lopdf's extraction reads those pages instead. HTML recall is below 1 where the text edition
# carries a table of contents that doc2md leaves out of pages (it is navigation there).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
RUNS=${RUNS:-3}
. bench/lib.sh
need_tools apt-get dpkg-deb python3 pip /usr/bin/time gzip
need_bins doc2md
SET=$BENCH_DIR/doc2md
mkdir -p "$SET/debs"

fetch_deb() { # name version sha256
  local deb=$SET/debs/$1_$2_all.deb
  [ -f "$deb" ] || (cd "$SET/debs" && apt-get download -q "$1=$2" 2>/dev/null)
  echo "$3  $deb" | sha256sum -c --quiet - || { echo "$0: $deb is not the pinned package" >&2; exit 1; }
  [ -d "$SET/x-$1" ] || dpkg-deb -x "$deb" "$SET/x-$1"
}
fetch_deb debian-faq 11.1 427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0
fetch_deb developers-reference 12.18 0dba82f6fa16e373f2a84ad07e7971aa9264ad2e7d2ae46b37edbc9c5fd57e2e
fetch_deb debian-reference-en 2.100 9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f

SDIST=$SET/python_docx-1.1.2.tar.gz
[ -f "$SDIST" ] || pip download -q --no-deps --no-binary :all: -d "$SET" python-docx==1.1.2
echo "0cf1f22e95b9002addca7948e16f2cd7acdfd498047f1941ca5d293db7762efd  $SDIST" | sha256sum -c --quiet - \
  || { echo "$0: $SDIST is not the pinned source distribution" >&2; exit 1; }
if [ ! -d "$SET/docx" ]; then
  tar xzf "$SDIST" -C "$SET"
  mkdir -p "$SET/docx"
  find "$SET/python_docx-1.1.2" -name '*.docx' -exec cp {} "$SET/docx/" \;
fi
if [ ! -x "$SET/venv/bin/python" ]; then
  python3 -m venv "$SET/venv"
  "$SET/venv/bin/pip" install -q python-docx==1.1.2
fi

# The reference texts.
FAQ=$SET/x-debian-faq/usr/share/doc/debian/FAQ
DEV=$SET/x-developers-reference/usr/share/developers-reference
REF=$SET/x-debian-reference-en/usr/share/debian-reference
gzip -cd "$FAQ/debian-faq.en.txt.gz" > "$SET/faq.txt"
gzip -cd "$DEV/developers-reference.txt.gz" > "$SET/dev.txt"
gzip -cd "$REF/debian-reference.en.txt.gz" > "$SET/ref.txt"
[ -f "$FAQ/debian-faq.en.pdf" ] || gzip -cdk "$FAQ/debian-faq.en.pdf.gz" > "$FAQ/debian-faq.en.pdf"
"$SET/venv/bin/python" - "$SET/docx" > "$SET/docx.txt" <<'EOF'
import sys, pathlib, docx
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.docx")):
    try:
        d = docx.Document(str(p))
    except Exception:
        continue
    for para in d.paragraphs:
        print(para.text)
    for t in d.tables:
        for row in t.rows:
            print(" ".join(c.text for c in row.cells))
EOF

# One conversion, RUNS times: "wall cpu peak_kb" medians, and its output kept.
convert() { # name out args…
  local name=$1 out=$2; shift 2
  local walls=() cpus=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$SET/time" "$BIN/doc2md" -q "$@" > "$out" || true
    read -r w u s m < "$SET/time"
    walls+=("$w"); cpus+=("$(echo "$u + $s" | bc -l)"); rss+=("$m")
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${cpus[@]}" | median) $(printf '%s\n' "${rss[@]}" | median)"
}

score() { # reference.txt output.ndjson → "docs pages recall precision"
  python3 - "$1" "$2" <<'EOF'
import collections, json, re, sys
toks = lambda t: collections.Counter(re.findall(r"[a-z0-9]+", t.lower()))
ref = toks(open(sys.argv[1], errors="replace").read())
out, docs, pages = collections.Counter(), 0, 0
for line in open(sys.argv[2]):
    d = json.loads(line)
    docs += 1
    pages += d["meta"].get("pages", 0)
    out += toks(d["body"])
common = sum((ref & out).values())
print(docs, pages or "-", f"{common / max(1, sum(ref.values())):.3f}", f"{common / max(1, sum(out.values())):.3f}")
EOF
}

printf '%-28s %5s %6s %8s %6s %8s %9s %7s %9s\n' set docs pages "wall s" "CPU s" pages/s "peak RSS" recall precision
row() { # name reference args…
  local name=$1 ref=$2; shift 2
  read -r wall cpu kb <<< "$(convert "$name" "$SET/out.ndjson" "$@")"
  read -r docs pages recall precision <<< "$(score "$ref" "$SET/out.ndjson")"
  local pps=-
  [ "$pages" != - ] && pps=$(echo "$pages / $wall" | bc -l | xargs printf '%.0f')
  printf '%-28s %5s %6s %8.2f %6.2f %8s %6.0f MB %7s %9s\n' "$name" "$docs" "$pages" "$wall" "$cpu" "$pps" \
    "$(echo "$kb / 1024" | bc -l)" "$recall" "$precision"
}
row "pdf debian-faq" "$SET/faq.txt" "$FAQ/debian-faq.en.pdf"
row "pdf developers-reference" "$SET/dev.txt" "$DEV/developers-reference.pdf"
row "pdf debian-reference" "$SET/ref.txt" "$REF/debian-reference.en.pdf"
# The HTML editions page by page: the FAQ's English pages, the Developer's Reference chapters (not
# its one-page edition, search or index pages), the Reference's chapters and appendix.
row "html debian-faq" "$SET/faq.txt" "$FAQ"/*.en.html
# shellcheck disable=SC2046
row "html developers-reference" "$SET/dev.txt" $(ls "$DEV"/*.html | grep -v -e '/developers-reference.html' -e '/search.html' -e '/genindex.html')
row "html debian-reference" "$SET/ref.txt" "$REF"/*.en.html
row "docx python-docx tests" "$SET/docx.txt" "$SET/docx"/*.docx

# Damaged copies of the same real documents (issue 57: "0 panics over a fuzzed corpus of damaged
# files"): each PDF 20 times, each DOCX 3 times, each HTML page twice, cut in six ways chosen by a
# fixed seed (truncated anywhere, 32 bytes flipped, a 64 KiB block zeroed, two 4 KiB blocks
# swapped, the last 2 KiB cut — a PDF's cross-reference table, a zip's directory —, 1 KiB of
# garbage inserted). One doc2md run over the folder: every file is a document or a reason on
# stderr, doc2md itself never panics (exit 101 or "panicked at"), the contract's exit (64: some
# could not be read), and its wall, CPU and peak RSS. DOC2MD=path picks another build (a debug
# build also checks every arithmetic overflow).
DAMAGED=$SET/damaged
rm -rf "$DAMAGED"; mkdir -p "$DAMAGED"
python3 - "$DAMAGED" "$FAQ/debian-faq.en.pdf" "$DEV/developers-reference.pdf" "$REF/debian-reference.en.pdf" \
  "$SET/docx"/*.docx "$FAQ"/*.en.html "$REF"/*.en.html <<'EOF'
import os, random, sys
out, files = sys.argv[1], sys.argv[2:]
rng = random.Random(57)
def damage(b, how):
    b = bytearray(b)
    n = len(b)
    if how == 0:
        return b[: rng.randrange(1, max(2, n))]
    if how == 1:
        for _ in range(32):
            b[rng.randrange(n)] = rng.randrange(256)
        return b
    if how == 2:
        at = rng.randrange(n)
        b[at:at + 65536] = bytes(len(b[at:at + 65536]))
        return b
    if how == 3 and n > 8192:
        i, j = sorted(rng.sample(range(0, n - 4096), 2))
        if j - i >= 4096:
            b[i:i + 4096], b[j:j + 4096] = b[j:j + 4096], b[i:i + 4096]
        return b
    if how == 4:
        return b[: max(1, n - 2048)]
    at = rng.randrange(n)
    return b[:at] + bytes(rng.randrange(256) for _ in range(1024)) + b[at:]
for f in files:
    data = open(f, "rb").read()
    ext = os.path.splitext(f)[1]
    copies = {".pdf": 20, ".docx": 3}.get(ext, 2)
    for k in range(copies):
        name = f"{os.path.basename(f).split('.')[0]}-{k:02d}{ext}"
        open(os.path.join(out, name), "wb").write(damage(data, (k + len(name)) % 6))
EOF
DOC2MD=${DOC2MD:-$BIN/doc2md}
set +e
/usr/bin/time -f "%e %U %S %M" -o "$SET/time" "$DOC2MD" "$DAMAGED" > "$SET/damaged.ndjson" 2> "$SET/damaged.err"
code=$?
set -e
read -r w u s m < <(tail -1 "$SET/time")  # GNU time says a non-zero exit on a line of its own
files=$(find "$DAMAGED" -type f | wc -l)
docs=$(grep -c '' "$SET/damaged.ndjson" || true)
reasons=$(grep -c '^doc2md: warning: ' "$SET/damaged.err" || true)
panics=$(grep -c 'panicked at' "$SET/damaged.err" || true)
[ "$code" = 101 ] && panics=$((panics + 1))
printf '\ndamaged copies: %s files -> %s documents + %s reasons (%s unaccounted); doc2md exit %s, panics %s; wall %.2f s, CPU %.2f s, peak RSS %.0f MB\n' \
  "$files" "$docs" "$reasons" "$((files - docs - reasons))" "$code" "$panics" "$w" "$(echo "$u + $s" | bc -l)" "$(echo "$m / 1024" | bc -l)"
echo "reasons, by kind:"
sed -n 's/^doc2md: warning: [^:]*: \([^:]*\).*/  \1/p' "$SET/damaged.err" | sort | uniq -c | sort -rn | head -8
