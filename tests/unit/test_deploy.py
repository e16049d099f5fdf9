"""deploy/: the Kubernetes manifests, the Node Problem Detector config and the Dockerfiles, checked offline.

- Every manifest of deploy/kubernetes/ is validated, strictly (no unknown field), against the Kubernetes
  API's published JSON schemas for Kubernetes KUBERNETES (the schemas shipped by the kubernetes-validate
  package of the test extra; no cluster needed).
- The pieces agree: kustomization.yaml lists files that exist; the NPD DaemonSet mounts the ConfigMap the
  kustomization generates at the path NPD is told to read; the NPD rules run the gpudoctor that
  npd.Dockerfile installs.
- The commands in them are real gpudoctor command lines: each NPD rule, the preflight Job's command and
  the label DaemonSet's, run against recorded machines (with --replay added), give the conditions and
  files they are meant to.
"""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path

import pytest

from tests.fleet_formats import nfd_labels, parse_exposition

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "kubernetes"
MACHINES = ROOT / "tests" / "machines"
KUBERNETES = "1.33.0"  # a release most clusters run (its API: apps/v1, batch/v1, rbac/v1, core/v1)

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (make test-tools, which runs pip install --group test)")


def manifests() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue  # kustomize's own file: not a Kubernetes API object
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                out.append((f"{path.name}:{doc['kind']}/{doc['metadata']['name']}", doc))
    return out


MANIFESTS = manifests()


def _by_kind(kind: str, name: str) -> dict:
    return next(doc for _, doc in MANIFESTS if doc["kind"] == kind and doc["metadata"]["name"] == name)


@pytest.mark.parametrize("doc", [d for _, d in MANIFESTS], ids=[i for i, _ in MANIFESTS])
def test_manifest_is_valid_for_the_kubernetes_api(doc):
    kv = pytest.importorskip(
        "kubernetes_validate",
        reason="kubernetes-validate is not installed (make test-tools, which runs pip install --group test)",
    )
    kv.validate(doc, KUBERNETES, strict=True)


def test_the_validator_refuses_a_broken_manifest():
    """The schemas really bite: a typo'd field and a wrong type are both refused."""
    kv = pytest.importorskip(
        "kubernetes_validate",
        reason="kubernetes-validate is not installed (make test-tools, which runs pip install --group test)",
    )
    ds = _by_kind("DaemonSet", "gpudoctor-npd")
    typo = copy.deepcopy(ds)
    typo["spec"]["template"]["spec"]["containers"][0]["volumeMount"] = []
    with pytest.raises(kv.ValidationError):
        kv.validate(typo, KUBERNETES, strict=True)
    wrong = copy.deepcopy(ds)
    wrong["spec"]["template"]["spec"]["containers"][0]["env"] = {"NODE_NAME": "x"}
    with pytest.raises(kv.ValidationError):
        kv.validate(wrong, KUBERNETES, strict=True)


def test_kustomization_and_manifests_agree():
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    for name in kust["resources"]:
        assert (K8S / name).is_file(), name
    (generator,) = kust["configMapGenerator"]
    assert [(K8S / f).is_file() for f in generator["files"]] == [True]
    npd = _by_kind("DaemonSet", "gpudoctor-npd")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in npd["volumes"]}
    (container,) = npd["containers"]
    mount = next(m for m in container["volumeMounts"] if volumes[m["name"]].get("configMap"))
    assert volumes[mount["name"]]["configMap"]["name"] == generator["name"]
    config_flag = next(a for a in container["command"] if a.startswith("--config.custom-plugin-monitor="))
    assert config_flag.split("=", 1)[1] == f"{mount['mountPath']}/{generator['files'][0]}"
    assert npd["serviceAccountName"] == _by_kind("ServiceAccount", "gpudoctor-npd")["metadata"]["name"]
    images = {i["name"] for i in kust["images"]}
    for _, doc in MANIFESTS:
        for c in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            if doc["kind"] == "DaemonSet":
                assert c["image"] in images, c["image"]  # set by `kustomize edit set image`


def _npd_config() -> dict:
    return json.loads((K8S / "npd-gpudoctor.json").read_text(encoding="utf-8"))


def test_npd_config_maps_known_codes_to_conditions():
    from gpudoctor.cli.common import all_codes
    from gpudoctor.render.nfd import NPD_MAX_CHARS

    config = _npd_config()
    assert config["plugin"] == "custom"
    assert config["pluginConfig"]["max_output_length"] == NPD_MAX_CHARS  # the line is never cut by NPD
    conditions = {c["type"] for c in config["conditions"]}
    dockerfile = (ROOT / "deploy" / "docker" / "npd.Dockerfile").read_text(encoding="utf-8")
    for rule in config["rules"]:
        assert rule["type"] == "permanent" and rule["condition"] in conditions
        assert rule["path"] == "/opt/gpudoctor/bin/gpudoctor" and "python3 -m venv /opt/gpudoctor" in dockerfile
        args = rule["args"]
        codes = [args[i + 1] for i, a in enumerate(args) if a == "--only"]
        assert codes and set(codes) <= set(all_codes()), codes
        assert args[:3] == ["check", "--format", "npd"]


# Recorded machines and the condition each rule must set on them, with the reason.
NPD_EXPECTED = [
    # GPU 0 of the failing H100 NVL: uncorrectable ECC errors, throttling, an x8 link; its driver works.
    ("h100nvl-failing-gpu", {"GPUDriverProblem": 0, "GPUHardwareProblem": 1}),
    # The NVIDIA kernel module and user-space library differ after an upgrade: a driver problem only.
    ("driver-library-mismatch-after-upgrade", {"GPUDriverProblem": 1, "GPUHardwareProblem": 0}),
    # An RTX 3080 with no driver installed at all.
    ("rtx3080-no-driver", {"GPUDriverProblem": 1, "GPUHardwareProblem": 0}),
    # Eight healthy H100s.
    ("h100x8-driver565-torch221-cu121", {"GPUDriverProblem": 0, "GPUHardwareProblem": 0}),
]


@pytest.mark.parametrize(("machine", "expected"), NPD_EXPECTED, ids=[m for m, _ in NPD_EXPECTED])
def test_npd_rules_on_recorded_machines(gd_cli, machine, expected):
    got = {}
    for rule in _npd_config()["rules"]:
        r = gd_cli(*rule["args"], "--replay", str(MACHINES / machine / "snapshot.json"))
        assert r.stdout.count("\n") == 1, r.stdout
        got[rule["condition"]] = r.exit_code
    assert got == expected


def test_label_daemonset_commands_write_what_the_readers_read(gd_cli, tmp_path):
    """The loop of nfd-daemonset.yaml, once, with --replay and the mounts as directories here."""
    ds = _by_kind("DaemonSet", "gpudoctor-labels")["spec"]["template"]["spec"]
    (container,) = ds["containers"]
    script = container["command"][-1]
    commands = [shlex.split(line.strip()) for line in script.splitlines() if line.strip().startswith("gpudoctor ")]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    host = {v["name"]: v["hostPath"]["path"] for v in ds["volumes"]}
    assert host[mounts["/features.d"]] == "/etc/kubernetes/node-feature-discovery/features.d"
    assert host[mounts["/textfile"]] == "/var/lib/node_exporter/textfile_collector"
    assert len(commands) == 2
    for argv in commands:
        argv = [a.replace('"$NODE_NAME"', "gpu-07").replace("$NODE_NAME", "gpu-07") for a in argv]
        i = argv.index("--textfile")
        target = tmp_path / argv[i + 1].strip("/")
        target.mkdir()
        argv[i + 1] = str(target)
        r = gd_cli(*argv[1:], "--replay", str(MACHINES / "h100x8-driver565-torch221-cu121" / "snapshot.json"))
        assert r.exit_code == 0, r.output
    assert nfd_labels((tmp_path / "features.d" / "gpudoctor").read_text(encoding="utf-8"))["healthy"] == "true"
    fams = parse_exposition((tmp_path / "textfile" / "gpudoctor.prom").read_text(encoding="utf-8"))
    assert fams["gpudoctor_check_info"][0].labels["node"] == "gpu-07"


def test_preflight_job_command(gd_cli):
    """The Job's command: eight H100s with a CUDA torch pass; the failing single H100 NVL does not."""
    job = _by_kind("Job", "gpudoctor-preflight")["spec"]["template"]["spec"]
    (container,) = job["containers"]
    argv = container["command"]
    assert argv[0] == "gpudoctor" and container["resources"]["limits"]["nvidia.com/gpu"] == 8
    ok = gd_cli(*argv[1:], "--replay", str(MACHINES / "h100x8-driver565-torch221-cu121" / "snapshot.json"))
    assert ok.exit_code == 0, ok.output
    bad = gd_cli(*argv[1:], "--replay", str(MACHINES / "h100nvl-failing-gpu" / "snapshot.json"))
    assert bad.exit_code == 1 and "gpus>=8" in bad.output


@pytest.fixture(scope="module")
def gd_cli():
    from tests.cli.conftest import Gpudoctor

    return Gpudoctor()


def test_dockerfiles_copy_what_pip_needs():
    """Both Dockerfiles copy exactly the files `pip install .` reads, and .dockerignore lets them through."""
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for name in ("Dockerfile", "npd.Dockerfile"):
        text = (ROOT / "deploy" / "docker" / name).read_text(encoding="utf-8")
        for path in ("pyproject.toml", "README.md", "LICENSE", "src/", "compat_matrix/", "docs/"):
            assert path in text, (name, path)
            assert f"!{path}" in ignore, path
