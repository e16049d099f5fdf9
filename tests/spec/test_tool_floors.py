"""Every printed command can succeed on the machine of its era (issue 27, kinds 3 and 8), on whole recorded cases.

gpudoctor.planner.tool_floors holds the release a tool needs for the option a command uses; the consequence model
(gpudoctor.planner.needs) fails a command whose tool is shown too old, or whose release nothing shown decides and no
earlier command asks; the planner (gpudoctor.planner.deciders.with_release_asks) asks it first. Each rule here has its
quiet twin: a machine whose shown release is new enough keeps the short command. Also held: a package tool of another
distribution family (whole words of os-release's ID and ID_LIKE), root on a cluster whose administrator reports, and
POSIX programs on a Windows prompt. Expectations written by hand from each case's input.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks import run_checks
from gpudoctor.cmdline import Cmd
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.model import Remediation, Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.planner import tool_floors
from gpudoctor.planner.consequences import consequences
from gpudoctor.planner.deciders import released
from gpudoctor.planner.prescribe import Prescription, Step
from gpudoctor.planner.remedy import family

TESTS = Path(__file__).resolve().parent.parent
BLIND = TESTS / "blind"
# The recorded cases, by path (never plans10).
K8S_NVIDIA_DOCKER2 = BLIND / "plans9/cases/901-k8sdp23-k8s18-docker-default-runtime-not-nvidia-could-not-load-nvml"
CTK_SHOWN_1_13 = BLIND / "plans/cases/028-tgi904-toolkit-installed-docker-not-configured"
CONTAINERD_NODE = BLIND / "plans4/cases/307-k8sdp1246-containerd-default-runtime-runc-plugin-sees-no-gpu"
NGC_DOCKER_RUN = BLIND / "plans5/cases/418-acc1501-ngc2304-pip-xformers-replaced-container-torch-te-undefined-symbol"
DOCKER_24_SHOWN = BLIND / "plans8/cases/812-ctk150-docker-script-unknown-runtime-nvidia-sudo-run-works-ask"
TENCENTOS = BLIND / "plans9/cases/916-vllm11623-tencentos-py38-user-site-vllm-cu121-torch240-cu121-driver-cuda114"
SLURM_ADMIN = BLIND / "plans5/cases/408-pyxis47-slurm-pyxis-enroot-no-constraindevices-cuda-visible-devices-2-no-device"
WINDOWS_FORGE = TESTS / "machines/windows-forge-torch21-cu121-driver-cuda114/snapshot.json"
APEX_PY37 = BLIND / "plans8/cases/803-apex428-anaconda-py37-torch12-fused-layer-norm-undefined-symbol-gettype"
PIP_23_SHOWN = TESTS / "machines/ci-docker-cuda13-no-gpu/snapshot.json"
PY310_NO_PIP_SHOWN = TESTS / "machines/rtx4090-flashattn257-torch230-setdevice/snapshot.json"
DEEPSPEED_SSH = BLIND / "plans6/cases/515-ds1481-multinode-pdsh-remote-ranks-run-usr-bin-python-no-gpus"
SINGULARITY_RUN = BLIND / "plans9/cases/931-alphafold873-singularity-exec-without-nv-libcuda-missing-cpu-fallback"
K8S_SHM = BLIND / "plans5/cases/433-prodstack276-k8s-vllm-tp2-dev-shm-64m-nccl-shm-segment"


def _checked(case: Path):
    if case.suffix == ".json":
        snap = load_snapshot(str(case))
    else:
        text = (case / "input.txt").read_bytes().decode("utf-8-sig", errors="replace")
        snap = validate_snapshot(read_pasted([Source("input.txt", text)]), case.name)
    return check(ReplayHost(snap), CheckRequest())


def _argvs(done) -> list[tuple[str, ...]]:
    return [tuple(str(a) for a in c.argv) for s in done.plan.steps for c in s.commands if isinstance(c, Cmd)]


def _unmet(done, plan=None):
    got = consequences(plan or done.plan, done.report.facts, done.report.findings, lambda f: run_checks(f)[0])
    return [v for v in got.violations if v.kind == "unmet-precondition"]


def _without(done, argv: tuple[str, ...]) -> Prescription:
    steps = tuple(
        Step(s.component, s.summaries, tuple(c for c in s.commands if not (isinstance(c, Cmd) and c.argv == argv)),
             s.codes, s.severity, s.requires_root, s.where, s.alternatives)
        for s in done.plan.steps
    )  # fmt: skip
    return Prescription(steps, done.plan.target)


CONFIGURE_DOCKER_DEFAULT = ("nvidia-ctk", "runtime", "configure", "--runtime=docker", "--set-as-default")


def test_nvidia_docker2_node_asks_the_toolkit_release_before_nvidia_ctk():
    # "I install nvidia-docker2 ... kubernetes 1.8": no nvidia-ctk release shown; runtime configure came with 1.11.
    done = _checked(K8S_NVIDIA_DOCKER2)
    argvs = _argvs(done)
    assert ("nvidia-ctk", "--version") in argvs
    assert argvs.index(("nvidia-ctk", "--version")) < argvs.index(CONFIGURE_DOCKER_DEFAULT)
    assert _unmet(done) == []
    # The plan without the ask fails the consequence check, naming the floor and the ask that decides it.
    (v,) = _unmet(done, _without(done, ("nvidia-ctk", "--version")))
    assert v.command == "sudo nvidia-ctk runtime configure --runtime=docker --set-as-default"
    assert "1.11.0" in v.reason and "nvidia-ctk --version" in v.reason


def test_toolkit_release_shown_keeps_the_short_command():
    # Quiet twin: "NVIDIA Container Toolkit CLI version 1.13.5" is in the paste; 1.13.5 >= 1.11.0.
    done = _checked(CTK_SHOWN_1_13)
    got = tool_floors.shown(done.report.facts, tool_floors.TOOLKIT)
    assert got is not None and (got.version, got.exact) == ("1.13.5", True)
    assert got.line.startswith("NVIDIA Container Toolkit CLI version 1.13.5")
    argvs = _argvs(done)
    assert ("nvidia-ctk", "runtime", "configure", "--runtime=docker") in argvs
    assert ("nvidia-ctk", "--version") not in argvs
    # Its docker run --gpus is kept without docker --version: moby's "could not select device driver" proves 19.03.
    assert ("docker", "--version") not in argvs
    assert any(a[:3] == ("docker", "run", "--gpus") for a in argvs)
    assert _unmet(done) == []


def test_a_shown_release_below_the_floor_fails_and_is_moved_into_prose():
    # On the same recorded machine (toolkit 1.13.5), containerd's configure needs 1.14.0.
    done = _checked(CTK_SHOWN_1_13)
    cmd = Cmd(("nvidia-ctk", "runtime", "configure", "--runtime=containerd", "--set-as-default"), root=True)
    step = Step("container", ("configure containerd",), (cmd,), ("container-no-gpu",), Severity.ERROR, True, "the host")
    (v,) = _unmet(done, Prescription((step,), "posix"))
    assert "1.14.0" in v.reason and "1.13.5" in v.reason
    r = released(Remediation("Configure containerd.", (Cmd(("nvidia-ctk", "cdi", "generate")), cmd)), done.report.facts)
    assert [c.argv for c in r.commands] == [("nvidia-ctk", "cdi", "generate")]  # 1.12.0 is enough for it
    assert "1.14.0 or newer is needed" in r.summary and "1.13.5" in r.summary
    assert "nvidia-ctk runtime configure --runtime=containerd --set-as-default" in r.summary


def test_containerd_configure_asks_for_the_1_14_release():
    done = _checked(CONTAINERD_NODE)
    argvs = _argvs(done)
    at = argvs.index(("nvidia-ctk", "runtime", "configure", "--runtime=containerd", "--set-as-default"))
    assert argvs[at - 1] == ("nvidia-ctk", "--version")
    assert _unmet(done) == []


def test_docker_run_gpus_asks_the_docker_release_where_none_is_shown():
    done = _checked(NGC_DOCKER_RUN)
    argvs = _argvs(done)
    run = next(a for a in argvs if a[:3] == ("docker", "run", "--gpus"))
    assert argvs[argvs.index(run) - 1] == ("docker", "--version")
    assert _unmet(done) == []
    (v,) = _unmet(done, _without(done, ("docker", "--version")))
    assert "19.03.0" in v.reason


def test_docker_release_shown_and_toolkit_installed_keep_the_short_commands():
    # Quiet twin: "docker version 24.0.7, build afdd53b" is shown, and the plan installs the toolkit before nvidia-ctk.
    done = _checked(DOCKER_24_SHOWN)
    assert tool_floors.shown(done.report.facts, tool_floors.DOCKER).version == "24.0.7"
    argvs = _argvs(done)
    assert ("docker", "--version") not in argvs and ("nvidia-ctk", "--version") not in argvs
    assert argvs.index(("apt-get", "install", "-y", "nvidia-container-toolkit")) < argvs.index(
        ("nvidia-ctk", "runtime", "configure", "--runtime=docker")
    )
    assert _unmet(done) == []


def test_pip_config_settings_asks_the_environments_pip_release():
    # A 2019 Anaconda (Python 3.7, torch 1.2): --config-settings came with pip 22.1; the paste shows no pip release.
    done = _checked(APEX_PY37)
    argvs = _argvs(done)
    install = next(a for a in argvs if "--config-settings" in a)
    assert argvs[argvs.index(install) - 1] == ("/usr/local/anaconda3-tf1/bin/python", "-m", "pip", "--version")
    assert _unmet(done) == []
    (v,) = _unmet(done, _without(done, ("/usr/local/anaconda3-tf1/bin/python", "-m", "pip", "--version")))
    assert "pip 22.1" in v.reason


def test_pip_release_in_the_package_list_keeps_the_short_command():
    # Quiet twin: the recorded environment lists pip 23.2.1, past both pip floors.
    done = _checked(PIP_23_SHOWN)
    got = tool_floors.shown(done.report.facts, tool_floors.PIP)
    assert got is not None and got.version == "23.2.1"
    cmd = Cmd(("python3", "-m", "pip", "install", "--no-build-isolation", "--config-settings", "--build-option=--x", "."))
    r = Remediation("Rebuild.", (cmd,))
    assert released(r, done.report.facts) is r
    step = Step("torch", ("rebuild",), (cmd,), (), Severity.ERROR, False, "")
    assert not [v for v in _unmet(done, Prescription((step,), "posix")) if "pip" in v.reason and "or newer" in v.reason]


def test_a_python_from_3_8_bounds_pip_below_but_not_its_release():
    # A recorded Python 3.10.12 environment whose package list shows no pip: every pip on Python 3.8 or newer is 10.0
    # or newer, so --no-build-isolation (pip 10.0) is printed without asking pip's release, while --config-settings
    # (pip 22.1) still is asked (the bound is a floor, not the release: exact=False).
    done = _checked(PY310_NO_PIP_SHOWN)
    got = tool_floors.shown(done.report.facts, tool_floors.PIP)
    assert got is not None and (got.version, got.exact) == ("10.0.0", False)
    isolation = Cmd(("python3", "-m", "pip", "install", "--no-build-isolation", "flash-attn"))
    r = Remediation("Rebuild.", (isolation,))
    assert released(r, done.report.facts) is r
    settings = Cmd(("python3", "-m", "pip", "install", "--config-settings", "--build-option=--x", "."))
    asked = released(Remediation("Rebuild.", (settings,)), done.report.facts)
    assert [tuple(c.argv) for c in asked.commands if isinstance(c, Cmd)] == [
        ("python3", "-m", "pip", "--version"),
        tuple(settings.argv),
    ]
    # and the quiet side: a Python 3.7 (APEX_PY37) has no such bound
    assert tool_floors.shown(_checked(APEX_PY37).report.facts, tool_floors.PIP) is None


def test_ssh_nodes_are_not_listed_with_kubectl():
    # DeepSpeed's pdsh launch over ssh: no Kubernetes anywhere, so no kubectl; the nodes are the person's hostfile.
    done = _checked(DEEPSPEED_SSH)
    assert [code for s in done.plan.steps for code in s.codes] == ["ranks-python-differs"]
    assert not [a for a in _argvs(done) if a[0] == "kubectl"]
    # Quiet twin: a pod kubectl names (vLLM on Kubernetes) keeps kubectl's listing.
    assert [a for a in _argvs(_checked(K8S_SHM)) if a[0] == "kubectl"] == [("kubectl", "get", "pods", "-o", "wide")]


def test_apptainer_fails_where_the_report_runs_singularity():
    # "singularity exec ~/01.Biosoft/03.Sif/alphafold.simg ...": the plan repeats it with --nv, as singularity.
    done = _checked(SINGULARITY_RUN)
    assert any(a[:3] == ("singularity", "exec", "--nv") for a in _argvs(done))
    assert _unmet(done) == []
    step = Step("container", ("rerun",), (Cmd(("apptainer", "exec", "--nv", "alphafold.simg", "nvidia-smi")),),
                (), Severity.ERROR, False, "")  # fmt: skip
    (v,) = _unmet(done, Prescription((step,), "posix"))
    assert v.reason == "the report runs singularity: Singularity has no apptainer command"


def test_tencentos_is_rhel_by_whole_words_and_dnf_is_its_tool():
    # "OS: TencentOS Linux 3.1 (Core)": ID tencentos (ID_LIKE "rhel fedora centos"); "centos" is no substring match.
    done = _checked(TENCENTOS)
    assert done.report.facts.platform.distro.id == "tencentos"
    assert family(done.report.facts) == "rhel"
    assert ("dnf", "module", "list", "nvidia-driver") in _argvs(done)
    assert _unmet(done) == []


def test_a_cluster_whose_administrator_reports_keeps_its_root_steps():
    # "here is our cgroup.conf": the reporter administers the Slurm cluster; the root steps are theirs to run.
    done = _checked(SLURM_ADMIN)
    argvs = _argvs(done)
    assert ("systemctl", "restart", "slurmd") in argvs
    assert ("echo", "ConstrainDevices=yes") in argvs
    assert _unmet(done) == []


def test_posix_programs_fail_on_a_windows_prompt():
    done = _checked(WINDOWS_FORGE)
    assert _unmet(done) == []  # its own plan: the venv's python.exe
    step = Step("torch", ("reinstall",), (Cmd(("python3", "-m", "pip", "list")), Cmd(("sudo", "nvidia-smi"))),
                (), Severity.ERROR, False, "")  # fmt: skip
    reasons = [v.reason for v in _unmet(done, Prescription((step,), "powershell"))]
    assert reasons == [
        "python3 is not a Windows program: the step runs on Windows",
        "sudo is not a Windows program: the step runs on Windows",
    ]


def test_no_recorded_case_prints_a_command_whose_precondition_is_unmet():
    # Every recorded case, as tools/precondition_count.py counts them (issue 27). Before: 2 under the old model (one of
    # them false: TencentOS read as no RHEL), 22 once the model read the tools' releases (7 nvidia-ctk, 4 docker run
    # --gpus, 11 pip --no-build-isolation or --config-settings) and sudo in a cluster's commands; 0 after the planner
    # asks the releases first. With a Python probe's needs and the asks counted (tool_floors.CALLS, SMI_FIELDS; sets 3
    # to 13): 3 before the asks' filter (plans10 1001 and 1028, plans11 1104), 0 after.
    from tools.blind_sets import BLIND
    from tools.precondition_count import cases, unmet

    names = [name for name, _ in cases()]
    assert not any(n.startswith(BLIND + ":") for n in names) and len(names) > 900  # never the blind set being collected
    found = [(name, v.command, v.reason) for name, path in cases() for v in unmet(path)]
    assert found == []


TRT_ENGINE_R470 = next((BLIND / "plans17/cases").glob("1706-*"))


def _step_of(done, argv: tuple[str, ...]) -> tuple[str, ...]:
    """The codes of the plan step that prints `argv`."""
    (step,) = [s for s in done.plan.steps if any(isinstance(c, Cmd) and tuple(map(str, c.argv)) == argv for c in s.commands)]
    return tuple(step.codes)


def test_every_checks_step_is_printed_in_the_form_the_tool_shown_runs():
    # The planner's filter (deciders.released) holds every check's step to the release the report shows, with
    # tool_floors.runnable among its rules (it was applied by the TensorRT engine check alone).
    # The TensorRT engine check, on a GTX 1050 Ti whose form says driver 470.129.06 (plans17 1706): R470's nvidia-smi has
    # no compute_cap field, so the step queries the GPUs' names.
    trt = _checked(TRT_ENGINE_R470)
    names = ("nvidia-smi", "--query-gpu=index,name", "--format=csv")
    assert _step_of(trt, names) == ("tensorrt-engine-not-portable",)
    assert not [a for a in _argvs(trt) if any("compute_cap" in w for w in a)]
    # The container runtime's check, on a node set up with nvidia-docker2 (plans9 901): nvidia-ctk's release is not
    # shown, so it is asked before the command that needs 1.11.
    ctk = _checked(K8S_NVIDIA_DOCKER2)
    assert _step_of(ctk, ("nvidia-ctk", "--version")) == _step_of(ctk, CONFIGURE_DOCKER_DEFAULT)
    assert _step_of(ctk, CONFIGURE_DOCKER_DEFAULT) != _step_of(trt, names)
    # And the same query in any other check's fix is printed in its older form on that machine.
    query = Cmd(("nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv"))
    other = released(Remediation("Find the GPU's capability.", (query,), component="driver"), trt.report.facts)
    assert [c.argv for c in other.commands] == [("nvidia-smi", "--query-gpu=name", "--format=csv")]
    # Quiet twin: with no driver shown the field stays.
    assert released(Remediation("x", (query,), component="driver"), ctk.report.facts).commands == (query,)
