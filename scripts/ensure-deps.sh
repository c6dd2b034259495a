#!/usr/bin/env bash
# Make sure the local toolchain is ready: npm dependencies installed and
# matching package-lock.json, and a nats-server binary available.
# Runs before every `npm start` / `npm test`, so it must be a fast no-op
# when everything is already present.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# --- npm dependencies --------------------------------------------------------
# npm writes node_modules/.package-lock.json on every install; if it is missing
# or older than package-lock.json the install is stale.
if [[ ! -f node_modules/.package-lock.json || node_modules/.package-lock.json -ot package-lock.json ]]; then
  echo "ensure-deps: installing npm dependencies (npm ci)..." >&2
  if ! ci_log=$(npm ci --no-audit --no-fund --loglevel=error 2>&1); then
    # npm >= 11.16 rejects its own lockfile when an optional dependency is
    # unpublished (npm/cli#9846; here vite's napi-windows-process-start-time):
    # fall back to `npm install`, which honours the same lockfile.
    echo "ensure-deps: npm ci failed, falling back to npm install:" >&2
    grep -E '^npm error (code|Missing|Invalid)' <<<"$ci_log" >&2 || true
    npm install --no-audit --no-fund --loglevel=error >&2
  fi
fi

# --- nats-server -------------------------------------------------------------
have_nats_server() {
  # Debian installs it in /usr/sbin, which is not on PATH for ordinary users.
  command -v nats-server >/dev/null 2>&1 || [[ -x /usr/sbin/nats-server ]]
}

if ! have_nats_server; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: installing nats-server with apt-get..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq nats-server >&2
  fi
  if ! have_nats_server; then
    cat >&2 <<'MSG'
nats-server is required: install it with `sudo apt-get install nats-server` (Debian/Ubuntu)
or from https://nats.io/download/ (https://github.com/nats-io/nats-server/releases),
then make sure `nats-server` is on your PATH.
MSG
    exit 1
  fi
fi
