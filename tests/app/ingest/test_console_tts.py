"""Two text-to-speech trainers' prints, written as their `train.py` writes them: NVIDIA's
tacotron2 (waveglow, flowtron, mellotron copy it) and jik876's hifi-gan (and the vocoders built
on it)."""

from __future__ import annotations

import io

from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest.console import read_stream


def _read(text: str):
    return read_stream(io.BytesIO(text.encode()), name="tts")


def _roles(result) -> dict[str, str]:
    f = result.frame
    return dict(zip(f["metric"], f["role"].astype(str), strict=False))


def test_tacotron2_iterations_with_their_gradient_norm_and_validations():
    text = "FP16 Run: False\nDynamic Loss Scaling: True\nEpoch: 0\n"
    for it in range(0, 1200, 100):
        text += f"Train loss {it} {1.2 - it / 2000:.6f} Grad Norm {0.9 + it / 1e4:.6f} 1.03s/it\n"
        if it % 500 == 0:
            text += f"Validation loss {it}: {1.1 - it / 2500:9f}  \n"
            text += f"Saving model and optimizer state at iteration {it} to out/checkpoint_{it}\n"
    result = _read(text)
    assert "tacotron2" in result.detail
    assert _roles(result) == {
        "Train loss": "train_loss",
        "Grad Norm": "grad_norm",
        "Validation loss": "val_loss",
    }
    f = result.frame
    assert f[f["metric"] == "Train loss"]["step"].tolist() == list(range(0, 1200, 100))
    assert f[f["metric"] == "Validation loss"]["step"].tolist() == [0, 500, 1000]


def test_hifigan_reads_the_mel_error_as_the_loss_and_the_adversarial_total_apart():
    text = "".join(
        f"Steps : {s}, Gen Loss Total : {25.6 + (s % 3) / 10:4.3f}, "
        f"Mel-Spec. Error : {0.41 - (s - 210005) / 1e4:4.3f}, s/b : 1.131\n"
        for s in range(210005, 210080, 5)
    )
    result = _read(text)
    assert "hifi-gan" in result.detail
    assert _roles(result) == {"Gen Loss Total": "other", "Mel-Spec": "train_loss"}
    assert RunSeries(result.frame).primary("train_loss") == "Mel-Spec"
    assert result.frame["step"].min() == 210005
