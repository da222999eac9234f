#!/usr/bin/env bash
# System packages the test suite needs beyond PostgreSQL and Redis, from Debian: HAProxy, the load balancer the
# cluster test (test/integration/cluster/) puts in front of several `omnibook serve` nodes, and Chromium, the
# browser the web console's end-to-end test (test/e2e/) drives through playwright-core (never a browser download).
# Idempotent: a package already installed is left alone (and the run does not need the network); a missing one is
# installed with apt-get, and a failure to install it fails the run rather than letting those tests skip.
set -euo pipefail

missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
[ -x /usr/bin/chromium ] || missing+=(chromium)

if [ "${#missing[@]}" -eq 0 ]; then
  echo "ci: system packages present: haproxy ($(haproxy -v 2>/dev/null | head -n1)), $(/usr/bin/chromium --version 2>/dev/null)"
  exit 0
fi

echo "ci: installing system packages: ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
# The package lists may be absent on a fresh image; an update is only needed when the install cannot find them.
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
# The Debian package starts a system haproxy with its default config where an init system runs; the tests start
# their own, so nothing else is needed. Fail loudly if the binary is still not there.
command -v haproxy >/dev/null 2>&1 || { echo "ci: FATAL: haproxy is still missing after apt-get install"; exit 1; }
[ -x /usr/bin/chromium ] || { echo "ci: FATAL: chromium is still missing after apt-get install"; exit 1; }
echo "ci: installed $(haproxy -v | head -n1), $(/usr/bin/chromium --version)"
