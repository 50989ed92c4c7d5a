"""Two text-to-speech trainers' prints, written as their `train.py` writes them: NVIDIA's
tacotron2 (waveglow, flowtron, mellotron copy it) and jik876's hifi-gan (and the vocoders built
on it)."""

from __future__ import annotations

from lossforensics.classifiers.run import RunSeries

from tests.app.ingest._console_text import read_text, roles_of, series_of


def test_tacotron2_iterations_with_their_gradient_norm_and_validations():
    text = "FP16 Run: False\nDynamic Loss Scaling: True\nEpoch: 0\n"
    for it in range(0, 1200, 100):
        text += f"Train loss {it} {1.2 - it / 2000:.6f} Grad Norm {0.9 + it / 1e4:.6f} 1.03s/it\n"
        if it % 500 == 0:
            text += f"Validation loss {it}: {1.1 - it / 2500:9f}  \n"
            text += f"Saving model and optimizer state at iteration {it} to out/checkpoint_{it}\n"
    result = read_text(text)
    assert "tacotron2" in result.detail
    assert roles_of(result) == {
        "Train loss": "train_loss",
        "Grad Norm": "grad_norm",
        "Validation loss": "val_loss",
    }
    assert series_of(result, "Train loss")[0] == list(range(0, 1200, 100))
    assert series_of(result, "Validation loss")[0] == [0, 500, 1000]


def test_hifigan_reads_the_mel_error_as_the_loss_and_the_adversarial_total_apart():
    text = "".join(
        f"Steps : {s}, Gen Loss Total : {25.6 + (s % 3) / 10:4.3f}, "
        f"Mel-Spec. Error : {0.41 - (s - 210005) / 1e4:4.3f}, s/b : 1.131\n"
        for s in range(210005, 210080, 5)
    )
    result = read_text(text)
    assert "hifi-gan" in result.detail
    assert roles_of(result) == {"Gen Loss Total": "other", "Mel-Spec": "train_loss"}
    assert RunSeries(result.frame).primary("train_loss") == "Mel-Spec"
    assert result.frame["step"].min() == 210005
