"""Maps the repository's folders into the one import name, `lossforensics`.

The design keeps app/, classifiers/ and probes/ at the top of the repository; installed, they are
`lossforensics` (app/ is the package itself), `lossforensics.classifiers` and
`lossforensics.probes`, so no generic top-level module (`app`, `classifiers`) reaches a user's
environment. Everything else about the distribution is in pyproject.toml.
"""

from setuptools import find_packages, setup

PACKAGE_DIRS = {
    "lossforensics": "app",
    "lossforensics.classifiers": "classifiers",
    "lossforensics.probes": "probes",
}


def mapped_packages() -> list[str]:
    """Every package under each mapped folder, named as it is installed."""
    names = []
    for name, folder in PACKAGE_DIRS.items():
        names += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]
    return sorted(names)


setup(packages=mapped_packages(), package_dir=PACKAGE_DIRS)
