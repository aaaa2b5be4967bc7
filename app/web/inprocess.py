"""A synchronous httpx client that calls the app in-process (for `faq eval` and tests)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from types import TracebackType
from typing import Any, TypeVar

import httpx
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastapi import FastAPI

T = TypeVar("T")


WARM_UP_SECONDS = 120.0  # at most, for the app to load what it searches with (a large index, the model)


class InProcessClient:
    """Sends real HTTP requests through httpx's ASGI transport, without a socket.

    The app's lifespan runs as under a server (start-up, then shut-down on exit), and requests
    are sent once the app is warm, as a load balancer waits for /readyz.
    """

    def __init__(self, app: FastAPI, wait_until_warm: bool = True) -> None:
        self.app = app
        self.wait_until_warm = wait_until_warm
        self._stack = ExitStack()
        self._portal: BlockingPortal | None = None
        self._client: httpx.AsyncClient | None = None

    def __enter__(self) -> InProcessClient:
        self._portal = self._stack.enter_context(start_blocking_portal())
        self._stack.enter_context(self._portal.wrap_async_context_manager(
            self.app.router.lifespan_context(self.app)))
        store = getattr(self.app.state, "store", None)
        if store is not None and self.wait_until_warm:
            store.warm.wait(WARM_UP_SECONDS)
        transport = httpx.ASGITransport(app=self.app)
        self._client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        return self

    @classmethod
    def starting(cls, app: FastAPI) -> InProcessClient:
        """A client that sends requests from the moment the app starts, before it is warm (as readers may)."""
        return cls(app, wait_until_warm=False)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._portal is not None and self._client is not None:
            self._portal.call(self._client.aclose)
        self._stack.close()

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """Send one request and return the whole response."""
        assert self._portal is not None and self._client is not None, "use as a context manager"
        send = functools.partial(self._client.request, method, url, **kwargs)
        return self._portal.call(send)

    def call(self, function: Callable[[httpx.AsyncClient], Awaitable[T]]) -> T:
        """Run `function(async client)` on the app's event loop (to hold the loop's resources meanwhile)."""
        assert self._portal is not None and self._client is not None, "use as a context manager"
        client = self._client
        return self._portal.call(lambda: function(client))

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        """GET `url`."""
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        """A POST request."""
        return self.request("POST", url, **kwargs)
