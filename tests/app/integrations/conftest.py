"""Real tiny trainings on CPU: one torch thread (the box is shared), Keras on torch."""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "torch")

import torch  # noqa: E402

torch.set_num_threads(1)
