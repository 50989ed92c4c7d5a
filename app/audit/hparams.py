"""Hyper-parameters of a run, from its name and from the config files beside its logs.

Sweeps encode their knobs in folder names (`lr-3e-2`, `lr=0.03`, `bs64`, `wd_0.1`) and in
configs next to the logs (Lightning `hparams.yaml`, `config.json|yaml`, MLflow `params/`, the HF
`training_args.json` beside `trainer_state.json`, W&B `config.yaml` with its `{value: ...}`
wrapping). Only numeric values are kept: the sweep analysis looks for thresholds. Aliases map to
one name (`learning_rate`, `lr`, `opt_learning_rate` -> `lr`) so names and configs agree.

Reading is best effort: an unreadable or malformed config is simply not used (the audit is about
the logs; a broken config must not fail a run).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ALIASES: dict[str, str] = {
    "lr": "lr",
    "learning_rate": "lr",
    "learningrate": "lr",
    "opt_learning_rate": "lr",
    "lr0": "lr",
    "base_lr": "lr",
    "max_lr": "lr",
    "bs": "batch_size",
    "batch_size": "batch_size",
    "batchsize": "batch_size",
    "batch": "batch_size",
    "per_device_train_batch_size": "batch_size",
    "train_batch_size": "batch_size",
    "wd": "weight_decay",
    "weight_decay": "weight_decay",
    "weightdecay": "weight_decay",
    "opt_weight_decay": "weight_decay",
    "do": "dropout",
    "dropout": "dropout",
    "drop": "dropout",
    "warmup": "warmup_steps",
    "warmup_steps": "warmup_steps",
    "ep": "epochs",
    "epochs": "epochs",
    "num_epochs": "epochs",
    "num_train_epochs": "epochs",
    "mom": "momentum",
    "momentum": "momentum",
    "opt_momentum": "momentum",
    "clip": "grad_clip",
    "grad_clip": "grad_clip",
    "max_grad_norm": "grad_clip",
    "clipnorm": "grad_clip",
    "opt_clipnorm": "grad_clip",
}
# Keys that identify a run rather than configure it: never analysed.
IDENTITY_KEYS = frozenset(
    {
        "seed",
        "version",
        "run",
        "exp",
        "experiment",
        "trial",
        "id",
        "v",
        "step",
        "steps",
        "checkpoint",
        "ckpt",
        "fold",
        "rank",
        "job",
        "gpu",
        "local_rank",
        "world_size",
        "node",
        "worker",
        "iter",
        "iteration",
    }
)
CONFIG_NAMES = (
    "hparams.yaml",
    "hparams.yml",
    "config.json",
    "config.yaml",
    "config.yml",
    "training_args.json",
    "args.json",
    "opt.yaml",
    "hyp.yaml",
)
_MAX_CONFIG_BYTES = 1 << 20
_MAX_MLFLOW_PARAMS = 500

_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_NAME_PAIR = re.compile(
    rf"(?<![A-Za-z0-9])(?P<key>[A-Za-z]+(?:_[A-Za-z]+)*)(?P<sep>[-_=:]?)(?P<val>{_NUM})"
    r"(?![A-Za-z0-9.])"
)


def canonical(key: str) -> str:
    """'Learning-Rate' -> 'lr'; unknown keys are lower-cased with '-' as '_'."""
    k = key.strip().lower().replace("-", "_").replace(" ", "_")
    return ALIASES.get(k, ALIASES.get(k.rsplit(".", 1)[-1], k))


def from_name(name: str) -> dict[str, float]:
    """Numeric key/value pairs spelled in a run's name or path: 'sweep/lr-3e-2_bs64/seed1' ->
    {'lr': 0.03, 'batch_size': 64.0}. Identity keys (seed, version, ...) are left out.

    Names are full of words glued to numbers that are not settings ('resnet50', 't5', 'gpt2',
    'Exp_13'), so a pair counts only when the key is a known alias ('lr', 'bs', 'wd', ...), or
    is spelled `key=value` / `key:value`, or is `key-value` / `key_value` with a fractional or
    exponent value ('temp_0.7', 'beta-1e-3')."""
    out: dict[str, float] = {}
    for part in re.split(r"[/\\,+#\s]+", name):
        for m in _NAME_PAIR.finditer(part):
            raw_key, sep, raw_val = m.group("key"), m.group("sep"), m.group("val")
            key = canonical(raw_key)
            known = raw_key.lower().replace("-", "_") in ALIASES
            explicit = sep in ("=", ":")
            fractional = sep in ("-", "_") and any(ch in raw_val for ch in ".eE")
            if key in IDENTITY_KEYS or not (known or explicit or fractional):
                continue
            value = float(m.group("val"))
            if math.isfinite(value):
                out[key] = value  # deeper path parts override outer ones
    return out


def numeric_items(config: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """Flatten a nested config to `{dotted.key: float}`, keeping numbers and numeric strings.
    W&B's `{"lr": {"value": 0.1, "desc": ...}}` wrapping is unwrapped."""
    out: dict[str, float] = {}
    for raw_key, raw in config.items():
        key = f"{prefix}{raw_key}"
        if isinstance(raw, Mapping):
            if "value" in raw and set(raw) <= {"value", "desc"}:
                raw = raw["value"]
            else:
                out.update(numeric_items(raw, f"{key}."))
                continue
        value = _as_number(raw)
        if value is not None:
            out[key] = value
    return out


def _as_number(raw: Any) -> float | None:
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        value = float(raw)
    elif isinstance(raw, str):
        try:
            value = float(raw.strip())
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def from_configs(run_dir: str | os.PathLike[str]) -> dict[str, float]:
    """Numeric hyper-parameters from the config files in `run_dir` (and an MLflow `params/`)."""
    d = os.fspath(run_dir)
    out: dict[str, float] = {}
    for name in CONFIG_NAMES:
        cfg = _load_config(os.path.join(d, name))
        if cfg:
            out.update(_canonical_keys(numeric_items(cfg)))
    out.update(_canonical_keys(_mlflow_params(Path(d, "params"))))
    wandb_cfg = _load_config(os.path.join(d, "files", "config.yaml"))
    if wandb_cfg:
        out.update(_canonical_keys(numeric_items(wandb_cfg)))
    return out


def _canonical_keys(items: Mapping[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in items.items():
        ckey = canonical(key)
        if ckey.rsplit(".", 1)[-1] not in IDENTITY_KEYS:
            out[ckey] = value
    return out


def _load_config(path: str) -> dict[str, Any] | None:
    """The config at `path` when it is a file of at most _MAX_CONFIG_BYTES. Most runs have
    none of the names looked for: one stat of a plain path each (through pathlib, and a second
    stat for a file's size, ~0.1 ms a run)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_CONFIG_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if path.endswith(".json"):
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception:  # OSError, JSON and YAML errors alike: a broken config is not used
        return None
    return data if isinstance(data, dict) else None


def _mlflow_params(params: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    try:
        with os.scandir(params) as it:
            entries = sorted((e for e in it if e.is_file()), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries[:_MAX_MLFLOW_PARAMS]:
        try:
            with open(e.path, encoding="utf-8", errors="replace") as fh:
                value = _as_number(fh.read(256))
        except OSError:
            continue
        if value is not None:
            out[e.name] = value
    return out


def hparams_for(
    name: str, run_dir: str | os.PathLike[str] | None, extra_names: Iterable[str] = ()
) -> dict[str, float]:
    """Config values first, then values spelled in names (the names win: a sweep folder's name
    is what the person running the sweep chose to vary)."""
    out = from_configs(run_dir) if run_dir is not None else {}
    out.update(from_name(name))
    for extra in extra_names:
        out.update(from_name(extra))
    return out
