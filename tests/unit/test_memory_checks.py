"""`tf-preallocates` and `jax-preallocates` on the machines of tests/machines, and on variants of them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks import memory as memory_checks
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Severity
from gpudoctor.probes import run_probes
from tests.conftest import fixture_text

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "machines"
NEW_MACHINES = (
    "rtx4000ada-tf-beside-torch-job",
    "t4-jax-beside-tf-notebook",
    "h100-load-tf-jax-configured",
    "h100-mig-four-instances",
)


def snapshot(slug: str) -> dict:
    return copy.deepcopy(load_snapshot(str(MACHINES / slug / "snapshot.json")))


def findings(snap: dict) -> list:
    facts = run_probes(ReplayHost(snap))
    ctx = Context()
    out = []
    for check in memory_checks.CHECKS:
        produced = list(check.run(facts, ctx))
        assert all(f.code in check.codes for f in produced)
        out += produced
    return out


def codes(snap: dict) -> list[str]:
    return [f.code for f in findings(snap)]


@pytest.fixture
def with_memory_checks(monkeypatch):
    """The doctor as it runs once checks/memory.py is in all_checks()."""
    import gpudoctor.checks as checks

    before = checks.all_checks
    monkeypatch.setattr(checks, "all_checks", lambda pasted=True: (*before(pasted), *memory_checks.CHECKS))


@pytest.mark.parametrize("slug", NEW_MACHINES)
def test_new_machines_meet_their_expectations_with_the_memory_checks(slug, with_memory_checks):
    """tests/test_machines.py's rule (every warning and error listed), with checks/memory.py registered."""
    from gpudoctor.doctor import diagnose

    expected = tomllib.loads((MACHINES / slug / "expected.toml").read_text(encoding="utf-8"))
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
    got = {(f.code, f.severity.label) for f in report.findings if f.severity >= Severity.WARNING}
    wanted = {(e["code"], e["severity"]) for e in expected.get("finding", []) if e["severity"] != "info"}
    assert got == wanted
    assert not report.internal_errors


def test_tf_beside_a_torch_job():
    (f,) = findings(snapshot("rtx4000ada-tf-beside-torch-job"))
    assert (f.code, f.severity, f.area) == ("tf-preallocates", Severity.WARNING, "memory")
    assert f.title == "TensorFlow 2.11.0 will map nearly all free memory of GPU(s) that other jobs use"
    assert "TF_FORCE_GPU_ALLOW_GROWTH is not set" in f.detail
    assert "Already there: GPU 0: /usr/lib/chromium/chromium (pid 34626, 183 MiB), python (pid 4937, 160 MiB)." in f.detail
    assert f.remediation.lines()[0] == "export TF_FORCE_GPU_ALLOW_GROWTH=true"
    assert f.remediation.component == "memory"
    assert f.sources == ("tf-gpu-guide", "pypi-tf-wheels")
    assert [e.source for e in f.evidence] == ["env:TF_FORCE_GPU_ALLOW_GROWTH", f.evidence[1].source, "nvidia-smi"]


@pytest.mark.parametrize(
    "value, fires, words",
    [
        ("true", False, None),
        ("True", True, 'TF_FORCE_GPU_ALLOW_GROWTH=\'True\' is not growth: TensorFlow accepts exactly "true" or "false"'),
        ("1", True, "TF_FORCE_GPU_ALLOW_GROWTH='1' is not growth"),
        ("false", True, "TF_FORCE_GPU_ALLOW_GROWTH='false' is not growth"),
    ],
)
def test_tf_growth_setting_as_tensorflow_parses_it(value, fires, words):
    snap = snapshot("rtx4000ada-tf-beside-torch-job")
    snap["env"]["TF_FORCE_GPU_ALLOW_GROWTH"] = value
    found = findings(snap)
    assert bool(found) is fires
    if fires:
        assert words in found[0].detail


def test_tf_on_a_gpu_with_display_processes_only_is_not_warned():
    # The same workstation without its two compute processes: Xorg-like (G) processes only.
    snap = snapshot("rtx4000ada-tf-beside-torch-job")
    xml = snap["commands"]["nvidia-smi -q -x"]["stdout"]
    snap["commands"]["nvidia-smi -q -x"]["stdout"] = xml.replace("<type>C</type>", "<type>G</type>").replace(
        "<type>C+G</type>", "<type>G</type>"
    )
    assert codes(snap) == []


def test_cuda_visible_devices_naming_no_shared_gpu():
    snap = snapshot("rtx4000ada-tf-beside-torch-job")
    snap["env"]["CUDA_VISIBLE_DEVICES"] = "MIG-00000000-0000-0000-0000-000000000009"
    assert codes(snap) == []
    snap["env"]["CUDA_VISIBLE_DEVICES"] = "0"
    assert codes(snap) == ["tf-preallocates"]


def test_native_windows_tensorflow_is_left_to_framework_windows_native_gpu():
    snap = snapshot("rtx4000ada-tf-beside-torch-job")
    snap["platform"] = {"system": "Windows", "release": "10", "machine": "AMD64"}
    assert "tf-preallocates" not in codes(snap)


def test_jax_beside_a_notebook():
    (f,) = findings(snapshot("t4-jax-beside-tf-notebook"))
    assert (f.code, f.severity) == ("jax-preallocates", Severity.WARNING)
    assert f.title == "JAX 0.4.13 will preallocate 75% of GPU(s) that other jobs use"
    assert "Already there: GPU 0: python (pid 5762, 1005 MiB)." in f.detail
    # Half of (13939 - 1024) MiB free over 15360 MiB total = 0.4204 -> 0.42.
    assert f.remediation.lines() == [
        "export XLA_PYTHON_CLIENT_PREALLOCATE=false",
        "# the most JAX may take: half of what is free now",
        "export XLA_PYTHON_CLIENT_MEM_FRACTION=0.42",
        "gpudoctor memory plan --gpu 0 myjob=4GiB:jax",
    ]
    assert f.sources == ("jax-memory-docs", "jax-changelog")


@pytest.mark.parametrize(
    "env, fires",
    [
        ({}, True),
        ({"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}, False),
        ({"XLA_PYTHON_CLIENT_PREALLOCATE": "False"}, False),
        ({"XLA_PYTHON_CLIENT_PREALLOCATE": "0"}, False),
        ({"XLA_PYTHON_CLIENT_PREALLOCATE": "true"}, True),
        ({"XLA_PYTHON_CLIENT_PREALLOCATE": "no"}, True),  # JAX does not read "no" as false
        ({"XLA_PYTHON_CLIENT_MEM_FRACTION": ".3"}, False),
        ({"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"}, False),
    ],
)
def test_jax_settings(env, fires):
    snap = snapshot("t4-jax-beside-tf-notebook")
    snap["env"].update(env)
    assert (codes(snap) == ["jax-preallocates"]) is fires


def test_jax_without_a_cuda_plugin_is_not_warned():
    snap = snapshot("t4-jax-beside-tf-notebook")
    snap["python"]["distributions"]["jaxlib"] = "0.4.13"
    assert codes(snap) == []


def test_both_fire_on_the_burn_test_machine_without_its_settings():
    snap = snapshot("h100-load-tf-jax-configured")
    del snap["env"]["TF_FORCE_GPU_ALLOW_GROWTH"]
    del snap["env"]["XLA_PYTHON_CLIENT_MEM_FRACTION"]
    found = findings(snap)
    assert [f.code for f in found] == ["tf-preallocates", "jax-preallocates"]
    assert (
        "GPU 0: ./gpu_burn (pid 11345, 15.32 GiB), /root/tools/memhog (pid 11327, 2.51 GiB), /root/tools/memhog (pid 11328, 1.51 GiB)"
        in found[0].detail
    )
    # Half of (61741 - 1024) MiB over 81559 MiB = 0.3722 -> 0.37.
    commands = [line for line in found[1].remediation.lines() if not line.startswith("# ")]
    assert commands[1].startswith("export XLA_PYTHON_CLIENT_MEM_FRACTION=0.37")
    assert codes(snapshot("h100-load-tf-jax-configured")) == []


def test_a_gpu_split_by_mig_is_not_shared():
    snap = snapshot("a100-mig-two-instances")
    xml = snap["commands"]["nvidia-smi -q -x"]["stdout"].replace(
        "<processes>\n        </processes>",
        "<processes><process_info><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id>"
        "<pid>4242</pid><type>C</type><process_name>python</process_name><used_memory>5120 MiB</used_memory>"
        "</process_info></processes>",
    )
    snap["commands"]["nvidia-smi -q -x"]["stdout"] = xml
    snap["python"] = {
        "version": "3.11.2",
        "executable": "/usr/bin/python3",
        "site_packages": ["/usr/lib/python3/dist-packages"],
        "distributions": {"jax": "0.4.13", "jaxlib": "0.4.13+cuda11.cudnn86"},
    }
    assert codes(snap) == []


def test_sources_are_declared_in_the_matrix():
    from gpudoctor.matrix import load_matrix

    declared = set(load_matrix().sources)
    for slug in ("rtx4000ada-tf-beside-torch-job", "t4-jax-beside-tf-notebook"):
        for f in findings(snapshot(slug)):
            assert f.sources and set(f.sources) <= declared


def test_every_code_has_its_page():
    for check in memory_checks.CHECKS:
        for code in check.codes:
            page = (ROOT / "docs" / "findings" / f"{code}.md").read_text(encoding="utf-8")
            assert page.startswith(f"# `{code}`\n**Severity:** warning · **Area:** memory")


def test_fixture_holds_the_processes_the_machines_rely_on():
    xml = fixture_text("nvidia-smi-xml/rtx-4000-sff-ada_driver-595.84_cuda-13.2_processes.xml")
    assert "<pid>4937</pid>" in xml and "<type>C+G</type>" in xml
