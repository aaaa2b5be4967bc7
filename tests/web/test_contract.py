"""Schemathesis against /openapi.json: every operation answers as its schema says, for any input."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given, settings

from app.config import Settings
from app.main import create_app


def test_every_operation_answers_as_its_schema_says(seeded: Settings) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(seeded))
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 6
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def holds(case: schemathesis.Case) -> None:
            # Every check: no 5xx, only documented statuses, bodies and content types, and
            # invalid input refused with a documented 4xx.
            case.call_and_validate()

        holds()
