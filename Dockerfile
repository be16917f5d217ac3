# bestmove: build a virtual environment, then copy it into a clean slim image.

FROM python:3.12-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies first, from the lock (every version pinned, every file hashed), so that a code
# change does not reinstall them and a new release of a dependency changes nothing.
COPY requirements/runtime.txt ./requirements/
RUN pip install --no-cache-dir --require-hashes --requirement requirements/runtime.txt
# Every game's solved table, prepared once here, so that a container is ready at once and
# needs no writable place for them. They depend on the game package alone (the standard
# library and NumPy), so only a change to it solves them again and ships a new layer.
COPY service/__init__.py ./service/
COPY service/game ./service/game
RUN python -m service.game.store /opt/bestmove/tables
COPY pyproject.toml README.md ./
COPY service ./service
# The installer itself is not needed at run time.
RUN pip install --no-cache-dir --no-deps . \
    && pip uninstall --yes pip setuptools
# The search compiled once here (about two minutes), from the installed package's own files
# (numba keys its cache by their path and contents), for a generic CPU of this architecture,
# so that the cache serves any machine the image runs on and a container never compiles.
ENV NUMBA_CACHE_DIR=/opt/bestmove/jit \
    NUMBA_CPU_NAME=generic
# -P: the installed package, not the sources beside it in /src.
RUN python -P -m service.game.warmup

FROM python:3.12-slim
# A numeric user, so that an orchestrator can verify it is not root (runAsNonRoot).
RUN groupadd --system --gid 10001 bestmove \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin bestmove
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/bestmove/tables /opt/bestmove/tables
COPY --from=build /opt/bestmove/jit /opt/bestmove/jit
# numba reads its cache only where it may write: `python -m service` copies this one under
# /tmp at start (service.ops.jit_cache).
ENV PATH=/opt/venv/bin:$PATH \
    TABLES_DIR=/opt/bestmove/tables \
    NUMBA_CACHE_DIR=/opt/bestmove/jit \
    NUMBA_CPU_NAME=generic \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=8000
USER 10001:10001
EXPOSE 8000
# Slim images have no curl; the probe is a few lines of the standard library.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-m", "service.ops.healthcheck"]
# The same production server as `python -m service` outside a container; it writes only
# under /tmp, so the root filesystem can be read-only.
CMD ["python", "-m", "service"]
