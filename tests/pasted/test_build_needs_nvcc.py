"""A build that needs nvcc where the text shows none (issues 27/28): DeepSpeed's ops compiled just in time, its op
builder's and torch.utils.cpp_extension's CUDA_HOME messages. What decides it is asked (which nvcc, CUDA_HOME, torch's
CUDA with the interpreter that ran); nothing is asked that the text shows, and a ds_report alone is no failure.
Minimal pastes of the class, written for it; argv asserted."""

from __future__ import annotations

import pytest

from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pipeline import CheckRequest, check

_REPORT = (
    "--------------------------------------------------\n"
    "DeepSpeed C++/CUDA extension op report\n"
    "--------------------------------------------------\n"
    "JIT compiled ops requires ninja\n"
    "ninja .................. [OKAY]\n"
    "op name ................ installed .. compatible\n"
    "cpu_adam ............... [NO] ....... [OKAY]\n"
    "fused_adam ............. [NO] ....... [OKAY]\n"
)
_VENV = "/srv/work/env/bin/python"


def _checked(text: str):
    return check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")), CheckRequest())


def _asked(checked) -> list[tuple[str, ...]]:
    return [tuple(str(w) for w in a.command.argv) for a in checked.asks]


@pytest.mark.parametrize(
    "text",
    [
        # ds_report's table, then a traceback the paste cuts off
        _REPORT + 'Traceback (most recent call last):\n  File "/srv/work/env/bin/ds_report", line 6, in <module>\n'
        '    cli_main()\n  File "/srv/work/env/lib/python3.10/site-packages/deepspeed/env_r\n',
        # the op builder's own message, in a traceback through the same venv
        '  File "/srv/work/env/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py", line 51, in '
        "installed_cuda_version\n"
        "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)\n",
    ],
)
def test_a_jit_build_without_nvcc_shown_asks_for_the_toolkit_and_torchs_cuda(text):
    asked = _asked(_checked(text))
    assert ("which", "nvcc") in asked and ("printenv", "CUDA_HOME") in asked
    torch = [a for a in asked if a[:2] == (_VENV, "-c")]
    assert torch and "torch.version.cuda" in torch[0][2]


def test_what_the_text_shows_is_not_asked_again():
    text = _REPORT + "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n"
    assert ("which", "nvcc") not in _asked(_checked(text))


def test_a_ds_report_alone_is_no_failure():
    checked = _checked(_REPORT)
    assert [f.code for f in checked.report.findings if f.severity >= Severity.WARNING] == []
