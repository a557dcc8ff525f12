#!/usr/bin/env bash
# Install the official MCP TypeScript SDK for tests/tests/mcp.rs from package-lock.json (`npm ci`).
# Offline-safe: nothing is fetched when node_modules already matches the lock file. Without node/npm
# it says so and returns 0; the Rust test then skips, or fails when BRAIN_REQUIRE_CORPORA=1 (CI).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
  echo "mcp-client: npm not found; the MCP SDK client test will not run" >&2
  exit 0
fi
installed=node_modules/.package-lock.json
if [ -f "$installed" ] && [ "$installed" -nt package-lock.json ] && [ -f node_modules/@modelcontextprotocol/sdk/package.json ]; then
  exit 0
fi
npm ci --no-audit --no-fund --prefer-offline --loglevel=error
