"""cudnn-sublibraries-mixed (docs/findings/cudnn-sublibraries-mixed.md): cuDNN 9's shim opens its sub-libraries by
name with its own run path, after LD_LIBRARY_PATH; where they would come from another copy of another version, the
finding fires. Stated on the two machines recorded live on an H200 (`make gpu-truth`, docs/gpu-truth.md), whose
processes were seen mapping exactly these files."""

from __future__ import annotations

from gpudoctor.cmdline import SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from tests.machines import snapshot_file
from tests.spec.machine import MACHINES
from tests.spec.registry import FIRES, QUIET, states

WHEEL = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib"
SYSTEM = "/usr/lib/x86_64-linux-gnu"


def _report(slug: str):
    return diagnose(ReplayHost(load_snapshot(str(snapshot_file(MACHINES / slug)))))


def _loads(report, framework: str) -> dict:
    return {r.soname: r for r in report.facts.loading.of(framework).loads}


@states("cudnn-sublibraries-mixed", FIRES)
def test_the_systems_sub_libraries_first_on_ld_library_path_mix_two_versions():
    report = _report("h200-driver580-cudnn-sublibraries-on-ld-library-path")
    loads = _loads(report, "torch")
    shim, graph = loads["libcudnn.so.9"], loads["libcudnn_graph.so.9"]
    # As the process mapped them: the shim through torch's RPATH, its graph library through LD_LIBRARY_PATH.
    assert (shim.path, shim.version) == (f"{WHEEL}/libcudnn.so.9", "9.19.0.56")
    assert (graph.path, graph.via, graph.how, graph.version) == (
        f"{SYSTEM}/libcudnn_graph.so.9",
        "LD_LIBRARY_PATH",
        "dlopen",
        "9.14.0",
    )
    assert graph.needed_by == shim.path
    (finding,) = [f for f in report.findings if f.code == "cudnn-sublibraries-mixed"]  # one for PyTorch and JAX
    assert finding.severity.label == "error"
    (step,) = finding.remediation.commands
    assert isinstance(step, SetEnv) and step.name == "LD_LIBRARY_PATH"
    assert step.value == "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"  # the image's own entries kept, in order


@states("cudnn-sublibraries-mixed", QUIET)
def test_the_shims_own_run_path_leads_to_its_own_sub_libraries():
    report = _report("h200-driver580-firecracker-healthy")
    graph = _loads(report, "torch")["libcudnn_graph.so.9"]
    assert (graph.path, graph.via) == (f"{WHEEL}/libcudnn_graph.so.9", "RUNPATH of libcudnn.so.9")
    assert not [f for f in report.findings if f.code == "cudnn-sublibraries-mixed"]


@states("cudnn-sublibraries-mixed", QUIET)
def test_a_snapshot_without_the_shims_headers_says_nothing():
    """Recorded before gpudoctor read the shim: its sub-libraries are not modelled, so nothing is claimed."""
    report = _report("rtx3060-jax-cudnn-shadowed-by-ld-library-path")
    assert not [f for f in report.findings if f.code == "cudnn-sublibraries-mixed"]
    assert not [r for r in report.facts.loading.of("jax").loads if (r.needed_by or "").endswith("libcudnn.so.9")]
