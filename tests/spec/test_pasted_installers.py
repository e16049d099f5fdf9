"""docs/findings: the installers' own messages (pip, uv; catalogue.toml's installer family), read from pasted text:
python-no-wheel fires where the message or the paste names the interpreter's Python or platform, and stays quiet
where it does not (the interpreter is asked for); python-externally-managed fires on pip's PEP 668 refusal."""

from __future__ import annotations

from gpudoctor.cmdline import Placeholder
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

UV_ABI = (
    "  × No solution found when resolving dependencies:\n"
    "  ╰─▶ Because torch==1.12.0+cu113 has no wheels with a matching Python ABI\n"
    "      tag (e.g., `cp311`) and you require torch==1.12.0+cu113, we can conclude\n"
    "      that your requirements are unsatisfiable.\n"
)
PIP_RELEASE = (
    '  File "/home/u/.venv/lib/python{py}/site-packages/setuptools/__init__.py", line 1, in <module>\n'
    "ERROR: Could not find a version that satisfies the requirement torch=={want} (from versions: 1.13.0, 2.0.0)\n"
    "ERROR: No matching distribution found for torch=={want}\n"
)
PIP_WHEEL = (
    '  File "C:\\Users\\r\\AppData\\Local\\Programs\\Python\\Python{py}\\lib\\site-packages\\pip\\__init__.py", line 1\n'
    "ERROR: torch-2.1.2+cu121-cp311-cp311-win_amd64.whl is not a supported wheel on this platform.\n"
)
DEBIAN = (
    "error: externally-managed-environment\n\n"
    "× This environment is externally managed\n"
    "╰─> To install Python packages system-wide, try apt install\n"
    "    python3-xyz, where xyz is the package you are trying to\n"
    "    install.\n"
)
ARCH = (
    "error: externally-managed-environment\n\n"
    "× This environment is externally managed\n"
    "╰─> To install Python packages system-wide, try 'pacman -S\n"
    "    python-xyz', where xyz is the package you are trying to\n"
)


@states("python-no-wheel", FIRES)
def test_uvs_abi_tag_names_the_python_and_the_plan_is_the_newest_python_torchs_wheels_fit():
    f = pasted_findings(UV_ABI)["python-no-wheel"]
    assert f.title == "torch 1.12.0 has no wheel for Python 3.11"
    # torch 1.12's wheels are for Python >=3.7,<3.11 (compat_matrix/torch.toml): 3.10 is the newest.
    assert argv_of(f) == [("uv", "venv", "--python", "3.10")]
    assert f.remediation.component == "torch"


@states("python-no-wheel", FIRES)
def test_uvs_hint_gives_the_pythons_of_a_release_the_matrix_does_not_know():
    text = (
        "  ╰─▶ Because onnxruntime-gpu==1.16.3 has no wheels with a matching Python ABI tag (e.g., `cp312`) and you\n"
        "      require onnxruntime-gpu==1.16.3, we can conclude that your requirements are unsatisfiable.\n\n"
        "      hint: You require CPython 3.12 (`cp312`), but we only found wheels for `onnxruntime-gpu` (v1.16.3) with the\n"
        "      following Python ABI tags: `cp38`, `cp39`, `cp310`, `cp311`\n"
    )
    f = pasted_findings(text)["python-no-wheel"]
    assert f.title == "onnxruntime-gpu 1.16.3 has no wheel for Python 3.12"
    assert argv_of(f) == [("uv", "venv", "--python", "3.11")]


@states("python-no-wheel", FIRES)
def test_uvs_abi_message_without_the_hint_for_an_unknown_release_prints_no_command():
    text = "  ╰─▶ Because foo-ext==0.3.1 has no wheels with a matching Python ABI tag (e.g., `cp312`) and you require\n"
    f = pasted_findings(text)["python-no-wheel"]  # the message decides the cause; nothing says which Python fits
    assert argv_of(f) == []


@states("python-no-wheel", FIRES)
def test_uvs_platform_tag_names_the_platform_and_no_command_is_guessed():
    text = (
        "  ╰─▶ Because torch==2.6.0 has no wheels with a matching platform tag (e.g., `macosx_15_0_x86_64`) and you "
        "require torch==2.6.0, we can conclude that your requirements are unsatisfiable.\n"
    )
    f = pasted_findings(text)["python-no-wheel"]
    assert f.title == "torch 2.6.0 has no wheel for this platform (macosx_15_0_x86_64)"
    assert argv_of(f) == []


@states("python-no-wheel", FIRES)
def test_pip_without_a_release_for_the_shown_python_fires_with_the_releases_python_range():
    f = pasted_findings(PIP_RELEASE.format(py="3.11", want="1.8.1"))["python-no-wheel"]
    assert f.title == "torch 1.8.1 has no wheel for Python 3.11"
    assert ">=3.6,<3.10" in f.remediation.summary and "torch 2.0 or newer" in f.remediation.summary
    assert argv_of(f) == []  # a Python or a torch: the reporter's choice, no command guessed


@states("python-no-wheel", FIRES)
def test_a_wheel_of_another_python_is_replaced_by_the_same_build_pip_chooses_for_this_python():
    f = pasted_findings(PIP_WHEEL.format(py="310"))["python-no-wheel"]
    ((exe, *rest),) = argv_of(f)
    assert exe.endswith("Python310\\python.exe")
    assert rest == ["-m", "pip", "install", "torch==2.1.2", "--index-url", "https://download.pytorch.org/whl/cu121"]


@states("python-no-wheel", FIRES)
def test_pip_without_torch_for_pythons_32_bit_folder_is_the_32_bit_python():
    text = (
        '  File "C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python37-32\\lib\\site-packages\\pip\\x.py"\n'
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
    )
    f = pasted_findings(text)["python-no-wheel"]
    assert f.title == "torch has no wheel for a 32-bit Python 3.7"


@states("python-no-wheel", FIRES)
def test_pip_without_torch_for_pypy_is_the_implementation():
    text = (
        "Python version: 3.10.14 (75b3de9d9035, Apr 21 2024, 10:54:48) [PyPy 7.3.16 with GCC 10.2.1 20210130]\n"
        "ERROR: No matching distribution found for torch\n"
    )
    f = pasted_findings(text)["python-no-wheel"]
    assert f.title == "torch has no wheel for PyPy (the interpreter is PyPy 7.3.16)"


@states("python-no-wheel", QUIET)
def test_pip_without_a_package_other_than_torch_beside_pypy_is_not_decided():
    text = "[PyPy 7.3.16 with GCC 10.2.1 20210130]\nERROR: No matching distribution found for somepkg==1.0\n"
    assert "python-no-wheel" not in pasted_findings(text)


@states("python-no-wheel", QUIET)
def test_pip_without_torch_for_a_64_bit_python_folder_is_not_the_width():
    text = (
        '  File "C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python37\\lib\\site-packages\\pip\\x.py"\n'
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
    )
    assert "python-no-wheel" not in pasted_findings(text)


@states("python-no-wheel", QUIET)
def test_pip_without_a_release_where_the_python_is_not_shown_asks_instead():
    text = PIP_RELEASE.format(py="3.11", want="1.8.1").split("\n", 1)[1]  # no site-packages path: no Python shown
    codes = pasted_findings(text)
    assert "python-no-wheel" not in codes and "pasted-error-unexplained" in codes


@states("python-no-wheel", QUIET)
def test_pip_without_a_release_whose_wheels_fit_the_shown_python_is_not_the_pythons_fault():
    # torch 2.4's wheels are for Python >=3.8,<3.13: Python 3.11 fits, so the platform or the index decides.
    assert "python-no-wheel" not in pasted_findings(PIP_RELEASE.format(py="3.11", want="2.4.1"))


@states("python-no-wheel", QUIET)
def test_a_wheel_of_the_shown_python_is_not_the_pythons_fault():
    assert "python-no-wheel" not in pasted_findings(PIP_WHEEL.format(py="311"))


@states("python-externally-managed", FIRES)
def test_debians_refusal_plans_python3_venv_then_a_venv_in_the_project_folder():
    f = pasted_findings(DEBIAN)["python-externally-managed"]
    cmds = f.remediation.commands
    assert [c.argv for c in cmds] == [
        ("apt-get", "update"),  # a package index first (gpudoctor.planner.needs: every apt-get install)
        ("apt-get", "install", "-y", "python3-venv"),
        ("python3", "-m", "venv", ".venv"),
        (".venv/bin/python", "-m", "pip", "install", Placeholder("packages")),
    ]
    assert cmds[0].root and cmds[1].root and not cmds[2].root and not cmds[3].root
    assert "--break-system-packages" not in [w for c in cmds for w in map(str, c.argv)]


@states("python-externally-managed", FIRES)
def test_archs_refusal_needs_no_package_for_venv():
    f = pasted_findings(ARCH)["python-externally-managed"]
    assert [c.argv[0] for c in f.remediation.commands] == ["python3", ".venv/bin/python"]
    assert not f.remediation.requires_root


@states("python-externally-managed", FIRES)
def test_uvs_refusal_is_uvs_own_project_venv():
    text = "error: The interpreter at /usr is externally managed, and indicates the following:\n"
    f = pasted_findings(text)["python-externally-managed"]
    assert [c.argv for c in f.remediation.commands] == [("uv", "venv"), ("uv", "pip", "install", Placeholder("packages"))]


@states("python-externally-managed", QUIET)
def test_the_words_in_prose_without_pips_error_are_quiet():
    text = "The README says to use a venv to avoid the externally-managed-environment error on Ubuntu 24.04.\n"
    assert "python-externally-managed" not in pasted_findings(text)


@states("python-no-wheel", FIRES)
def test_a_32_bit_pythons_plan_runs_the_reporters_pip_install_with_the_launchers_64_bit_python():
    # A whole real report: tests/blind/plans11/cases/1125-pt41005-windows-python37-32bit-pip-torch151-cpu-only-finds-0-1-2-no-matching-distribution
    # (cmd's prompt in python.org's Python37-32 folder, then pip's "from versions: 0.1.2, ...").
    f = pasted_findings(_read(PLANS11_1125))["python-no-wheel"]
    assert argv_of(f) == [
        ("C:\\Python\\Python37-32\\python.exe", "-c", "import struct, sys; print(struct.calcsize('P') * 8, sys.version)"),
        ("py", "-3.7-64", "-c", "import struct; print(struct.calcsize('P') * 8)"),
        (
            "py",
            "-3.7-64",
            "-m",
            "pip",
            "install",
            "torch==1.5.1+cpu",
            "torchvision==0.6.1+cpu",
            "-f",
            "https://download.pytorch.org/whl/torch_stable.html",
        ),
        ("py", "-3.7-64", "-c", "import torch; print(torch.__version__)"),
    ]


@states("python-no-wheel", FIRES)
def test_a_32_bit_runtime_without_the_pip_line_shown_checks_the_width_and_runs_nothing_it_cannot_see():
    # https://github.com/pytorch/pytorch/issues/47354: collect_env's "Python version: 3.7 (32-bit runtime)" on Windows,
    # pip's error without the command that ran it.
    f = pasted_findings(_read("tests/pasted/catalogue_examples/pytorch-47354-python-32-bit-runtime-torch-not-found.txt"))
    assert argv_of(f["python-no-wheel"]) == [("py", "-3.7-64", "-c", "import struct; print(struct.calcsize('P') * 8)")]


def test_a_cmd_prompts_pip_install_is_the_reporters_command_and_a_sentences_is_not():
    from gpudoctor.parsers.error_texts import extract_evidence

    shown = extract_evidence("C:\\Users\\u\\proj>pip install torch==2.1.2 --index-url https://download.pytorch.org/whl/cu121\n")
    said = [e.get("args") for e in shown if e.kind == "pip-install-said"]
    assert said == ["torch==2.1.2 --index-url https://download.pytorch.org/whl/cu121"]
    quiet = extract_evidence("To fix it, C:\\ users should run pip install torch in a new window\n")
    assert not [e for e in quiet if e.kind == "pip-install-said"]


PLANS11_1125 = "tests/blind/plans11/cases/1125-pt41005-windows-python37-32bit-pip-torch151-cpu-only-finds-0-1-2-no-matching-distribution/input.txt"


def _read(path: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / path).read_text(encoding="utf-8")


PLANS11_1102 = (
    "tests/blind/plans11/cases/1102-pt69202-conda-pytorch190-with-cudatoolkit113-no-such-cuda-build-solver-picks-cpu/input.txt"
)
# https://github.com/facebookresearch/pytorch3d/issues/1403, the report as written (2022-12-20).
PYTORCH3D_1403 = (
    "The third line of the installation instructions in https://github.com/facebookresearch/pytorch3d/blob/main/INSTALL.md "
    "misleads to accidental installation of pytorch without cuda - an error I failed to notice at first as cudatoolkit "
    "is mentioned in said line.\n"
    "It should be clearly stated what the installation options are and perhaps reference to pytorch installation site "
    "https://pytorch.org/get-started/locally/\n\n"
    "replacing\n"
    "```conda install -c pytorch pytorch=1.9.1 torchvision cudatoolkit=11.6```\n"
    "for\n"
    "```conda install pytorch torchvision torchaudio pytorch-cuda=11.6 -c pytorch -c nvidia```\n"
    "--in  my case as im still on 11.6 --- solves the issue\n"
)


@states("framework-cpu-build", FIRES)
def test_a_conda_pair_the_pytorch_channel_never_built_is_the_cpu_build_and_the_plan_asks_for_a_built_pair():
    # A whole real report (cited by path): pytorch=1.9.0 beside cudatoolkit=11.3 from -c pytorch; PyTorch 1.9 was
    # built for CUDA 10.2 and 11.1 (compat_matrix/torch.toml), so 11.1 is the CUDA below 11.3 it was built for.
    f = pasted_findings(_read(PLANS11_1102))["framework-cpu-build"]
    assert argv_of(f) == [
        ("conda", "list", "^(pytorch|torchvision|torchaudio|cudatoolkit|cpuonly)$"),
        ("conda", "install", "-c", "pytorch", "pytorch=1.9.0", "torchvision=0.10.0", "cudatoolkit=11.1", "-c", "conda-forge"),
        ("python", "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"),
    ]


@states("framework-cpu-build", FIRES)
def test_a_conda_pair_in_a_code_span_of_another_thread_fires_with_the_release_built_for_the_cuda():
    # pytorch3d#1403: pytorch=1.9.1 beside cudatoolkit=11.6 installed the CPU build; the PyTorch-CUDA line after it names
    # no pytorch release and no cudatoolkit, so it is not a pair to judge.
    f = pasted_findings(PYTORCH3D_1403)["framework-cpu-build"]
    assert argv_of(f)[1] == (
        "conda",
        "install",
        "-c",
        "pytorch",
        "pytorch=1.9.1",
        "torchvision=0.10.1",
        "cudatoolkit=11.1",
        "-c",
        "conda-forge",
    )


@states("framework-cpu-build", QUIET)
def test_a_conda_pair_the_channel_built_is_quiet():
    # previous-versions.md at 04862e3, 1.9.0's CUDA 10.2 line: a pair the pytorch channel built.
    text = "```\nconda install pytorch==1.9.0 torchvision==0.10.0 torchaudio==0.9.0 cudatoolkit=10.2 -c pytorch\n```\n"
    assert "framework-cpu-build" not in pasted_findings(text)


@states("framework-cpu-build", QUIET)
def test_a_conda_pair_with_conda_forge_is_not_judged_its_builds_differ():
    # previous-versions.md at 04862e3 lists 1.9.0 with cudatoolkit=11.3 through conda-forge: another channel's builds.
    text = "$ conda install pytorch==1.9.0 torchvision==0.10.0 torchaudio==0.9.0 cudatoolkit=11.3 -c pytorch -c conda-forge\n"
    assert "framework-cpu-build" not in pasted_findings(text)


@states("framework-cpu-build", QUIET)
def test_conda_install_in_running_prose_is_not_a_command():
    text = "I think conda install -c pytorch pytorch=1.9.0 cudatoolkit=11.3 would have been wrong anyway.\n"
    assert "framework-cpu-build" not in pasted_findings(text)


PLANS11_1122 = (
    "tests/blind/plans11/cases/1122-jax24604-miniforge-conda-jaxlib-cuda-build-falls-back-to-cpu-pip-cuda12-wheels-work/input.txt"
)
# https://github.com/conda-forge/jax-feedstock/issues/162, the report as filed on the feedstock (2024-10-30).
JAX_FEEDSTOCK_162 = (
    "### Issue\n\n"
    "> I installed JAX according to the docs:\n"
    "> ```\n"
    "> conda install jaxlib=*=*cuda* jax cuda-nvcc -c conda-forge -c nvidia\n"
    "> ```\n"
    "> I get the following output:\n"
    "> ```\n"
    "> An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n"
    "> [CpuDevice(id=0)]\n"
    "> ```\n"
    "> tensorflow, however, does recognise my GPU, and so I tried to install using pip. I created a new environment and ran:\n"
    "> ```\n"
    '> pip install --upgrade "jax[cuda12_pip]" -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html\n'
    "> ```\n"
    "> When I then ran my JAX code above I got the output:\n"
    "> ```\n"
    "> [CudaDevice(id=0)]\n"
    "> ```\n"
)
# https://github.com/ziatdinovmax/gpax/issues/63 (2023-11-13): a conda environment whose JAX came from pip.
GPAX_63 = (
    "When I am running the gpax_vidkl_eels.ipynb  I am getting below warning:\n\n"
    "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to CPU.\n\n"
    "How to reproduce:\n\n"
    "I created the python env using following steps:\n"
    "conda create -n gpax_hae python==3.10\n"
    "conda activate gpax_hae\n"
    "pip install -e . (inside gpax repository) ------- this install most of the dependencies including jax and jaxlib\n"
    "pip install jupyter\n"
)
_JAX_FRESH = [
    ("conda", "create", "-y", "-n", "jax-cuda", "python", "pip"),
    ("conda", "run", "-n", "jax-cuda", "python", "-m", "pip", "install", "-U", "jax[cuda12]"),
    ("conda", "run", "-n", "jax-cuda", "python", "-c", "import jax; print(jax.devices())"),
]


@states("framework-cpu-build", FIRES)
def test_jax_falling_back_in_a_conda_built_environment_plans_a_fresh_environment_with_jaxs_pip_extra():
    # A whole real report (cited by path): conda's jaxlib fell back to the CPU, the pip jax[cuda12_pip] route worked.
    f = pasted_findings(_read(PLANS11_1122))["framework-cpu-build"]
    assert argv_of(f)[0][:2] == ("conda", "list")
    assert argv_of(f)[1:] == _JAX_FRESH


@states("framework-cpu-build", FIRES)
def test_jax_falling_back_in_a_conda_built_environment_on_the_feedstocks_thread_is_the_same_route():
    assert argv_of(pasted_findings(JAX_FEEDSTOCK_162)["framework-cpu-build"])[1:] == _JAX_FRESH


def test_jax_falling_back_where_pip_installed_jax_into_a_conda_environment_is_not_the_conda_route():
    # conda made the environment, pip put JAX in it: the conda install of JAX the route needs is not there.
    f = pasted_findings(GPAX_63)["framework-cpu-build"]
    assert not any(w[:2] == ("conda", "create") for w in argv_of(f))


LONG_PATH = (
    "Installing collected packages: tensorflow\n"
    "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
    "'E:\\\\projects\\\\a-long-project-folder-name\\\\another-level\\\\and-one-more-level\\\\venv\\\\Lib\\\\site-packages\\\\tensorflow\\\\include"
    "\\\\external\\\\cudnn_frontend_archive\\\\_virtual_includes\\\\cudnn_frontend\\\\third_party\\\\cudnn_frontend"
    "\\\\include\\\\cudnn_frontend_EngineConfigGenerator_with_a_long_name.h'\n"
)
LONG_PATH_HINT = (
    "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: \n"
    "HINT: This error might have occurred since this system does not have Windows Long Path support enabled. "
    "You can find information on how to enable this at https://pip.pypa.io/warnings/enable-long-paths\n"
)
_REG_ADD = ("reg", "add", "HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem", "/v", "LongPathsEnabled")


@states("windows-long-paths-disabled", FIRES)
def test_a_path_past_260_characters_enables_long_paths_restarts_and_installs_again():
    f = pasted_findings(LONG_PATH)["windows-long-paths-disabled"]
    argvs = argv_of(f)
    assert argvs[1] == (*_REG_ADD, "/t", "REG_DWORD", "/d", "1", "/f")
    assert argvs[2] == ("shutdown", "/r", "/t", "0")
    # the environment's own interpreter, read from the site-packages the path runs through
    venv = "E:\\projects\\a-long-project-folder-name\\another-level\\and-one-more-level\\venv"
    assert argvs[3] == (venv + "\\Scripts\\python.exe", "-m", "pip", "install", Placeholder("packages"))
    assert f.remediation.requires_root and f.remediation.component == "platform"


@states("windows-long-paths-disabled", FIRES)
def test_pips_own_hint_decides_without_the_path():
    assert argv_of(pasted_findings(LONG_PATH_HINT)["windows-long-paths-disabled"])[1][:5] == _REG_ADD


@states("windows-long-paths-disabled", QUIET)
def test_a_short_path_not_found_is_not_the_path_limit():
    text = (
        "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
        "'C:\\\\Users\\\\me\\\\wheels\\\\torch-2.1.2+cu121-cp311-cp311-win_amd64.whl'\n"
    )
    assert "windows-long-paths-disabled" not in pasted_findings(text)


# pip's optparse answer to an option it does not know: real data. The NeMo notebook report of blind set 14
# (tests/blind/plans14/cases/1420-genaiex101-nemo-megatron-notebook-apex-build-command-pip-too-old-no-such-option-config-settings/input.txt)
# and scikit-learn's note for developers (https://github.com/scikit-learn/scikit-learn/pull/29653, the error a pip
# before 23.1 prints, tests/pasted/catalogue_examples).
_PLANS14_NEMO = (
    "tests/blind/plans14/cases/1420-genaiex101-nemo-megatron-notebook-apex-build-command-pip-too-old-no-such-option-"
    "config-settings/input.txt"
)
_SKLEARN = "tests/pasted/catalogue_examples/scikit-learn-29653-pip-no-such-option-config-settings.txt"
# The quiet twin, from https://github.com/MPI-IS/mesh/pull/113 (the description, verbatim): the same optparse answer for
# --install-option, which pip removed in 23.1: a pip too new for the command, never one to upgrade.
MESH_INSTALL_OPTION = (
    "Usage:   \n"
    "  pip install [options] <requirement specifier> [package-index-options] ...\n"
    "  pip install [options] -r <requirements file> [package-index-options] ...\n"
    "  pip install [options] [-e] <vcs project url> ...\n"
    "  pip install [options] [-e] <local project path> ...\n"
    "  pip install [options] <archive url/path> ...\n"
    "\n"
    "no such option: --install-option\n"
)


@states("pip-too-old", FIRES)
def test_pip_rejecting_config_settings_upgrades_pip_in_the_interpreter_that_runs_it():
    from pathlib import Path

    for path in (_PLANS14_NEMO, _SKLEARN):
        findings = pasted_findings(Path(path).read_text(encoding="utf-8"))
        f = findings["pip-too-old"]
        assert argv_of(f) == [("python3", "-m", "pip", "install", "--upgrade", "pip"), ("python3", "-m", "pip", "--version")]
        assert not f.remediation.requires_root
        # the pip's age is all the message says: nothing of the GPU stack is blamed beside it
        assert not {c for c in findings if c.startswith(("driver-", "toolkit-", "cudnn-"))}, path


@states("pip-too-old", QUIET)
def test_pip_rejecting_install_option_is_a_pip_too_new_and_not_upgraded():
    assert "pip-too-old" not in pasted_findings(MESH_INSTALL_OPTION)


# pip's user-scheme fallback beside a shell that finds no launcher of the installed package: real data, the DeepSpeed
# report of blind set 20 (deepspeedai/DeepSpeed#3308, bash in a script) and huggingface/huggingface_hub#1512 (zsh on
# macOS, tests/pasted/cases). The quiet twins: a system tool the paste installed nothing for, and the shell's line alone.
_PLANS20_DEEPSPEED = (
    "tests/blind/plans20/cases/2013-ds3308-linux-jupyterhub-vm-conda-base-not-writeable-pip-user-install-deepspeed-"
    "launcher-not-on-path/input.txt"
)
_HFHUB = "tests/pasted/cases/hfhub-1512-macos-pip-user-install-huggingface-cli-zsh-command-not-found/report.txt"
_USER_SCHEME = "$ pip install deepspeed\nDefaulting to user installation because normal site-packages is not writeable\n"


@states("python-scripts-off-path", FIRES)
def test_a_launcher_of_a_user_scheme_install_not_found_puts_the_user_bin_on_path():
    from pathlib import Path

    from gpudoctor.cmdline import Cmd, Output, PrependPath

    for path, program in ((_PLANS20_DEEPSPEED, "deepspeed"), (_HFHUB, "huggingface-cli")):
        f = pasted_findings(Path(path).read_text(encoding="utf-8"))["python-scripts-off-path"]
        prepend, found = f.remediation.commands
        assert isinstance(prepend, PrependPath) and prepend.name == "PATH"
        assert isinstance(prepend.parts[0], Output) and prepend.parts[0].argv[1:] == ("-m", "site", "--user-base")
        assert prepend.parts[1] == "/bin"
        assert isinstance(found, Cmd) and found.argv == ("command", "-v", program)
        assert not f.remediation.requires_root


@states("python-scripts-off-path", QUIET)
def test_a_program_of_no_installed_package_or_no_user_scheme_is_not_the_user_bin():
    other = _USER_SCHEME + "Successfully installed deepspeed-0.9.0\n$ tegrastats\nbash: tegrastats: command not found\n"
    assert "python-scripts-off-path" not in pasted_findings(other)
    alone = "$ deepspeed train.py\nbash: deepspeed: command not found\n"
    assert "python-scripts-off-path" not in pasted_findings(alone)
