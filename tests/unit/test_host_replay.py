"""The seam: a live temp root, recorded, replays to the same answers; hand-written snapshots behave as documented."""

from __future__ import annotations

import os

import pytest

from gpudoctor.host import HostError
from gpudoctor.host.live import LiveHost
from gpudoctor.host.replay import RecordingHost, ReplayHost
from gpudoctor.host.snapshot import dump_snapshot, validate_snapshot
from gpudoctor.probes.toolkits import probe_toolkits
from tests.conftest import fixture_text, replay_host


def make_tree(root):
    (root / "usr/local/cuda-12.8/bin").mkdir(parents=True)
    (root / "usr/local/cuda-12.8/include").mkdir(parents=True)
    (root / "usr/local/cuda-12.8/lib64").mkdir(parents=True)
    (root / "usr/local/cuda-12.8/version.json").write_text(
        fixture_text("cuda-version-files/version.json_cuda-12.8.2_windows-driver-572.61.json")
    )
    (root / "usr/local/cuda-12.8/bin/nvcc").write_text("#!/bin/sh\n")
    (root / "usr/local/cuda-12.8/include/cuda_runtime.h").write_text("/* header */\n")
    (root / "usr/local/cuda-12.8/lib64/libcudart.so.12").write_text("")
    os.symlink("/usr/local/cuda-12.8", root / "usr/local/cuda")
    (root / "etc").mkdir()
    (root / "etc/binary").write_bytes(b"\x7fELF\x00\x01")
    return root


def test_live_temp_root_reads_through_links(tmp_path):
    host = LiveHost(str(make_tree(tmp_path)), environ={"PATH": "/usr/local/cuda/bin"})
    assert host.realpath("/usr/local/cuda/bin/nvcc") == "/usr/local/cuda-12.8/bin/nvcc"
    assert host.stat("/usr/local/cuda").target == "/usr/local/cuda-12.8"
    assert host.which("nvcc") == "/usr/local/cuda/bin/nvcc"
    with pytest.raises(HostError) as err:
        host.read_text("/etc/binary")
    assert err.value.code == "EBINARY"
    with pytest.raises(HostError) as err:
        host.read_text("/nope")
    assert err.value.missing


def test_recorded_snapshot_replays_to_the_same_toolkits(tmp_path):
    live = LiveHost(str(make_tree(tmp_path)), environ={"PATH": "/usr/bin"})
    recorder = RecordingHost(live)
    recorded = probe_toolkits(recorder, 2.0)
    assert [(t.root, t.version) for t in recorded.toolkits] == [("/usr/local/cuda-12.8", "12.8.2")]
    snapshot = validate_snapshot(__import__("json").loads(dump_snapshot(recorder.snapshot)))
    replayed = probe_toolkits(ReplayHost(snapshot), 2.0)
    assert replayed == recorded
    assert snapshot["files"]["/usr/local/cuda"] == {"link": "/usr/local/cuda-12.8"}


def test_hand_written_snapshot_files_under_a_linked_directory():
    host = replay_host(
        {
            "format": "gpudoctor-snapshot/1",
            "files": {
                "/usr/local/cuda": {"link": "/usr/local/cuda-11.8"},
                "/usr/local/cuda/version.json": '{"cuda": {"name": "CUDA SDK", "version": "11.8.0"}}',
                "/usr/local/cuda-11.8/bin/nvcc": {"type": "file"},
            },
        }
    )
    assert host.read_text("/usr/local/cuda-11.8/version.json").startswith("{")
    assert host.is_dir("/usr/local/cuda-11.8")
    assert host.list_dir("/usr/local") == ["cuda", "cuda-11.8"]
    assert host.resolve_stat("/usr/local/cuda/bin/nvcc").kind == "file"


def test_replay_absent_things_are_absent():
    host = replay_host({"format": "gpudoctor-snapshot/1"})
    result = host.run(["nvidia-smi", "-q", "-x"], 1.0)
    assert result.missing and not result.timed_out
    assert host.stat("/proc/driver/nvidia/version").kind == "missing"
    assert host.nvml(1.0)["status"] == "library_not_found"
    assert host.python_env(None, 1.0) is None


def test_replay_errors_and_timeouts_as_recorded():
    host = replay_host(
        {
            "format": "gpudoctor-snapshot/1",
            "files": {"/dev/nvidia0": {"type": "char", "readable": False, "writable": False}, "/root/x": {"error": "EACCES"}},
            "dirs": {"/secret": {"error": "EACCES"}},
            "commands": {"nvidia-smi -q -x": {"timeout": True}},
        }
    )
    assert host.run(["nvidia-smi", "-q", "-x"], 5).timed_out
    node = host.stat("/dev/nvidia0")
    assert (node.kind, node.readable, node.writable) == ("char", False, False)
    with pytest.raises(HostError) as err:
        host.read_text("/root/x")
    assert err.value.code == "EACCES"
    with pytest.raises(HostError) as err:
        host.list_dir("/secret")
    assert err.value.code == "EACCES"


def test_dangling_link_resolves_to_none():
    host = replay_host({"format": "gpudoctor-snapshot/1", "files": {"/usr/local/cuda": {"link": "/usr/local/cuda-10.2"}}})
    assert host.realpath("/usr/local/cuda") is None
    assert host.stat("/usr/local/cuda").kind == "link"
    assert not host.exists("/usr/local/cuda")


def test_link_loop_does_not_recurse_forever():
    host = replay_host({"format": "gpudoctor-snapshot/1", "files": {"/a": {"link": "/b"}, "/b": {"link": "/a"}}})
    assert host.realpath("/a") is None
