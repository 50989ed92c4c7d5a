"""A real uvicorn serving the app factory on a free loopback port, in a background thread of
the test process: what the client and the example notebook talk to."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_service(data_dir: Path, *, tokens: str = "") -> Iterator[str]:
    """Yield the base URL of a running service; shut it down on exit."""
    import uvicorn
    from lossforensics.api.app import create_app
    from lossforensics.settings import Settings

    settings = Settings(data_dir=data_dir, tokens=tokens)
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="lossforensics-test-service", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test service did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
