# The FAQ portal as an intranet service.
#   docker build -t faq-portal .
#   docker run -p 8000:8000 -v "$PWD/content:/srv/faq/content:ro" -v faq-data:/srv/faq/data faq-portal
# Behind a TLS-inspecting proxy, pass its CA: --build-arg PIP_CERT=/path/in/build/context-or-mount.crt
FROM debian:bookworm-slim

ARG PIP_CERT=
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FAQ_CONTENT_DIR=/srv/faq/content \
    FAQ_DATA_DIR=/srv/faq/data

RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv \
 && useradd --system --home /srv/faq --shell /usr/sbin/nologin faq

WORKDIR /srv/faq
COPY requirements.lock ./
RUN /opt/venv/bin/pip install --no-cache-dir ${PIP_CERT:+--cert "$PIP_CERT"} -r requirements.lock

COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY measure ./measure
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY content ./content
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN /opt/venv/bin/pip install --no-cache-dir --no-deps ${PIP_CERT:+--cert "$PIP_CERT"} -e . \
 && mkdir -p /srv/faq/data && chown -R faq /srv/faq/data \
 && chmod 0755 /usr/local/bin/docker-entrypoint.sh

USER faq
ENV PATH=/opt/venv/bin:$PATH
EXPOSE 8000
VOLUME ["/srv/faq/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)" || exit 1
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["serve"]
