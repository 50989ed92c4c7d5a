"""`import probes` pulls in neither torch nor app; without torch, calling a probe fails with
ProbeError carrying the install hint (one subprocess: torch is blocked after the import)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO

SCRIPT = textwrap.dedent("""
    import sys
    import probes
    from probes import confirm
    from classifiers.diagnosis import Diagnosis
    from classifiers.errors import ProbeError
    print("torch imported:", "torch" in sys.modules)
    print("app imported:", any(m == "app" or m.startswith("app.") for m in sys.modules))
    sys.modules["torch"] = None          # what an environment without torch looks like
    try:
        confirm(Diagnosis("r", "healthy"), model_fn=object, data=[], loss_fn=object)
    except ProbeError as exc:
        print("HINT:", exc)
    else:
        raise SystemExit("confirm ran without torch")
""")


def test_probes_import_lazily_and_fail_without_torch_with_the_install_hint():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "torch imported: False" in out.stdout
    assert "app imported: False" in out.stdout
    assert "pip install 'lossforensics[torch]'" in out.stdout
