"""Importing a framework for its integration, with the install hint when it is missing."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from lossforensics.integrations.monitor import STOP_DEFAULT, Monitor

OUTPUT_NAME = "lossforensics-diagnosis.json"


def require(module: str, extra: str) -> ModuleType:
    """Import `module`, or ImportError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"lossforensics' {extra} callback needs {module.split('.')[0]}: "
            f"pip install 'lossforensics[{extra}]'"
        ) from exc


class MonitorOptions:
    """The arguments every framework callback takes (as Monitor's), and the Monitor it opens on
    first use, once the framework has said where the run writes and what it is called."""

    def __init__(
        self,
        *,
        run: str | None = None,
        stop_on: Iterable[str] = STOP_DEFAULT,
        output: str | Path | None = None,
        post: str | None = None,
        token: str | None = None,
        **monitor: Any,
    ) -> None:
        self.options = {"stop_on": stop_on, "post": post, "token": token, **monitor}
        self.run = run
        self.output = output
        self.monitor: Monitor | None = None

    def _open(self, name: str, folder: Path) -> Monitor:
        """The run's Monitor: named `run` if given, else `name`; the final diagnosis goes to
        `output` if given, else into `folder`."""
        if self.monitor is None:
            self.monitor = Monitor(
                self.run or name,
                output=self.output if self.output is not None else folder / OUTPUT_NAME,
                **self.options,
            )
        return self.monitor
