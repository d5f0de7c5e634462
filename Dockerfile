# carimg: one image for both roles of the fleet (see compose.yaml and docs/OPERATIONS.md):
#   carimg serve --host 0.0.0.0 --workers N   (the API; the default command)
#   carimg worker                             (renders from the Redis queue)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
# Compile the renderer's kernels into numba's on-disk cache once, at build time.
RUN pip install . && python -m carimg.render.warm

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
