#!/usr/bin/env bash
# Make sure the local toolchain is ready: npm dependencies installed and
# matching package-lock.json, a nats-server binary, and (for the HTTP gateway
# client tests) Debian's python3-boto3 and awscli, and (for the web console test) chromium.
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

# --- system packages ----------------------------------------------------------
# nats-server runs JetStream; python3-boto3 (/usr/bin/python3) and awscli (/usr/bin/aws) are the
# non-JS clients the HTTP gateway tests drive (test/integration/python-and-cli.test.ts).
have_nats_server() {
  # Debian installs it in /usr/sbin, which is not on PATH for ordinary users.
  command -v nats-server >/dev/null 2>&1 || [[ -x /usr/sbin/nats-server ]]
}
have_boto3() {
  /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("boto3") is None)' >/dev/null 2>&1
}
have_aws_cli() {
  [[ -x /usr/bin/aws ]]
}
have_chromium() {
  [[ -x /usr/bin/chromium ]]
}
have_openssl() {
  command -v openssl >/dev/null 2>&1
}
# `--tests` (npm test) also brings what only the tests use; npm start needs nats-server alone.
for_tests=false
[[ "${1:-}" == "--tests" ]] && for_tests=true
missing_packages() {
  have_nats_server || echo nats-server
  if $for_tests; then
    have_boto3 || echo python3-boto3
    have_aws_cli || echo awscli
    have_chromium || echo chromium
    have_openssl || echo openssl
  fi
}

missing=$(missing_packages | tr '\n' ' ')
if [[ -n "${missing// /}" && "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-deps: installing ${missing% } with apt-get..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || echo "ensure-deps: apt-get update failed" >&2
  # shellcheck disable=SC2086 # one word per package
  apt-get install -y -qq $missing >&2 || echo "ensure-deps: apt-get install $missing failed" >&2
fi

if ! have_nats_server; then
  cat >&2 <<'MSG'
nats-server is required: install it with `sudo apt-get install nats-server` (Debian/Ubuntu)
or from https://nats.io/download/ (https://github.com/nats-io/nats-server/releases),
then make sure `nats-server` is on your PATH.
MSG
  exit 1
fi
# A nats-server >= 2.10 (fsync on every append is possible, AF_DURABILITY=fsync): the system's, or
# the newest Debian package unpacked under .tools/ (src/nats/server-binary.ts prefers it).
bash scripts/current-nats-server.sh

# The engine runs without them; only the boto3 / aws CLI / console / TLS tests need them (and fail without).
$for_tests || exit 0
if ! have_boto3; then
  echo 'ensure-deps: /usr/bin/python3 cannot import boto3: the boto3 tests will fail; install it with `sudo apt-get install python3-boto3`' >&2
fi
if ! have_aws_cli; then
  echo 'ensure-deps: /usr/bin/aws is missing: the aws CLI tests will fail; install it with `sudo apt-get install awscli`' >&2
fi
if ! have_chromium; then
  echo 'ensure-deps: /usr/bin/chromium is missing: the web console test will fail; install it with `sudo apt-get install chromium`' >&2
fi
if ! have_openssl; then
  echo 'ensure-deps: openssl is missing: the NATS TLS test will fail; install it with `sudo apt-get install openssl`' >&2
fi
