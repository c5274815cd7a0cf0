#!/bin/bash
# Measures the README's two commands as a new user meets them: a fresh clone in a temporary folder,
# empty Bun and npm caches, network bytes read from /proc/net/dev before and after (other traffic on
# the machine is counted too, so run it on a quiet machine). Prints one line per command.
#   bash scripts/measure-setup.sh [repository]   (default: this checkout's committed HEAD)
set -euo pipefail
src=${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$src" "$tmp/repo"
export BUN_INSTALL_CACHE_DIR="$tmp/bun-cache" npm_config_cache="$tmp/npm-cache"
rx() { awk -F'[: ]+' 'NR>2 && $2 != "lo" { s += $3 } END { print s }' /proc/net/dev; }
measure() { # label, command...
  local label=$1; shift
  local b0 t0 b1 t1
  b0=$(rx); t0=$(date +%s.%N)
  (cd "$tmp/repo" && "$@") >"$tmp/$label.log" 2>&1 || { echo "$label failed:"; tail -20 "$tmp/$label.log"; exit 1; }
  t1=$(date +%s.%N); b1=$(rx)
  printf '%-28s %7.1f MB downloaded  %6.1f s' "$label" "$(echo "($b1 - $b0) / 1000000" | bc -l)" "$(echo "$t1 - $t0" | bc -l)"
  [ -d "$tmp/repo/node_modules" ] && printf '  node_modules %s' "$(du -sh "$tmp/repo/node_modules" | cut -f1)"
  echo
}
# The Bun that setup installs when it is missing, into a throwaway prefix (the global one is left alone).
measure "npm install -g bun@1.4.4" npm install -g --prefix "$tmp/bun-prefix" bun@1.4.4
measure "npm run setup" npm run setup
measure "npm test (install part)" bun install --frozen-lockfile
