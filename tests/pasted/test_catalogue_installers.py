"""The installers' messages (catalogue.toml's installer family: pip, conda and mamba, uv) on their real examples: the
finding where the paste decides it, else the ask that decides it, and nothing the installer refused read as
installed; quiet twins where the same words are not an installer's failure."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.facts import REPORTER_COMMAND
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
INTERPRETER = ("-c", "import sys, platform; print(sys.version, platform.machine(), sys.maxsize > 2**32)")


def _run(name: str | None = None, text: str | None = None):
    text = text if text is not None else next(EXAMPLES.glob(name + "*")).read_text(encoding="utf-8")
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [(a.command.argv, a.command.pipe) for a in ask_for(report.facts, report.findings)]
    return snapshot, {f.code: f for f in report.findings}, asks


def test_pip_with_another_pythons_releases_asks_the_interpreter_and_nothing_else():
    # wwbin2017/bailing#32: torch 2.4.1 asked, 2.2.x held for the reporter's interpreter, which the paste does not show.
    _, codes, asks = _run("bailing-32")
    assert set(codes) == {"pasted-error-unexplained"}
    assert asks == [(("python3", *INTERPRETER), ())]


def test_pip_with_no_release_at_all_asks_the_interpreters_width_too():
    # milksense/venus#8: "from versions: none" (a 32-bit Python, said in a comment): sys.maxsize > 2**32 decides it.
    snapshot, codes, asks = _run("venus-8")
    assert "python-no-wheel" not in codes
    assert asks == [(("python3", *INTERPRETER), ())]
    assert {e.get("entry") for e in map(_Ev, snapshot["pasted"]["errors"])} >= {
        "pip-no-version-satisfies",
        "pip-no-matching-distribution",
    }


def test_a_refused_wheel_is_not_read_as_the_installed_torch_and_the_windows_interpreter_is_asked():
    # jhc13/taggui#34: the Python 3.10.9 is in prose only, so the interpreter (Windows' python) is asked.
    snapshot, codes, asks = _run("taggui-34")
    assert "torch" not in snapshot.get("python", {}).get("distributions", {})
    assert "python-no-wheel" not in codes
    assert asks == [(("python", *INTERPRETER), ())]


def test_pips_companion_conflict_moves_torchvision_to_the_installed_torch():
    # 2kpr/ComfyUI-PMRF#11: torchvision 0.19.1 (torch 2.4.1's) beside torch 2.5.1; 0.20.1 is built for 2.5.1.
    _, codes, _ = _run("comfyui-pmrf-11")
    f = codes["companion-torch-mismatch"]
    assert [c.argv for c in f.remediation.commands] == [
        ("python3", "-m", "pip", "install", "--force-reinstall", "--no-deps", "torchvision==0.20.1")
    ]


def test_pips_conflict_line_names_the_companion_and_its_cuda_variant_moves_with_torchs():
    # The line as comfy-cli#234 quotes it (a cu121 torchaudio left on torch 2.5.1 after torch moved to 2.4.0).
    text = "torchaudio 2.5.1+cu121 requires torch==2.5.1+cu121, but you have torch 2.4.0+cu121 which is incompatible.\n"
    _, codes, _ = _run(text=text)
    f = codes["companion-torch-mismatch"]
    assert f.title.startswith("torchaudio ")
    assert [c.argv for c in f.remediation.commands] == [
        (
            "python3",
            *("-m", "pip", "install", "--force-reinstall", "--no-deps", "torchaudio==2.4.0"),
            *("--index-url", "https://download.pytorch.org/whl/cu121"),
        )
    ]


def test_pips_conflict_line_quoted_in_prose_is_read_by_the_catalogue_and_said_to_be_pips():
    # comfy-cli#234 quotes the line after an emoji, where no package listing is read: the catalogue's entry decides.
    text = "🔴 torchaudio 2.5.1+cu121 requires torch==2.5.1+cu121, but you have torch 2.4.0+cu121 which is incompatible.\n"
    _, codes, _ = _run(text=text)
    f = codes["companion-torch-mismatch"]
    assert f.title == "torchaudio is built for another torch than the installed 2.4.0+cu121"
    assert f.detail.startswith("pip said so: torchaudio 2.5.1+cu121 requires torch==2.5.1+cu121")
    assert any("torchaudio==2.4.0" in c.argv for c in f.remediation.commands)


def test_resolution_impossible_asks_the_interpreter():
    _, codes, asks = _run("tabular-transfer-learning-1")
    assert set(codes) == {"pasted-error-unexplained"}
    assert asks == [(("python3", *INTERPRETER), ())]


def test_ubuntus_externally_managed_python_is_a_venv_not_break_system_packages():
    # Comfy-Org/ComfyUI#3554: Ubuntu 24.04; the reporter's fix was a virtual environment.
    _, codes, asks = _run("comfyui-3554")
    f = codes["python-externally-managed"]
    assert [c.argv[:4] for c in f.remediation.commands] == [
        ("apt-get", "update"),  # apt's index refreshed before the install (planner.remedy.apt_install)
        ("apt-get", "install", "-y", "python3-venv"),
        ("python3", "-m", "venv", ".venv"),
        (".venv/bin/python", "-m", "pip", "install"),
    ]
    assert "pasted-error-unexplained" not in codes and asks == []


def test_nothing_provides_cuda_asks_conda_info_and_the_driver():
    # escape2020/school2022#37: a laptop without an NVIDIA GPU; conda info's virtual packages show no __cuda there.
    _, codes, asks = _run("school2022-37")
    assert set(codes) == {"pasted-error-unexplained"}
    assert asks == [(("conda", "info"), ()), (("nvidia-smi",), ())]


def test_conda_48s_cuda_driver_conflict_carries_the_drivers_cuda_and_asks_conda_info():
    snapshot, _, asks = _run("shogun-38")
    (e,) = [e for e in map(_Ev, snapshot["pasted"]["errors"]) if e.get("entry") == "conda-incompatible-with-cuda-driver"]
    assert e.get("cuda") == "10.2"
    assert (("conda", "info"), ()) in asks


def test_packages_not_found_names_the_package_and_asks_conda_info():
    # myshell-ai/OpenVoice#83: cudatoolkit=11.7 from the pytorch and nvidia channels on win-64.
    snapshot, _, asks = _run("openvoice-83")
    (e,) = [e for e in map(_Ev, snapshot["pasted"]["errors"]) if e.get("entry") == "conda-packages-not-found"]
    assert e.get("package") == "cudatoolkit=11.7"
    assert asks == [(("conda", "info"), ())]


def test_libmamba_unsatisfiable_asks_conda_info():
    _, _, asks = _run("hydrodl-24")
    assert asks == [(("conda", "info"), ())]


def test_uvs_abi_message_is_decided_and_its_requirement_is_not_the_installed_torch():
    # astral-sh/uv#8344: torch 1.12.0+cu113 for CPython 3.11; its wheels are cp37m to cp310.
    snapshot, codes, asks = _run("uv-8344")
    assert "torch" not in snapshot.get("python", {}).get("distributions", {})
    assert [c.argv for c in codes["python-no-wheel"].remediation.commands] == [("uv", "venv", "--python", "3.10")]
    assert asks == []


def test_uvs_platform_message_is_decided_without_a_command():
    _, codes, asks = _run("uv-8746")
    f = codes["python-no-wheel"]
    assert "macosx_15_0_x86_64" in f.title and f.remediation.commands == ()
    assert asks == []


def test_a_conflict_line_of_a_package_that_is_no_companion_is_not_a_companion_mismatch():
    text = "tensorflow 2.12.0 requires numpy<1.24,>=1.22, but you have numpy 1.26.4 which is incompatible.\n"
    _, codes, _ = _run(text=text)
    assert "companion-torch-mismatch" not in codes


def test_a_successful_install_reads_no_installer_failure():
    text = (
        "Requirement already satisfied: filelock in ./.venv/lib/python3.11/site-packages (from torch) (3.13.1)\n"
        "Defaulting to user installation because normal site-packages is not writeable\n"
        "Successfully installed torch-2.4.1 torchvision-0.19.1\n"
    )
    snapshot, codes, _ = _run(text=text)
    assert not [e for e in snapshot["pasted"]["errors"] if e["kind"].startswith(("installer-", "conda-"))]
    assert not codes


class _Ev:
    """An error text of the snapshot, read like ErrorEvidence (its values by name)."""

    def __init__(self, raw: dict) -> None:
        self.raw = raw

    def get(self, key: str):
        return dict(self.raw.get("values") or []).get(key)


def test_pip_out_of_disk_asks_where_pips_places_are_and_their_free_space():
    # steamship-langchain#57: a 620 MB torch wheel on a full disk.
    _, codes, asks = _run("steamship-langchain-57")
    assert set(codes) == {"pasted-error-unexplained"}
    assert [argv[1:3] for argv, _ in asks] == [("-c", asks[0][0][2]), ("-m", "pip")]
    assert "shutil.disk_usage" in asks[0][0][2] and "tempfile.gettempdir()" in asks[0][0][2]
    assert asks[1][0] == ("python3", "-m", "pip", "cache", "dir")


def test_a_user_site_install_is_no_failure_and_asks_what_lives_there():
    # flathub/com.vscodium.codium#235: pip in a sandbox installing torch into the user's site-packages.
    snapshot, codes, asks = _run("vscodium-flatpak-235")
    assert not codes
    assert "pip-user-install-said" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    # (the interpreter the paste shows, h266: pip's "Requirement already satisfied ... in SITE" names it)
    assert (("/var/data/python/bin/python", "-m", "pip", "list", "--user"), ()) in asks


def test_uv_syncs_lock_without_a_wheel_for_this_platform_is_asked_not_decided():
    # astral-sh/uv#10843: the lock holds only a linux_aarch64 torch 2.5.1 from the cu124 index (which has win_amd64
    # wheels): the lock lacks it, not the index, so no python-no-wheel.
    _, codes, asks = _run("uv-10843")
    assert "python-no-wheel" not in codes and "pasted-error-unexplained" in codes
    assert [argv[1:] for argv, _ in asks] == [INTERPRETER]


def test_an_environment_file_for_another_platform_asks_conda_info():
    # CompVis/stable-diffusion#145: an x86-64 environment file (cudatoolkit, pytorch) on an aarch64 machine.
    _, codes, asks = _run("stable-diffusion-145")
    assert set(codes) == {"pasted-error-unexplained"}
    assert asks == [(("conda", "info"), ())]


def test_libmambas_missing_package_asks_conda_info():
    _, _, asks = _run("pytorch-cpu-feedstock-372")
    assert asks == [(("conda", "info"), ())]


def test_uvs_externally_managed_python_is_uvs_own_venv_without_system_or_sudo():
    # astral-sh/uv#15635: `sudo uv pip install --system` selected the uv-managed Python.
    _, codes, asks = _run("uv-15635")
    f = codes["python-externally-managed"]
    assert [c.argv[:3] for c in f.remediation.commands] == [("uv", "venv"), ("uv", "pip", "install")]
    assert not any(c.root for c in f.remediation.commands) and asks == []


def test_a_32_bit_python_shown_by_collect_env_is_why_pip_finds_no_torch():
    # pytorch/pytorch#47354: collect_env's "Python version: 3.7 (32-bit runtime)" beside pip's "Could not find a
    # version" (the title's, without its versions list); PyTorch publishes no 32-bit Windows wheels (pytorch#40511).
    _, codes, asks = _run("pytorch-47354")
    f = codes["python-no-wheel"]
    assert f.title == "torch has no wheel for a 32-bit Python 3.7"
    assert "64-bit (x86-64) Python 3.7" in f.remediation.summary
    # the launcher's 64-bit check only: the pip command that failed is not shown, so none is run again
    assert [c.argv for c in f.remediation.commands] == [("py", "-3.7-64", "-c", "import struct; print(struct.calcsize('P') * 8)")]
    assert asks == []


def test_pypy_shown_by_collect_env_is_why_pip_finds_no_torch_and_the_asked_pin_is_not_installed():
    # pytorch/pytorch#97865: torch==2.0.0 (from versions: none) for PyPy 7.3.11 (Python 3.9.16); the requirements
    # file's "torch==2.0.0" line is what was asked, not what is installed.
    snapshot, codes, asks = _run("pytorch-97865")
    f = codes["python-no-wheel"]
    assert f.title == "torch has no wheel for PyPy (the interpreter is PyPy 7.3.11)"
    assert "CPython 3.9" in f.remediation.summary and f.remediation.commands == ()
    assert "torch" not in snapshot.get("python", {}).get("distributions", {})
    assert asks == []


_LONG_PATHS = ("reg", "add", "HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem", "/v", "LongPathsEnabled")


def _long_path_argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in finding.remediation.commands]


def test_pip_past_windows_max_path_enables_long_paths_then_restarts_and_reruns():
    # CorentinJ/Real-Time-Voice-Cloning#358: a Microsoft Store Python's 269-character path under tensorboard-plugin-wit;
    # plans11/1106: a virtualenv in a deep project folder, a 266-character cudnn_frontend header of tensorflow 2.6.0,
    # whose `pip install --upgrade tensorflow` the plan's last step runs again (tests/pasted/test_resume.py): the
    # finding's own commands end at the restart, with no `<packages>` to fill in
    for (snapshot, codes, _), rerun in (
        (_run("rtvc-358"), ("python", "-m", "pip", "install")),
        (
            _run(
                text=(
                    Path(__file__).resolve().parents[1]
                    / "blind/plans11/cases/1106-tf51841-windows10-venv-long-project-path-pip-tf260-oserror-errno2-max-path"
                    / "input.txt"
                ).read_text(encoding="utf-8")
            ),
            None,
        ),
    ):
        assert snapshot["platform"]["system"] == "Windows"
        finding = codes["windows-long-paths-disabled"]
        argvs = _long_path_argvs(finding)
        assert argvs[1][: len(_LONG_PATHS)] == _LONG_PATHS and argvs[1][-3:] == ("/d", "1", "/f")
        assert argvs[2] == ("shutdown", "/r", "/t", "0")
        assert (argvs[3][:4] if rerun else argvs[3:]) == (rerun or [])
        assert finding.remediation.requires_root
        assert "pasted-error-unexplained" not in codes


def test_pips_own_long_path_hint_is_windows_and_the_same_finding():
    # FengWei2000/CBIR#2: pip's HINT (printed only on Windows) with the path cut from the paste
    snapshot, codes, _ = _run("cbir-2")
    assert snapshot["platform"]["system"] == "Windows"
    assert _long_path_argvs(codes["windows-long-paths-disabled"])[1][: len(_LONG_PATHS)] == _LONG_PATHS


def test_a_short_path_pip_could_not_find_is_no_long_path():
    # the quiet twin: the same OSError on a short path (a requirements file that is not there) is not MAX_PATH
    text = (
        "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
        "'C:\\\\Users\\\\me\\\\project\\\\requirements-gpu.txt'\n"
    )
    _, codes, _ = _run(text=text)
    assert "windows-long-paths-disabled" not in codes


def test_pips_windows_path_cut_in_the_text_is_a_long_path_warning_that_reads_the_registry_first():
    # tensorflow/tensorflow#45462 (https://github.com/tensorflow/tensorflow/issues/45462): the OSError in the issue's
    # title, cut inside a Microsoft Store Python's path; tests/blind/plans13/cases/1303-* (input.txt): an Anaconda
    # environment's path cut where the paste ends. Its length cannot be counted: a warning, the registry read first.
    for snapshot, codes, _ in (
        _run("tensorflow-45462"),
        _run(
            text=next((Path(__file__).resolve().parents[1] / "blind/plans13/cases").glob("1303-*"))
            .joinpath("input.txt")
            .read_text(encoding="utf-8")
        ),
    ):
        assert snapshot["platform"]["system"] == "Windows"
        finding = codes["windows-long-paths-disabled"]
        assert finding.severity.name == "WARNING"
        argvs = _long_path_argvs(finding)
        assert argvs[0][:2] == ("reg", "query") and argvs[0][-1] == "LongPathsEnabled"
        assert argvs[1][: len(_LONG_PATHS)] == _LONG_PATHS and argvs[2] == ("shutdown", "/r", "/t", "0")
        assert "pasted-error-unexplained" not in codes
    # 1303's install typed at its prompt, failing as pip 18 said it (no "ERROR:" before it): the plan's last step runs
    # it again, so the finding's own commands end at the restart, with no `<packages>` to fill in
    assert len(argvs) == 3
    assert [c["means"] for c in snapshot["pasted"]["cues"] if c["cue"] == REPORTER_COMMAND] == [
        "pip install tf-nightly-2.0-preview"
    ]


def test_an_install_that_went_through_at_a_prompt_is_no_failing_command():
    # the quiet twin: the same prompt and install, pip's output ending in success: nothing failed to run again
    text = (
        "(tf_daily) C:\\Users\\me>pip install tf-nightly-2.0-preview\nCollecting tf-nightly-2.0-preview\n"
        "Successfully installed tf-nightly-2.0-preview-1.13.0.dev20190108\n"
    )
    snapshot, _, _ = _run(text=text)
    assert not [c for c in snapshot["pasted"]["cues"] if c["cue"] == REPORTER_COMMAND]


def test_a_wrapped_short_path_or_a_cut_posix_path_is_no_long_path():
    # the quiet twins: a short path a terminal wrapped (the whole path is read, and it is short), and the same OSError
    # cut on a POSIX path (no drive letter: not Windows' MAX_PATH)
    for text in (
        "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: 'C:\\\\Users\\\\me"
        "\\\\project\n\\\\requirements-gpu.txt'\n",
        "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: '/home/me/.venv/lib/pyt\n",
    ):
        _, codes, _ = _run(text=text)
        assert "windows-long-paths-disabled" not in codes


def _cl_said(text: str):
    snapshot, codes, asks = _run(text=text)
    return [e for e in snapshot["pasted"]["errors"] if e["kind"] == "nvcc-host-compiler-missing"], codes, asks


def test_the_reporter_saying_cl_exe_is_not_found_is_nvccs_missing_host_compiler():
    # plans11/1123: "I add the 'cl.exe' to PATH, but still says can not found." above a cargo build cut before nvcc's line;
    # IDEA-Research/GroundingDINO#49: "在Windows系统中安装该项目 nvcc 执行命令时未找到cl.exe" (nvcc found no cl.exe)
    case = "1123-candle2241-windows-cargo-build-candle-kernels-cuda124-nvcc-cannot-find-cl-exe-in-path-ask"
    text = (Path(__file__).resolve().parents[1] / "blind/plans11/cases" / case / "input.txt").read_text(encoding="utf-8")
    for said in (
        text,
        "在Windows系统中安装该项目 nvcc 执行命令时未找到cl.exe 可是我环境变量都没问题 我也测试过了，为什么会这样呢\n",
    ):
        errors, codes, asks = _cl_said(said)
        assert [e["values"]["entry"] for e in errors] == ["nvcc-cannot-find-cl"]
        assert "pasted-error-unexplained" in codes
        assert (("where.exe", "cl"), ()) in asks


def test_cl_exe_found_or_nvccs_own_line_is_not_said_again():
    # the quiet twins: xmake-io/xmake#1391's probe finding cl.exe; nvcc's own line (the catalogue reads it, once)
    found = "checking for cl.exe ... C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\Community\\VC\\Tools\\MSVC\\14.28.29910\\bin\\HostX64\\x64\\cl.exe\n"
    assert _cl_said(found)[0] == []
    own = "I added cl.exe to PATH but it cannot be found\nnvcc fatal   : Cannot find compiler 'cl.exe' in PATH\n"
    assert len(_cl_said(own)[0]) == 1
