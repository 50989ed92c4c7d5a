"""Without torch, `import probes` still works and calling a probe says how to install it; with
torch, importing probes does not import it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO

BLOCKED = textwrap.dedent("""
    import sys
    sys.modules["torch"] = None          # what an environment without torch looks like
    import probes
    from probes import confirm, run_probe
    from classifiers.errors import ProbeError
    from classifiers.diagnosis import Diagnosis
    try:
        confirm(Diagnosis("r", "healthy"), model_fn=object, data=[], loss_fn=object)
    except ProbeError as exc:
        print("HINT:", exc)
    else:
        raise SystemExit("confirm ran without torch")
""")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_probes_import_without_torch_and_fail_with_the_install_hint():
    out = _python(BLOCKED)
    assert out.returncode == 0, out.stderr
    assert "pip install 'lossforensics[torch]'" in out.stdout


def test_importing_probes_imports_neither_torch_nor_app():
    out = _python("import sys, probes; print('torch' in sys.modules, "
                  "any(m == 'app' or m.startswith('app.') for m in sys.modules))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False False"
