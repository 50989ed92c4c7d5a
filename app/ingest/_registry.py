"""Format name -> reader module, imported on first use (a reader that is not installed, or not
written yet, is simply absent from detection instead of breaking every import)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType

from lossforensics.classifiers.errors import UnknownFormatError

# Detection order: the most specific content test first (`tensorboard_export` claims a file by
# TensorBoard's own `Wall time,Step,Value` header; `series_file` claims a file only by a
# loss-naming file name over bare numbers); `csv` (any per-step table), then a
# results table printed among other text (`printed_table`: fastai's, a markdown table), then
# `console` (printed text, taken only where a loss series is found in it) last. A notebook
# (`notebook`: its printed output, decoded from its JSON) is tried early, before the JSON
# readers that would take its document for records; in a folder, logs of any other format
# beside it are read instead (detect.plan_directory).
MODULES: dict[str, str] = {
    "tensorboard": "lossforensics.ingest.tensorboard",
    "tensorboard_export": "lossforensics.ingest.tensorboard_export",
    "notebook": "lossforensics.ingest.notebook",
    "mlflow": "lossforensics.ingest.mlflow",
    "dvclive": "lossforensics.ingest.dvclive",
    "hf_trainer": "lossforensics.ingest.hf_trainer",
    "dllogger": "lossforensics.ingest.dllogger",
    "deepxde": "lossforensics.ingest.deepxde",
    "history_json": "lossforensics.ingest.history_json",
    "jsonl": "lossforensics.ingest.jsonl",
    "series_file": "lossforensics.ingest.series_file",
    "wandb_csv": "lossforensics.ingest.wandb_csv",
    "lightning_csv": "lossforensics.ingest.lightning_csv",
    "keras_csv": "lossforensics.ingest.keras_csv",
    "csv": "lossforensics.ingest._plain_csv",
    "printed_table": "lossforensics.ingest.printed_table",
    "console": "lossforensics.ingest.console",
}


class Readers(Mapping[str, ModuleType]):
    """A read-only mapping of format names to reader modules (FORMAT, sniff, read)."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, ModuleType | None] = {}

    def _load(self, fmt: str) -> ModuleType | None:
        if fmt not in self._loaded:
            name = self._modules[fmt]
            try:
                self._loaded[fmt] = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:  # the reader exists but something it needs is missing
                    raise
                self._loaded[fmt] = None
        return self._loaded[fmt]

    def __getitem__(self, fmt: str) -> ModuleType:
        module = self._load(fmt) if fmt in self._modules else None
        if module is None:
            raise KeyError(fmt)
        return module

    def reader(self, fmt: str) -> ModuleType:
        """The reader for `fmt`, or UnknownFormatError listing the known formats."""
        try:
            return self[fmt]
        except KeyError:
            raise UnknownFormatError(
                f"unknown format {fmt!r}; known formats: {', '.join(self)}"
            ) from None

    def __contains__(self, fmt: object) -> bool:
        return isinstance(fmt, str) and fmt in self._modules and self._load(fmt) is not None

    def __iter__(self) -> Iterator[str]:
        return (fmt for fmt in self._modules if self._load(fmt) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


READERS = Readers(MODULES)
