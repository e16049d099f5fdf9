"""JAX's CUDA plugin of a later release than jaxlib (issue 28, class "JAX's CUDA plugin newer than jaxlib"): a
traceback whose frame in jax_plugins/xla_cudaNN/__init__.py calls a jaxlib API (xla_client.X(...)) or ends on an
AttributeError/ImportError naming jaxlib, with jax/jaxlib shown, is jax-plugin-mismatch with the plugin brought back
to jaxlib's release through jax's own CUDA extra, in the interpreter the traceback names. A plugin that fails on a
CUDA library (the real report under tests/pasted/catalogue_examples) is not that. The pastes are written for the test
in the shapes reporters use."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [a.command.argv for a in ask_for(report.facts, report.findings)]
    return {f.code: f for f in report.findings}, asks


_HEAD = (
    "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()\n"
    "Traceback (most recent call last):\n"
    '  File "{site}/jax/_src/xla_bridge.py", line 610, in discover_pjrt_plugins\n'
    "    plugin_module.initialize()\n"
    '  File "{site}/jax_plugins/xla_cuda12/__init__.py", line {n}, in initialize\n'
)
_ENV = "\n### System info (python version, jaxlib version, accelerator, etc.)\n\njax:    {v}\njaxlib: {v}\nnumpy:  1.26.4\npython: 3.11.9\n"
_SITE = "/home/me/venvs/rl/lib/python3.11/site-packages"


@pytest.mark.parametrize(
    "tail",
    [
        "    xla_client.register_custom_type_id_handler(\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
        "    xla_client.register_custom_call_handler(\n"
        "AttributeError: module 'jaxlib.xla_client' has no attribute 'register_custom_call_handler'\n",
        "    options = xla_client.generate_pjrt_gpu_plugin_options()\n",
    ],
)
def test_a_plugin_calling_a_jaxlib_api_is_the_plugin_newer_than_jaxlib(tail):
    text = _HEAD.format(site=_SITE, n=96) + tail + _ENV.format(v="0.4.30")
    codes, asks = _run(text)
    f = codes["jax-plugin-mismatch"]
    argv = f.remediation.commands[0].argv
    # the venv the traceback names, jax's CUDA 12 extra of the release shown (it pins jaxlib and the plugin)
    assert argv == ("/home/me/venvs/rl/bin/python", "-m", "pip", "install", "jax[cuda12]==0.4.30")
    assert "pasted-error-unexplained" not in codes
    assert not any("LD_LIBRARY_PATH" in a for a in asks)


def test_an_import_error_from_jaxlib_in_the_plugin_is_the_same_class():
    tail = (
        "    from jax._src.lib import triton\n"
        "ImportError: cannot import name 'triton' from 'jax._src.lib' (/x/jax/_src/lib/__init__.py)\n"
    )
    codes, _ = _run(_HEAD.format(site=_SITE, n=21) + tail + _ENV.format(v="0.4.30"))
    assert "jax-plugin-mismatch" in codes


def test_without_versions_shown_the_plan_does_not_pin_a_release():
    tail = "    xla_client.register_custom_type_id_handler(\n"
    codes, _ = _run(_HEAD.format(site=_SITE, n=96) + tail)
    f = codes["jax-plugin-mismatch"]
    assert not any("==" in a for c in f.remediation.commands for a in c.argv)


def test_a_plugin_failing_on_a_cuda_library_is_not_a_version_mismatch():
    example = Path(__file__).parent / "catalogue_examples" / "jax-29843-plugin-configuration-error.txt"
    codes, _ = _run(example.read_text(encoding="utf-8"))
    assert "jax-plugin-mismatch" not in codes


_DEVICES = "import jax; print(jax.devices())"


def test_a_plugin_failure_cut_before_its_exception_asks_for_it_in_the_same_interpreter():
    """jax-ml/jax#29843 (catalogue_examples) and tests/blind/plans10 case 1012 (its thread is named only there: a uv
    project, the traceback cut at its first frame): JAX logs initialize()'s whole traceback each time it starts its
    backends, so asking for the devices prints it; in a uv project through uv run."""
    example = Path(__file__).parent / "catalogue_examples" / "jax-29843-plugin-configuration-error.txt"
    _, asks = _run(example.read_text(encoding="utf-8"))
    assert any(a[-2:] == ("-c", _DEVICES) for a in asks)
    case = (
        Path(__file__).resolve().parents[2]
        / "tests/blind/plans10/cases/1012-jax29068-gcp-t4-uv-venv-jax061-cuda12-plugin-initialize-error-cpu-fallback-ask/input.txt"
    )
    _, asks = _run(case.read_text(encoding="utf-8"))
    assert ("uv", "run", "--no-sync", "python", "-c", _DEVICES) in asks


def test_a_plugin_newer_than_jaxlib_is_not_asked_for_its_exception():
    """The traceback shows the cause (a jaxlib API the plugin calls): the fix is printed, nothing more is asked."""
    text = _HEAD.format(site=_SITE, n=96) + "    xla_client.register_custom_type_id_handler(\n" + _ENV.format(v="0.4.30")
    _, asks = _run(text)
    assert not any(a[-2:] == ("-c", _DEVICES) for a in asks)
