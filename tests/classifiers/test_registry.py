import sys
import textwrap

import pytest
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.labels import LABELS
from lossforensics.classifiers.registry import (
    RegistryError,
    all_classifiers,
    build_registry,
    get,
    label_modules,
    registry,
)


def test_discovers_every_label_file_sorted_and_validated():
    names = label_modules()
    assert names == sorted(names) and set(names) <= LABELS
    assert {
        "nan",
        "exploding",
        "plateau",
        "oscillating",
        "loss_spikes",
        "underfit",
        "unshuffled",
    } <= set(names)
    reg = registry()
    assert list(reg) == names
    for label, cls in reg.items():
        assert issubclass(cls, Classifier) and cls.label == label
    assert [c.label for c in all_classifiers()] == names
    assert build_registry() == reg  # deterministic: the same on every build


def test_all_classifiers_are_fresh_instances():
    a, b = all_classifiers(), all_classifiers()
    assert all(x is not y for x, y in zip(a, b, strict=True))


def test_get_names_what_exists():
    assert get("nan").label == "nan"
    with pytest.raises(KeyError, match="registered: "):
        get("no_such_label")


@pytest.fixture
def plugin_pkgs(tmp_path, monkeypatch):
    """Two throwaway packages of label modules, importable for this test only."""

    def write(pkg, name, body):
        d = tmp_path / pkg
        d.mkdir(exist_ok=True)
        (d / "__init__.py").touch()
        (d / f"{name}.py").write_text(textwrap.dedent(body))

    monkeypatch.syspath_prepend(str(tmp_path))
    yield write
    for mod in [m for m in sys.modules if m.startswith(("plug_a", "plug_b"))]:
        del sys.modules[mod]


GOOD = """
from lossforensics.classifiers.base import Classifier
class Thing(Classifier):
    label = "{label}"
    needs = frozenset({{"train_loss"}})
    def detect(self, run):
        return None
"""


def test_duplicate_label_is_a_loud_error_not_an_overwrite(plugin_pkgs):
    plugin_pkgs("plug_a", "nan", GOOD.format(label="nan"))
    plugin_pkgs("plug_b", "nan", GOOD.format(label="nan"))
    with pytest.raises(RegistryError, match="claimed by both plug_a.nan and plug_b.nan"):
        build_registry(["plug_a.nan", "plug_b.nan"])


@pytest.mark.parametrize(
    "body, message",
    [
        (GOOD.format(label="plateau"), "must equal its file's stem"),
        (GOOD.format(label="not_a_label"), "not one of lossforensics.classifiers.labels.LABELS"),
        (GOOD.format(label="nan").replace('"train_loss"', '"loss"'), "needs must be"),
        (GOOD.format(label="nan") + "    min_points = 0\n", "min_points"),
        (
            GOOD.format(label="nan").replace(
                "    def detect(self, run):\n        return None\n", ""
            ),
            "does not implement detect",
        ),
        ("x = 1\n", "exactly one Classifier subclass, found: none"),
        (
            GOOD.format(label="nan")
            + GOOD.format(label="nan").replace("Thing", "Other").split("\n", 2)[2],
            "found: Other, Thing",
        ),
    ],
)
def test_a_broken_label_module_fails_on_load(plugin_pkgs, body, message):
    plugin_pkgs("plug_a", "nan", body)
    with pytest.raises(RegistryError, match=message):
        build_registry(["plug_a.nan"])


def test_imported_helper_classes_do_not_count(plugin_pkgs):
    plugin_pkgs(
        "plug_a",
        "nan",
        "from lossforensics.classifiers.plateau import Plateau\n" + GOOD.format(label="nan"),
    )
    assert build_registry(["plug_a.nan"])["nan"].__name__ == "Thing"
