"""A call of the API made into a method of a client, once for both clients.

Each call is written once, as a function that returns a :class:`Request` (or a
:class:`Listing`); these wrappers make it a method that sends it: awaited on the
:class:`provledger.AsyncClient`, blocking on the :class:`provledger.Client`. The method keeps
the call's signature (a ``ParamSpec``: mypy and editors see the real arguments) and its
docstring, so the two clients cannot drift apart.

    class Client:
        get_span = call(source_calls.get_span)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from provledger._operations import Listing
from provledger._transport import Request

P = ParamSpec("P")
T = TypeVar("T")


class Sends(Protocol):
    """A blocking client: sends a request, follows a list's cursor."""

    def send(self, request: Request[T]) -> T: ...

    def iterate(self, listing: Listing[T]) -> Iterator[T]: ...


class SendsAsync(Protocol):
    """An asyncio client: sends a request, follows a list's cursor."""

    async def send(self, request: Request[T]) -> T: ...

    def iterate(self, listing: Listing[T]) -> AsyncIterator[T]: ...


def _signed(method: Callable[..., object], build: Callable[..., object], shape: str) -> None:
    """Give ``method`` the call's signature with ``self`` first and the answer it gives
    (``shape`` wraps the answer's type: ``{}`` for the answer, ``list[{}]`` for a list), so
    ``help()`` and ``inspect.signature`` show the method, not the request it builds."""
    signature = inspect.signature(build)
    built = str(signature.return_annotation)  # "Request[Receipt]", "Listing[Span]"
    answer = built[built.index("[") + 1 : -1] if built.endswith("]") else built
    first = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[first, *signature.parameters.values()],
        return_annotation=shape.format(answer),
    )


def call(build: Callable[P, Request[T]]) -> Callable[Concatenate[Sends, P], T]:
    """A blocking method that sends the call and returns its answer."""

    @functools.wraps(build)
    def method(self: Sends, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.send(build(*args, **kwargs))

    _signed(method, build, "{}")
    return method


def listing(build: Callable[P, Listing[T]]) -> Callable[Concatenate[Sends, P], Iterator[T]]:
    """A blocking method that iterates over every item of the list, page after page."""

    @functools.wraps(build)
    def method(self: Sends, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        return self.iterate(build(*args, **kwargs))

    _signed(method, build, "Iterator[{}]")
    return method


def gathered(build: Callable[P, Listing[T]]) -> Callable[Concatenate[Sends, P], list[T]]:
    """A blocking method that returns every item of the list."""

    @functools.wraps(build)
    def method(self: Sends, /, *args: P.args, **kwargs: P.kwargs) -> list[T]:
        return list(self.iterate(build(*args, **kwargs)))

    _signed(method, build, "list[{}]")
    return method


def acall(build: Callable[P, Request[T]]) -> Callable[Concatenate[SendsAsync, P], Awaitable[T]]:
    """An awaitable method that sends the call and returns its answer."""

    @functools.wraps(build)
    async def method(self: SendsAsync, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.send(build(*args, **kwargs))

    _signed(method, build, "Awaitable[{}]")
    return method


def alisting(
    build: Callable[P, Listing[T]],
) -> Callable[Concatenate[SendsAsync, P], AsyncIterator[T]]:
    """A method that returns an async iterator over every item of the list."""

    @functools.wraps(build)
    def method(self: SendsAsync, /, *args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        return self.iterate(build(*args, **kwargs))

    _signed(method, build, "AsyncIterator[{}]")
    return method


def agathered(
    build: Callable[P, Listing[T]],
) -> Callable[Concatenate[SendsAsync, P], Awaitable[list[T]]]:
    """An awaitable method that returns every item of the list."""

    @functools.wraps(build)
    async def method(self: SendsAsync, /, *args: P.args, **kwargs: P.kwargs) -> list[T]:
        return [item async for item in self.iterate(build(*args, **kwargs))]

    _signed(method, build, "Awaitable[list[{}]]")
    return method
