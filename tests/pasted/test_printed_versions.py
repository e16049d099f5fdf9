"""Versions programs print of what they loaded, and floors they state (gpudoctor.pasted.printed,
parsers.error_texts' requirement-stated): recorded pastes, expectations by hand, each with the near miss that must not
fire."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor.parsers.error_texts import extract_evidence
from gpudoctor.pasted.printed import printed_versions
from tests.pasted.cli_json import blind_case, check


def _printed(rel: str) -> list[tuple[str, str, str]]:
    lines = Path(blind_case(rel)).read_text(encoding="utf-8", errors="replace").splitlines()
    return [(p.component, p.version, p.program) for p in printed_versions(lines)]


def _stated(text: str) -> list[tuple[str | None, str | None]]:
    return [(e.get("component"), e.get("need")) for e in extract_evidence(text) if e.kind == "requirement-stated"]


def _commands(doc: dict) -> list[dict]:
    return [c for s in doc["plan"]["steps"] for c in s["commands"]]


def test_the_loaded_cudnn_each_program_prints_in_its_own_form():
    # Paddle's run_check line "device: 0, cuDNN Version: 5.1." (PaddlePaddle/Paddle#58914)
    assert _printed("plans16/cases/1604") == [("cudnn", "5.1", "Paddle")]
    # TensorFlow's "Loaded cuDNN version 8500" (DeepLabCut#1947): cudnnGetVersion()'s integer, cuDNN 8's encoding
    assert _printed("plans13/cases/1351") == [("cudnn", "8.5.0", "")]
    # CuPy's show_config: the runtime's row (7605) read, its "cuDNN Build Version" row not (cupy/cupy#3193)
    assert _printed("plans7/cases/617") == [("cudnn", "7.6.5", "")]
    # cuDNN 9 counts MAJOR*10000: XLA's line for a 9.1.0 library (the decoder: versions.cudnn_from_int)
    assert [p.version for p in printed_versions(["Loaded cuDNN version 90100", "Loaded cuDNN version 8907"])] == [
        "9.1.0",
        "8.9.7",
    ]


def test_form_fields_and_collect_env_rows_are_not_a_loaded_library():
    # a TensorRT issue template's "CUDNN Version: 8.0" (microsoft/onnxruntime#8594), collect_env's "cuDNN version: 8500"
    # (deepspeed#3105), an issue form's "CUDA/cuDNN version", InvokeAI's "cuDNN version: 8901": what the reporter typed or
    # a framework listed, read by the form reader (cudnn-version-said) where it is one, never as a loaded library
    for rel in ("plans8/cases/813", "plans9/cases/925", "plans10/cases/1017", "plans13/cases/1340", "plans3/cases/205"):
        assert _printed(rel) == [], rel


def test_a_stray_older_cudnn_loaded_beside_the_environments_is_the_cudnn_finding_with_the_loader_looks():
    # PaddlePaddle/Paddle#58914 (tests/blind/plans16/cases/1604-*): paddle.version.show() says cuDNN 8.2.1, run_check
    # printed the 5.1 it opened; the conda environment's lib goes first on LD_LIBRARY_PATH, nothing installed
    doc = check(blind_case("plans16/cases/1604"))
    (finding,) = [f for f in doc["findings"] if f["code"] == "cudnn-too-old"]
    assert finding["severity"] == "error" and "cuDNN Version: 5.1." in str(finding["evidence"])
    commands = _commands(doc)
    argvs = [c.get("argv") for c in commands]
    assert ["ldconfig", "-p"] in argvs and ["printenv", "LD_LIBRARY_PATH"] in argvs
    (prepend,) = [c for c in commands if c.get("prepend") == "LD_LIBRARY_PATH"]
    assert prepend["parts"][0]["output_of"][0] == "/home/qurongsheng_2023/anaconda3/envs/pa/bin/python"
    assert not any(a and a[:2] in (["conda", "install"], ["apt-get", "install"]) for a in argvs)
    assert argvs[-1][-1] == "import paddle; paddle.utils.run_check()"
    assert "pasted-error-unexplained" not in {f["code"] for f in doc["findings"]}


def test_a_loaded_cudnn_of_the_held_major_decides_nothing():
    # Paddle printing cuDNN 8.2 for its cuDNN 8 build (PaddlePaddle/Paddle#39090: the fault is the GPU's architecture),
    # TensorFlow's "Loaded cuDNN version 8200" beside a form's cuDNN 8 (tensorflow/tensorflow#50217)
    for rel in ("plans10/cases/1006",):
        doc = check(blind_case(rel))
        assert "cudnn-too-old" not in {f["code"] for f in doc["findings"]}, rel
    doc = check(Path(__file__).parent / "cases" / "038-tensorflow-50217-windows-tf25-cudnn805-vs-810" / "input.txt")
    assert not [f for f in doc["findings"] if f["code"] == "cudnn-too-old" and "Loaded cuDNN" in str(f["evidence"])]


def test_floors_stated_as_comparisons_and_refusals():
    # a driver floor by its number's shape: a three-digit branch is a release ("CUDA Toolkit 10.1 (requires CUDA Driver
    # Version >= 418.39)", barbagroup/petibm's README), a CUDA version is the CUDA the driver supports (a green-context
    # helper's raise: "CUDA green contexts require driver version >= 12.0, got 11.4")
    assert _stated("* CUDA Toolkit 10.1 (requires CUDA Driver Version >= 418.39)") == [("driver", "418.39")]
    assert _stated("RuntimeError: CUDA green contexts require driver version >= 12.0, got 11.4") == [("driver-cuda", "12.0")]
    assert _stated("Driver Not Supported: your driver is older than 535") == [("driver", "535")]
    assert _stated("ImportError: this extension needs cuDNN >= 8.6") == [("cudnn", "8.6")]
    # the near misses: the reporter's own sentence, a capability, CMake's find, an unrelated program's version
    assert _stated("I read that my driver is older than 535") == []
    assert _stated("The minimum required Cuda capability is 3.0.") == []
    assert _stated('-- Found CUDA: /usr/local/cuda (found suitable version "10.1", minimum required is "7.5")') == []
    assert _stated("ffmpeg version 6.0 requires 12.0 or newer") == []


def test_recorded_floors_read_as_before_and_near_misses_stay_quiet():
    # FFmpeg's nvenc floor (tests/blind/plans16/cases/1654-*) and numba's "Requires CUDA 7.5 or above." (1614)
    assert _stated(blind_case("plans16/cases/1654").read_text()) == [("driver", "520.56.06")]
    assert _stated(blind_case("plans16/cases/1614").read_text()) == [("cuda", "7.5")]
    # TensorFlow's "The minimum required Cuda capability is 3.0." (NVIDIA/nvidia-docker#262) and dlib's CMake find
    # (davisking/dlib#1892): no floor of a component
    assert _stated(blind_case("plans16/cases/1620").read_text()) == []
    assert _stated(blind_case("plans10/cases/1051").read_text()) == []


def test_a_driver_floor_stated_as_a_cuda_version_is_judged_against_the_drivers_cuda(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text(
        "RuntimeError: CUDA green contexts require driver version >= 12.0, got 11.4\n"
        "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
    )
    doc = check(paste)
    (finding,) = [f for f in doc["findings"] if f["code"] == "requirement-unmet"]
    assert finding["area"] == "driver" and "525.60.13" in finding["remediation"]["summary"]
    # the same floor met by the driver shown: no finding
    paste.write_text(paste.read_text().replace("11.4  ", "12.2  ").replace("470.82.01", "535.54.03"))
    assert "requirement-unmet" not in {f["code"] for f in check(paste)["findings"]}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="cuDNN Version:device,0123456789. Loaded\n", max_size=400))
def test_the_reader_never_raises_on_any_text(text):
    for p in printed_versions(text.splitlines()):
        assert p.component == "cudnn" and p.version[0].isdigit()


def test_a_refusal_is_judged_with_no_driver_shown_and_a_floor_alone_asks_the_driver(tmp_path):
    paste = tmp_path / "paste.txt"
    # the program compared the driver itself: its verdict, the driver install named at the floor it gave
    paste.write_text("Driver Not Supported: your driver is older than 535\n")
    doc = check(paste)
    (finding,) = [f for f in doc["findings"] if f["code"] == "requirement-unmet"]
    assert finding["area"] == "driver" and "535" in finding["remediation"]["summary"]
    # a floor alone (FFmpeg's nvenc line, as in tests/blind/plans16/cases/1654-* without its nvidia-smi): not judged,
    # the driver asked, and the ask says which floor it decides
    paste.write_text("[hevc_nvenc @ 0x5626962d7ec0] The minimum required Nvidia driver for nvenc is 520.56.06 or newer\n")
    doc = check(paste)
    assert "requirement-unmet" not in {f["code"] for f in doc["findings"]}
    (ask,) = [a for a in doc["pasted"]["ask_for"] if a["argv"] == ["nvidia-smi"]]
    assert "520.56.06" in ask["why"]


def test_omniverses_unsupported_driver_range_is_its_floor(tmp_path):
    # Omniverse Kit's driver check as isaac-sim/IsaacLab#4244 quotes it: the range's open end is the floor, judged
    # against the "Installed driver" it prints beside it (535.18 is older than 535.129: 18 < 129, not a decimal)
    text = (
        "[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is unsupported or has known "
        "issues.\nReason for failure: The minimum Omniverse RTX requirement on Linux\nInstalled driver: {}\n"
        "The unsupported driver range: [0.0, 535.129)\n"
    )
    assert _stated(text.format("535.18")) == [("driver", "535.129")]
    paste = tmp_path / "paste.txt"
    paste.write_text(text.format("535.18"))
    (finding,) = [f for f in check(paste)["findings"] if f["code"] == "requirement-unmet"]
    assert "535.129" in finding["remediation"]["summary"]
    # the near miss: a driver the range leaves out
    paste.write_text(text.format("550.54.14"))
    assert "requirement-unmet" not in {f["code"] for f in check(paste)["findings"]}
