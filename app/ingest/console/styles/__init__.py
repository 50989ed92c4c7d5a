"""One module a console style, each declaring `STYLE` (see ../_style.py). `STYLES` is the order
they are tried in; the generic fallback comes after the specific ones and yields to any that
finds as many loss points; the uncounted lines are read only when nothing else finds a loss.
Adding a style: a module here, its name in `_MODULES`, a fixture and a test."""

from __future__ import annotations

import importlib

from lossforensics.ingest.console._style import Style

_MODULES = (
    "hf_trainer",
    "keras_verbose1",
    "keras_verbose2",
    "progress_bar",
    "cifar_bar",
    "mxnet",
    "meters",
    "timm",
    "detectron2",
    "caffe",
    "mmengine",
    "fairseq",
    "fairseq_json",
    "slowfast",
    "trax",
    "tf_estimator",
    "pytorch_tutorial",
    "darts",
    "nanogpt",
    "build_nanogpt",
    "megatron",
    "opennmt",
    "yolo",
    "yolov8",
    "yolov6",
    "yolox",
    "darknet",
    "pix2pix",
    "lerobot",
    "kv_box",
    "basicsr",
    "edsr",
    "monai",
    "nnunet",
    "stgcn",
    "tacotron2",
    "hifigan",
    "flair",
    "marian",
    "catboost",
    "espnet",
    "xgboost",
    "generic",
    "uncounted",
)

STYLES: tuple[Style, ...] = tuple(
    importlib.import_module(f"{__name__}.{m}").STYLE for m in _MODULES
)
