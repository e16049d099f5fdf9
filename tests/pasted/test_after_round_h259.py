"""After-round h259: JAX/ColabFold and TensorFlow library mismatches of blind set 18. TensorFlow 1.x's "Loaded runtime
CuDNN library: 7301 (compatibility version 7300)" line read with its integer versions dotted and its equal-minor rule
(parsers.error_texts._cudnn_loaded_values, checks.reported._cudnn_minor_differs). Recorded pastes of different threads,
expectations by hand."""

from __future__ import annotations

from tests.pasted.cli_json import blind_case, check, paste
from tests.pasted.test_pasted import CASES_DIR


def _finding(doc: dict, code: str) -> dict | None:
    return next((f for f in doc["findings"] if f["code"] == code), None)


def _step(doc: dict, code: str) -> dict:
    return next(s for s in doc["plan"]["steps"] if code in s["codes"])


def test_a_tf1_build_refusing_a_newer_cudnn_minor_is_told_the_compiled_minor_outside_conda():
    # balancap/SSD-Tensorflow#340 (tests/blind/plans18/cases/1870-*): 7301 loaded, 7003 compiled; dotted, not compared
    # as integers, and the newer minor is the fault (not an "older" cuDNN)
    doc = check(blind_case("plans18/cases/1870"))
    found = _finding(doc, "cudnn-too-old")
    assert found is not None
    said = [e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "cudnn-version-mismatch"]
    assert said and dict(said[0]["values"]) == {"loaded": "7.3.1", "compiled": "7.0.3", "rule": "equal-minor"}
    argv = [c["argv"] for c in _step(doc, "cudnn-too-old")["commands"]]
    assert ["ldconfig", "-p"] in argv
    assert not any(a[:2] == ["conda", "install"] or "pip" in a for a in argv)


def test_the_same_refusal_in_a_conda_env_installs_the_compiled_minor_into_that_env():
    # qianguih/voxelnet#50 (tests/pasted/cases/voxelnet-50-*): conda's tensorflow-gpu 1.4.1 beside cuDNN 7.1.3; the
    # reporter's fix was conda install cudnn=7.0.5
    doc = check(CASES_DIR / "voxelnet-50-tf141-conda-cudnn713-vs-705-equal-minor" / "report.txt")
    assert _finding(doc, "cudnn-too-old") is not None
    argv = [c["argv"] for c in _step(doc, "cudnn-too-old")["commands"]]
    assert ["conda", "install", "cudnn=7.0"] in argv


def test_the_dotted_tf2_wording_keeps_its_equal_or_newer_minor_rule(tmp_path):
    # the later wording accepts a newer minor: 8.6.0 loaded for an 8.1.0 build is no fault
    line = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.6.0 but source was "
        "compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version."
    )
    assert _finding(paste(tmp_path, line + "\n"), "cudnn-too-old") is None


def _unexplained_asks(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


def test_jax_trying_its_tpu_backend_on_a_gpu_machine_is_no_missing_library(tmp_path):
    # google-deepmind/alphafold3#656 (maintainer: "can be safely ignored (when running AF3 on a GPU)"): the INFO line of
    # xla_bridge's backend loop; nothing else in the text fails
    line = (
        "I0420 10:00:00.000000 1 xla_bridge.py:841] Unable to initialize backend 'tpu': INTERNAL: Failed to open "
        "libtpu.so: libtpu.so: cannot open shared object file: No such file or directory\n"
    )
    doc = paste(tmp_path, line)
    assert doc["findings"] == []
    assert not any("libtpu" in " ".join(a) for a in _unexplained_asks(doc))


def test_the_cuda_backend_line_is_read_and_the_tpu_line_beside_it_is_not():
    # strauchlab/cryoPhold#2 (tests/blind/plans18/cases/1851-*): a reason-less 'cuda' line, the 'rocm' and 'tpu' ones
    doc = check(blind_case("plans18/cases/1851"))
    kinds = [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert "jax-cuda-backend-failed" in kinds and "library-missing" not in kinds
    assert not any("libtpu" in " ".join(a) for a in _unexplained_asks(doc))
    # google-research/t5x#1286: the CPU jaxlib's 'cuda' line is read the same way
    doc = check(CASES_DIR / "t5x-1286-jax-cuda-backend-gpuallocatorconfig-cpu-jaxlib" / "report.txt")
    assert "jax-cuda-backend-failed" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]


def test_the_removed_jax_linear_util_is_read_and_asks_for_the_jax_and_haiku_versions():
    # YoshitakaMo/localcolabfold#261 (tests/blind/plans18/cases/1850-*) quotes the error in prose;
    # GMdSilva/gms_natcomms_1705932980_data#1 prints it at a traceback's end
    for doc in (
        check(blind_case("plans18/cases/1850")),
        check(CASES_DIR / "gms-natcomms-1-colab-jax-linear-util-removed" / "report.txt"),
    ):
        assert "jax-api-removed" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
        assert [f["code"] for f in doc["findings"]] == ["pasted-error-unexplained"]
        assert any(a[1:4] == ["-m", "pip", "list"] for a in _unexplained_asks(doc))
