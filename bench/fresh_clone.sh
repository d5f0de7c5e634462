#!/usr/bin/env bash
# Time from `git clone` to the first /api/health answer of `make run`, with empty package caches.
#   bash bench/fresh_clone.sh [REPO] [DEST] [PORT]     (defaults: this checkout, /work/fresh, 18733)
# pip and uv get caches of their own in a new temporary folder, and pip reads no configuration
# file (no local index or wheel folder), so uv, the build backend and every locked package come
# from the package index. Prints each phase with the seconds since the clone began; stops the
# server and removes the caches afterwards (the clone stays in DEST).
set -euo pipefail
repo=${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
dest=${2:-/work/fresh}
port=${3:-18733}

caches=$(mktemp -d)
export UV_CACHE_DIR=$caches/uv PIP_CACHE_DIR=$caches/pip PIP_CONFIG_FILE=/dev/null
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL UV_INDEX_URL UV_EXTRA_INDEX_URL
rm -rf "$dest"

start=$(date +%s.%N)
since() { printf '%6.1f s  %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$1"; }

git clone -q "$repo" "$dest"
since "cloned ($(git -C "$dest" rev-parse --short HEAD))"
cd "$dest"
make run PORT="$port" > "$caches/run.log" 2>&1 &
make_pid=$!
seen=""
until body=$(curl -sf -m 2 "http://127.0.0.1:$port/api/health"); do
    for mark in "uv lock\|uv sync" "compiling the renderer" "carimg serve"; do
        if [[ $seen != *"$mark"* ]] && grep -q "$mark" "$caches/run.log"; then
            since "make: $(grep -m1 "$mark" "$caches/run.log" | cut -c1-60)"
            seen="$seen|$mark"
        fi
    done
    kill -0 "$make_pid" 2>/dev/null || { cat "$caches/run.log"; exit 1; }
    sleep 0.2
done
since "first /api/health answer: $(echo "$body" | head -c 16)…"
echo "installed: $(.venv/bin/python -c 'import importlib.metadata as m; print(len(list(m.distributions())))') distributions in .venv, uv cache $(du -sh "$caches/uv" | cut -f1)"

server=$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
[ -n "$server" ] && kill "$server"
wait "$make_pid" 2>/dev/null || true
rm -rf "$caches"
