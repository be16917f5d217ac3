# bestmove: build a virtual environment, then copy it into a clean slim image.

FROM python:3.12-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies first, read from pyproject.toml, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > requirements.txt \
    && pip install --no-cache-dir --requirement requirements.txt
COPY service ./service
RUN pip install --no-cache-dir --no-deps .

FROM python:3.12-slim
RUN useradd --system --no-create-home --shell /usr/sbin/nologin bestmove
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=8000
USER bestmove
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["python", "-m", "service.healthcheck"]
# The same production server as `python -m service` outside a container.
CMD ["python", "-m", "service"]
