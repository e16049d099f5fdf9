"""The planner's documented choice rules (gpudoctor.planner.pick_torch, pick_tensorflow, pick_jax, judge), one sentence
of their docstrings and comments per test, on the bundled matrix and hand-made machines. Expected values are written
from the sentences, never computed the way the code computes them.
"""

from __future__ import annotations

from gpudoctor.facts import TensorflowFacts, TorchFacts
from gpudoctor.matrix import load_matrix
from gpudoctor.planner import judge, pick_jax, pick_tensorflow, pick_torch
from gpudoctor.planner.model import Candidate, GpuInfo, Judgement, Machine, TargetEnv

RTX3060 = GpuInfo(0, "NVIDIA GeForce RTX 3060", "8.6", "Ampere")
ENV = TargetEnv("/usr/bin/python3", "3.11.7", kind="venv", has_pip=True)


def _m():
    return load_matrix()


def test_torchaudio_is_pinned_with_the_cuda_tag_from_0_10_and_without_it_before():
    # "torchaudio only from 0.10 (Starting 0.10, torchaudio has CPU-only and CUDA-enabled binary distributions)":
    # a same-version torchaudio of another build gets the index's tag from 0.10 on, never before.
    m = _m()
    assert pick_torch.companion_specs(m, {"torchaudio": "0.10.0+cpu"}, "1.10.0", "cu113") == ("torchaudio==0.10.0+cu113",)
    assert pick_torch.companion_specs(m, {"torchaudio": "0.9.1"}, "1.9.1", "cu111") == ("torchaudio==0.9.1",)
    # torchvision is tagged whatever its release
    assert pick_torch.companion_specs(m, {"torchvision": "0.10.1+cpu"}, "1.9.1", "cu111") == ("torchvision==0.10.1+cu111",)


def _machine(installed=None, **kw) -> Machine:
    base = dict(os="linux", arch="x86_64", driver="570.124.04", driver_cuda="12.8", gpus=(RTX3060,), env=ENV)
    base.update(kw)
    return Machine(**base, installed=dict(installed or {}))  # type: ignore[arg-type]


def _torch_build(release: str, tag: str):
    ((_, builds),) = pick_torch.groups(_m(), release)
    return next(b for b in builds if b.variant == tag)


def test_a_pre_release_or_nightly_torch_installed_is_pinned_to_its_release_on_the_stable_index():
    # _stable: "A nightly's or a pre-release's release (2.7.0.dev20250310 -> 2.7.0): the stable index has only that";
    # settle then keeps the installed patch (2.7.0) with the build's tag.
    build = _torch_build("2.7", "cu126")
    for installed in ("2.7.0rc1+cu126", "2.7.0.dev20250310+cu126", "2.7.0a0+git1234"):
        settled = pick_torch.settle(_m(), _machine({"torch": installed}), build)
        assert (settled.pin, settled.specs[0]) == ("2.7.0", "torch==2.7.0+cu126"), installed


def _jax_rows(requested):
    return [(row.version, {b.pin for b in builds}) for row, builds in pick_jax.groups(_m(), requested)]


def test_a_jax_series_installs_the_row_in_force_at_its_start_and_each_row_starting_inside_it():
    # "A series ("0.6"): the row in force at its start, and the rows starting inside it", newest first; a row applies
    # "from its version up to the next row" (exclusive), and the series ends before the next minor.
    assert _jax_rows("0.6") == [("0.6.0", {">=0.6.0,<0.7.0"})]  # 0.7.0's row starts at the series' end: not inside
    assert _jax_rows("0.7") == [("0.7.2", {">=0.7.2,<0.8.0"}), ("0.7.0", {">=0.7.0,<0.7.2"})]
    assert _jax_rows("0.5") == [("0.4.31", {">=0.5.0,<0.6.0"})]  # no row starts in 0.5: 0.4.31's is in force
    assert _jax_rows("0.4.38") == [("0.4.31", {"==0.4.38"})]


def test_a_torch_line_with_companions_moving_pins_the_newest_patch_the_companion_table_knows():
    # settle: "with companions installed ..., the newest patch the companion table knows, so that each companion is
    # pinned to the release built for it": 2.5's patches in the table are 2.5.0 and 2.5.1.
    machine = _machine({"torch": "2.1.2+cu121", "torchvision": "0.16.2+cu121"})
    settled = pick_torch.settle(_m(), machine, _torch_build("2.5", "cu124"))
    assert (settled.pin, settled.specs) == ("2.5.1", ("torch==2.5.1+cu124",))
    assert pick_torch.install_specs(_m(), machine, settled) == ("torch==2.5.1+cu124", "torchvision==0.20.1")


def test_the_cuda_build_named_by_the_environment_is_one_or_none():
    # evidence: "None when nothing does, or when what does disagrees".
    one = _machine({"torch": "2.3.0+cpu", "torchvision": "0.18.0+cu121"}, driver=None, driver_cuda=None, gpus=())
    assert pick_torch.evidence(one)[0] == "cu121"
    two = _machine({"torchvision": "0.18.0+cu121", "torchaudio": "2.3.0+cu118"}, driver=None, driver_cuda=None, gpus=())
    assert pick_torch.evidence(two) is None
    assert pick_torch.evidence(_machine({"torchvision": "0.18.0"})) is None


def test_undo_puts_back_a_nightly_from_the_nightly_index_and_a_release_from_its_variants_index():
    # "A nightly (2.7.0.dev20250310+cu124) is only on the nightly index, never on the stable one."
    nightly = _machine({"torch": "2.7.0.dev20250310+cu124"})
    assert pick_torch.undo_args(nightly) == (
        "torch==2.7.0.dev20250310+cu124",
        "--index-url",
        "https://download.pytorch.org/whl/nightly/cu124",
    )
    release = _machine({"torch": "2.5.1+cu121", "torchvision": "0.20.1+cu121"})
    assert pick_torch.undo_args(release) == (
        "torch==2.5.1+cu121",
        "torchvision==0.20.1+cu121",
        "--index-url",
        "https://download.pytorch.org/whl/cu121",
    )
    assert pick_torch.undo_args(_machine({"torch": "2.5.1"})) == ("torch==2.5.1",)  # no local tag: no index named


def test_a_cpu_build_comes_from_pytorchs_cpu_index_except_on_macos():
    # "PyTorch's cpu index holds them for Linux and Windows; on macOS the PyPI wheels are the CPU ones".
    build = _torch_build("2.5", "cu124")
    rel = _m().torch_release("2.5")
    for os_name in ("linux", "windows"):
        cpu = pick_torch.cpu_build(_machine(os=os_name), rel, build)
        assert (cpu.variant, cpu.index_url, cpu.specs) == ("cpu", "https://download.pytorch.org/whl/cpu", ("torch==2.5.*",))
    assert pick_torch.cpu_build(_machine(os="macos"), rel, build).index_url is None


def test_unseen_companions_join_the_torch_line_only_where_the_package_list_was_not_seen():
    # carried: "where the package list was not seen (a paste without `pip list`), also torchvision and torchaudio".
    unseen = _machine({"torch": "2.4.0+cu121"}, listed=False)
    assert pick_torch.carried(_m(), unseen, "2.5.1") == {"torchvision": "", "torchaudio": ""}
    seen = _machine({"torch": "2.4.0+cu121"})
    assert pick_torch.carried(_m(), seen, "2.5.1") == {}


def test_an_installed_build_matches_by_release_and_cuda_and_by_exact_version_only_when_one_was_asked():
    # installed_matches: "same release and CUDA; the same version when one was asked" (major.minor of the release).
    def tf(version, cuda):
        return TorchFacts(version=version, cuda=cuda, hip=None, location="/venv/lib/python3.11/site-packages/torch")

    build = _torch_build("2.5", "cu124")
    cpu = pick_torch.cpu_build(_machine(), _m().torch_release("2.5"), build)
    m = _machine({"torch": "2.5.1+cu124"})
    assert pick_torch.installed_matches(m, tf("2.5.1+cu124", "12.4"), build)
    assert not pick_torch.installed_matches(m, tf("2.4.1+cu124", "12.4"), build)  # another minor
    assert not pick_torch.installed_matches(m, tf("2.5.1+cu121", "12.1"), build)  # another CUDA
    ((_, exact),) = pick_torch.groups(_m(), "2.5.0+cu124")
    assert not pick_torch.installed_matches(m, tf("2.5.1+cu124", "12.4"), exact[0])  # patch asked
    assert pick_torch.cpu_installed(m, tf("2.5.1+cpu", None), cpu)
    assert not pick_torch.cpu_installed(m, tf("2.4.1+cpu", None), cpu)


def _tf_build(release: str):
    ((row, (build,)),) = pick_tensorflow.groups(_m(), release)
    return row, build


def test_tensorflow_before_2_18_is_installed_with_numpy_below_2_and_from_2_18_without():
    # "TensorFlow supports NumPy 2 from 2.18 ... the install says numpy<2" for an older release.
    m = _machine()
    assert pick_tensorflow.install_specs(_m(), m, _tf_build("2.17")[1])[-1] == "numpy<2"
    assert "numpy<2" not in pick_tensorflow.install_specs(_m(), m, _tf_build("2.18")[1])


def test_tensorflow_2_15_0s_and_cuda_extra_is_replaced_by_its_post1_re_release():
    # AND_CUDA_REPLACED: "2.15.0's extra pins tensorrt==8.6.1.post1, which the package index does not serve".
    build = pick_tensorflow.groups(_m(), "2.15.0")[0][1][0]
    assert (build.specs, build.pin) == (("tensorflow[and-cuda]==2.15.0.post1",), "2.15.0.post1")
    assert pick_tensorflow.groups(_m(), "2.15.1")[0][1][0].specs == ("tensorflow[and-cuda]==2.15.1",)


def test_every_tensorflow_distribution_installed_beside_the_target_is_removed_and_the_target_too_on_reinstall():
    # "tensorflow-cpu / -gpu / -intel install the same `tensorflow` package directory: never two at once."
    m = _machine({"tensorflow-intel": "2.10.0", "tensorflow-cpu": "2.10.0", "tensorflow": "2.10.0", "tf-nightly": "2.11.0"})
    build = _tf_build("2.16")[1]
    assert pick_tensorflow.uninstall_names(m, build, False) == ("tensorflow-cpu", "tensorflow-intel", "tf-nightly")
    assert pick_tensorflow.uninstall_names(m, build, True) == ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tf-nightly")


def test_a_tensorflow_cpu_build_counts_as_installed_under_tensorflow_or_tensorflow_cpu():
    def facts(dist, version):
        return TensorflowFacts(version=version, distribution=dist, is_cuda_build=False, cuda=None, cudnn=None, location="/x")

    row, build = _tf_build("2.16")
    cpu = pick_tensorflow.cpu_build(_machine(), row, build)
    for dist in ("tensorflow", "tensorflow-cpu"):
        assert pick_tensorflow.cpu_installed(_machine(), facts(dist, "2.16.1"), cpu)
    assert not pick_tensorflow.cpu_installed(_machine(), facts("tensorflow-intel", "2.16.1"), cpu)
    assert not pick_tensorflow.cpu_installed(_machine(), facts("tensorflow", "2.15.1"), cpu)


def test_a_system_cuda_tensorflow_asks_for_the_cuda_major_minor_libraries_package():
    # manual: `cuda-libraries-<major>-<minor>` of the release's CUDA (2.5-2.10: CUDA 11.2 -> cuda-libraries-11-2).
    row, build = _tf_build("2.10")
    candidate = Candidate(build, (Judgement("libraries", True, "missing", note=True),))
    lines = pick_tensorflow.manual(_machine(), row, candidate)
    assert "  sudo apt-get install -y cuda-libraries-11-2" in lines


def _jax_build(requested: str, variant: str):
    return next(b for _, builds in pick_jax.groups(_m(), requested) for b in builds if b.variant == variant)


def test_jax_builds_rank_full_driver_support_first_then_the_newest_cuda_major():
    full12, full13 = (_jax_build("0.7.2", v) for v in ("cuda12", "cuda13"))
    mvc = Judgement("driver", True, "minor-version compatibility", note=True, needs="580.65.06")
    ok = Judgement("driver", True, "fully")
    assert pick_jax.rank(Candidate(full13, (ok,))) > pick_jax.rank(Candidate(full12, (ok,)))
    assert pick_jax.rank(Candidate(full12, (ok,))) > pick_jax.rank(Candidate(full13, (mvc,)))


def test_jax_cuda_builds_are_refused_everywhere_but_linux():
    # "JAX publishes CUDA builds for Linux only (... WSL2 is Linux)".
    build = _jax_build("0.7.2", "cuda12")
    row = _m().jax_release("0.7.2")
    for os_name, refused in (("windows", True), ("macos", True), ("linux", False)):
        c = pick_jax.judge(_m(), _machine(os=os_name), None, row, build)
        assert any(j.topic == "os" and not j.ok for j in c.judgements) is refused, os_name


def test_an_installed_jax_plugin_build_matches_only_at_jaxs_exact_patch():
    build = _jax_build("0.4.38", "cuda12")
    same = {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.4.38", "jax-cuda12-pjrt": "0.4.38"}
    assert pick_jax.installed_matches(_machine(same), None, build)
    assert not pick_jax.installed_matches(_machine({**same, "jax-cuda12-plugin": "0.4.36"}), None, build)
    assert not pick_jax.installed_matches(_machine({**same, "jaxlib": "0.4.36"}), None, build)
    assert not pick_jax.installed_matches(_machine({**same, "jax-cuda11-pjrt": "0.4.38"}), None, build)  # other major


def test_a_jaxlib_from_jaxs_release_page_matches_only_its_own_cuda_major():
    build = _jax_build("0.4.25", "cuda11")
    assert build.find_links
    assert pick_jax.installed_matches(_machine({"jax": "0.4.25", "jaxlib": "0.4.25+cuda11.cudnn86"}), None, build)
    assert not pick_jax.installed_matches(_machine({"jax": "0.4.25", "jaxlib": "0.4.25+cuda12.cudnn89"}), None, build)


def test_another_majors_plugin_and_pjrt_are_removed_and_a_release_page_jaxlib_before_the_plugin_route():
    m = _machine({"jax": "0.4.38", "jaxlib": "0.4.38+cuda11.cudnn86", "jax-cuda11-plugin": "0.4.38", "jax-cuda11-pjrt": "0.4.38"})
    assert pick_jax.uninstall_names(m, _jax_build("0.4.38", "cuda12"), False) == (
        "jax-cuda11-plugin",
        "jax-cuda11-pjrt",
        "jaxlib",
    )
    plain = _machine({"jax": "0.4.25", "jaxlib": "0.4.25+cuda11.cudnn86"})
    assert pick_jax.uninstall_names(plain, _jax_build("0.4.25", "cuda11"), False) == ()  # the release-page route keeps it


def test_a_cpu_jax_is_installed_only_without_a_plugin_and_without_a_cuda_jaxlib():
    row = _m().jax_release("0.4.38")
    cpu = pick_jax.cpu_build(_machine(), row, _jax_build("0.4.38", "cuda12"))
    assert pick_jax.cpu_installed(_machine({"jax": "0.4.38", "jaxlib": "0.4.38"}), None, cpu)
    assert not pick_jax.cpu_installed(_machine({"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-pjrt": "0.4.38"}), None, cpu)
    assert not pick_jax.cpu_installed(_machine({"jax": "0.4.38", "jaxlib": "0.4.38+cuda12.cudnn89"}), None, cpu)


def test_the_lowest_driver_of_a_cuda_build_is_the_lower_of_its_majors_floor_and_its_own_driver():
    # lowest_driver: "CUDA 11.0's own GA driver 450.51.05 is below CUDA 11's floor 450.80.02".
    assert judge.lowest_driver("450.80.02", "450.51.05") == "450.51.05"
    assert judge.lowest_driver("525.60.13", "550.54.14") == "525.60.13"
    assert judge.lowest_driver(None, "550.54.14") == "550.54.14"
    assert judge.driver_needs(_m(), "11.0", "linux")[0] == "450.51.05"


def test_ptx_jit_is_refused_only_when_the_driver_runs_the_cuda_through_minor_version_compatibility():
    # "minor-version compatibility cannot JIT newer PTX": refused when the driver is known not to run it fully;
    # allowed (a note) when it does, or when no driver was seen (None).
    m = _machine(gpus=(GpuInfo(0, "NVIDIA H100", "9.0", "Hopper"),))
    for full, ok in ((False, False), (True, True), (None, True)):
        (j,) = judge.judge_kernels(m, ("8.0",), ("8.0",), full, "12.4")
        assert (j.topic, j.ok) == ("gpu", ok), full
