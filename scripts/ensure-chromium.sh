#!/usr/bin/env bash
# The browser tests and scripts/screenshots.py drive Debian's Chromium (/usr/bin/chromium) with
# Playwright; a downloaded browser is never used. Install the package when it is missing and we
# may (root with apt); otherwise the browser tests skip and say why.
set -u
[ -x /usr/bin/chromium ] && exit 0
[ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 \
  || { apt-get update -q >/dev/null 2>&1 \
       && apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; } \
  || echo "ensure-chromium: could not install chromium; browser tests will skip" >&2
exit 0
