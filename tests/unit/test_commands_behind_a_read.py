"""Fixes whose command waits on one value the text does not show: the read that decides it comes first, then the
command each answer calls for, never a guessed version (issue 27, kind 9: no command where one is possible).

- framework-cpu-build of a known PyTorch release with no driver seen: nvidia-smi, then the release's CUDA builds
  (checks.frameworks.builds_by_driver);
- cudnn-missing of a cuDNN 8 library by a program the text does not name: the package list, then NVIDIA's cuDNN 8
  wheels of each CUDA major (checks.libraries.cudnn8_wheels_by_cuda);
- windows-dll-missing of a package's own DLL: pip show, then the Visual C++ runtime's winget package.

Pasted text read as `gpudoctor check --from` reads it; the assertions are on commands and findings (data).
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, PrependPath
from tests.unit.test_rule_edges_checks_v2 import findings, from_text


def _argv(remediation) -> list[tuple[str, ...]]:
    return [tuple(str(a) for a in c.argv) for c in remediation.commands if hasattr(c, "argv")]


def test_a_cpu_torch_of_a_known_release_gets_its_cuda_builds_behind_nvidia_smi():
    """A pasted torch 2.6.0+cpu (a conda prompt on Windows, no nvidia-smi shown): nvidia-smi first, then the release's
    newest stable CUDA build (2.6's cu124: its cu126 is experimental in compat_matrix/torch.toml), the oldest (cu118)
    as the alternative. The release stays 2.6.0, so a pin like MONAI 1.5's torch<2.7 holds."""
    facts = from_text('(myenv) C:\\Users\\me>python -c "import torch; print(torch.__version__)"\n2.6.0+cpu\n')
    (f,) = findings(facts, "framework-cpu-build")
    argv = _argv(f.remediation)
    assert argv[0] == ("nvidia-smi",)
    assert "torch==2.6.0+cu124" in argv[1] and argv[1][-2:] == ("--index-url", "https://download.pytorch.org/whl/cu124")
    alt = _argv(f.remediation.alternative)
    assert len(alt) == 1 and "torch==2.6.0+cu118" in alt[0]


def test_a_cpu_torch_with_one_stable_cuda_build_gets_that_build_without_an_alternative():
    """torch 2.0.0+cpu: 2.0's cu117 is its one stable CUDA build in the matrix (cu118 experimental): nvidia-smi, then
    that install, and nothing offered beside it."""
    facts = from_text('(yolo) C:\\Users\\me>python -c "import torch; print(torch.__version__)"\n2.0.0+cpu\n')
    (f,) = findings(facts, "framework-cpu-build")
    argv = _argv(f.remediation)
    assert argv[0] == ("nvidia-smi",)
    assert [a for a in argv[1] if a.startswith("torch==")] == ["torch==2.0.0+cu117"]
    assert f.remediation.alternative is None


def test_a_cudnn8_library_of_an_unnamed_program_gets_each_majors_wheels_behind_the_package_list():
    """'Could not load library libcudnn_cnn_infer.so.8' alone (plans20/2063's shape): the package list that shows the
    program's CUDA major, then cuDNN 8 and cuBLAS for CUDA 11 with their directories on LD_LIBRARY_PATH; CUDA 12's
    cuDNN 8 (8.9.7.29) is the alternative, never run with it."""
    facts = from_text("Error: Could not load library libcudnn_cnn_infer.so.8\n")
    (f,) = findings(facts, "cudnn-missing")
    argv = _argv(f.remediation)
    assert argv[0][1:4] == ("-m", "pip", "list")
    assert argv[1][-2:] == ("nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")
    names = [getattr(c, "name", None) for c in f.remediation.commands]
    assert names.count("LD_LIBRARY_PATH") == 2
    # each way ends with its read-back: the loader opens the library the program could not
    assert argv[-1][1:] == ("-c", 'import ctypes; ctypes.CDLL("libcudnn_cnn_infer.so.8")')
    alt = _argv(f.remediation.alternative)
    assert alt[0][-2:] == ("nvidia-cublas-cu12", "nvidia-cudnn-cu12==8.9.7.29")
    assert alt[-1] == argv[-1]


def test_a_cudnn9_library_gets_no_cudnn8_wheels():
    """cuDNN 9's sonames are not cuDNN 8's: the wheels above are not offered for them (the step is the look for a copy
    of the very soname and the export of its directory, gpudoctor.checks.library_copy, with the report's asks)."""
    facts = from_text("Could not load library libcudnn_ops.so.9. Error: libcudnn_ops.so.9: cannot open shared object file\n")
    (f,) = findings(facts, "cudnn-missing")
    assert not any(isinstance(c, Cmd) and "install" in c.argv for c in f.remediation.commands)
    (path,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
    assert path.parts[0].argv[-2:] == ("libcudnn_ops.so.9", "/")  # type: ignore[union-attr]
    assert f.remediation.alternative is None


def test_a_packages_own_dll_failing_on_windows_reads_the_visual_cpp_runtime_before_installing_it():
    """torch's own shm.dll failing with WinError 126 (plans20/2071's shape, plans21/2172's with caffe2_nvrtc.dll): pip
    show decides the 2.4.0 branch; the Visual C++ runtime is read (reg query of its x64 key), not installed, since
    torch loaded c10.dll, which needs it, before the DLL that failed and the text shows no runtime missing."""
    facts = from_text(
        "Traceback (most recent call last):\n"
        '  File "C:\\app\\venv\\lib\\site-packages\\torch\\__init__.py", line 141, in <module>\n'
        "    raise err\n"
        "OSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\app\\venv\\lib\\site-packages\\torch\\lib\\shm.dll" or one of its dependencies.\n'
    )
    (f,) = findings(facts, "windows-dll-missing")
    argv = _argv(f.remediation)
    assert argv[0][-2:] == ("show", "torch")
    assert argv[1] == ("reg", "query", "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64", "/v", "Version")
    assert not any(a[0] == "winget" for a in argv)


def test_the_visual_cpp_runtime_shown_missing_keeps_its_install():
    """torch's own warning that the runtime did not load (torch/__init__.py) is the deciding fact: winget installs it."""
    facts = from_text(
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
        "                 It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\n"
        "Traceback (most recent call last):\n"
        '  File "C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\__init__.py", line 128, in <module>\n'
        "    raise err\n"
        "OSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\lib\\asmjit.dll" or one of its dependencies.\n'
    )
    argvs = [a for f in findings(facts, "windows-dll-missing") for a in _argv(f.remediation)]
    assert ("winget", "install", "--id", "Microsoft.VCRedist.2015+.x64", "--exact") in argvs
