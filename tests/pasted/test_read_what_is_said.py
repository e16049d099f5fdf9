"""Read what the paste says, invent nothing (issue 28): five readings of the pasted reader, each on real pasted lines
(the thread's URL beside it) with a quiet twin that must not fire.

1. Every GPU the text names is a fact with its line: several models said to be the machine's are all its devices; a
   comparison names each as a cue, none as a device; a laptop's integrated Intel GPU beside the NVIDIA one is named
   as another vendor's (pasted.read._named_gpu, pasted.cues).
2. A Windows prompt's relative interpreter (".\\python_embeded\\python.exe", "venv\\Scripts\\activate") is the
   interpreter by its full path, the prompt giving the folder; a bare `python` typed at an `(env) PS` prompt names
   none (pasted.cues._prompt_interpreter); a POSIX prompt's relative activation (`. bin/activate` in `~/x$`) and a
   launcher that activates the venv of its folder (kohya_ss's gui.sh, gui.bat) likewise (pasted.cues._prompt_venv).
3. Arch Linux is a word, not a compiler's "-arch" or "Kepler arch" (pasted.build._POSIX_HINT).
5. The driver said in prose ("driver 352.xx", "drivers to version 384.98") is read with its version's shape; a
   CUDA version, alternatives or a bound near the word driver is not (parsers.error_texts._DRIVER_PROSE).
(4, every fact and every cue cites the line that says it, is tests/pasted/test_provenance.py's walk.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.facts import GPU_NAMED, NO_NVIDIA_GPU, OS_NOT_NAMED, OTHER_GPU_BESIDE
from gpudoctor.parsers.error_texts import extract_evidence
from gpudoctor.pasted import load_sources, read_pasted
from gpudoctor.pasted.read import Source, read_sources

ROOT = Path(__file__).resolve().parents[2]


def _input(where: str, prefix: str) -> Path:
    (found,) = (ROOT / where).glob(f"{prefix}*")
    return next(p for p in (found / "report.txt", found / "input.txt") if p.exists())


def _facts(snap: dict) -> dict:
    return {e["fact"]: e for e in snap["pasted"]["read_from"]}


# --- 1. every GPU named ------------------------------------------------------------------------------------------


def test_several_gpus_the_reporter_says_the_machine_has_are_all_its_devices():
    # https://github.com/pytorch/pytorch/issues/31319: "a system where I have a Tesla K80 and two Tesla K40c cards"
    path = _input("tests/pasted/cases", "pytorch-31319")
    snap = read_pasted(load_sources([str(path)]))
    devices = [(d["index"], d["name"], d["compute_capability"]) for d in snap["nvml"]["devices"]]
    assert devices == [(0, "Tesla K80", "3.7"), (1, "Tesla K40c", "3.5"), (2, "Tesla K40c", "3.5")]
    facts = _facts(snap)
    for i in range(3):
        assert [c["line"] for c in facts[f"nvml.devices.{i}"]["lines"]] == [9]


def test_gpus_named_in_a_comparison_are_each_a_fact_but_no_device():
    # Quiet twin, https://github.com/HYUNJS/SGT/issues/5 (the maintainer's machines, not the reporter's): "I have
    # verified" is no having; each model is a cue with its line, none the machine's.
    line = "* I have verified the code with P40, V100, rtx3090, and rtx2080ti."
    g = read_sources([Source("r.txt", line + "\n")])
    assert g.gpus == []
    named = [(c["means"], c["line"]) for c in g.cues if c["cue"] == GPU_NAMED]
    # (V100 is read without "Tesla" too, h288: no other product is spelled so; P40 stays unread, too short a name)
    assert named == [
        ("Tesla V100 (compute capability 7.0)", line),
        ("GeForce RTX 3090 (compute capability 8.6)", line),
        ("GeForce RTX 2080 (compute capability 7.5)", line),
    ]


def test_a_laptops_integrated_intel_gpu_beside_the_nvidia_one_is_named_as_another_vendors():
    # https://learn.microsoft.com/en-us/answers/questions/4098435/windows-11-notification-center-screws-with-my-grap
    line = "-  Display adapters: Intel(R) UHD Graphics and NVIDIA GeForce RTX 2070 with Max-Q Design"
    g = read_sources([Source("r.txt", line + "\n")])
    assert [(x["name"], x["compute_capability"]) for x in g.gpus] == [("NVIDIA GeForce RTX 2070", "7.5")]
    beside = [c for c in g.cues if c["cue"] == OTHER_GPU_BESIDE]
    assert [(c["means"].split(":")[0], c["line"]) for c in beside] == [("Intel(R) UHD Graphics", line.strip())]
    assert not [c for c in g.cues if c["cue"] == NO_NVIDIA_GPU]


def test_the_word_nvidia_alone_puts_no_nvidia_gpu_beside_an_intel_one():
    # Quiet twin, https://github.com/Rudrabha/Wav2Lip/issues/502: "I have not NVIDIA pc" names no NVIDIA GPU.
    line = "sorry , I have not NVIDIA pc,Only  use  Intel(R) Iris(R) Xe  Graphics  notebook, so,I not use wav2lip"
    g = read_sources([Source("r.txt", line + "\n")])
    assert not [c for c in g.cues if c["cue"] in (OTHER_GPU_BESIDE, GPU_NAMED)]
    assert g.gpus == []


# --- 2. the interpreter a Windows prompt shows ------------------------------------------------------------------------


def test_a_relative_python_exe_at_a_prompt_is_the_interpreter_by_its_full_path():
    # Blind set 5's case 446 (its expect.toml names the thread; a blind set's threads are named nowhere else under
    # tests/): "C:\ComfyUI_windows_portable>.\python_embeded\python.exe -s ComfyUI\main.py ..."
    path = _input("tests/blind/plans5/cases", "446-")
    snap = read_pasted(load_sources([str(path)]))
    assert snap["python"]["executable"] == "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe"
    cited = _facts(snap)["python.executable"]["lines"]
    assert [c["line"] for c in cited] == [17]


@pytest.mark.parametrize(
    ("prompt", "interpreter"),
    [
        # The forms of issue 28's gap: PowerShell running a venv's python.exe by a relative path (".\\.venv" too),
        # an environment's activation script, an `(env)` before PS. The folder joined as Windows joins it (ntpath).
        ("PS C:\\work\\app> .\\venv\\Scripts\\python.exe -m pip list", "C:\\work\\app\\venv\\Scripts\\python.exe"),
        ("(.venv) PS C:\\work\\app> .\\.venv\\Scripts\\python.exe x.py", "C:\\work\\app\\.venv\\Scripts\\python.exe"),
        ("PS C:\\work\\app> venv\\Scripts\\activate", "C:\\work\\app\\venv\\Scripts\\python.exe"),
        ("C:\\work\\app>..\\env\\Scripts\\activate.bat", "C:\\work\\env\\Scripts\\python.exe"),
    ],
)
def test_the_forms_of_a_prompts_relative_interpreter(prompt: str, interpreter: str):
    g = read_sources([Source("r.txt", prompt + "\n")])
    assert (g.system, g.interpreter) == ("Windows", interpreter)
    assert [c["line"] for c in g.cues if c["means"] == "the interpreter the plan must use"] == [prompt]


def test_a_bare_python_at_an_environments_powershell_prompt_names_no_interpreter():
    # Quiet twin, blind set 6's case 523: "(trt-llm-py3.10) PS C:\...\trt-llm> python -c ..."
    # is PowerShell (the prompt, with its environment's name, is read as one) but says nothing of where that python is.
    path = _input("tests/blind/plans6/cases", "523-")
    g = read_sources(load_sources([str(path)]))
    assert g.system == "Windows" and g.interpreter is None
    (prompt,) = [c for c in g.cues if c["cue"] == "PowerShell prompt"]
    assert prompt["line"].startswith("(trt-llm-py3.10) PS C:\\Users\\PyroDev\\Documents\\trt-llm> python -c")


@pytest.mark.parametrize(
    "prompt, interpreter",
    [
        # POSIX's forms (kind 8, blind set 17's 1742: `. bin/activate` in `~/.venvs/bgremovers$`): the prompt's folder
        # joined to the activation's relative path, a home folder kept as `~/` for the shell to expand
        ("user@pc:~/.venvs/app$ . bin/activate", "~/.venvs/app/bin/python"),
        ("me@box:/srv/app$ source .venv/bin/activate", "/srv/app/.venv/bin/python"),
        ("me@box:~$ source ./envs/x/bin/activate", "~/envs/x/bin/python"),
    ],
)
def test_a_posix_prompts_relative_activation_names_the_interpreter(prompt: str, interpreter: str):
    g = read_sources([Source("r.txt", prompt + "\n")])
    assert g.interpreter == interpreter
    assert [c["line"] for c in g.cues if c["means"] == "the interpreter the plan must use"] == [prompt]


@pytest.mark.parametrize(
    "prompt",
    [
        "me@box:~$ source ../other/bin/activate",  # climbs out of the folder the prompt shows
        "me@box:app$ source venv/bin/activate",  # a folder not from the root or the home directory
        "me@box:~/x$ conda activate base",  # conda's, named: no path of a venv
        "me@box:/srv/tool$ bash gui.sh",  # a gui.sh of no application whose launcher is known (_VENV_LAUNCHERS)
    ],
)
def test_a_posix_prompt_without_a_relative_activation_names_none(prompt: str):
    g = read_sources([Source("r.txt", prompt + "\n")])
    assert g.interpreter is None


@pytest.mark.parametrize(
    "where, prefix, interpreter",
    [
        # kohya_ss's gui.sh at a container's root prompt in its folder (blind set 17's 1748, FurkanGozukara's thread)
        ("tests/blind/plans17/cases", "1748-", "/workspace/kohya_ss/venv/bin/python"),
        # its gui.bat at PowerShell's prompt (blind set 14's 1438, bmaltais/kohya_ss#1597): the same venv the
        # traceback's site-packages shows
        ("tests/blind/plans14/cases", "1438-", "P:\\AI\\kohya_ss\\venv\\Scripts\\python.exe"),
    ],
)
def test_a_launcher_that_activates_its_folders_venv_names_the_interpreter(where: str, prefix: str, interpreter: str):
    g = read_sources(load_sources([str(_input(where, prefix))]))
    assert g.interpreter == interpreter
    (cue,) = [c for c in g.cues if c["means"] == "the interpreter the plan must use"]
    assert cue["cue"] == "a launcher that activates the venv in its folder"


# --- 3. Arch Linux, not -arch ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        # blind set 2's case 169 (its expect.toml names the thread), line 7
        "this is the latest driver that will support the Kepler arch. I am waiting for RTX Blackwell......",
        # blind set 5's case 417, line 5
        "I may be wrong but 3090 uses compute 86? Cupy is using '-arch=compute_80'.",
    ],
)
def test_arch_in_a_compiler_flag_or_a_gpu_architecture_is_no_linux(line: str):
    snap = read_pasted([Source("r.txt", line + "\n")])
    assert snap["platform"]["system"] == "Linux" and _facts(snap)["platform.system"]["assumed"] is True
    assert OS_NOT_NAMED in {c["cue"] for c in snap["pasted"]["cues"]}


def test_arch_linux_named_is_still_a_posix_system():
    # Quiet twin, https://github.com/nixified-ai/flake/issues/102
    snap = read_pasted([Source("r.txt", "Running the multi-user Nix daemon on Arch Linux but getting this error:\n")])
    assert OS_NOT_NAMED not in {c["cue"] for c in snap["pasted"]["cues"]}


# --- 5. the driver said in prose -------------------------------------------------------------------------------------


def _driver(text: str) -> list[tuple[str, str]]:
    return [
        (e.kind, e.get("version") or e.get("branch") or "")
        for e in extract_evidence(text)
        if e.kind in ("driver-version-said", "driver-branch-said")
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # https://github.com/pytorch/pytorch/issues/3989
        (
            "I updated my NVIDIA drivers to version 384.98, but I'm still getting this error.",
            [("driver-version-said", "384.98")],
        ),
        # https://github.com/pytorch/pytorch/issues/25581
        ("NVIDIA driver's version:384.130", [("driver-version-said", "384.130")]),
        # https://github.com/pytorch/pytorch/issues/696 (the branch alone: no version to compare)
        ("Fails with Cuda 7.5 (driver 352.xx)", [("driver-branch-said", "352")]),
    ],
)
def test_the_driver_said_in_prose_is_read(text: str, said: list[tuple[str, str]]):
    assert _driver(text) == said


@pytest.mark.parametrize(
    "text",
    [
        # alternatives tried: https://github.com/pytorch/pytorch/issues/40682
        "I try to change pytorch version to 1.4.0+cu101, and change nvidia driver version to 451 or 426, but the problem still exist.",
        # a bound, not the machine's: https://github.com/amshafer/nvidia-driver/issues/27
        "PyTorch and Stable Diffusion and / or ComfyUI don't work with an nvidia driver greater than 525 or 535 ?",
        # a range tried: https://github.com/davidmascharka/tbd-nets/issues/2
        "With the NVIDIA driver up to 387.26 or 390.42, Ubuntu cannot identity the NVIDIA driver.",
        # a CUDA version beside the word driver: https://github.com/pytorch/pytorch/issues/3090
        "OSX 10.13 Macbook pro CUDA driver 9.0.197 not recognized",
    ],
)
def test_a_cuda_version_alternatives_or_a_bound_near_the_word_driver_are_no_driver(text: str):
    assert _driver(text) == []


def test_a_driver_said_in_a_whole_report_is_the_snapshots_with_its_line():
    # https://github.com/NVIDIA/nvidia-docker/issues/182: "I accidentally upgraded my nvidia driver version to 367.44"
    path = _input("tests/pasted/cases", "nvidia-docker-182")
    g = read_sources(load_sources([str(path)]))
    (said,) = [e for e in g.errors if e.kind == "driver-version-said"]
    assert said.get("version") == "367.44" and said.line.startswith("While following other installation instructions")


def test_a_driver_branch_said_in_prose_is_not_asked_for_again():
    # https://github.com/pytorch/pytorch/issues/696 (its title, and the error of its traceback): the branch is stated,
    # so nvidia-smi is asked for the driver's full version and the GPUs, the branch named as read.
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted.ask import ask_for

    text = (
        "Fails with Cuda 7.5 (driver 352.xx)\n"
        "AssertionError:\nThe NVIDIA driver on your system is too old (found version 7050).\n"
    )
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("r.txt", text)]), "r")))
    assert [e.get("branch") for e in report.facts.pasted.reported("driver-branch-said")] == ["352"]
    (smi,) = [a for a in ask_for(report.facts, report.findings) if a.command.argv == ("nvidia-smi",)]
    assert "352" in smi.why
