"""End to end: train a deliberately broken model, diagnose its logs, confirm the cause.

    python examples/broken_model.py [--out DIR] [--device cpu|cuda]

1. Trains a small regression MLP with plain SGD at a learning rate far too high for its
   unnormalised features, logging one JSON object per step (step, loss, grad_norm, lr).
2. Reads the log back with ingest.load_run and diagnoses it with classifiers.diagnose.
3. Runs probes.confirm on the same model factory, data and optimizer: the probes re-run the
   first checks (LR/10, clipping, ...) and confirm or refute each ranked cause.
Needs the torch extra; the probes run on the GPU where there is one (`--device` picks), and the
whole example runs on the CPU in well under 30 s.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from lossforensics.classifiers.diagnose import diagnose  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402
from lossforensics.probes import confirm  # noqa: E402

LR = 0.5  # the bug: about 30x the largest stable LR for these features
FEATURES = 8


def make_data(n: int = 256, batch: int = 32) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """A noisy linear target on features with std 3 (never normalised)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, FEATURES, generator=g) * 3.0
    y = x @ torch.randn(FEATURES, 1, generator=g) + 0.1 * torch.randn(n, 1, generator=g)
    return [(x[i : i + batch], y[i : i + batch]) for i in range(0, n, batch)]


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(FEATURES, 16), nn.Tanh(), nn.Linear(16, 1))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=LR)


def train(data, steps: int, log: Path) -> None:
    """The user's training loop, logging JSONL the way many scripts do."""
    torch.manual_seed(0)
    model = make_model()
    opt = make_optimizer(model.parameters())
    with log.open("w", encoding="utf-8") as fh:
        for step in range(steps):
            x, y = data[step % len(data)]
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), math.inf))
            opt.step()
            fh.write(
                json.dumps(
                    {
                        "step": step,
                        "loss": loss.item(),
                        "grad_norm": norm,
                        "lr": opt.param_groups[0]["lr"],
                    }
                )
                + "\n"
            )
            if not math.isfinite(loss.item()):
                break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="folder for the logs")
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument(
        "--device",
        default="cuda" if torch.cuda.is_available() else "cpu",
        help="where the probes run (default: cuda when there is one)",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    out = args.out or Path(tempfile.mkdtemp(prefix="broken-model-"))
    out.mkdir(parents=True, exist_ok=True)
    data = make_data()

    log = out / "train.jsonl"
    print(f"1. training with SGD at lr={LR} for up to {args.steps} steps -> {log}")
    train(data, args.steps, log)

    print("2. diagnosing the log")
    loaded = load_run(log, run="broken-model")
    diagnosis = diagnose(loaded.frame, source=loaded.source, warnings=loaded.warnings)
    print(f"   verdict: {diagnosis.verdict}")
    for f in diagnosis.findings:
        print(f"   {f.label} ({f.confidence:.2f}): {f.summary}")
        for c in f.causes:
            print(f"      {c.rank}. {c.cause}" + (f"  [probe: {c.probe}]" if c.probe else ""))
    if not diagnosis.findings:
        print("   nothing found: nothing to confirm")
        return 1

    print(f"3. confirming the causes with the probes on {args.device}")
    result = confirm(
        diagnosis,
        model_fn=make_model,
        data=data,
        loss_fn=F.mse_loss,
        optimizer_fn=make_optimizer,
        steps=60,
        device=args.device,
        log_dir=out / "probes",
    )
    print(result)
    lr_causes = [c for c in result.causes if c.probe == "lr_drop"]
    verdict = lr_causes[0].verdict if lr_causes else "not probed"
    print(f"LR cause: {verdict}")
    (out / "confirmation.json").write_text(json.dumps(result.to_dict(), indent=2))
    return 0 if verdict == "confirmed" else 1


if __name__ == "__main__":
    raise SystemExit(main())
