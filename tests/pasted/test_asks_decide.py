"""An ask names, as data, the findings whose fix its answer decides (pasted.ask.Ask.codes, the JSON's
ask_for[].codes): a finding left without a plan step is either answered by a command or linked to the question that
completes it, never left in prose (issue 27, kind 9). tools/prose_fixes.py counts the findings that are neither."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli
from tools import prose_fixes

ROOT = Path(__file__).resolve().parents[2]
BLIND = ROOT / "tests" / "blind"


def _doc(*args: str) -> dict:
    code, out, err = run_cli("check", *args, "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _pasted(case: str) -> dict:
    return _doc("--from", str(BLIND / case / "input.txt"))


def _deciding(doc: dict, code: str) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"] if code in a.get("codes", ())]


def test_a_source_built_extension_for_another_torch_with_neither_version_shown_is_rebuilt_here():
    # flash-attn's undefined c10::Error symbol, in a conda env whose torch and flash-attn versions the text never
    # shows (Dao-AILab/flash-attention via open-r1#684): its setup.py builds against the torch installed in the
    # interpreter that runs pip, so the fix is the rebuild there: torch and the release installed read first, the
    # broken build removed, then a local build forced of the release pip picks (issue 27, kind 9: decided with the
    # assumption named on the install, not a placeholder to fill in).
    doc = _pasted("plans3/cases/247-openr1-684-conda-torch260-flashattn280-undefined-symbol")
    (step,) = [s for s in doc["plan"]["steps"] if "extension-symbol-missing" in s["codes"]]
    cmds = step["commands"]
    assert "import torch, torch.utils.cpp_extension" in cmds[0]["argv"][-1]
    assert cmds[1]["argv"][1:] == ["-m", "pip", "show", "flash-attn"]
    assert cmds[2]["argv"][1:] == ["-m", "pip", "uninstall", "-y", "flash-attn"]
    assert cmds[3] == {"set": "FLASH_ATTENTION_FORCE_BUILD", "value": "TRUE"}
    assert cmds[4]["argv"][1:] == ["-m", "pip", "install", "--no-build-isolation", "--no-cache-dir", "flash-attn"]
    assert _deciding(doc, "extension-symbol-missing") == []


def test_an_extension_whose_fix_is_printed_links_no_ask():
    # The twin: torchaudio's stale sox build with torch's version shown (pytorch/audio#99): the step holds the fix, so
    # no ask is said to decide it.
    doc = _pasted("plans3/cases/215-audio99-torch-sox-undefined-symbol-stale-build")
    assert [s for s in doc["plan"]["steps"] if "extension-symbol-missing" in s["codes"] and s["commands"]]
    assert _deciding(doc, "extension-symbol-missing") == []
    assert ("extension-symbol-missing", "acted") in prose_fixes.judge(doc)


def test_an_unexplained_failure_is_decided_by_every_ask():
    # "no kernel image is available" alone (CSAILVision/semantic-segmentation-pytorch#6): the finding itself says to
    # ask for what is listed, so each ask names it.
    doc = _doc("--replay", "tests/machines/unifiedparsing-6-no-kernel-image-alone/snapshot.json")
    assert "pasted-error-unexplained" in {f["code"] for f in doc["findings"]}
    asks = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert asks == [["nvidia-smi"], ["python3", "-m", "pip", "list"]]
    assert _deciding(doc, "pasted-error-unexplained") == asks


def test_asks_beside_an_explained_failure_name_no_unexplained_one():
    doc = _pasted("plans3/cases/247-openr1-684-conda-torch260-flashattn280-undefined-symbol")
    assert doc["pasted"]["ask_for"]
    assert _deciding(doc, "pasted-error-unexplained") == []


def test_the_measure_reads_each_column_from_the_reports_structure():
    # A fix printed (the container recreated with the video capability: NVIDIA/DALI#2362), a fix that is another GPU
    # (a GeForce 820M, compute capability 2.1, below every PyTorch build: pytorch/pytorch#6515), and a toolkit fix
    # left in prose (nvcc 11.7 for an RTX 4090 on native Windows, where no install command is printed).
    video = _pasted("plans9/cases/903-dali2362-docker-exec-container-videoreader-libnvcuvid-no-video-capability")
    assert ("container-video-capability-missing", "acted") in prose_fixes.judge(video)
    fermi = _doc("--from", "tests/pasted/cases/pytorch-6515-geforce-820m-cc21-too-old/report.txt")
    assert ("framework-arch-unsupported", "hardware") in prose_fixes.judge(fermi)
    windows = _doc("--replay", "tests/real/oobabooga-torch200-cpu-windows-rtx4090/snapshot.json")
    assert dict(prose_fixes.judge(windows)) == {"toolkit-arch-unsupported": "prose", "framework-cpu-build": "acted"}


def test_an_nvcc_too_old_for_the_gpu_with_no_torch_shown_asks_for_the_builds_torch():
    # nvcc 11.5 and an RTX 4090 (compute 8.9) in a pointnet2 build, no torch shown (facebookresearch/3detr#59): which
    # torch builds it, and its CUDA, decide between this nvcc with TORCH_CUDA_ARCH_LIST and another toolkit.
    doc = _pasted("plans7/cases/637-3detr59-rtx4090-nvcc115-no-compute89-pointnet2-extension")
    asks = _deciding(doc, "toolkit-arch-unsupported")
    assert [a[:2] for a in asks] == [["python3", "-c"]]
    assert "torch.version.cuda" in asks[0][2]
    assert ("toolkit-arch-unsupported", "asked") in prose_fixes.judge(doc)


def test_an_nvcc_too_old_for_the_gpu_beside_a_shown_torch_asks_nothing_of_it():
    # The twin: detectron2 in a CUDA 11.0 image on an RTX 3070 with torch shown (facebookresearch/detectron2#2225): the
    # step prints the build; no ask is said to decide it.
    doc = _pasted("plans5/cases/448-detectron2-2225-docker-cuda110-nvcc-rtx3070-compute86-unsupported")
    assert _deciding(doc, "toolkit-arch-unsupported") == []
    assert ("toolkit-arch-unsupported", "acted") in prose_fixes.judge(doc)
