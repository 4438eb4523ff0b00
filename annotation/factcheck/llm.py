"""One LLM client for any OpenAI-compatible endpoint, and an offline stand-in that needs no network.

Both answer an ``LLMRequest`` with an ``LLMResponse``; the methods (faaf.py, prompting.py, ...) build the
requests and parse the responses the same way whichever answers. The client retries 429 (honouring
Retry-After), 5xx and timeouts with jittered exponential backoff, never other 4xx; bounds concurrency per
endpoint; and can be given a cache (content-addressed by ``cache_key``) and a recorder for every call.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

OFFLINE_MODEL = "offline"


@dataclass
class LLMRequest:
    """What to ask. ``task`` and ``inputs`` say what the request is for; only the offline backend reads
    them (an endpoint gets the messages and tools)."""

    messages: list[dict[str, str]]
    task: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    tools: list[dict[str, Any]] | None = None
    tool_choice: dict[str, Any] | None = None
    temperature: float = 0.0
    max_tokens: int | None = None

    def payload(self, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": self.messages, "temperature": self.temperature}
        if self.tools:
            body["tools"] = self.tools
        if self.tool_choice:
            body["tool_choice"] = self.tool_choice
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        return body


@dataclass
class LLMResponse:
    content: str | None
    tool_arguments: str | None  # the first tool call's arguments, as the model wrote them (JSON text)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int = 0
    cached: bool = False
    model: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "tool_arguments": self.tool_arguments,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model": self.model,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, cached: bool = True) -> LLMResponse:
        return cls(
            content=data.get("content"),
            tool_arguments=data.get("tool_arguments"),
            prompt_tokens=data.get("prompt_tokens", 0),
            completion_tokens=data.get("completion_tokens", 0),
            model=data.get("model", ""),
            cached=cached,
        )


class LLMError(Exception):
    """The endpoint refused the request or kept failing; ``transient`` when retrying later may help."""

    def __init__(self, message: str, *, transient: bool = False, status: int | None = None):
        super().__init__(message)
        self.transient = transient
        self.status = status


def cache_key(model: str, request: LLMRequest) -> str:
    """sha256 of everything that decides the answer: model, parameters, messages and tools."""
    canonical = json.dumps(request.payload(model), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Cache(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, request: dict[str, Any], response: dict[str, Any], latency_ms: int) -> None: ...


#: Called after every request: (key, request payload, response or None, error or None, served from cache).
Recorder = Callable[[str, dict[str, Any], LLMResponse | None, Exception | None, bool], None]


class LLMClient(Protocol):
    model: str

    def complete(self, request: LLMRequest) -> LLMResponse: ...

    def complete_many(self, requests: Iterable[LLMRequest]) -> list[LLMResponse | LLMError]: ...


@dataclass
class Endpoint:
    """A named OpenAI-compatible endpoint and its limits."""

    name: str
    base_url: str
    model: str
    api_key: str = ""
    max_concurrency: int = 4
    timeout: float = 60.0
    supports_tools: bool = True
    max_retries: int = 5
    requests_per_minute: int = 0  # 0: no limit
    price_prompt_per_1k: float = 0.0
    price_completion_per_1k: float = 0.0


@dataclass
class _Limits:
    slots: threading.BoundedSemaphore
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_start: float = 0.0


_LIMITS: dict[tuple[str, str, int], _Limits] = {}
_LIMITS_LOCK = threading.Lock()


def _limits_for(endpoint: Endpoint) -> _Limits:
    """Concurrency and pace are per endpoint and process, shared by every client made for it."""
    key = (endpoint.base_url, endpoint.model, endpoint.max_concurrency)
    with _LIMITS_LOCK:
        if key not in _LIMITS:
            _LIMITS[key] = _Limits(slots=threading.BoundedSemaphore(max(1, endpoint.max_concurrency)))
        return _LIMITS[key]


class OpenAIClient:
    """The ``openai`` SDK against ``endpoint``, with our retries, concurrency bound, cache and recorder."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        cache: Cache | None = None,
        recorder: Recorder | None = None,
        sleep: Callable[[float], None] = time.sleep,
        backoff_base: float = 0.5,
    ):
        from openai import OpenAI  # imported here: only runs that talk to an endpoint need it

        self.endpoint = endpoint
        self.model = endpoint.model
        self.cache = cache
        self.recorder = recorder
        self._sleep = sleep
        self._backoff_base = backoff_base
        self._limits = _limits_for(endpoint)
        # The SDK's own retries are off: we retry, counting and honouring Retry-After ourselves.
        self._sdk = OpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key or "none",
            timeout=endpoint.timeout,
            max_retries=0,
        )

    def complete(self, request: LLMRequest) -> LLMResponse:
        payload = request.payload(self.model)
        key = cache_key(self.model, request)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                response = LLMResponse.from_dict(hit)
                self._record(key, payload, response, None, True)
                return response
        with self._limits.slots:
            self._pace()
            try:
                response = self._call_with_retries(payload)
            except LLMError as exc:
                self._record(key, payload, None, exc, False)
                raise
        if self.cache is not None:
            self.cache.put(key, payload, response.as_dict(), response.latency_ms)
        self._record(key, payload, response, None, False)
        return response

    def complete_many(self, requests: Iterable[LLMRequest]) -> list[LLMResponse | LLMError]:
        """All requests, at most ``max_concurrency`` at a time; each result or the error it ended with."""

        def one(request: LLMRequest) -> LLMResponse | LLMError:
            try:
                return self.complete(request)
            except LLMError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=max(1, self.endpoint.max_concurrency)) as pool:
            return list(pool.map(one, requests))

    def _record(
        self,
        key: str,
        payload: dict[str, Any],
        response: LLMResponse | None,
        error: Exception | None,
        cached: bool,
    ) -> None:
        if self.recorder is not None:
            self.recorder(key, payload, response, error, cached)

    def _call_with_retries(self, payload: dict[str, Any]) -> LLMResponse:
        import openai

        attempt = 0
        while True:
            started = time.monotonic()
            try:
                completion = self._sdk.chat.completions.create(**payload)
            except openai.RateLimitError as exc:
                error, wait = exc, _retry_after(exc.response) or self._backoff(attempt)
            except openai.APIStatusError as exc:
                if exc.status_code < 500:
                    raise LLMError(
                        f"{self.endpoint.name} refused the request ({exc.status_code}): {exc.message}",
                        status=exc.status_code,
                    ) from None
                error, wait = exc, self._backoff(attempt)
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                error, wait = exc, self._backoff(attempt)
            else:
                return _response(completion, int((time.monotonic() - started) * 1000))
            attempt += 1
            if attempt > self.endpoint.max_retries:
                status = getattr(error, "status_code", None)
                raise LLMError(
                    f"{self.endpoint.name} kept failing after {attempt} attempts: {error}",
                    transient=True,
                    status=status,
                ) from None
            self._sleep(wait)

    def _pace(self) -> None:
        """Keep to ``requests_per_minute``: requests start at least 60 / rpm seconds apart."""
        if not self.endpoint.requests_per_minute:
            return
        limits = self._limits
        with limits.lock:
            now = time.monotonic()
            start = max(now, limits.next_start)
            limits.next_start = start + 60.0 / self.endpoint.requests_per_minute
        if start > now:
            self._sleep(start - now)

    def _backoff(self, attempt: int) -> float:
        # Exponential with full jitter, capped at a minute.
        return random.uniform(0, min(60.0, self._backoff_base * 2**attempt))  # noqa: S311


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _response(completion: Any, latency_ms: int) -> LLMResponse:
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice else None
    tool_arguments = None
    if message is not None and message.tool_calls:
        tool_arguments = message.tool_calls[0].function.arguments
    usage = completion.usage
    return LLMResponse(
        content=message.content if message is not None else None,
        tool_arguments=tool_arguments,
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        latency_ms=latency_ms,
        model=completion.model or "",
    )
