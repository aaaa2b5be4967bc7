"""Prometheus metrics of one server process: requests, searches, ingests and the generation served.

Each process keeps its own counters (run one worker per container and scale by replicas, or
sum the workers' series); queries themselves are never recorded, only how they fared.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry()
REQUESTS = Counter("faq_http_requests", "HTTP requests answered, by route and status",
                   ["method", "route", "status"], registry=REGISTRY)
LATENCY = Histogram("faq_http_request_duration_seconds", "Time to answer a request, by route",
                    ["route"], registry=REGISTRY,
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
SEARCHES = Counter("faq_searches", "Searches run (pages and API)", registry=REGISTRY)
ZERO_RESULTS = Counter("faq_zero_result_searches", "Searches that found no entry", registry=REGISTRY)
INGESTS = Counter("faq_ingests", "Ingests run by this process (admin reindex or --watch), by outcome",
                  ["outcome"], registry=REGISTRY)
INGEST_SECONDS = Histogram("faq_ingest_duration_seconds", "Time an ingest run by this process took",
                           registry=REGISTRY, buckets=(1, 2, 5, 10, 30, 60, 120, 300, 600))
GENERATION = Gauge("faq_generation_info", "The data generation this process serves (value 1)",
                   ["generation"], registry=REGISTRY)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request and its latency."""
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(route).observe(seconds)


def observe_search(total: int) -> None:
    """Count one search and whether it found nothing."""
    SEARCHES.inc()
    if total == 0:
        ZERO_RESULTS.inc()


def observe_generation(name: str) -> None:
    """Record the generation now served (the previous one's series is removed)."""
    GENERATION.clear()
    GENERATION.labels(name).set(1)


def render() -> bytes:
    """The metrics in Prometheus' text format."""
    return bytes(generate_latest(REGISTRY))
