"""An extension built from its source tree against another torch (issues 27/28, kind 9).

A compiled extension of a project built only from source (apex, detectron2: no release wheel under its name) that
needs a torch symbol the installed torch lacks is rebuilt from source with the interpreter that failed, whether or
not the text shows torch's version (the build reads the torch installed); before it, what the build compiles against
(torch, its CUDA, the toolkit cpp_extension finds). Minimal pastes of the class, written for it; argv asserted."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted


def _finding(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    return next(f for f in report.findings if f.code == "extension-symbol-missing")


@pytest.mark.parametrize(
    ("text", "python", "owner"),
    [
        (
            "ImportError: /opt/conda/lib/python3.10/site-packages/amp_C.cpython-310-x86_64-linux-gnu.so: undefined "
            "symbol: _ZN3c1015SmallVectorBaseIjE8grow_podEPvmm\n",
            "/opt/conda/bin/python",
            "apex",
        ),
        (
            "ImportError: /home/me/venv/lib/python3.9/site-packages/detectron2/_C.cpython-39-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEENS6_"
            "INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEE\n",
            "/home/me/venv/bin/python",
            "detectron2",
        ),
    ],
)
def test_a_source_built_extension_is_rebuilt_with_the_failing_interpreter(text, python, owner):
    f = _finding(text)
    assert f.remediation is not None
    argvs = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    # what the build compiles against, read first with the same interpreter
    assert argvs[0][:2] == (python, "-c") and "torch.version.cuda" in argvs[0][2]
    install = argvs[-1]
    assert install[:3] == (python, "-m", "pip") and "--no-build-isolation" in install
    assert install[-1].startswith(f"{owner} @ git+https://github.com/")


def test_an_index_companion_without_torch_shown_is_asked_not_rebuilt():
    # torchvision has release wheels per torch: without torch's version its fix is the release, asked for first
    f = _finding(
        "ImportError: /home/me/venv/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: "
        "_ZN3c106detail19maybe_wrap_dim_slowEllb\n"
    )
    assert f.remediation is None or not any(
        isinstance(c, Cmd) and "--no-build-isolation" in c.argv for c in f.remediation.commands
    )
