"""Every printed command in the reporter's platform, shell, distribution and interpreter (issue 27, kind 8), on whole
recorded cases: a PowerShell cmdlet said to be PowerShell's (gpudoctor.cmdline), a Unix `find` never asked on Windows
and each package tool in the family the paste shows or after the family is asked (gpudoctor.pasted.ask), the module
asked by modinfo on every distribution (catalogue.toml), a ComfyUI portable build's own python (gpudoctor.pasted.read,
read by gpudoctor.planner.where); each ask placed where the program runs (a compose service, its image, a Dockerfile's
image: gpudoctor.planner.where), an environment under ~/ its interpreter, no journal of a server started by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, Unrenderable, render_lines
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.planner.remedy import family

ROOT = Path(__file__).resolve().parents[2]
BLIND = ROOT / "tests" / "blind"
EXAMPLES = ROOT / "tests" / "pasted" / "catalogue_examples"


def _case(set_: str, prefix: str) -> Path:
    return next((BLIND / set_ / "cases").glob(prefix + "-*")) / "input.txt"


def _check(path: Path):
    text = path.read_text(encoding="utf-8")
    snap = validate_snapshot(read_pasted([Source(path.name, text)]), path.parent.name)
    done = check(ReplayHost(snap), CheckRequest())
    assert not done.report.internal_errors, done.report.internal_errors
    return done


def _asks(done) -> list[tuple[tuple[str, ...], tuple[str, ...], str]]:
    return [(tuple(map(str, a.command.argv)), tuple(map(str, a.command.pipe)), a.command.note or "") for a in done.asks]


# -- the shell: a cmdlet is PowerShell's own ---------------------------------------------------------------------------


def test_a_cmdlet_is_never_written_for_cmd_and_is_said_to_be_powershells():
    assert render_lines(Cmd(("Restart-Computer",), root=True), "windows") == [
        "# as Administrator, in PowerShell",
        "Restart-Computer",
    ]
    with pytest.raises(Unrenderable):
        render_lines(Cmd(("Restart-Computer",)), "cmd")
    # quiet twin: programs both shells run keep one line for both, with no PowerShell note
    assert render_lines(Cmd(("shutdown", "/r", "/t", "0")), "windows") == ["shutdown /r /t 0"]
    assert render_lines(Cmd(("nvidia-smi", "-q")), "cmd") == ["nvidia-smi -q"]


@pytest.mark.parametrize(
    "path",
    [
        _case("plans10", "1036"),  # a Windows VM's vGPU, the step labelled "cmd.exe or PowerShell"
        EXAMPLES / "a1111-6790-windows-venv-launch-timed-out.txt",  # AUTOMATIC1111/stable-diffusion-webui#6790
    ],
)
def test_the_tdr_steps_restart_and_reg_lines_run_in_both_shells(path):
    done = _check(path)
    assert done.plan.target == "windows"
    [step] = [s for s in done.plan.steps if "windows-tdr-timeout" in s.codes]
    lines = {c.argv[0]: render_lines(c, "windows") for c in step.commands}
    # shutdown.exe, not the Restart-Computer cmdlet: a plan for "cmd.exe or PowerShell" runs in either (plans10/1036)
    assert [c.words for c in step.commands if c.words[0] in ("shutdown", "Restart-Computer")] == [("shutdown", "/r", "/t", "0")]
    assert lines["shutdown"] == ["# as Administrator", "shutdown /r /t 0"]
    assert not any("in PowerShell" in ln for ln in lines["reg"])  # (the last reg line: both shells run it)


def test_a_linux_restart_stays_reboot():
    # quiet twin: a Linux report's restart (the NVML mismatch a reboot clears) is reboot, as before
    done = _check(ROOT / "tests" / "pasted" / "cases" / "machine-shop-60-nvml-mismatch-reboot" / "report.txt")
    words = [c.words for s in done.plan.steps for c in s.commands if c.words[0] in ("reboot", "shutdown")]
    assert ("reboot",) in words and not any(w[0] == "shutdown" for w in words)


# -- the platform: Unix find is not asked on Windows -----------------------------------------------------------------


def test_a_unix_find_is_not_asked_of_a_windows_report():
    done = _check(_case("plans10", "1024"))  # TensorFlow's XLA on Windows 10, libdevice not found
    assert done.report.facts.platform.system == "Windows"
    assert not any(argv[0] == "find" for argv, _, _ in _asks(done))
    # its other asks of the same message stay (the dir of the toolkit's nvvm\libdevice is in the plan)
    assert any(argv[0] == "where.exe" for argv, _, _ in _asks(done))


@pytest.mark.parametrize(
    "path",
    [
        _case("plans10", "1001"),  # jaxlib on Linux, libdevice not under /usr/local/cuda-10.1
        EXAMPLES / "tensorflow-60790-libdevice-not-found.txt",  # tensorflow/tensorflow#60790
    ],
)
def test_quiet_twin_find_stays_on_linux(path):
    asks = _asks(_check(path))
    assert ("find", "/", "-path", "*/nvvm/libdevice/libdevice*.bc") in [argv for argv, _, _ in asks]


# -- the distribution: the family first, one family's tool only on it -------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        _case("plans10", "1040"),  # Jellyfin in Podman on a host the text does not name (Rocky 8)
        _case("plans6", "541"),  # Frigate in Docker, libnvcuvid missing on the host
    ],
)
def test_with_no_family_shown_the_distribution_is_asked_before_a_package_query(path):
    done = _check(path)
    assert family(done.report.facts) == "unknown"
    asks = _asks(done)
    at = next(i for i, (argv, _, _) in enumerate(asks) if argv[0] == "dpkg")
    assert asks[at - 1] == (("cat", "/etc/os-release"), (), "on the host")  # where the dpkg ask runs
    assert [argv for argv, _, _ in asks].count(("cat", "/etc/os-release")) == 1


def test_quiet_twin_a_debian_report_keeps_dpkg_and_is_not_asked_its_family():
    done = _check(_case("plans5", "432"))  # Jellyfin in Docker on Debian 11
    assert family(done.report.facts) == "debian"
    argvs = [argv for argv, _, _ in _asks(done)]
    assert any(argv[0] == "dpkg" for argv in argvs)
    assert ("cat", "/etc/os-release") not in argvs


@pytest.mark.parametrize(
    "path",
    [
        _case("plans10", "1044"),  # Fedora 34 with RPM Fusion's akmods (the text names no distribution)
        ROOT / "tests" / "pasted" / "cases" / "gcp-gpu-install-33-driver-525-build-fails-kernel-61" / "report.txt",
    ],
)
def test_the_module_is_asked_by_modinfo_which_every_distribution_has_not_dkms(path):
    argvs = [argv for argv, _, _ in _asks(_check(path))]
    assert ("modinfo", "-F", "filename", "nvidia") in argvs
    assert not any(argv[0] == "dkms" for argv in argvs)


# -- the interpreter: a portable build's own python ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "python"),
    [
        (
            _case("plans9", "932"),  # ComfyUI portable on a Tesla M40: frames only, no interpreter line
            "D:\\stable-diffusion\\ComfyUI_windows_portable\\python_embeded\\python.exe",
        ),
        (_case("plans5", "446"), "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe"),
    ],
)
def test_a_comfyui_portable_builds_frames_name_its_python_embeded(path, python):
    done = _check(path)
    pythons = [argv[0] for argv, _, _ in _asks(done) if "python" in argv[0].lower()]
    assert pythons and set(pythons) == {python}


@pytest.mark.parametrize(
    ("path", "python"),
    [
        # a portable folder whose packages the traceback shows in another Python: that one ran it
        (_case("plans7", "633"), "E:\\py\\python.exe"),
        # StabilityMatrix's ComfyUI package, not the portable build: its own venv
        (_case("plans4", "339"), "C:\\Users\\Pc\\source\\repos\\SD\\Data\\Packages\\ComfyUI\\venv\\Scripts\\python.exe"),
    ],
)
def test_quiet_twin_the_python_a_traceback_shows_stays(path, python):
    from gpudoctor.planner.where import python_exe

    assert python_exe(_check(path).report.facts) == python


# -- the place: an ask goes where the program runs, as a step does (gpudoctor.planner.where) -------------------------


def _pythons(done) -> list[tuple[str, ...]]:
    """The asks that run a Python interpreter, each as its argv."""

    def runs_python(w: str) -> bool:
        return w in ("python", "python3") or w.endswith(("/bin/python", "python.exe"))

    return [argv for argv, _, _ in _asks(done) if any(runs_python(w) for w in argv)]


def test_a_compose_services_python_is_asked_in_the_service():
    done = _check(_case("plans10", "1009"))  # sglang's compose spec pasted, Triton's Python.h missing in its image
    assert _pythons(done) and all(argv[:4] == ("docker", "compose", "exec", "sglang") for argv in _pythons(done))
    # the plan's step and the ask are one command: the views print it once, in the step
    from gpudoctor.pasted.ask import not_in_plan

    # (the Python.h ask is the step's first command; another read in the service, vLLM's build beside torch, stays)
    assert not any("sysconfig" in " ".join(a.command.argv) for a in not_in_plan(done.asks, done.plan))
    assert any("sysconfig" in " ".join(argv) for argv in _pythons(done))


def test_an_image_run_without_gpus_is_asked_in_that_image():
    done = _check(ROOT / "tests" / "pasted" / "cases" / "floydhub-3-docker-run-without-nvidia-runtime" / "report.txt")
    image = ("docker", "run", "--rm", "--entrypoint", "python3", "floydhub/pytorch:latest-gpu-py3")
    assert {argv[:6] for argv in _pythons(done)} == {image}
    assert ("-m", "pip", "list") in {argv[6:] for argv in _pythons(done)}


def test_a_dockerfiles_program_is_asked_in_its_image_never_on_the_host():
    done = _check(_case("plans10", "1021"))  # a Dockerfile FROM gdal that pip-installs TensorFlow
    assert _pythons(done) == []  # no python3 typed on the host
    # the image is the reporter's build: its name is asked for, with the command it fills
    [images] = [a for a in done.asks if a.command.words == ("docker", "images")]
    assert "docker run --rm --gpus all --entrypoint python3 <image>" in images.why


def test_a_singularity_images_program_is_asked_in_the_image_with_the_driver_bound_in():
    done = _check(_case("plans9", "931"))  # AlphaFold's `singularity exec ~/.../alphafold.simg python ...`, no --nv
    image = ("singularity", "exec", "--nv", "~/01.Biosoft/03.Sif/alphafold.simg", "python")
    assert _pythons(done) and {argv[:5] for argv in _pythons(done)} == {image}  # the image's python, as its command ran
    assert render_lines(Cmd((*image, "-m", "pip", "list")), "posix") == [
        "singularity exec --nv ~/01.Biosoft/03.Sif/alphafold.simg python -m pip list"
    ]


def test_a_host_program_keeps_python3():
    # quiet twin: the user site (~/.local) holds the packages of the system's python3, the interpreter asked
    done = _check(_case("plans4", "354"))
    assert _pythons(done) and all(argv[0] == "python3" for argv in _pythons(done))


# -- the interpreter: an environment under ~/ (gpudoctor.pasted.read, quoted by gpudoctor.cmdline) --------------------


def test_an_environment_under_home_is_the_interpreter_and_keeps_its_tilde():
    done = _check(_case("plans10", "1046"))  # ~/conda_envs/metalprediction/lib/python3.8/site-packages in the trace
    py = "~/conda_envs/metalprediction/bin/python"
    assert _pythons(done) and all(argv[0] == py for argv in _pythons(done))
    assert render_lines(Cmd((py, "-m", "torch.utils.collect_env")), "posix") == [f"{py} -m torch.utils.collect_env"]


def test_a_tilde_is_bare_only_before_a_slash():
    assert render_lines(Cmd(("ls", "~/my env")), "posix") == ["ls ~/'my env'"]
    # quiet twins: another user's home and a lone tilde stay literal words
    assert render_lines(Cmd(("ls", "~root/x", "~")), "posix") == ["ls '~root/x' '~'"]


# -- the service: a program started by hand has no systemd journal (gpudoctor.pasted.ask) ----------------------------


def test_a_server_started_by_hand_is_not_asked_for_its_journal():
    done = _check(_case("plans10", "1035"))  # ./ollama-linux-amd64, the portable binary, run by hand
    assert not any(argv[0] == "journalctl" for argv, _, _ in _asks(done))
    # quiet twin: Ollama on a Linux host with nothing run by hand keeps its service's journal
    twin = _check(EXAMPLES / "ollama-9298-no-nvidia-devices-detected-by-library.txt")
    assert ("journalctl", "-u", "ollama", "--no-pager") in [argv for argv, _, _ in _asks(twin)]


def test_a_server_docker_compose_started_is_asked_for_composes_log_not_a_journal():
    done = _check(_case("plans8", "834"))  # `docker compose up` of a project with an Ollama service, in WSL 2
    asks = [argv for argv, _, _ in _asks(done)]
    assert ("docker", "compose", "logs") in asks and not any(argv[0] == "journalctl" for argv in asks)


def test_a_webui_launcher_runs_its_venv_even_where_the_paste_never_says_venv():
    done = _check(_case("plans10", "1037"))  # "open webui-user.bat", A1111's footer, a NansException on a GTX 1650 SUPER
    assert _pythons(done) and all(argv[0] == "venv\\Scripts\\python.exe" for argv in _pythons(done))
    # quiet twin: the release package's run.bat runs the web UI with its own system\python, not a venv
    twin = _check(_case("plans4", "345"))
    assert _pythons(twin) and all(argv[0].endswith("\\system\\python\\python.exe") for argv in _pythons(twin))


def test_a_read_of_the_programs_own_environment_is_asked_where_it_runs():
    # the image a docker run started: its variables, not the host's (llama.cpp's server-cuda image, error 804)
    done = _check(_case("plans10", "1033"))
    run = ("docker", "run", "--rm", "--gpus", "all", "--entrypoint", "printenv", "ghcr.io/ggml-org/llama.cpp:server-cuda")
    assert (*run, "LD_LIBRARY_PATH") in [argv for argv, _, _ in _asks(done)]
    # the container a docker exec names: its variables and its loader's cache
    asks = [argv for argv, _, _ in _asks(_check(_case("plans9", "903")))]
    assert ("docker", "exec", "slowfast", "printenv", "NVIDIA_DRIVER_CAPABILITIES") in asks
    assert ("docker", "exec", "slowfast", "ldconfig", "-p") in asks
    assert not any(argv[0] in ("printenv", "ldconfig") for argv in asks)


def test_a_loader_read_beside_the_container_hook_stays_the_hosts():
    # quiet twin: nvidia-container-cli runs on the host and reads the host's ldconfig cache (immich, compose)
    done = _check(_case("plans7", "639"))
    assert (("ldconfig", "-p"), ("grep", "libnvidia-ml")) in [(argv, pipe) for argv, pipe, _ in _asks(done)]
