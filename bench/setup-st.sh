#!/usr/bin/env bash
# Install the sentence-transformers peer for bench/embed.sh into bench/.st (a Python venv, ignored by
# git via bench/.st/.gitignore): sentence-transformers and PyTorch from PyPI. PyPI's Linux torch wheel
# is the CUDA build and pulls NVIDIA's runtime packages (several GB); it runs on the CPU all the same,
# which is how the bench uses it (CUDA_VISIBLE_DEVICES empty, torch.set_num_threads(2)). Bench only,
# never CI. Usage: bench/setup-st.sh; then bench/.st/bin/python.
set -euo pipefail
cd "$(dirname "$0")"
DEST=$PWD/.st
[ -x "$DEST/bin/python" ] || python3 -m venv "$DEST"
printf '*\n' > "$DEST/.gitignore"
"$DEST/bin/pip" install --quiet --disable-pip-version-check sentence-transformers torch
"$DEST/bin/python" -c 'import torch, sentence_transformers as s; print("setup-st:", "torch", torch.__version__, "sentence-transformers", s.__version__)'
