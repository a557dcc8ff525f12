#!/usr/bin/env bash
# What tests/tests/browse.rs drives `brain browse` with: Debian's Chromium (packages chromium and
# chromium-driver, installed with apt-get when missing and this user may: root, or passwordless
# sudo) and playwright-core from package-lock.json (`npm ci`; it downloads no browser of its own).
# Offline-safe: nothing is fetched when both are in place. When either cannot be had it says so and
# returns 0; the Rust test then skips, or fails when BRAIN_REQUIRE_CORPORA=1 (CI).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v chromium >/dev/null 2>&1; then
  apt=(apt-get)
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      apt=(sudo -n apt-get)
    else
      apt=()
    fi
  fi
  if [ ${#apt[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "browser: installing Debian's chromium and chromium-driver" >&2
    "${apt[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  else
    echo "browser: chromium is not installed and cannot be here (no apt-get as root or sudo); the browser test will not run" >&2
  fi
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "browser: npm not found; the browser test will not run" >&2
  exit 0
fi
installed=node_modules/.package-lock.json
if [ -f "$installed" ] && [ "$installed" -nt package-lock.json ] && [ -f node_modules/playwright-core/package.json ]; then
  exit 0
fi
npm ci --no-audit --no-fund --prefer-offline --loglevel=error
