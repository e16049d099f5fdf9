"""After-round h269 (set 19, failures read as "No problems found" or left undecided): the loader's message retyped with
a slip or quoted without its program; GPU UUIDs in CUDA_VISIBLE_DEVICES that a program parses as integers;
OLLAMA_LLM_LIBRARY naming no CUDA library folder of Ollama 0.12; a Helm chart as where a program runs; Paddle's "CUDA
device is not set properly". Each rule is shown by two real threads; the quiet twins keep it to them. Expectations by
hand."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.pasted.blocks import normalise
from tests.pasted.cli_json import asked, blind_case, check, paste

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
CASES = Path(__file__).resolve().parent / "cases"
BLOCKING = ("warning", "error", "critical")


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _commands(doc: dict) -> list[list[str]]:
    return [c.get("argv") or [c.get("set")] for s in doc["plan"]["steps"] for c in s["commands"]]


def _kinds(doc: dict) -> list[str]:
    return [e["kind"] for e in doc["facts"]["pasted"]["errors"]]


# --- the loader's message with a slip, or without the program in front ---------------------------------------------


def test_a_comma_for_the_dot_before_so_reads_as_the_soname():
    # tonyyxliu/CUHKSZ-CSC4005#69: "libcudart,so.11.0", the title alone
    doc = check(blind_case("plans19/cases/1967"))
    assert _codes(doc) == ["framework-cuda-libs-missing"]
    assert "libcudart.so.11.0" in doc["facts"]["pasted"]["missing"]


def test_the_loader_message_without_its_program_or_its_space_is_a_missing_library():
    # KlausT/ccminer#149: "error while loading shared libraries:libcudart.so.9.0", the title alone
    doc = check(CASES / "ccminer-149-title-loader-message-libcudart90-no-space" / "report.txt")
    assert _codes(doc) == ["framework-cuda-libs-missing"]


def test_a_comma_before_so_in_prose_or_without_a_version_stays_as_it_is():
    # the quiet twins: a word ending in "lib..." followed by ",so" in a sentence is no soname
    assert normalise("I moved the libraries,so it works now") == ["I moved the libraries,so it works now"]
    assert normalise("libfoo,so that it loads") == ["libfoo,so that it loads"]
    assert normalise("x: error while loading shared libraries:libcuda.so.1: cannot open") == [
        "x: error while loading shared libraries: libcuda.so.1: cannot open"
    ]


# --- GPU UUIDs in CUDA_VISIBLE_DEVICES, parsed as integers ------------------------------------------------------------


def test_vllm_in_a_pod_with_a_uuid_takes_the_variable_out_of_the_pod_template():
    # vllm-project/vllm#20939: the title says it, the log is cut before the ValueError
    doc = check(blind_case("plans19/cases/1911"))
    assert _codes(doc) == ["cuda-visible-devices-hides-all"]
    step = doc["plan"]["steps"][0]
    text = " ".join(step["summaries"])
    assert "kubectl set env" in text and "CUDA_VISIBLE_DEVICES-" in text


def test_dask_cuda_on_a_shared_node_names_the_same_gpus_by_index_and_never_unsets_the_variable():
    # rapidsai/dask-cuda#435: "receiving UUID (string) instead of GPU sequence number (int)"
    doc = check(blind_case("plans19/cases/1912"))
    assert _codes(doc) == ["cuda-visible-devices-hides-all"]
    commands = _commands(doc)
    assert ["nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"] in commands
    assert ["CUDA_DEVICE_ORDER"] in commands and ["CUDA_VISIBLE_DEVICES"] in commands
    assert not any(c[:2] == ["unset", "CUDA_VISIBLE_DEVICES"] for c in commands)


def test_the_valueerror_naming_a_mig_uuid_fires_on_its_own():
    # vllm-project/vllm#41848: the ValueError itself, a MIG instance's UUID
    doc = check(EXAMPLES / "vllm-41848-mig-uuid-cuda-visible-devices-int-parse.txt")
    assert "visible-devices-uuid-unparsed" in _kinds(doc)
    assert "cuda-visible-devices-hides-all" in _codes(doc)


def test_an_int_parse_of_anything_but_a_uuid_is_not_this(tmp_path):
    # the quiet twin: the same ValueError on a word that is no GPU's UUID (a program's own bug)
    doc = paste(
        tmp_path,
        'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
        "ValueError: invalid literal for int() with base 10: 'gpu'\n",
    )
    assert "cuda-visible-devices-hides-all" not in _codes(doc)


# --- OLLAMA_LLM_LIBRARY naming no CUDA library folder ----------------------------------------------------------------


def test_ollama_skipping_its_cuda_libraries_at_the_users_request_removes_the_variable_in_the_pod():
    # ollama/ollama#12797: k8s, the Helm chart, "skipping available library at users request" requested=cuda
    doc = check(blind_case("plans19/cases/1945"))
    assert _codes(doc) == ["framework-cpu-build"]
    step = doc["plan"]["steps"][0]
    text = " ".join(step["summaries"])
    assert "OLLAMA_LLM_LIBRARY-" in text and "chart values" in text
    assert ["printenv", "OLLAMA_LLM_LIBRARY"] in _commands(doc)


def test_ollamas_server_config_with_the_variable_set_to_cuda_fires_too():
    # ollama/ollama#12574: 0.12.5's server config line, OLLAMA_LLM_LIBRARY:cuda, an RTX 4080 unused
    doc = check(EXAMPLES / "ollama-12574-server-config-llm-library-cuda.txt")
    assert "framework-cpu-build" in _codes(doc)


_CONFIG = (
    'time=2025-10-11T18:56:40.321+08:00 level=INFO source=routes.go:1481 msg="server config" env="map[CUDA_VISIBLE_DEVICES:'
    ' OLLAMA_HOST:http://0.0.0.0:11434 OLLAMA_LLM_LIBRARY:{value} OLLAMA_LOAD_TIMEOUT:5m0s]"\n'
    "Ollama does not use my NVIDIA RTX 4080 GPU.\n"
)


def test_an_unset_variable_or_one_naming_a_cuda_folder_is_quiet(tmp_path):
    # the quiet twins: the variable empty (Ollama's default) or set to one of its CUDA folders
    for value in ("", "cuda_v12"):
        doc = paste(tmp_path, _CONFIG.format(value=value))
        assert "ollama-library-override-set" not in _kinds(doc), value
        assert "framework-cpu-build" not in _codes(doc), value


# --- a Helm chart as where a program runs -----------------------------------------------------------------------------


def test_a_program_deployed_with_a_helm_chart_runs_in_a_pod(tmp_path):
    # la-cc/anything-llm-helm-chart#8's words ("by using below in helm chart ... at pod level"), and #12797's
    doc = paste(tmp_path, "I tried this by using below in helm chart\nbut i received below error\n")
    cues = [c["means"] for c in doc["facts"]["pasted"]["cues"]]
    assert any(m.startswith("run inside a kubernetes container") for m in cues)


# --- Paddle's "CUDA device is not set properly" --------------------------------------------------------------------


def test_paddles_warning_in_a_container_is_a_failure_that_asks_whether_the_container_got_the_gpu():
    # PaddlePaddle/Paddle#55845: both images warn after "docker run" without --gpus (the text names no command)
    doc = check(blind_case("plans19/cases/1920"))
    assert "cuda-unavailable" in _kinds(doc)
    assert "pasted-error-unexplained" in _codes(doc)
    assert ["docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"] in asked(doc)
