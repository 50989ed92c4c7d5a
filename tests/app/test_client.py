"""The notebook client against a real service on loopback: uploads (file, folder, frame),
listing, series, plots, typed errors; the HTML rendering; the client import stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.errors import AuthError, NotFoundError, UnknownFormatError
from lossforensics.classifiers.frame import COLUMNS, make_frame
from lossforensics.client import Client
from lossforensics.client_frames import frame_to_jsonl
from lossforensics.display import Diagnoses, Diagnosis

from tests.app._live_service import live_service

REPO = Path(__file__).resolve().parents[2]


def _curve(n: int, *, explode: bool) -> tuple[np.ndarray, np.ndarray]:
    steps = np.arange(n)
    loss = 0.3 + 2.0 * np.exp(-steps / (n / 3))
    if explode:
        start = int(n * 0.6)
        loss = np.where(steps >= start, loss * np.exp(np.clip((steps - start) / 8, 0, 40)), loss)
        loss[int(n * 0.85) :] = np.nan
    return steps, loss


def _write_jsonl(path: Path, *, explode: bool, n: int = 300) -> Path:
    steps, loss = _curve(n, explode=explode)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            json.dumps({"step": int(s), "train/loss": float(v)}) + "\n"
            for s, v in zip(steps, loss, strict=True)
        )
    )
    return path


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp("svc") / "data") as url:
        yield url


@pytest.fixture()
def client(service: str) -> Iterator[Client]:
    with Client(service) as c:
        yield c


def test_upload_file_then_read_everything_back(client: Client, tmp_path: Path) -> None:
    d = client.upload(_write_jsonl(tmp_path / "exp7" / "log.jsonl", explode=True))
    assert isinstance(d, Diagnosis) and d.id
    assert d.verdict == "exploding" and "nan" in d.labels  # the blow-up leads its NaN
    assert d.findings[0].causes and d.findings[0].causes[0].checks

    again = client.diagnosis(d.id)
    assert again.to_dict() == d.to_dict()

    frame = client.series(d.id)
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 300 and frame["value"].isna().sum() == 300 - int(300 * 0.85)
    assert str(frame["role"].dtype) == "category" and set(frame["role"]) == {"train_loss"}
    only = client.series(d.id, metric="train/loss")
    assert len(only) == 300

    png = client.plot(d.id)
    assert png.startswith(b"\x89PNG")
    html = d._repr_html_()  # fetches the plot through the client
    assert "<table" in html and "exploding" in html and "data:image/png;base64," in html


def test_upload_folder_is_zipped_and_names_each_run(client: Client, tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    _write_jsonl(folder / "a" / "log.jsonl", explode=False)
    _write_jsonl(folder / "b" / "log.jsonl", explode=True)
    got = client.upload(folder)
    assert isinstance(got, Diagnoses) and len(got) == 2
    assert sorted(d.verdict for d in got) == ["exploding", "healthy"]
    assert all(d.id for d in got)
    html = got._repr_html_()
    assert html.count("<h4>") == 2


def test_upload_dataframe_round_trips_nan_and_roles(client: Client) -> None:
    steps, loss = _curve(200, explode=True)
    frame = make_frame(
        "from-notebook", ["my_loss"] * 200, steps, loss, roles={"my_loss": "train_loss"}
    )
    d = client.upload(frame, name="nb")
    assert d.verdict == "exploding" and "nan" in d.labels
    back = client.series(d.id)
    assert set(back["role"].astype(str)) == {"train_loss"}  # the override survived
    assert np.array_equal(np.isnan(back["value"].to_numpy()), np.isnan(loss))


def test_runs_listing_filters_by_label(client: Client, tmp_path: Path) -> None:
    client.upload(_write_jsonl(tmp_path / "x" / "log.jsonl", explode=True))
    client.upload(_write_jsonl(tmp_path / "y" / "log.jsonl", explode=False))
    all_runs = client.runs()
    assert isinstance(all_runs, pd.DataFrame)
    assert {"id", "name", "verdict", "labels", "created_at"} <= set(all_runs.columns)
    assert len(all_runs) >= 2
    nan_runs = client.runs(label="nan")
    assert len(nan_runs) >= 1 and all("nan" in labels for labels in nan_runs["labels"])
    assert len(client.runs(limit=1)) == 1
    assert str(all_runs["created_at"].dtype).startswith("datetime64")


def test_one_shot_diagnose_and_delete(client: Client, tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "z.jsonl", explode=True)
    once = client.diagnose(path)
    assert (
        once.verdict == "exploding"
        and "nan" in once.labels
        and once.id is None
        and once.plot_png() is None
    )
    stored = client.upload(path)
    client.delete(stored.id)
    with pytest.raises(NotFoundError):
        client.diagnosis(stored.id)


def test_errors_come_back_typed_with_location(client: Client, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not a training log\n")
    with pytest.raises(UnknownFormatError) as err:
        client.upload(junk)
    assert err.value.code == "unknown_format" and err.value.file
    with pytest.raises(NotFoundError):
        client.plot("does-not-exist")


def test_bearer_token(tmp_path: Path) -> None:
    with live_service(tmp_path / "data", tokens="s3cret:team") as url:
        with Client(url, token="s3cret") as ok:
            assert ok.runs().empty
        with Client(url, token="wrong") as bad, pytest.raises(AuthError):
            bad.runs()


def test_unreachable_service_is_a_library_error() -> None:
    from lossforensics.classifiers.errors import LossForensicsError

    with (
        Client("http://127.0.0.1:9", timeout=2) as c,
        pytest.raises(LossForensicsError, match="cannot reach"),
    ):
        c.runs()


def test_injected_transport_maps_problem_json() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            422,
            json={
                "type": "urn:x",
                "title": "t",
                "status": 422,
                "detail": "d",
                "code": "corrupt_input",
                "message": "bad record",
                "file": "a.tfevents",
                "line": None,
                "byte": 120,
            },
            headers={"content-type": "application/problem+json"},
        )

    from lossforensics.classifiers.errors import CorruptInputError

    with (
        Client("http://test", transport=httpx.MockTransport(handler)) as c,
        pytest.raises(CorruptInputError) as err,
    ):
        c.diagnosis("abc")
    assert (err.value.file, err.value.byte) == ("a.tfevents", 120)
    assert str(err.value) == "a.tfevents, byte 120: bad record"


def test_frame_to_jsonl_keeps_non_finite_tokens() -> None:
    frame = make_frame("r", ["loss"] * 3, [0, 1, 2], [1.5, np.nan, -np.inf])
    lines = frame_to_jsonl(frame).decode().splitlines()
    assert '"value":NaN' in lines[1] and '"value":-Infinity' in lines[2]
    assert json.loads(lines[0])["role"] == "train_loss"


def test_import_app_client_does_not_import_fastapi() -> None:
    code = (
        "import sys, lossforensics.client, lossforensics.display; "
        "bad = [m for m in ('fastapi', 'starlette', 'uvicorn', 'matplotlib', 'pandas', "
        "'scipy') "
        "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _wide(n: int = 240) -> pd.DataFrame:
    """The shape `pd.read_csv` gives a per-step log: a step column, one column per metric, the
    val loss logged every 20 steps (empty cells between)."""
    steps = np.arange(n)
    val = np.where(steps % 20 == 0, 0.5 + 1.5 * np.exp(-steps / 60) + steps / 400, np.nan)
    return pd.DataFrame(
        {"step": steps, "loss": 0.2 + 2.0 * np.exp(-steps / 50), "val_loss": val, "lr": 1e-3}
    )


def test_upload_wide_dataframe_from_read_csv(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    _wide().to_csv(path, index=False)
    d = client.upload(pd.read_csv(path), name="wide-run")
    back = client.series(d.id)
    roles = back.groupby("metric", observed=True)["role"].first().astype(str).to_dict()
    assert roles == {"loss": "train_loss", "val_loss": "val_loss", "lr": "lr"}
    counts = back.groupby("metric", observed=True).size().to_dict()
    assert counts == {"loss": 240, "val_loss": 12, "lr": 240}  # empty cells: not logged
    assert back["value"].notna().all()


def test_diagnose_wide_frame_with_a_step_index_and_dict_of_lists(client: Client) -> None:
    indexed = client.diagnose(_wide().set_index("step"), name="indexed")
    assert {m["metric"] for m in indexed.to_dict()["metrics"]} == {"loss", "val_loss", "lr"}
    steps, loss = _curve(200, explode=True)
    as_dict = {"step": steps.tolist(), "train/loss": loss.tolist()}
    assert "nan" in client.diagnose(as_dict, name="from-dict").labels  # logged NaN kept


def test_to_frame_shapes_and_missing_cells() -> None:
    from lossforensics.classifiers.errors import InputError
    from lossforensics.client_frames import to_frame

    wide = _wide(60)
    wide.loc[50:, "loss"] = np.nan  # logged every row, then NaN: a diverged run
    frame = to_frame(wide.assign(note="x"), run="r")  # a text column is no metric
    assert set(frame["metric"]) == {"loss", "val_loss", "lr"}
    loss = frame[frame["metric"] == "loss"]
    assert len(loss) == 60 and loss["value"].isna().sum() == 10
    assert frame[frame["metric"] == "val_loss"]["value"].notna().all()
    rows = to_frame({"step": [0, 1, 2], "loss": [1.0, None, 0.8]}, run="r")
    assert rows["step"].tolist() == [0, 2] and set(rows["run"]) == {"r"}
    long = to_frame(rows[["metric", "step", "value"]], run="again")
    assert long["role"].astype(str).tolist() == ["train_loss", "train_loss"]
    pd.testing.assert_frame_equal(to_frame(rows, run="x"), rows)  # a normalised frame as is
    with pytest.raises(InputError, match="differ in length"):
        to_frame({"step": [0, 1], "loss": [1.0]}, run="r")
    with pytest.raises(InputError, match="no metric"):
        to_frame(pd.DataFrame({"step": [0, 1]}), run="r")


CONSOLE = REPO / "tests" / "app" / "ingest" / "console_fixtures"


def test_pasted_console_text_is_diagnosed_and_stored_under_its_name(client: Client) -> None:
    text = (CONSOLE / "keras_verbose2.log").read_text()
    once = client.diagnose_text(text)
    assert once.id is None
    assert once.source["detail"].startswith("console log, keras verbose 2;")
    stored = client.diagnose_text(text.replace("0.77", "0.76"), name="pasted-keras", store=True)
    assert stored.id and stored.run == "pasted-keras"
    assert client.diagnosis(stored.id).source["detail"].startswith("console log, keras verbose 2")
    with pytest.raises(UnknownFormatError, match="no training metrics recognised"):
        client.diagnose_text("We trained for 3 epochs.\nThe loss went down in the end.\n" * 3)
