"""The registry: every label file in the classifiers package, found, checked and instantiated.

A label file is a module `classifiers/<label>.py` whose stem is a name in
classifiers.labels.LABELS and which defines exactly one Classifier subclass. Discovery walks
the package's modules in sorted order (deterministic whatever the file system says), imports
only the label-named ones and validates each on load: the class's `label` equals the file stem,
`needs` is a subset of the roles, `min_points` is a positive int. Anything wrong is a loud
RegistryError naming the module, and a label claimed twice is an error, never an overwrite.

    from lossforensics.classifiers.registry import all_classifiers
    for clf in all_classifiers():      # fresh instances, in label order
        ...
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache
from types import ModuleType

from lossforensics import classifiers
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.labels import LABELS
from lossforensics.classifiers.roles import ROLES


class RegistryError(RuntimeError):
    """A label module breaks the classifier contract: a programming error, not bad input."""


def label_modules() -> list[str]:
    """Sorted names of the modules in the classifiers package whose stem is a label."""
    names = (m.name for m in pkgutil.iter_modules(classifiers.__path__) if not m.ispkg)
    return sorted(n for n in names if n in LABELS)


def classifier_class(module: ModuleType) -> type[Classifier]:
    """The one Classifier subclass a label module defines (imported helpers do not count)."""
    found = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, Classifier)
        and obj is not Classifier
        and obj.__module__ == module.__name__
    ]
    if len(found) != 1:
        names = ", ".join(sorted(c.__name__ for c in found)) or "none"
        raise RegistryError(
            f"{module.__name__} must define exactly one Classifier subclass, found: {names}"
        )
    return found[0]


def validate(cls: type[Classifier], stem: str) -> None:
    """Check a classifier class against the contract; RegistryError says what is wrong."""
    where = f"{cls.__module__}.{cls.__name__}"
    label = getattr(cls, "label", None)
    if label not in LABELS:
        raise RegistryError(
            f"{where}: label {label!r} is not one of lossforensics.classifiers.labels.LABELS"
        )
    if label != stem:
        raise RegistryError(f"{where}: label {label!r} must equal its file's stem {stem!r}")
    needs = getattr(cls, "needs", None)
    if not isinstance(needs, frozenset) or not needs or not needs <= set(ROLES):
        raise RegistryError(f"{where}: needs must be a non-empty frozenset of roles, got {needs!r}")
    min_points = getattr(cls, "min_points", None)
    if not isinstance(min_points, int) or min_points < 1:
        raise RegistryError(f"{where}: min_points must be a positive int, got {min_points!r}")
    if cls.detect is Classifier.detect:
        raise RegistryError(f"{where}: does not implement detect()")


def build_registry(modules: list[str] | None = None) -> dict[str, type[Classifier]]:
    """label -> class for the given fully qualified module names (default: every label module
    of this package), imported in sorted order."""
    registry: dict[str, type[Classifier]] = {}
    names = (
        modules if modules is not None else [f"{classifiers.__name__}.{m}" for m in label_modules()]
    )
    for name in sorted(names):
        module = importlib.import_module(name)
        cls = classifier_class(module)
        validate(cls, name.rsplit(".", 1)[-1])
        if cls.label in registry:
            raise RegistryError(
                f"label {cls.label!r} is claimed by both {registry[cls.label].__module__} "
                f"and {cls.__module__}"
            )
        registry[cls.label] = cls
    return registry


@lru_cache(maxsize=1)
def registry() -> dict[str, type[Classifier]]:
    """The package's registry, built once per process."""
    return build_registry()


def all_classifiers() -> list[Classifier]:
    """A fresh default instance of every registered classifier, in sorted label order."""
    return [cls() for _, cls in sorted(registry().items())]


def get(label: str) -> type[Classifier]:
    """The class registered for `label`; KeyError lists what exists."""
    try:
        return registry()[label]
    except KeyError:
        raise KeyError(
            f"no classifier for {label!r}; registered: {', '.join(sorted(registry()))}"
        ) from None
