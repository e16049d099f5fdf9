"""docs/findings/nvidia-wheels-conflict.md: onnxruntime-gpu installed beside another onnxruntime distribution (they all
install site-packages/onnxruntime), read from any list of the environment's packages - pip's list, freeze or show,
uv's install summary - and the pasted interpreter banner read for the Python it names. Variants written here from the
class; the quiet twins are each package alone, a package of another import name, and uv removing the CPU one."""

from __future__ import annotations

import pytest

from gpudoctor.pasted import Source, read_pasted
from tests.spec.machine import argv_words, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_PROVIDERS = """>>> import onnxruntime
>>> onnxruntime.get_available_providers()
['AzureExecutionProvider', 'CPUExecutionProvider']
"""

_UV = """$ uv add onnxruntime-gpu fastembed
Resolved 14 packages in 310ms
Installed 4 packages in 41ms
 + fastembed==0.4.2
 + numpy==2.2.3
 + onnxruntime==1.20.1
 + onnxruntime-gpu==1.20.1
"""

_PIP_LIST = """Package            Version
------------------ -----------
numpy              1.26.4
onnxruntime        1.16.1
onnxruntime-gpu    1.16.1
protobuf           4.25.1
"""

_FREEZE = """numpy==1.26.4
onnxruntime-directml==1.17.3
onnxruntime-gpu==1.17.1
"""


@states("nvidia-wheels-conflict", FIRES)
@pytest.mark.parametrize(
    ("text", "others", "version"),
    [
        (_UV + _PROVIDERS, ("onnxruntime",), "1.20.1"),  # uv's summary
        (_PIP_LIST + _PROVIDERS, ("onnxruntime",), "1.16.1"),  # pip list
        (_FREEZE, ("onnxruntime-directml",), "1.17.1"),  # pip freeze, the DirectML build beside it
    ],
)
def test_onnxruntime_gpu_beside_another_onnxruntime_is_all_uninstalled_then_the_gpu_one_alone(text, others, version):
    f = pasted_findings(text)["nvidia-wheels-conflict"]
    # (then the providers read in the same interpreter: CUDAExecutionProvider listed is the GPU build, h173)
    verify = ("-c", "import onnxruntime as ort; print(ort.__version__, ort.get_available_providers())")
    if text.startswith(_UV):  # `uv add` ran: a uv project, whose own verbs change it (gpudoctor.planner.where)
        assert argv_words(f.remediation) == [
            ("uv", "remove", "onnxruntime-gpu", *others),
            ("uv", "add", f"onnxruntime-gpu=={version}"),
            ("uv", "run", "--no-sync", "python", *verify),
        ]
        return
    assert argv_words(f.remediation) == [
        ("python3", "-m", "pip", "uninstall", "-y", "onnxruntime-gpu", *others),
        ("python3", "-m", "pip", "install", f"onnxruntime-gpu=={version}"),
        ("python3", *verify),
    ]


@states("nvidia-wheels-conflict", QUIET)
@pytest.mark.parametrize(
    "text",
    [
        _PIP_LIST.replace("onnxruntime        1.16.1\n", ""),  # the GPU package alone
        _PIP_LIST.replace("onnxruntime-gpu    1.16.1\n", ""),  # the CPU package alone: a CPU user's choice
        _PIP_LIST.replace("onnxruntime        1.16.1", "onnxruntime-extensions 0.9.0"),  # another import name
        # uv removing the CPU one: "Uninstalled" then "- onnxruntime==..." leaves the GPU package alone
        _UV + "$ uv remove onnxruntime\nUninstalled 1 package in 12ms\n - onnxruntime==1.20.1\n",
        # a bulleted list in prose is not uv's summary (no "Installed N packages" line above it)
        "I installed:\n- onnxruntime==1.20.1\n- onnxruntime-gpu==1.20.1\n",
    ],
)
def test_each_onnxruntime_package_alone_or_removed_is_quiet(text):
    assert "nvidia-wheels-conflict" not in pasted_findings(text)


def test_with_a_cuda11_build_the_two_findings_print_one_order_uninstall_then_the_cuda12_build():
    # check_onnxruntime_cuda11's install is the reinstall: installing the CUDA 12 build over the CPU package's files
    # and then uninstalling both would leave none.
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.planner.prescribe import build

    text = (
        _PIP_LIST + "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] Failed to load library "
        "libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file "
        "or directory\n"
    )
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    codes = {f.code for f in report.findings}
    assert {"nvidia-wheels-conflict", "framework-cuda-libs-missing"} <= codes
    steps = build(report.findings).steps
    words = [tuple(str(w) for w in c.argv) for s in steps for c in s.commands if hasattr(c, "argv")]
    pips = [w[3:] for w in words if w[1:3] == ("-m", "pip")]
    assert pips[0] == ("uninstall", "-y", "onnxruntime-gpu", "onnxruntime")
    assert len(pips) == 2 and pips[1][0] == "install" and pips[1][1].startswith("onnxruntime-gpu")
    assert pips[1][1] != "onnxruntime-gpu==1.16.1"  # the CUDA 12 build, not the CUDA 11 one back


def test_the_interpreter_banner_gives_its_python_not_the_compilers_version():
    text = 'Python 3.12.9 (main, Feb 12 2025, 14:50:50) [Clang 19.1.6 ] on linux\nType "help" for more information.\n'
    snap = read_pasted([Source("t", text)])
    assert snap["python"]["version"] == "3.12.9"
