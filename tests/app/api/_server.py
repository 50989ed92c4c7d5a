"""A real `lossforensics serve` on a free loopback port, as a subprocess (what users run)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """Start with `start()`, stop with `stop()` (SIGTERM) or `kill()` (SIGKILL)."""

    def __init__(
        self, data_dir: Path, *, env: dict[str, str] | None = None, args: list[str] | None = None
    ) -> None:
        self.data_dir = data_dir
        self.env = env or {}
        self.args = args or []
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log = data_dir.parent / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOSSFORENSICS_")}
        env.update(self.env)
        cmd = [
            sys.executable,
            "-m",
            "lossforensics.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--log-level",
            "warning",
            *self.args,
        ]
        self._log_fh = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=self._log_fh, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.proc.returncode}:\n{self.log.read_text()[-4000:]}"
                )
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not start:\n{self.log.read_text()[-4000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        fh = getattr(self, "_log_fh", None)
        if fh and not fh.closed:
            fh.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")
