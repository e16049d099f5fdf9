"""The asks fit what the report shows (issues 27/28): no interpreter made up from an elided path, no probe of a
framework the report does not use, a TensorFlow probe its release has, no probe that imports what fails to import,
no nvidia-smi on a Jetson, and no WSL command printed under the Windows side's heading.

Each rule on real reports: a case of tests/blind (cited by path) and another public thread (its URL; the text as it
was posted, cut where the stored copy is), with a near miss that must keep its asks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

TESTS = Path(__file__).resolve().parent.parent
PLANS9 = TESTS / "blind/plans9/cases"


def _case(prefix: str, folder: Path = PLANS9) -> str:
    (case,) = folder.glob(f"{prefix}-*")
    name = "input.txt" if (case / "input.txt").is_file() else "report.txt"
    return (case / name).read_text(encoding="utf-8")


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _asked(doc: dict) -> list[list[str]]:
    """Every command the report asks for: its questions and the commands of its plan's steps."""
    steps = [c["argv"] for s in (doc.get("plan") or {}).get("steps", []) for c in s["commands"] if "argv" in c]
    return [a["argv"] for a in doc["pasted"]["ask_for"]] + steps


def _programs(doc: dict) -> list[str]:
    """The Python programs (`-c`) and modules (`-m`) the asks run."""
    out = []
    for argv in _asked(doc):
        for flag in ("-c", "-m"):
            if flag in argv[:-1]:
                out.append(argv[argv.index(flag) + 1])
    return out


# -- an interpreter is never made from the tail of a path whose head was elided or cut


# pytest-dev/pytest#10516: pytest prints frames relative to the project (`.tox/py39-test/lib/...`).
_TOX_RELATIVE = """ImportError while loading conftest '/sparta/input/tests/conftest.py'.
tests/conftest.py:6: in <module>
    from netcapforecast.models.bayesian import BayesianForecast
.tox/py39-test/lib/python3.9/site-packages/netcapforecast/models/bayesian.py:6: in <module>
    import pyro
.tox/py39-test/lib/python3.9/site-packages/pyro/__init__.py:4: in <module>
    import pyro.poutine as poutine
"""
# Dao-AILab/flash-attention#1027: the whole path of a conda environment.
_WHOLE_PATH = (
    "ImportError: /home/mikolaj/miniconda3/envs/gemma/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-"
    "x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10Scal"
    "arTypeEEENS6_INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEE\n"
)


@pytest.mark.parametrize(
    ("text", "invented"),
    [
        (_case("904"), "/test_env/bin/python"),  # ".../test_env/lib/python3.10/site-packages/flash_attn_2_cuda..."
        (_case("920"), "/envs/megatron/bin/python"),  # "conda/envs/megatron/lib/python3.10/site-packages/torch/..."
        (_TOX_RELATIVE, "/py39-test/bin/python"),
    ],
)
def test_no_interpreter_from_a_path_whose_head_is_not_shown(tmp_path, text, invented):
    doc = _check(tmp_path, text)
    # (no interpreter fact at all is right too: the path is not read as one)
    assert (doc["facts"]["frameworks"]["python"].get("value") or {}).get("executable") != invented
    assert not [argv for argv in _asked(doc) if invented in argv]


@pytest.mark.parametrize(
    ("text", "interpreter"),
    [
        (_WHOLE_PATH, "/home/mikolaj/miniconda3/envs/gemma/bin/python"),
        # tests/blind/pasted 013: the path inside markdown's backticks is whole
        (_case("013", TESTS / "blind/pasted/cases"), "/home/python3_env/venv-py3/bin/python"),
    ],
)
def test_a_whole_path_still_names_its_interpreter(tmp_path, text, interpreter):
    doc = _check(tmp_path, text)
    assert doc["facts"]["frameworks"]["python"]["value"]["executable"] == interpreter


# -- a TensorFlow probe its release has: tf.config came with 1.14


@pytest.mark.parametrize(
    "text",
    [
        _case("907"),  # TensorFlow 1.12.0 in a venv
        _case("006", TESTS / "blind/pasted/cases"),  # tensorflow/tensorflow#9895: "TensorFlow Version: r1.1"
    ],
)
def test_tensorflow_before_1_14_is_asked_without_tf_config(tmp_path, text):
    programs = [p for p in _programs(_check(tmp_path, text)) if "tensorflow" in p]
    assert programs
    assert all("tf.config" not in p for p in programs)
    assert any("tf.test.is_gpu_available()" in p for p in programs)


def test_tensorflow_2_keeps_its_device_listing(tmp_path):
    programs = [p for p in _programs(_check(tmp_path, _case("906"))) if "tensorflow" in p]  # TensorFlow 2.4.1
    assert any("list_physical_devices" in p for p in programs)
    assert all("is_gpu_available" not in p for p in programs)


# -- no probe of a framework the report does not use

# jax-ml/jax#22533: XLA's cuDNN message under JAX, as TensorFlow prints it.
_JAX_CUDNN = """2024-07-19 15:49:01.341533: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR
2024-07-19 15:49:01.341571: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:443] Memory usage: 2624061440 bytes free, 12524191744 bytes total.
Traceback (most recent call last):
  File "scripts/train_vqgan.py", line 202, in <module>
    main()
  File "scripts/train_vqgan.py", line 32, in main
    rng = jax.random.PRNGKey(config.seed)
  File "/home/nonsans/miniforge3/envs/viper/lib/python3.8/site-packages/jax/_src/random.py", line 160, in PRNGKey
    key = prng.seed_with_impl(impl, seed)
"""


@pytest.mark.parametrize("text", [_case("921"), _JAX_CUDNN])
def test_a_jax_report_gets_no_torch_or_tensorflow_probe(tmp_path, text):
    doc = _check(tmp_path, text)
    programs = _programs(doc)
    assert not [p for p in programs if "import torch" in p or "tensorflow" in p or p.startswith("torch.")]
    # in their place, what decides the cuDNN JAX loads: its plugin's wheels, and the path searched before them
    asked = _asked(doc)
    assert any(argv[-3:] == ["-m", "pip", "list"] for argv in asked)
    assert ["printenv", "LD_LIBRARY_PATH"] in asked
    commands = [a["command"] for a in doc["pasted"]["ask_for"] if a["argv"][-3:] == ["-m", "pip", "list"]]
    assert [c for c in commands if c.endswith("| grep -iE 'jax|nvidia-'")]  # (the JSON keeps the pipe in the command)


def test_a_tensorflow_report_keeps_its_tensorflow_probe(tmp_path):
    text = (TESTS / "pasted/catalogue_examples/urlnet-7-could-not-create-cudnn-handle.txt").read_text(encoding="utf-8")
    doc = _check(tmp_path, text)
    programs = _programs(doc)
    assert any("tf.nn.conv2d" in p for p in programs)  # (the message's own TensorFlow probe)
    assert not [p for p in programs if "import torch" in p]
    assert not [a for a in doc["pasted"]["ask_for"] if "jax" in a["command"]]


# -- no probe that imports the package whose import the traceback shows failing

# pytorch/pytorch#104259 (a comment): "because torch cannot be imported, torch.utils.collect_env cannot be imported
# either, with the same error message".
_TORCH_IMPORT_FAILS = """In a fresh virtualenv, I follow the instructions on the web:
```
$ pip install torch torchvision
```
I then try
```python
import torch
```
only to receive
```
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/home/anne/.cache/pypoetry/virtualenvs/transformers-test-hTrBSg_k-py3.8/lib/python3.8/site-packages/torch/__init__.py", line 229, in <module>
    from torch._C import *  # noqa: F403
ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory
```
"""


@pytest.mark.parametrize(
    ("text", "package"),
    [
        (_case("912"), "cupy"),  # cupy/__init__.py ... ImportError: libnvJitLink.so.12
        (_TORCH_IMPORT_FAILS, "torch"),
        (_case("813", TESTS / "blind/plans8/cases"), "onnxruntime"),  # onnxruntime/__init__.py ... ImportError
    ],
)
def test_a_package_that_fails_to_import_is_not_imported_to_ask_about_it(tmp_path, text, package):
    doc = _check(tmp_path, text)
    programs = _programs(doc)
    assert not [p for p in programs if f"import {package}" in p or p.startswith(f"{package}.")]
    # what is installed, read without importing it: the interpreter's pip (poetry's env: `poetry run python ...`), or a
    # conda environment's own listing, which holds its pip installs too (plans8 813's FXM environment)
    listings = [argv for argv in _asked(doc) if argv[-3:] == ["-m", "pip", "list"] or argv[:2] == ["conda", "list"]]
    assert listings


def test_a_package_that_imports_is_still_asked_through_its_own_report(tmp_path):
    # tests/blind/plans9 905: cupy imports; its cupy.random call fails later (no frame of its __init__ at import)
    assert "import cupy; cupy.show_config()" in _programs(_check(tmp_path, _case("905")))


# -- a Jetson has no nvidia-smi before JetPack 6: its L4T release decides

# Lmy0217/PyTorch-aarch64#3 and pytorch/pytorch#67997, as posted.
_JETSON_RELEASE_SHOWN = (
    "I successfully install the torch on my jetson nano(Jetpack 4.4 [L4T 32.4.3]),but cuda.is_available() returns false\n"
)
_JETSON_RELEASE_NOT_SHOWN = (
    "I am trying to download pytorch on a jetson NX to use a tracker i found, problem is that my conda is not able to "
    "find the correct cudatoolkit, i've trying downloading with pip but when running \n   torch.cuda.is_available()\n"
    "i get false\n"
)
# ubicomplab/rPPG-Toolbox#177: a desktop, nothing of a Jetson named.
_DESKTOP = "After setup and requirements installation torch.cuda.is_available() is False\n"


@pytest.mark.parametrize(
    ("text", "release_asked"),
    [(_case("949"), False), (_JETSON_RELEASE_SHOWN, False), (_JETSON_RELEASE_NOT_SHOWN, True)],
)
def test_a_jetson_is_not_asked_for_nvidia_smi(tmp_path, text, release_asked):
    asked = _asked(_check(tmp_path, text))
    assert not [argv for argv in asked if argv[0] == "nvidia-smi"]
    assert (["cat", "/etc/nv_tegra_release"] in asked) is release_asked


def test_a_desktop_is_still_asked_for_nvidia_smi(tmp_path):
    asked = _asked(_check(tmp_path, _DESKTOP))
    assert ["nvidia-smi"] in asked
    assert ["cat", "/etc/nv_tegra_release"] not in asked


# -- a WSL report's Windows-side ask comes last: its note is read as a heading over the lines below it


@pytest.mark.parametrize(
    "text",
    [
        _case("935"),
        _case("941"),
        _case("wsl-9166", TESTS / "pasted/cases"),  # tests/pasted/cases: the CUDA metapackage's Linux driver in WSL
    ],
)
def test_no_wsl_command_follows_the_windows_side(tmp_path, text):
    asks = _check(tmp_path, text)["pasted"]["ask_for"]
    windows = [i for i, a in enumerate(asks) if a["argv"][0].endswith(".exe")]
    assert windows and windows == list(range(len(asks) - len(windows), len(asks)))


def test_a_native_windows_report_keeps_its_order(tmp_path):
    # tests/pasted/cases tensorflow-62080: native Windows, nothing WSL's: nvidia-smi stays the first question
    asks = _check(tmp_path, _case("tensorflow-62080", TESTS / "pasted/cases"))["pasted"]["ask_for"]
    assert asks[0]["argv"] == ["nvidia-smi"]
