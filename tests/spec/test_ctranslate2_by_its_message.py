"""CTranslate2 read from its own CUDA error wording (catalogue.toml: ctranslate2-cuda-failed), where the text does not
name it: its CUDA_CHECK's "CUDA failed with error " + the runtime's string (OpenNMT/CTranslate2 src/cuda/utils.h). With a
driver shown below CUDA 12, "driver version is insufficient" is CTranslate2 4.x's (framework-driver-too-old, its CUDA 11
build), not the torch installed beside it.

Real data: the GPT-SoVITS ASR report of blind set 14
(tests/blind/plans14/cases/1439-gptsovits-1048-proxmox-vm-centos8-tesla-m40-driver-515-asr-ctranslate2-cuda12-driver-insufficient/input.txt)
and https://github.com/jianchang512/stt/issues/83 (the description's log lines, verbatim: an app's speech-to-text on
faster-whisper, not named). Quiet twin: https://github.com/sandrohanea/whisper.net/issues/83 (whisper.cpp's own
"CUDA error 35 at ...ggml-cuda.cu:420" for the same runtime error: not CTranslate2)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.pasted import Source, read_pasted
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

STT_83 = (
    "CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"
    "[2024-09-19 08:34:53,361] ERROR in start: [api]error: CUDA failed with error CUDA driver version is insufficient "
    "for CUDA runtime version\n"
)
WHISPER_NET_83 = (
    "CUDA error 35 at Z:\\Projects\\sandro\\whisper.net\\whisper.cpp\\ggml-cuda.cu:420: CUDA driver version is "
    "insufficient for CUDA runtime version\n"
)


def _ct2_lines(text: str) -> list[str]:
    snap = read_pasted([Source("t", text)])
    entries = (e.get("values", {}).get("entry", "") for e in snap["pasted"]["errors"])
    return [x for x in entries if x.startswith("ctranslate2-")]


@states("framework-driver-too-old", FIRES)
def test_ctranslate2s_wording_on_a_cuda_11_driver_moves_ctranslate2_not_torch():
    (case,) = Path("tests/blind/plans14/cases").glob("1439-*")
    text = (case / "input.txt").read_text(encoding="utf-8")
    findings = pasted_findings(text)
    f = findings["framework-driver-too-old"]
    # driver 515 stops at CUDA 11.7: CTranslate2's CUDA 11 build (compat_matrix/libraries.toml), torch left as it is
    assert argv_of(f)[0] == ("python3", "-m", "pip", "install", "ctranslate2==3.24.0")
    assert not [w for c in argv_of(f) for w in c if w.startswith("torch")]
    assert _ct2_lines(STT_83) == ["ctranslate2-cuda-failed"]


@states("framework-driver-too-old", QUIET)
def test_another_programs_driver_insufficient_is_not_ctranslate2s():
    assert _ct2_lines(WHISPER_NET_83) == []
