"""The fleet formats (Prometheus exposition, NFD feature file, NPD line) with hostile machine data.

A GPU name, a driver version, a torch version, a path or a node name can hold anything. In the
exposition format each must stay inside its label's quotes (no forged series, no line break, only the
three escapes the format knows); in NFD's file it must become a valid label value or be left out; in
NPD's line it must stay one line. Everything shown stays visible text (no control reaches a terminal
that shows the file).
"""

from __future__ import annotations

import json

import pytest

from gpudoctor.render.nfd import NPD_MAX_CHARS, render_nfd, render_npd
from gpudoctor.render.prometheus import MAX_LABEL_CHARS, render_prometheus
from gpudoctor.sanitize import clean_line, has_unsafe
from tests.fleet_formats import nfd_labels, parse_exposition
from tests.hostile.strings import HOSTILE
from tests.hostile.test_corpus import CASES, FUZZ, _write, assert_clean_run, run_cli

# The anchors these formats show (gpu_info, driver_info, framework_info, python_info, NFD's labels).
SHOWN = {"gpu-name", "driver-version", "gpu-uuid", "pci-bus-id", "torch-version", "python-executable", "tensorflow-version"}
FLEET_CASES = [c for c in CASES if c.name.split("/")[1] in SHOWN][::3]


def _all_three(doc: dict) -> tuple[dict, dict, str]:
    prom = render_prometheus(doc, timestamp=1.5e9, duration_s=0.25)
    assert not has_unsafe(prom)
    fams = parse_exposition(prom)
    for samples in fams.values():
        for s in samples:
            for v in s.labels.values():
                assert len(v) <= MAX_LABEL_CHARS and not has_unsafe(v)
    nfd = render_nfd(doc, timestamp=1.5e9)
    assert not has_unsafe(nfd)
    labels = nfd_labels(nfd)
    npd = render_npd(doc)
    assert npd.count("\n") == 1 and npd.endswith("\n") and len(npd) <= NPD_MAX_CHARS + 1 and not has_unsafe(npd)
    return fams, labels, npd


@pytest.mark.parametrize("case", FLEET_CASES, ids=[c.name for c in FLEET_CASES])
def test_hostile_machine_in_fleet_formats(case, tmp_path):
    path = _write(tmp_path, case)
    code, out, err = run_cli("check", "--replay", path, "--format", "json", "--node", "n1")
    assert_clean_run(code, out, err, case.name)
    doc = json.loads(out)
    fams, labels, _ = _all_three(doc)
    if code in (0, 1):
        for g, sample in zip(
            doc["facts"]["driver"]["gpus"],
            sorted(fams.get("gpudoctor_gpu_info", []), key=lambda s: s.labels["gpu"]),
            strict=False,
        ):
            shown = clean_line(g["name"] or "")
            # The name survives as visible text, whole when it fits and cut with "…" when not.
            assert sample.labels["name"] == shown if len(shown) <= MAX_LABEL_CHARS else sample.labels["name"].endswith("…")
    # And through the real CLI: the same bytes reach stdout and the textfile.
    code2, out2, err2 = run_cli("check", "--replay", path, "--format", "prometheus", "--node", "n1")
    assert_clean_run(code2, out2, err2, case.name)
    assert code2 == code
    parse_exposition(out2)
    code3, out3, err3 = run_cli("check", "--replay", path, "--format", "npd")
    assert code3 in (0, 1, 2) and out3.count("\n") == 1 and not has_unsafe(out3), out3


@pytest.mark.parametrize("case", FUZZ[::9], ids=[c.name for c in FUZZ[::9]])
def test_malformed_snapshot_in_fleet_formats(case, tmp_path):
    path = _write(tmp_path, case)
    for fmt in ("prometheus", "nfd", "npd"):
        code, out, err = run_cli("check", "--replay", path, "--format", fmt)
        assert code in (0, 1, 2, 3), f"{case.name} {fmt}: {err[-2000:]}"
        assert "Traceback" not in err and not has_unsafe(out)
        if fmt == "prometheus":
            parse_exposition(out)
        elif fmt == "nfd":
            nfd_labels(out)
        else:
            assert out.count("\n") == 1


def _doc(h: str) -> dict:
    """A report in which every string the renderers show is `h`."""
    return {
        "schema": "gpudoctor.report/1",
        "tool_version": h,
        "node": h,
        "host_mode": h,
        "status": "error",
        "exit_code": 1,
        "findings": [
            {"code": h, "severity": "error", "area": h, "title": f"GPU 0 {h}"},
            {"code": "x", "severity": h, "area": "gpu", "title": h},
        ],
        "requirements": [{"spec": h, "kind": h, "met": False, "found": h}],
        "facts": {
            "driver": {
                "nvml_driver_version": h,
                "nvml_cuda_version": h,
                "gpus": [{"index": 0, "name": h, "uuid": h, "pci_bus_id": h, "compute_capability": h, "temperature_c": 50}],
            },
            "frameworks": {
                "python": {"status": "found", "value": {"version": h, "executable": h}},
                "torch": {"status": "found", "value": {"version": h, "cuda": h}},
                "jax": {"status": "found", "value": {"jax": h, "plugins": {h: h}}},
            },
            "toolkits": {"toolkits": [{"version": h, "root": h}]},
            "cudnn": [{"version": h, "kind": h, "path": h}],
        },
    }


@pytest.mark.parametrize("h", [*HOSTILE, "\ud800lone surrogate", '"} 1\nforged_series 1\n', "\\", "A" * 5000])
def test_hostile_strings_stay_inside_their_labels(h):
    doc = _doc(h)
    fams, labels, npd = _all_three(doc)
    shown = clean_line(h).replace("\ud800", "\ufffd")
    expected = shown if len(shown) <= MAX_LABEL_CHARS else shown[: MAX_LABEL_CHARS - 1] + "…"
    assert fams["gpudoctor_check_info"][0].labels["node"] == expected
    assert fams["gpudoctor_gpu_info"][0].labels["name"] == expected
    assert "forged_series" not in fams  # the text never became a series of its own
    assert all(name.startswith("gpudoctor_") for name in fams)
    # NPD's message: the worst finding's code and title, as visible text on one line.
    assert npd.startswith(shown[:40])
    # Error documents carry a message from anywhere (a path, an exception): the same rules.
    err = {"schema": "gpudoctor.report/1", "status": "doctor-error", "exit_code": 3, "error": {"message": h, "hint": h}}
    efams, elabels, eline = _all_three(err)
    assert efams["gpudoctor_check_error_info"][0].labels["message"] == expected
    assert elabels == {"healthy": "false", "status": "doctor-error"} and eline.startswith("gpudoctor could not check the node: ")
