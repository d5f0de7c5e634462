#!/usr/bin/env bash
# The caching-proxy end-to-end test and the serving benchmark put nginx in front of carimg.
# Install Debian's nginx-light when it is missing and we may (root with apt); otherwise the
# tests that need it skip and say why.
set -u
command -v nginx >/dev/null 2>&1 && exit 0
[ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q nginx-light >/dev/null 2>&1 \
  || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nginx-light >/dev/null 2>&1; } \
  || echo "ensure-nginx: could not install nginx-light; proxy tests will skip" >&2
# Debian starts the packaged service; the tests run their own nginx on their own ports.
pkill -x nginx >/dev/null 2>&1 || true
exit 0
