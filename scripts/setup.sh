#!/bin/sh
# `npm run setup`: the pinned Bun (only when it is missing), the runtime dependencies only, the binary.
# The agent CLIs and the type checker are dev dependencies: `npm test` installs them itself.
set -e
BUN_VERSION=1.4.4
if [ "$(bun --version 2>/dev/null)" = "$BUN_VERSION" ]; then
  echo "bun $BUN_VERSION is already installed ($(command -v bun)); not reinstalling it"
else
  echo "installing bun $BUN_VERSION with npm install -g bun@$BUN_VERSION"
  npm install -g "bun@$BUN_VERSION"
fi
bun install --production --frozen-lockfile
bun run build
