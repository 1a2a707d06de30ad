#!/usr/bin/env bash
# Installs what tests/browser.rs drives: Debian's Chromium (apt-get, when it is missing;
# needs root, as on CI) and the pinned playwright-core (package-lock.json), which drives
# that Chromium (no browser download of its own). Idempotent, and safe to run from several
# tests at once: one runs at a time (flock), the others then find everything in place.
set -euo pipefail
cd "$(dirname "$0")"
exec 9>"${TMPDIR:-/tmp}/strata-browser-install.lock"
flock 9
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: chromium is missing and installing it needs root (apt-get install chromium)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; }
fi
STAMP=node_modules/.strata-lock
if [ -f "$STAMP" ] && cmp -s package-lock.json "$STAMP"; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$STAMP"
