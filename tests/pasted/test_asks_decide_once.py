"""Asks that decide, and nothing the paste already answers (issues 27/28, h199), on whole pasted cases.

gpudoctor.pasted.ask: an ask declares the fact its answer states (Ask.fact, else fact_of its command) and is not asked
where the pasted reader found that fact already; a filtered listing is not asked beside the same listing whole; a
failure about the GPU's own state (catalogue.toml's subject "device": error 46) asks the compute mode and the processes
holding the GPU, where the program runs, and nothing of the framework's build; a Slurm job's id is read from the job's
own environment (squeue --me exists only from Slurm 20.11); over MAX_ASKS, the asks least about the failure are left out.
Each rule with its quiet twin, expectations by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.pasted.ask import MAX_ASKS
from gpudoctor.planner.where import IN_JOB
from tests.pasted.cli_json import asked, blind_case, check, paste

ROOT = Path(__file__).resolve().parents[2]
_COMPUTE_MODE = ["nvidia-smi", "--query-gpu=index,uuid,compute_mode", "--format=csv"]
_HOLDERS = ["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"]


def _reads_build(argv: list[str]) -> bool:
    return "torch.utils.collect_env" in argv or (("pip" in argv or "conda" in argv) and "list" in argv)


def _notes(doc: dict) -> dict[tuple[str, ...], str]:
    return {tuple(a["argv"]): a.get("note", "") for a in doc["pasted"]["ask_for"]}


def test_busy_or_unavailable_in_a_slurm_job_asks_the_compute_mode_and_its_holders_inside_the_job():
    # tests/blind/plans13/cases/1352-*: "Cuda device busy or unavailable" (the reporter's words) in a one-GPU Slurm job
    # running a Singularity image: which GPU the job got, its compute mode and who holds it decide; the build does not
    doc = check(blind_case("plans13/cases/1352-jadehpc-59"))
    asks, notes = asked(doc), _notes(doc)
    assert [e["kind"] for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "cuda-devices-unavailable"]
    assert notes[tuple(_COMPUTE_MODE)] == IN_JOB and notes[tuple(_HOLDERS)] == IN_JOB
    assert not [a for a in asks if _reads_build(a)]
    # the job's id from its own environment, on any Slurm release; the image file the paste ran is filled in
    assert ["printenv", "SLURM_JOB_ID"] in asks and not [a for a in asks if a[0] == "squeue"]
    assert ["singularity", "exec", "--nv", "pytorch.simg", "nvidia-smi"] in asks
    assert not [a for a in asks if a[0] == "find"]  # (no listing of image files: the paste names it)


def test_the_same_job_failing_on_its_build_keeps_the_build_asks(tmp_path):
    # quiet twin: the same whole paste with its failure line a build's ("no kernel image"): the build decides again
    text = blind_case("plans13/cases/1352-jadehpc-59").read_text(encoding="utf-8")
    assert "Cuda device busy or unavailable" in text
    text = text.replace("Cuda device busy or unavailable", "CUDA error: no kernel image is available for execution on the device")
    doc = paste(tmp_path, text)
    asks = asked(doc)
    assert [a for a in asks if _reads_build(a)]
    assert _COMPUTE_MODE not in asks


_ERROR_46 = "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"


@pytest.mark.parametrize(("mode", "found"), [("Exclusive_Process", True), ("Default", False)])
def test_the_compute_mode_asked_is_read_back(tmp_path, mode, found):
    # the answer to the compute-mode ask, pasted back under the error: a restricting mode is the finding; Default
    # (the quiet twin) is not
    answer = f"index, uuid, compute_mode\n0, GPU-5d0a3f3e-1b2c-4d5e-8f90-0123456789ab, {mode}\n"
    doc = paste(tmp_path, _ERROR_46 + "$ nvidia-smi --query-gpu=index,uuid,compute_mode --format=csv\n" + answer)
    codes = [f["code"] for f in doc["findings"]]
    assert ("gpu-compute-mode-restricted" in codes) is found


@pytest.mark.parametrize(
    ("case", "unasked"),
    [
        # the GPU named (RTX 3070 in the form): nvidia-smi -L would list it again
        ("plans5/cases/448-detectron2-2225", ["nvidia-smi", "-L"]),
        # LD_LIBRARY_PATH's value printed in the paste
        ("plans3/cases/227-mxnet3829", ["printenv", "LD_LIBRARY_PATH"]),
        # a Tesla K80 named: its name and compute capability (3.7, the matrix's) are known
        ("plans11/cases/1104-xgb8493", ["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv"]),
    ],
)
def test_an_ask_whose_fact_the_paste_states_is_not_asked(case, unasked):
    assert unasked not in asked(check(blind_case(case)))


def test_an_ask_whose_fact_the_paste_does_not_state_is_asked():
    # quiet twin: tests/blind/plans3/cases/216-*: the driver stated in an issue form, no GPU anywhere: -L is asked
    assert ["nvidia-smi", "-L"] in asked(check(blind_case("plans3/cases/216-trt2218")))


def test_a_listing_asked_whole_is_not_asked_again_filtered():
    # tests/pasted/cases/jax-5272-*: a jaxlib too old for print_environment_info and an unknown environment: the whole
    # `pip list` is asked, so its `| grep -i jax` would print lines the whole one prints already
    doc = check(ROOT / "tests/pasted/cases/jax-5272-jaxlib-0156-cuda101-libm-needs-glibc223/report.txt")
    lists = [a for a in doc["pasted"]["ask_for"] if a["argv"][1:] == ["-m", "pip", "list"]]
    assert [a["command"] for a in lists] == ["python3 -m pip list"]


def test_a_listing_asked_only_filtered_stays():
    # quiet twin: tests/pasted/cases/deepcluster-56-*: faiss's packages asked with no whole listing beside
    doc = check(ROOT / "tests/pasted/cases/deepcluster-56-conda-faiss-cpu-no-standardgpuresources/report.txt")
    lists = [a["command"] for a in doc["pasted"]["ask_for"] if a["argv"][1:] == ["-m", "pip", "list"]]
    assert lists == ["python3 -m pip list | grep -i faiss"]


def test_a_report_over_the_cap_leaves_out_what_is_least_about_the_failure():
    # tests/blind/plans4/cases/309-*: TensorFlow in a container under WSL 2 finds no device, nine asks before the cap:
    # WSL's own questions (a Linux driver shadowing WSL's, the libcuda the container resolves) and the failure's
    # (its catalogued message, its symptom family) stay; the general probe of TensorFlow's build goes
    doc = check(blind_case("plans4/cases/309-tf60429"))
    asks = asked(doc)
    assert len(asks) == MAX_ASKS
    assert ["dpkg", "-l"] in asks and ["ls", "-l", "/usr/lib/wsl/lib"] in asks
    assert [a for a in asks if a[:2] == ["docker", "run"] and "ldconfig" in a]
    assert not [a for a in asks if "python3" in a]


def test_a_report_under_the_cap_keeps_its_general_asks():
    # quiet twin: tests/blind/plans13/cases/1352-*, seven asks: the general nvidia-smi -L stays beside the failure's
    asks = asked(check(blind_case("plans13/cases/1352-jadehpc-59")))
    assert len(asks) < MAX_ASKS and ["nvidia-smi", "-L"] in asks
