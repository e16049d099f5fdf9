"""Issues 27/28 (h173: the silent CPU fallback): the variant of a library whose CPU and GPU builds are distributions of
their own over one import package (onnxruntime and onnxruntime-gpu, faiss-cpu and faiss-gpu), read from the forms a
paste shows it in (gpudoctor.pasted.variants), judged by gpudoctor.checks.libraries (two installed together) and
gpudoctor.checks.catalogued.framework_builds (faiss-cpu alone behind faiss's missing GPU classes); llama.cpp's
"BLAS = 0" named before the package. Each rule on a real paste (tests/pasted/cases) and its quiet twin."""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.pasted import Source
from gpudoctor.pasted.read import read_sources
from tests.hostile.test_corpus import run_cli

CASES = Path(__file__).resolve().parent / "cases"


def _report(slug: str) -> str:
    return (CASES / slug / "report.txt").read_text(encoding="utf-8")


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def _argvs(doc: dict, code: str) -> list[list[str]]:
    (f,) = [f for f in doc["findings"] if f["code"] == code]
    return [c["argv"] for c in f["remediation"]["argv"] if "argv" in c]  # (a variable set has none)


def _codes(doc: dict) -> set[str]:
    return {f["code"] for f in doc["findings"]}


def _dists(text: str) -> dict[str, str]:
    return read_sources([Source("issue.txt", text)]).distributions


# --- what the paste says is installed --------------------------------------------------------------------------


def test_an_install_command_naming_both_onnxruntime_packages_installs_both():
    assert _dists(_report("onnxruntime-4809-kaggle-pip-ort-gpu-and-ort-providers-cpu-only")) == {
        "onnxruntime-gpu": "",
        "onnxruntime": "",
    }


def test_an_install_command_naming_one_of_a_family_or_failing_installs_nothing():
    assert _dists("I used `!pip install onnxruntime-gpu onnx` and only get CPUExecutionProvider\n") == {}
    failed = "$ pip install onnxruntime-gpu==1.7.0 onnxruntime==1.7.0\nERROR: No matching distribution found for onnxruntime-gpu==1.7.0\n"
    assert _dists(failed) == {}


def test_an_install_command_advised_in_a_sentence_installs_nothing():
    assert _dists("You should not pip install onnxruntime-gpu onnxruntime together, only the GPU one.\n") == {}
    assert _dists("(venv) C:\\work> pip install onnxruntime-gpu onnxruntime\nSuccessfully built\n") != {}
    assert _dists("PS C:\\Users\\me> pip install faiss-cpu faiss-gpu\n") == {"faiss-cpu": "", "faiss-gpu": ""}


def test_a_sentence_that_both_are_installed():
    assert _dists(_report("patchcore-30-requirements-faiss-cpu-and-faiss-gpu-both")) == {"faiss-cpu": "", "faiss-gpu": ""}
    assert _dists("Should faiss-cpu and faiss-gpu be installed together?\n") == {}


def test_a_bare_conda_row_and_pips_already_satisfied_answer():
    assert _dists(_report("deepcluster-56-conda-faiss-cpu-no-standardgpuresources")) == {"faiss-cpu": "1.6.1"}
    assert _dists(_report("faiss-2892-pip-faiss-gpu-172-no-standardgpuresources-ask")) == {"faiss-gpu": "1.7.2"}
    assert _dists("onnxruntime 1.16.0 is installed and onnxruntime-gpu too\n") == {}  # a sentence, not a row


# --- what the checks make of it ----------------------------------------------------------------------------------


def test_onnxruntime_named_without_versions_is_reinstalled_unpinned(tmp_path):
    doc = _check(tmp_path, _report("onnxruntime-4809-kaggle-pip-ort-gpu-and-ort-providers-cpu-only"))
    argvs = _argvs(doc, "nvidia-wheels-conflict")
    assert argvs[:2] == [
        ["%pip", "uninstall", "-y", "onnxruntime-gpu", "onnxruntime"],
        ["%pip", "install", "onnxruntime-gpu"],
    ]
    assert argvs[2][1:] == ["-c", "import onnxruntime as ort; print(ort.__version__, ort.get_available_providers())"]


def test_faiss_cpu_beside_faiss_gpu_leaves_the_gpu_package_alone(tmp_path):
    doc = _check(tmp_path, _report("patchcore-30-requirements-faiss-cpu-and-faiss-gpu-both"))
    argvs = _argvs(doc, "nvidia-wheels-conflict")
    assert argvs[:2] == [
        ["python3", "-m", "pip", "uninstall", "-y", "faiss-gpu", "faiss-cpu"],
        ["python3", "-m", "pip", "install", "faiss-gpu"],
    ]
    assert argvs[2] == ["python3", "-c", "import faiss; print(faiss.get_num_gpus())"]


def test_faiss_gpu_pinned_where_its_version_shows(tmp_path):
    text = "$ pip freeze | grep faiss\nfaiss-cpu==1.7.2\nfaiss-gpu==1.7.2\n"
    assert _argvs(_check(tmp_path, text), "nvidia-wheels-conflict")[1][-1] == "faiss-gpu==1.7.2"


def test_faiss_cpu_alone_in_conda_behind_the_missing_gpu_classes(tmp_path):
    doc = _check(tmp_path, _report("deepcluster-56-conda-faiss-cpu-no-standardgpuresources"))
    assert _argvs(doc, "framework-cpu-build")[:2] == [
        ["conda", "remove", "faiss-cpu"],
        ["conda", "install", "-c", "pytorch", "-c", "nvidia", "faiss-gpu"],
    ]


def test_faiss_gpu_shown_with_the_same_error_is_not_called_a_cpu_build(tmp_path):
    twin = _report("deepcluster-56-conda-faiss-cpu-no-standardgpuresources").replace("faiss-cpu", "faiss-gpu")
    assert "framework-cpu-build" not in _codes(_check(tmp_path, twin))


def test_faiss_cpu_without_the_error_is_a_cpu_machines_choice(tmp_path):
    doc = _check(tmp_path, "faiss-cpu                 1.6.1            py27h6bb024c_0    pytorch\n")
    assert "framework-cpu-build" not in _codes(doc)


# --- what is asked where the paste does not decide ---------------------------------------------------------------


def test_a_gpu_package_stated_without_a_listing_asks_for_its_siblings(tmp_path):
    doc = _check(tmp_path, _report("faiss-2892-pip-faiss-gpu-172-no-standardgpuresources-ask"))
    argvs = [a["argv"] for a in doc["pasted"]["ask_for"]]
    # (the interpreter whose site pip's "Requirement already satisfied" line names, h266)
    assert ["/opt/conda/bin/python", "-m", "pip", "show", "faiss-gpu", "faiss-gpu-cu12", "faiss-gpu-cu11", "faiss-cpu"] in argvs


def test_a_whole_package_list_decides_without_asking(tmp_path):
    text = "$ pip list\nPackage    Version\n---------- -------\nfaiss-gpu  1.7.2\nnumpy      1.21.6\n"
    argvs = [a["argv"] for a in _check(tmp_path, text)["pasted"].get("ask_for", [])]
    assert not any(a[:4] == ["python3", "-m", "pip", "show"] for a in argvs)


# --- llama.cpp's BLAS = 0 named before the package -------------------------------------------------------------


def test_blas_0_named_before_llama_cpp_python(tmp_path):
    doc = _check(tmp_path, _report("textgen-2782-windows-set-cmake-args-cublas-still-blas-0"))
    assert _argvs(doc, "framework-cpu-build")[-1][-1] == "llama-cpp-python"


def test_blas_0_of_a_cpu_run_that_wants_no_gpu_is_no_fault(tmp_path):
    text = 'My laptop runs it fine, the log says "BLAS = 0" after I installed llama-cpp-python, is that expected?\n'
    assert "framework-cpu-build" not in _codes(_check(tmp_path, text))
