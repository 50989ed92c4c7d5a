"""Without torch (an import hook makes `import torch` fail as it does where torch is not
installed), `import probes` works and pulls in no app
module, and calling a probe fails with ProbeError carrying the install hint."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO

SCRIPT = textwrap.dedent("""
    import importlib.abc
    import sys

    class NoTorch(importlib.abc.MetaPathFinder):  # what an environment without torch looks like
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoTorch())
    from lossforensics import probes  # an eager `import torch` would raise here
    from lossforensics.probes import confirm
    from lossforensics.classifiers.diagnosis import Diagnosis
    from lossforensics.classifiers.errors import ProbeError
    service = ("lossforensics.api", "lossforensics.store", "lossforensics.cli")
    print("app imported:", any(m.startswith(service) for m in sys.modules))
    try:
        confirm(Diagnosis("r", "healthy"), model_fn=object, data=[], loss_fn=object)
    except ProbeError as exc:
        print("HINT:", exc)
    else:
        raise SystemExit("confirm ran without torch")
""")


def test_probes_import_lazily_and_fail_without_torch_with_the_install_hint():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "app imported: False" in out.stdout
    assert "pip install 'lossforensics[torch]'" in out.stdout
