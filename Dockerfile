# carimg: one image for both roles of the fleet (see compose.yaml and docs/OPERATIONS.md):
#   carimg serve --host 0.0.0.0 --workers N   (the API; the default command)
#   carimg worker                             (renders from the Redis queue)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_PROJECT_ENVIRONMENT=/opt/carimg \
    UV_PYTHON=/usr/local/bin/python3.11 \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1 \
    UV_LINK_MODE=copy \
    PATH=/opt/carimg/bin:$PATH

WORKDIR /app
# uv, pinned with its hashes, installs exactly uv.lock: the serving dependencies, no development group.
COPY .ci/uv-requirements.txt ./.ci/
RUN pip install --require-hashes --no-deps -r .ci/uv-requirements.txt
COPY pyproject.toml uv.lock README.md ./
# The dependencies alone first: this layer is reused until uv.lock changes.
RUN uv sync --locked --no-dev --no-install-project
COPY src ./src
# carimg itself, then the renderer's kernels compiled into numba's on-disk cache once, at build time.
RUN uv sync --locked --no-dev --no-editable \
    && python -m carimg.render.warm \
    && pip uninstall --yes uv

RUN useradd --system --uid 10001 --home-dir /var/lib/carimg carimg \
    && mkdir -p /var/lib/carimg \
    && chown carimg /var/lib/carimg
USER carimg
ENV CARIMG_DATA_DIR=/var/lib/carimg \
    CARIMG_LOG_FORMAT=json

EXPOSE 8000
# Healthy when /api/health answers `ok` (every dependency it names works).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD \
    python -c "import json,sys,urllib.request as u; sys.exit(json.load(u.urlopen('http://127.0.0.1:8000/api/health', timeout=4))['status'] != 'ok')"
# SIGTERM: stop accepting, finish requests in flight (CARIMG_SHUTDOWN_TIMEOUT), exit 0.
STOPSIGNAL SIGTERM
CMD ["carimg", "serve", "--host", "0.0.0.0", "--port", "8000"]
