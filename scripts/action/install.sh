#!/usr/bin/env bash
# The action's first step (action.yml): put the release binary of this runner's platform on PATH, its
# checksum verified against the release's SHA256SUMS. Inputs come as environment variables:
#   WT_LOOP_VERSION    the version to install (default: the action's own, from its package.json)
#   WT_LOOP_DOWNLOAD   where the archives are (default: the action repository's GitHub release of that version)
#   RUNNER_OS RUNNER_ARCH RUNNER_TEMP GITHUB_PATH GITHUB_ACTION_PATH          (set by the runner)
#   WT_LOOP_ACTION_REPO the action's repository (owner/name), whose releases hold the archives
#   WT_LOOP_SANDBOX    "true": make sure bubblewrap is there and may create user namespaces
set -euo pipefail

fail() { echo "::error title=wt-loop::$1" >&2; exit 1; }

version=${WT_LOOP_VERSION:-}
if [[ -z $version ]]; then
  version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$GITHUB_ACTION_PATH/package.json" | head -n1)
fi
[[ -n $version ]] || fail "No version to install: give the action's 'version' input (for example 0.1.0)."

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  *) fail "wt-loop runs on Linux and macOS runners, not on ${RUNNER_OS:-$(uname -s)}. Use runs-on: ubuntu-latest or macos-latest." ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=x64 ;;
  ARM64 | aarch64 | arm64) arch=arm64 ;;
  *) fail "wt-loop is built for x64 and arm64, not for ${RUNNER_ARCH:-$(uname -m)}." ;;
esac
suffix=""
# A job in an Alpine container: its C library is musl, and only x64 is built for it.
if [[ $os == linux ]] && ldd --version 2>&1 | grep -qi musl; then
  [[ $arch == x64 ]] || fail "wt-loop is built for musl (Alpine) on x64 only."
  suffix=-musl
fi

name="wt-loop-$version-$os-$arch$suffix.tar.gz"
base=${WT_LOOP_DOWNLOAD:-https://github.com/${WT_LOOP_ACTION_REPO:-wt-loop/wt-loop}/releases/download/v$version}
dir="${RUNNER_TEMP:-/tmp}/wt-loop-$version"
mkdir -p "$dir"
echo "Installing $name from $base"
curl -fsSL --retry 3 -o "$dir/$name" "$base/$name" || fail "Could not download $base/$name. Is there a release $version with a build for $os-$arch$suffix?"
curl -fsSL --retry 3 -o "$dir/SHA256SUMS" "$base/SHA256SUMS" || fail "Could not download $base/SHA256SUMS, so $name cannot be checked."
expected=$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1 }' "$dir/SHA256SUMS")
[[ -n $expected ]] || fail "SHA256SUMS of release $version does not list $name."
if command -v sha256sum >/dev/null; then actual=$(sha256sum "$dir/$name" | awk '{ print $1 }')
else actual=$(shasum -a 256 "$dir/$name" | awk '{ print $1 }'); fi
[[ $actual == "$expected" ]] || fail "The checksum of $name is $actual, but SHA256SUMS says $expected: the download is not the release. Nothing was installed."
tar -xzf "$dir/$name" -C "$dir" wt-loop
chmod +x "$dir/wt-loop"
echo "$dir" >> "${GITHUB_PATH:?the runner sets GITHUB_PATH}"
"$dir/wt-loop" --version

if [[ ${WT_LOOP_SANDBOX:-false} == true && $os == linux ]]; then
  # --sandbox runs the agent under bubblewrap. Ubuntu 24.04 runners forbid unprivileged user namespaces
  # through AppArmor unless this is turned off; the runner's user has password-less sudo.
  if ! command -v bwrap >/dev/null; then sudo apt-get install -y -qq bubblewrap >/dev/null || fail "Could not install bubblewrap for --sandbox. Install it in an earlier step, or set sandbox: false."; fi
  if [[ $(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null || echo 0) == 1 ]]; then
    sudo sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0 || fail "The sandbox needs user namespaces, which AppArmor forbids here. Set sandbox: false, or allow them."
  fi
fi
