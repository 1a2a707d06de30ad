#!/usr/bin/env bash
# Installs the pinned TypeScript compiler and @strapi/client (package-lock.json) that
# tests/typescript.rs checks the generated types with, and Apollo Client (with graphql and
# rxjs) that tests/graphql_client.rs runs examples/graphql-frontend with. Idempotent: does
# nothing when node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")"
# One install at a time, should two tests ask at once.
exec 9>"${TMPDIR:-/tmp}/strata-typescript-install.lock"
flock 9
STAMP=node_modules/.strata-lock
if [ -f "$STAMP" ] && cmp -s package-lock.json "$STAMP"; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$STAMP"
