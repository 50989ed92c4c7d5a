"""Generate the labelled evaluation corpus: real CPU training runs with pathologies induced.

    .venv/bin/python benchmarks/corpus/generate.py     # -> benchmarks/corpus/corpus.tar.xz
    .venv/bin/python benchmarks/corpus/generate.py --scale 0.1 --out /tmp/c.tar.xz   # a quick slice

For each recipe (recipes.py) a fixed list of attempts (seed, format) is trained; formats go round
the ones able to show that recipe's signature. An attempt is kept only when checks.py sees the
induced labels in what was logged and no unintended label; the first `target` kept attempts of
each recipe (in attempt order) make the corpus, so the result does not depend on --jobs. W&B runs
are grouped up to three to a file, as W&B exports several runs together. CI never runs this: it
reads the committed archive.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tarfile
import tempfile
import time
from collections import Counter
from multiprocessing import get_context
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.corpus.pipeline import (  # noqa: E402
    Outcome,
    build_run,
    compatible_formats,
    setup_torch,
    write_run,
)
from benchmarks.corpus.recipes import RECIPES  # noqa: E402
from benchmarks.corpus.writers import FORMATS  # noqa: E402

OUT = Path(__file__).resolve().parent / "corpus.tar.xz"
# recipe -> (runs wanted, attempts made); attempts reflect how often each recipe's effect shows
PLAN: dict[str, tuple[int, int]] = {
    "healthy": (80, 105),
    "nan": (20, 40),
    "exploding": (20, 32),
    "plateau": (20, 32),
    "oscillating": (15, 62),
    "overfit": (20, 38),
    "distribution_mismatch": (20, 32),
    "lr_decayed_too_early": (20, 60),
    "loss_spikes": (20, 64),
    "unshuffled": (15, 52),
    "underfit": (20, 50),
    "vanishing_gradients": (20, 65),
    "over_clipping": (20, 26),
    "resume_discontinuity": (20, 34),
    "metric_mismatch": (20, 24),
}


def attempts(scale: float) -> list[tuple[str, int, str]]:
    """The fixed (recipe, seed, format) attempt list, recipes interleaved so that a run stopped
    early (--max-minutes) still covers every label."""
    import numpy as np

    out = []
    for r_idx, (recipe, (_, n)) in enumerate(PLAN.items()):
        rng = np.random.default_rng(1000 + r_idx)
        plan_formats = compatible_formats(RECIPES[recipe](np.random.default_rng(0), 0))
        for i in range(max(1, round(n * scale))):
            seed = (r_idx + 1) * 10_000 + i
            fmt = plan_formats[i % len(plan_formats)]
            # the probe plan above may be narrower/wider than this seed's plan: re-check
            formats = compatible_formats(RECIPES[recipe](np.random.default_rng(seed), seed))
            if fmt not in formats:
                fmt = formats[int(rng.integers(len(formats)))]
            out.append((i, recipe, seed, fmt))
    return [t[1:] for t in sorted(out, key=lambda t: (t[0] / PLAN[t[1]][1], t[1]))]


def _attempt(task: tuple[str, int, str]) -> tuple[tuple[str, int, str], Outcome | str, float]:
    setup_torch()
    t = time.perf_counter()
    try:
        return task, build_run(*task), time.perf_counter() - t
    except Exception as exc:  # a crashed attempt is reported and dropped, never kept
        return task, f"{type(exc).__name__}: {exc}", time.perf_counter() - t


def _entry(out: Outcome, files: list[str]) -> dict:
    c = out.plan.cfg
    return {
        "format": out.format,
        "variant": out.variant,
        "label": out.labels,
        "recipe": out.recipe,
        "seed": out.seed,
        "files": files,
        "cadence": f"{out.run.cadence} (every {out.run.log_every})"
        if out.run.cadence == "step"
        else "epoch",
        "notes": f"{out.recipe}/{out.plan.variant or 'default'}: {c.model} on {c.task}, "
        f"{c.optimizer} lr={c.lr:.3g}, {c.epochs} epochs x {out.run.steps_per_epoch} "
        "steps",
    }


def _pack(root: Path, dest: Path) -> None:
    """A reproducible tar.xz: sorted members, zero mtimes and owners."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(dest, "w:xz", preset=9) as tar:
        for p in sorted(root.rglob("*")):
            if p.is_file():
                data = p.read_bytes()
                info = tarfile.TarInfo(str(p.relative_to(root)))
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                tar.addfile(info, io.BytesIO(data))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the attempts")
    ap.add_argument("--jobs", type=int, default=1, help="processes (<= 2 on a shared machine)")
    ap.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="stop training after this long and pack what is done (then the set "
        "depends on machine speed; a full run does not)",
    )
    args = ap.parse_args(argv)
    tasks = attempts(args.scale)
    print(f"{len(tasks)} attempts, {args.jobs} process(es)", flush=True)
    results: dict[tuple[str, int, str], Outcome | str] = {}
    t0 = time.perf_counter()
    ctx = get_context("fork")
    with ctx.Pool(args.jobs) as pool:
        for k, (task, res, dt) in enumerate(pool.imap_unordered(_attempt, tasks), 1):
            results[task] = res
            verdict = res if isinstance(res, str) else (res.labels or res.reason)
            print(
                f"[{k}/{len(tasks)} {time.perf_counter() - t0:6.0f}s] {task[0]} {task[2]} "
                f"seed {task[1]} ({dt:.1f}s): {verdict}",
                flush=True,
            )
            if args.max_minutes and time.perf_counter() - t0 > 60 * args.max_minutes:
                print("time limit reached: packing what is done", flush=True)
                pool.terminate()
                break
    kept: list[Outcome] = []
    for recipe, (target, _) in PLAN.items():
        ok = [
            r
            for t in tasks
            if t[0] == recipe
            and t in results
            and not isinstance(r := results[t], str)
            and r.labels is not None
        ]
        kept += ok[: max(1, round(target * args.scale))]
    labels: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        wandb = [o for o in kept if o.format == "wandb_csv"]
        for o in kept:
            if o.format != "wandb_csv":
                labels[o.name] = _entry(o, write_run(o, root / "runs" / o.name))
        groups: dict[tuple, list[Outcome]] = {}
        for o in wandb:
            groups.setdefault(tuple(sorted(o.run.keys())), []).append(o)
        n = 0
        for members in groups.values():
            for i in range(0, len(members), 3):
                chunk = members[i : i + 3]
                name = f"wandb_export-{n:03d}"
                n += 1
                files = FORMATS["wandb_csv"].write([o.run for o in chunk], root / "runs" / name)
                labels[name] = {
                    "format": "wandb_csv",
                    "variant": "wandb",
                    "label": sorted({lab for o in chunk for lab in o.labels}),
                    "files": files,
                    "notes": f"{len(chunk)} runs in one W&B export",
                    "per_run": {o.run.name: o.labels for o in chunk},
                    "runs": {o.run.name: _entry(o, files) for o in chunk},
                }
        (root / "labels.json").write_text(json.dumps(dict(sorted(labels.items())), indent=1))
        _pack(root, args.out)
    per_label = Counter(lab for o in kept for lab in o.labels)
    per_format = Counter(o.format for o in kept)
    print(
        f"kept {len(kept)} runs in {len(labels)} entries -> {args.out} "
        f"({args.out.stat().st_size / 1e6:.1f} MB, {time.perf_counter() - t0:.0f}s)"
    )
    print("per label:", dict(sorted(per_label.items())))
    print("per format:", dict(sorted(per_format.items())))
    shortfall = {r: (sum(1 for o in kept if o.recipe == r), t) for r, (t, _) in PLAN.items()}
    print("kept/wanted per recipe:", shortfall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
