#!/usr/bin/env bash
# Make sure a nats-server >= 2.10 is at hand: 2.9 (Debian bookworm's) acknowledges a JetStream write
# before it reaches the disk and has no `sync_interval` to change that. Uses the system's nats-server
# when it is new enough; otherwise downloads the newest nats-server Debian package that apt can reach
# (sid, then trixie) with a temporary sources list (apt checks the archive's signature and the
# package's hash), and unpacks it under .tools/nats-server/ (git-ignored), where
# src/nats/server-binary.ts finds it. When nothing newer can be had, says so once and keeps the old one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TOOLS=.tools/nats-server
BUNDLED=$TOOLS/usr/sbin/nats-server

version_of() { "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1; }
new_enough() { # 2.10 or newer
  local v=$1 major minor
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [[ -n "$v" ]] && (( major > 2 || (major == 2 && minor >= 10) ))
}

[[ -x "$BUNDLED" ]] && new_enough "$(version_of "$BUNDLED")" && exit 0
system=$(command -v nats-server 2>/dev/null || { [[ -x /usr/sbin/nats-server ]] && echo /usr/sbin/nats-server; } || true)
if [[ -n "$system" ]] && new_enough "$(version_of "$system")"; then exit 0; fi

fallback() {
  echo "current-nats-server: $1; using ${system:-no nats-server} ($( [[ -n "$system" ]] && version_of "$system"))," \
    "which acknowledges writes before they reach the disk (AF_DURABILITY=fsync needs 2.10+)" >&2
  exit 0
}
command -v apt-get >/dev/null 2>&1 || fallback "apt-get is not available to fetch nats-server >= 2.10"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f $keyring ]] || fallback "no Debian archive keyring to verify a download with"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial"
cat >"$work/sources.list" <<SOURCES
deb [signed-by=$keyring] http://deb.debian.org/debian sid main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
SOURCES
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
  -o APT::Sandbox::User=root -qq)
echo "current-nats-server: fetching a nats-server >= 2.10 from Debian (sid/trixie)..." >&2
apt-get "${apt_opts[@]}" update >&2 || fallback "apt-get update of the sid/trixie lists failed"
( cd "$work" && apt-get "${apt_opts[@]}" download nats-server >&2 ) || fallback "apt-get download nats-server failed"
deb=$(ls "$work"/nats-server_*.deb 2>/dev/null | head -n 1)
[[ -n "$deb" ]] || fallback "no nats-server package was downloaded"
rm -rf "$TOOLS"
mkdir -p "$TOOLS"
dpkg-deb -x "$deb" "$TOOLS"
v=$(version_of "$BUNDLED")
new_enough "$v" || fallback "the downloaded nats-server ($v) is not 2.10 or newer"
echo "current-nats-server: nats-server $v unpacked in $TOOLS" >&2
