"""`gpudoctor install` and `gpudoctor fix` through typer (CliRunner) on replayed machines, plus what the
fix session changes on this machine: an env file in tmp_path, a /usr/local/cuda link on a temporary root."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpudoctor.errors import UnsafeOperation
from tests.conftest import real_app

ROOT = Path(__file__).resolve().parents[1]


def snapshot(slug: str) -> str:
    path = ROOT / "machines" / slug / "snapshot.json"
    return str(path if path.exists() else ROOT / "install_machines" / slug / "snapshot.json")


@pytest.fixture(scope="module")
def run():
    app = real_app()
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


# --- install ------------------------------------------------------------------------------------


@pytest.mark.typer_rich
def test_replay_prints_the_plan_and_never_installs(run):
    result = run("install", "torch", "--replay", snapshot("p100-driver510-torch-cu121"))
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith(
        "PyTorch 2.7 (cu118) fits this machine.\n  machine: linux x86_64; driver 510.47.03 (runs CUDA up to 11.6); "
    )
    assert (
        "the plan, printed only (a snapshot is never installed):\n"
        "  /usr/bin/python3 -m pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118\n"
    ) in out
    assert (
        "newer builds an upgrade would open:\n  - a driver >= 525.60.13 (>= 560.28.03 for full CUDA 12.6 support) would open PyTorch 2.14 (cu126)\n"
        in out
    )
    assert (
        "to go back to what is installed now:\n  /usr/bin/python3 -m pip install torch==2.2.1+cu121 --index-url https://download.pytorch.org/whl/cu121\n"
        in out
    )


def test_nothing_fits_exits_1_and_names_the_newest_that_does(run):
    result = run("install", "torch", "2.2", "--replay", snapshot("rtx5070-torch-cu121-no-sm120"))
    assert result.exit_code == 1
    assert result.output.startswith("No PyTorch 2.2 build fits this machine.\n")
    assert "newest that fits: PyTorch 2.11 (cu128): gpudoctor install torch\n" in result.output


@pytest.mark.typer_rich
def test_replay_with_yes_is_a_usage_error(run):
    result = run("install", "torch", "--replay", snapshot("p100-driver510-torch-cu121"), "--yes")
    assert result.exit_code == 2 and "never installs" in result.output


@pytest.mark.typer_rich
@pytest.mark.parametrize("version", ["3.0", "two", "2.2+cu999"])
def test_a_bad_version_is_a_usage_error(run, version):
    result = run("install", "torch", version, "--replay", snapshot("p100-driver510-torch-cu121"))
    assert result.exit_code == 2 and "VERSION" in result.output


def test_json_is_one_document_with_the_plan(run):
    result = run("install", "jax", "0.4.38", "--replay", snapshot("rtx4090-jax-cpu-only"), "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["replay"] is True and doc["ran"] == [] and doc["verification"] is None and doc["exit_code"] == 0
    assert [s["argv"] for s in doc["plan"]["steps"]] == [["/usr/bin/python3", "-m", "pip", "install", "jax[cuda12]==0.4.38"]]


def test_a_uv_environment_is_installed_with_uv(run):
    result = run("install", "torch", "--replay", snapshot("rtx4000ada-driver595-py313-uv"))
    assert (
        "the plan, printed only (a snapshot is never installed):\n"
        "  /home/user/.local/bin/uv pip install --python /home/user/proj/.venv/bin/python 'torch==2.15.*' --index-url https://download.pytorch.org/whl/cu132\n"
    ) in result.output


def test_live_dry_run_prints_the_plan_and_runs_nothing(run):
    before = importlib.util.find_spec("torch")
    result = run("install", "torch", "--python", sys.executable, "--cuda", "12.4", "--offline", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "fits this machine." in result.output and result.output.endswith("dry run: nothing was run\n")
    assert importlib.util.find_spec("torch") == before


def test_live_without_yes_and_without_a_terminal_runs_nothing(run):
    before = importlib.util.find_spec("torch")
    result = run("install", "torch", "--python", sys.executable, "--cuda", "12.4", "--offline")
    assert result.exit_code == 2
    assert "no terminal to ask on" in result.output and "checking:" not in result.output
    assert importlib.util.find_spec("torch") == before


@pytest.mark.typer_rich
def test_declined_at_the_prompt_runs_nothing_and_exits_1(monkeypatch):
    import gpudoctor.cli.install as cli

    app = real_app()
    monkeypatch.setattr(cli, "_terminal", lambda: True)
    before = importlib.util.find_spec("torch")
    result = CliRunner().invoke(
        app, ["install", "torch", "--python", sys.executable, "--cuda", "12.4", "--offline"], input="n\n", catch_exceptions=False
    )
    assert result.exit_code == 1, result.output
    assert re.search(r"Run (this command|these \d+ commands)\? \[y/N\]: n\n", result.output) and result.output.endswith(
        "nothing was run\n"
    )
    assert importlib.util.find_spec("torch") == before


def test_a_python_that_is_not_there_is_an_error_before_any_plan(run, tmp_path):
    from gpudoctor.errors import UsageError

    # Checked before any probe: a usage error (exit 2), not a plan for an environment that is not there.
    with pytest.raises(UsageError, match="--python .*no-such-python: no such file"):
        run("install", "torch", "--python", str(tmp_path / "no-such-python"), "--dry-run")


def test_use_uv_needs_uv_on_path(run, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    result = run("install", "torch", "--python", sys.executable, "--use", "uv", "--cuda", "12.4", "--offline", "--dry-run")
    assert result.exit_code == 2 and "uv is not on PATH" in result.output


# --- fix ------------------------------------------------------------------------------------------


@pytest.mark.typer_rich
def test_fix_lists_a_reinstall_for_a_replayed_cpu_build(run):
    result = run("fix", "--replay", snapshot("rtx3060-laptop-torch-cpu-build"))
    assert result.exit_code == 0
    assert result.output == (
        "[1/1] reinstall PyTorch 2.7 (cu118) (for framework-cpu-build)\n"
        "  /usr/bin/python3 -m pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118\n"
        "a snapshot is never changed: nothing was applied\n"
    )


def test_fix_says_what_needs_root(run):
    result = run("fix", "--replay", snapshot("quadro-p2000-cuda13-active-cuda118-installed"))
    assert result.output.startswith(
        "[1/1] switch /usr/local/cuda to CUDA 11.8.89 (/usr/local/cuda-11.8) (for toolkit-newer-than-driver, toolkit-arch-unsupported)\n"
        "  needs you: changing /usr/local/cuda needs root\n"
        "    Run it as root:\n"
        "      sudo gpudoctor switch-cuda /usr/local/cuda-11.8\n"
    )


def test_fix_without_an_automatic_fix_exits_1(run):
    result = run("fix", "--replay", snapshot("rtx3080-no-driver"))
    assert result.exit_code == 1
    assert "none has a safe automatic fix (gpudoctor check shows what to do)" in result.output


def test_fix_replay_with_yes_is_a_usage_error(run):
    assert run("fix", "--replay", snapshot("rtx3080-no-driver"), "--yes").exit_code == 2


# --- what a fix changes: the env file ------------------------------------------------------------


def _setting(path: Path, name="XLA_PYTHON_CLIENT_PREALLOCATE", value="false"):
    from gpudoctor.install.fix import EnvSetting

    return EnvSetting(name, value, str(path), "JAX preallocates GPU memory that other processes hold")


def test_env_file_gets_one_line_once_and_keeps_the_rest_and_its_mode(tmp_path):
    from gpudoctor.install.fix import apply_env, verify_env

    rc = tmp_path / ".bashrc"
    rc.write_text("alias ll='ls -l'")  # no newline at the end
    rc.chmod(0o600)
    s = _setting(rc)
    assert (
        apply_env(s)
        == f"added to {rc}: export XLA_PYTHON_CLIENT_PREALLOCATE=false (the previous content is in {rc}.gpudoctor-bak)"
    )
    assert (tmp_path / ".bashrc.gpudoctor-bak").read_text() == "alias ll='ls -l'"
    assert rc.read_text() == (
        "alias ll='ls -l'\n# JAX preallocates GPU memory that other processes hold (gpudoctor fix)\nexport XLA_PYTHON_CLIENT_PREALLOCATE=false\n"
    )
    assert stat.S_IMODE(rc.stat().st_mode) == 0o600 and verify_env(s)
    assert apply_env(s) == f"{rc} already has: export XLA_PYTHON_CLIENT_PREALLOCATE=false"
    assert rc.read_text().count("XLA_PYTHON_CLIENT_PREALLOCATE") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".bashrc", ".bashrc.gpudoctor-bak"]  # no temporary file left


def test_env_file_syntax_follows_the_file(tmp_path):
    from gpudoctor.install.fix import apply_env

    apply_env(_setting(tmp_path / ".env"))
    apply_env(_setting(tmp_path / "config.fish", "TF_FORCE_GPU_ALLOW_GROWTH", "true"))
    assert (tmp_path / ".env").read_text().endswith("\nXLA_PYTHON_CLIENT_PREALLOCATE=false\n")
    assert (tmp_path / "config.fish").read_text().endswith("\nset -gx TF_FORCE_GPU_ALLOW_GROWTH true\n")


def test_env_file_with_another_value_of_the_variable_is_left_alone(tmp_path):
    from gpudoctor.install.fix import apply_env

    rc = tmp_path / ".zshrc"
    rc.write_text("export XLA_PYTHON_CLIENT_PREALLOCATE=true\n")
    with pytest.raises(UnsafeOperation, match="already sets XLA_PYTHON_CLIENT_PREALLOCATE"):
        apply_env(_setting(rc))
    assert rc.read_text() == "export XLA_PYTHON_CLIENT_PREALLOCATE=true\n"


# --- what a fix changes: the /usr/local/cuda link, on a temporary root ------------------------------


def test_the_switch_fix_re_points_the_link_and_verifies_it(tmp_path):
    from gpudoctor.checks import Context
    from gpudoctor.cli.fix_run import _apply_switch
    from gpudoctor.install.fix import propose
    from gpudoctor.model import Finding, Severity
    from gpudoctor.planner.machine import env_from_facts
    from gpudoctor.probes import ProbeOptions
    from tests.unit.test_switch_cuda import facts_for, host_for, link_of, make_machine

    root = make_machine(tmp_path, trees=("cuda-11.8", "cuda-13.0"), link_to="cuda-13.0")
    env = {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin"}  # nvcc through the link, as on the P2000 workstation
    facts = facts_for(root, env)
    # The driver a P2000 workstation has (525.125.06, CUDA 12.0): CUDA 13.0 behind the link is too new for it.
    facts = replace(facts, driver=replace(facts.driver, nvml_driver_version="525.125.06", nvml_cuda_version="12.0"))
    ctx = Context()
    # The remediation the toolkit check prints: fix applies what the plan says (a switch to an installed toolkit).
    from gpudoctor.checks.toolkit import toolkit_fix

    finding = Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        "CUDA toolkit 13.0.88 is newer than the driver supports",
        "",
        remediation=toolkit_fix(facts, ctx).remediation("Use a toolkit the driver runs."),
    )
    (fix,) = propose(facts, [finding], ctx, env=env_from_facts(facts), is_root=True)
    assert fix.blocked is None and fix.payload.target.root == "/usr/local/cuda-11.8"
    out = io.StringIO()
    ok, said = _apply_switch(fix, host_for(root, env), ProbeOptions(), ctx, out)
    assert link_of(root) == str(root / "usr/local/cuda-11.8")
    assert ok and said == "fixed"
    assert (
        out.getvalue()
        == "  done: /usr/local/cuda -> /usr/local/cuda-11.8 (CUDA 11.8.89); to undo: gpudoctor switch-cuda /usr/local/cuda-13.0\n"
    )
    assert os.path.islink(root / "usr/local/cuda")


# --- no GPU, no guess ------------------------------------------------------------------------------


def test_no_gpu_and_no_driver_is_a_usage_error_listing_the_options(run):
    result = run("install", "torch", "--replay", snapshot("docker-started-without-gpus"))
    assert result.exit_code == 2
    assert result.output.startswith("gpudoctor: error: no NVIDIA GPU and no NVIDIA driver seen here, so no PyTorch CUDA build")
    for option in ("--gpu NAME|CC", "--driver VERSION", "--cuda VERSION", "--cpu"):
        assert f"\n  {option}" in result.output
    assert "fits this machine" not in result.output


def test_no_gpu_refusal_as_json(run):
    result = run("install", "jax", "--replay", snapshot("docker-started-without-gpus"), "--format", "json")
    assert result.exit_code == 2
    doc = json.loads(result.output)
    assert (doc["status"], doc["exit_code"], doc["plan"]) == ("doctor-error", 2, None)
    assert doc["error"]["code"] == "target-needed" and doc["error"]["missing"] == ["no NVIDIA GPU", "no NVIDIA driver"]


def test_told_the_target_it_plans_and_says_so(run):
    result = run("install", "torch", "--replay", snapshot("docker-started-without-gpus"), "--gpu", "A100", "--cuda", "12.1")
    assert result.exit_code == 0, result.output
    assert "; as told: --gpu A100 --cuda 12.1\n" in result.output
    assert "  change: upgrade torch 2.2.1+cu121 -> 2.14.* (cu126)\n" in result.output
    assert "  index: not confirmed online (a replayed machine is planned offline)\n" in result.output
    bad = run("install", "torch", "--replay", snapshot("docker-started-without-gpus"), "--driver", "latest")
    assert bad.exit_code == 2 and "--driver latest: not an NVIDIA driver version" in bad.output
