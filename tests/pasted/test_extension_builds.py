"""Builds of compiled extensions read from pasted text (h209): DeepSpeed's async_io op and libaio, a setup.py that
imports torch where pip runs it without torch, the package index's unrelated "apex". Each rule on its real example
(tests/pasted/catalogue_examples, the threads in tools/mined/h209.md) and its quiet twin."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _findings(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report.findings


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _steps(finding) -> list:
    return list(finding.remediation.commands) if finding.remediation else []


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in _steps(finding) if isinstance(c, Cmd)]


def _built(findings):
    return [f for f in findings if f.code == "extension-not-built"]


def test_deepspeed_install_stopped_on_windows_builds_without_the_linux_only_ops():
    # deepspeedai/DeepSpeed#3145: pip install deepspeed on Windows, "Unable to pre-compile async_io"
    (f,) = _built(_findings(_example("deepspeed-3145-windows-aio-lib-lnk1181.txt")))
    assert f.severity == Severity.ERROR
    sets = [(s.name, s.value) for s in _steps(f) if isinstance(s, SetEnv)]
    assert sets == [("DS_BUILD_AIO", "0"), ("DS_BUILD_GDS", "0"), ("DS_BUILD_SPARSE_ATTN", "0")]
    argvs = _argvs(f)
    assert "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())" in argvs[0]
    assert argvs[-1][-2:] == ("install", "deepspeed")
    assert not any(a[0] in ("apt-get", "yum") for a in argvs)  # no libaio exists for Windows


def test_deepspeed_precompile_failure_on_linux_without_a_known_distribution_turns_async_io_off():
    # deepspeedai/DeepSpeed#3145's lines under a Linux build directory (the abort is the same on both systems)
    text = (
        "      AssertionError: Unable to pre-compile async_io\n"
        "      DS_BUILD_OPS=1\n"
        "       [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n"
        "       [WARNING]  One can disable async_io with DS_BUILD_AIO=0\n"
        '        File "/tmp/pip-req-build-x/setup.py", line 135, in <module>\n'
    )
    (f,) = _built(_findings(text))
    assert f.severity == Severity.ERROR
    assert [(s.name, s.value) for s in _steps(f) if isinstance(s, SetEnv)] == [("DS_BUILD_AIO", "0")]
    assert not any(a[0] in ("apt-get", "yum") for a in _argvs(f))


def test_the_async_io_warning_alone_is_a_note_without_a_plan():
    # deepspeedai/DeepSpeed#6972's ds_report: async_io [NO] [NO], the warning only (NVMe offload is its one user)
    (f,) = _built(_findings(_example("deepspeed-6972-ds-report-async-io-libaio-not-found.txt")))
    assert f.severity == Severity.INFO and f.remediation is None


def test_quiet_twins_of_deepspeed_aio():
    # the Windows link test is printed by every Windows build, a good one too (6Morpheus6/deepspeed-windows-wheels#2)
    assert not _built(_findings("test.c\nLINK : fatal error LNK1181: cannot open input file 'aio.lib'\n"))
    # another op's abort for want of torch is not libaio's
    assert not _built(_findings("AssertionError: Unable to pre-compile async_io, please first install torch\n"))


def test_setup_importing_torch_where_pip_ran_it_installs_torch_first_then_builds_without_isolation():
    # eqimp/hogwild_llm#12: flash_attn==2.7.4.post1 in a requirements file beside torch
    (f,) = _built(_findings(_example("hogwild-llm-12-flash-attn-setup-no-module-torch.txt")))
    argvs = _argvs(f)
    assert "import torch; print(torch.__version__, torch.version.cuda)" in argvs[0]
    assert argvs[-1][-3:] == ("install", "--no-build-isolation", "flash-attn")
    (g,) = _built(_findings(_example("falcon-11-flash-attn-requirements-no-module-torch.txt")))
    assert _argvs(g)[-1][-1] == "flash-attn"


def test_quiet_twins_of_the_torch_first_build():
    # the isolated build's traceback names no setup.py file (Yankai96/IBISAgent#2): not read as this rule
    isolated = (
        '        File "<string>", line 22, in <module>\n'
        "      ModuleNotFoundError: No module named 'torch'\n"
        "      [end of output]\n"
    )
    assert not _built(_findings(isolated))
    # a setup.py that lacks another module (flash-attention#253's packaging, under hogwild_llm#12's path) is not torch's
    other = (
        '        File "/tmp/pip-install-go0vfrk9/flash-attn_6b2d67bbb95d4c93b94c80d60083bc0b/setup.py", line 9, in <module>\n'
        "          from packaging.version import parse, Version\n"
        "      ModuleNotFoundError: No module named 'packaging'\n"
    )
    assert not _built(_findings(other))


def test_the_index_apex_is_uninstalled_before_nvidias_is_built():
    for name in ("apex-1063-pypi-apex-pyramid-session.txt", "apex-1114-pypi-apex-class-advice-impossible.txt"):
        (f,) = _built(_findings(_example(name)))
        argvs = _argvs(f)
        assert argvs[0][-4:] == ("pip", "uninstall", "-y", "apex"), name
        assert any("apex @ git+https://github.com/NVIDIA/apex" in a for a in argvs[-2]), name


def test_quiet_twin_of_the_index_apex():
    # NVIDIA Apex installed without its extensions (NVIDIA/apex#499's words) is built, nothing to uninstall
    (f,) = _built(_findings("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'\n"))
    assert not any("uninstall" in a for a in _argvs(f))
    # the same import failing in a Pyramid application's own file (no apex frame) is not the index's apex
    pyramid_app = (
        '  File "/srv/app/views.py", line 3, in <module>\n'
        "    from pyramid.session import UnencryptedCookieSessionFactoryConfig\n"
        "ImportError: cannot import name 'UnencryptedCookieSessionFactoryConfig' from 'pyramid.session'\n"
    )
    assert not _built(_findings(pyramid_app))


def _asks(text: str) -> list[str]:
    from gpudoctor.pasted.ask import ask_for

    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    return [" ".join(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)]


def test_a_pyg_extension_of_another_cuda_asks_torchs_variant_and_the_extensions():
    # rusty1s/pytorch_sparse#49 and rusty1s/pytorch_scatter#187: the import's own CUDA comparison
    from gpudoctor.parsers.catalogue import match

    for name, companion in (
        ("pytorch-sparse-49-compiled-with-different-cuda.txt", "torch_sparse"),
        ("pytorch-scatter-187-compiled-with-different-cuda.txt", "torch_scatter"),
    ):
        text = _example(name)
        (e,) = [e for e in match(text) if e.kind == "pyg-extension-cuda-mismatch"]
        assert e.get("companion") == companion
        asks = _asks(text)
        assert any(a.endswith("-m pip show torch-scatter torch-sparse torch-cluster torch-spline-conv") for a in asks)
        assert any("import torch; print(torch.__version__, torch.version.cuda)" in a for a in asks)


def test_quiet_twin_of_pyg_torchvisions_own_words_stay_torchvisions():
    # the sibling message of torchvision (catalogue.toml: torchvision-cuda-mismatch) is not a PyG extension's
    from gpudoctor.parsers.catalogue import match

    line = (
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
        "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. "
        "Please reinstall the torchvision that matches your PyTorch install."
    )
    kinds = {e.kind for e in match(line)}
    assert "pyg-extension-cuda-mismatch" not in kinds and "companion-cuda-mismatch" in kinds


def test_pytorch3d_c_without_torchs_libraries_asks_the_import_order_and_the_builds():
    # facebookresearch/pytorch3d#923: `from pytorch3d import _C` failing on libc10_cuda.so
    asks = _asks(_example("pytorch3d-923-libc10-cuda-cannot-open.txt"))
    assert any(a.endswith("import torch; from pytorch3d import _C; print(torch.__version__, torch.version.cuda)") for a in asks)
    assert any(a.endswith("-m pip show torch pytorch3d") for a in asks)


def test_quiet_twin_of_pytorch3d_c_another_modules_missing_libc10_is_not_pytorch3ds():
    # the same loader words under another extension's import (torchvision's _C) do not name PyTorch3D
    from gpudoctor.parsers.catalogue import match

    text = (
        '  File "/opt/conda/lib/python3.8/site-packages/torchvision/extension.py", line 12, in <module>\n'
        "    from torchvision import _C\n"
        "ImportError: libc10.so: cannot open shared object file: No such file or directory\n"
    )
    assert not [e for e in match(text) if e.kind == "pytorch3d-torch-libraries-unfound"]


def test_an_isolated_build_without_torch_builds_without_isolation():
    # Yankai96/IBISAgent#2: pip 25 naming flash-attn after its build's "No module named 'torch'"
    (f,) = _built(_findings(_example("ibisagent-2-flash-attn-isolated-build-no-torch.txt")))
    assert "isolated" in f.title
    assert _argvs(f)[-1][-3:] == ("install", "--no-build-isolation", "flash-attn")
