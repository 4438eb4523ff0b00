"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks (no network)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(
    *,
    content: str | None = None,
    arguments: str | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    model: str = "scripted-model",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if arguments is not None:
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": "fact_checker", "arguments": arguments}}
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if arguments is not None else "stop",
                "message": message,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class ScriptedServer:
    """Answers POST /v1/chat/completions from ``script`` (a list consumed in order, then ``default``), or
    from ``handler(request_json) -> Reply`` when given. Records every request and the peak concurrency."""

    def __init__(
        self,
        script: list[Reply] | None = None,
        *,
        default: Reply | None = None,
        handler: Callable[[dict[str, Any]], Reply] | None = None,
    ):
        self.script = list(script or [])
        self.default = default or Reply(body=completion(content="True"))
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(payload)
                    server.authorizations.append(self.headers.get("authorization", ""))
                    server.in_flight += 1
                    server.peak = max(server.peak, server.in_flight)
                    reply = (
                        server.handler(payload)
                        if server.handler
                        else (server.script.pop(0) if server.script else server.default)
                    )
                try:
                    if reply.delay:
                        time.sleep(reply.delay)
                    body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
                    data = body.encode()
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
