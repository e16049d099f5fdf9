"""`gpudoctor memory plan`, pure: jobs, fit, what would fit, per-framework settings, MIG profiles.

Every expected figure below was worked out by hand from the captures' MiB figures and the rules in
docs/memory.md (need = budget + overhead; fractions rounded down to 3 decimals; usable MIG memory =
slices/total x total x 0.95), not copied from a run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.errors import UsageError
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.matrix import load_matrix
from gpudoctor.memory.gather import read_memory
from gpudoctor.memory.mig import TABLE, fit_profiles, mig_gpu, usable_bytes
from gpudoctor.memory.plan import OVERHEADS, Job, fmt_size, make_plan, parse_job, parse_jobs, stated_gpu
from gpudoctor.memory.settings import fraction, job_settings
from gpudoctor.memory.view import GpuMemory, Holder, MemoryView, MigInstance

MACHINES = Path(__file__).resolve().parents[1] / "machines"
MIB = 1024**2
GIB = 1024**3


def view(slug: str):
    return read_memory(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))), 1.0)


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


# --- jobs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, job",
    [
        ("bert=5GiB", Job("bert", 5 * GIB, "any")),
        ("bert=5.5GiB:torch", Job("bert", int(5.5 * GIB), "torch")),
        ("r50=512MiB:tf", Job("r50", 512 * MIB, "tensorflow")),
        ("r50=512MiB:Keras", Job("r50", 512 * MIB, "tensorflow")),
        ("lm=5GB:pytorch", Job("lm", 5 * 1000**3, "torch")),
        ("lm=5G:flax", Job("lm", 5 * GIB, "jax")),
        ("triton-server=2Gi:other", Job("triton-server", 2 * GIB, "other")),
    ],
)
def test_job_specs(spec, job):
    assert parse_job(spec) == job


@pytest.mark.parametrize(
    "unit, bytes_per_unit",
    [
        *((u, 1024) for u in ("KiB", "K", "Ki", "kib")),
        *((u, 1024**2) for u in ("MiB", "M", "Mi", "mib")),
        *((u, 1024**3) for u in ("GiB", "G", "Gi")),
        *((u, 1000) for u in ("KB", "kB", "kb")),
        *((u, 1000**2) for u in ("MB", "mb", "Mb")),
        *((u, 1000**3) for u in ("GB", "gb")),
    ],
)
def test_each_size_unit_is_its_documented_power(unit, bytes_per_unit):
    """docs/memory.md: "Sizes: `GiB`, `MiB`, `KiB` (and `G`, `M`, `K`, `Gi`, `Mi`) are powers of 1024; `GB`, `MB`,
    `KB` powers of 1000, as `--require` reads them." Each unit, in any case, at a size that tells the two apart."""
    assert parse_job(f"bert=500{unit}").budget_bytes == 500 * bytes_per_unit


@pytest.mark.parametrize(
    "specs, message",
    [
        (["bert"], "cannot read the job 'bert'"),
        (["bert=5"], "the size in 'bert=5' needs a unit"),
        (["bert=5XB"], "unknown size unit 'XB' in 'bert=5XB'"),
        (["bert=5GiB:caffe"], "unknown framework 'caffe' in 'bert=5GiB:caffe'"),
        (["bert=0GiB"], "the budget of 'bert' is zero"),
        (["a=1GiB", "a=2GiB"], "job names must differ: a given twice"),
        ([], "no jobs given"),
    ],
)
def test_bad_job_specs_are_usage_errors(specs, message):
    with pytest.raises(UsageError) as err:
        parse_jobs(specs)
    assert err.value.message == message


def test_overheads_cite_public_sources_and_any_takes_the_largest():
    assert {k: o.bytes // MIB for k, o in OVERHEADS.items()} == {
        "torch": 512,
        "tensorflow": 1536,
        "jax": 1024,
        "other": 512,
        "any": 1536,
    }
    for key in ("torch", "tensorflow", "jax", "other"):
        assert OVERHEADS[key].sources and all(s.startswith("https://github.com/") for s in OVERHEADS[key].sources)


# --- fit on a shared GPU -----------------------------------------------------------------------------


def test_two_jobs_fit_beside_the_burn_test(matrix):
    # H100: 81559 MiB total, 19818 MiB used -> 61741 MiB free.
    plan = make_plan(
        view("h100-load-tf-jax-configured"), 0, parse_jobs(["bert=5GiB:torch", "resnet=7GiB:tensorflow"]), matrix=matrix
    )
    assert [(p.job.name, p.need_bytes // MIB) for p in plan.jobs] == [("bert", 5120 + 512), ("resnet", 7168 + 1536)]
    assert (plan.need_bytes // MIB, plan.available_bytes // MIB, plan.fits, plan.ok, plan.suggestions) == (
        14336,
        61741,
        True,
        True,
        (),
    )
    bert, resnet = plan.jobs
    # No UUID in the plain table: the index, numbered as nvidia-smi numbers GPUs.
    assert [line for e in bert.settings.env for line in e.lines()] == [
        "# number GPUs as nvidia-smi does",
        "CUDA_DEVICE_ORDER=PCI_BUS_ID",
        "# this job sees only this GPU (as device 0)",
        "CUDA_VISIBLE_DEVICES=0",
        "# torch >= 2.10 only; older releases stop on it: use the code",
        "# PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.062",
    ]
    # 5120 / 81559 = 0.06278 -> 0.062.
    assert bert.settings.snippets[0][0] == "torch"
    assert "torch.cuda.set_per_process_memory_fraction(0.062, device=0)" in bert.settings.snippets[0][1]
    assert resnet.settings.env[-1].lines() == ("# start small instead of mapping the whole GPU", "TF_FORCE_GPU_ALLOW_GROWTH=true")
    assert "LogicalDeviceConfiguration(memory_limit=7168)" in resnet.settings.snippets[0][1]
    assert bert.settings.sources == ("pytorch-cuda-notes", "pypi-torch-wheels")
    assert resnet.settings.sources == ("tf-gpu-guide", "pypi-tf-wheels")


def test_too_much_for_the_t4_says_by_how_much_and_what_would(matrix):
    # T4: 15360 MiB total, 13939 MiB free. a: 10240 + 512 = 10752; b: 4096 + 1024 = 5120; 15872 needed.
    plan = make_plan(view("t4-jax-beside-tf-notebook"), 0, parse_jobs(["a=10GiB:torch", "b=4GiB:jax"]), matrix=matrix)
    assert (plan.fits, plan.ok, plan.need_bytes // MIB, plan.shortfall_bytes // MIB) == (False, False, 15872, 1933)
    # Scaled: (13939 - 512 - 1024) / (10240 + 4096) = 0.8652 -> 86%: 10240 x 0.8652 = 8859, 4096 x 0.8652 = 3543.
    assert plan.suggestions == (
        "even an empty GPU 0 (15.00 GiB) is 512 MiB too small for all of them",
        "without a (10.50 GiB) the others fit",
        "without b (5.00 GiB) the others fit",
        "budgets cut to 86% fit: a=8859MiB b=3543MiB",
    )


def test_stopping_the_largest_process_is_offered_when_it_frees_enough(matrix):
    # 40960 + 512 + 30720 + 1024 = 73216 MiB needed, 61741 free: 11475 short; gpu_burn holds 15690.
    plan = make_plan(view("h100-load-tf-jax-configured"), 0, parse_jobs(["a=40GiB:torch", "b=30GiB:jax"]), matrix=matrix)
    assert plan.shortfall_bytes // MIB == 11475
    assert plan.suggestions == (
        "stopping process 11345 (./gpu_burn, 15.32 GiB) frees enough",
        "without a (40.50 GiB) the others fit",
        "without b (31.00 GiB) the others fit",
        "budgets cut to 83% fit: a=34402MiB b=25802MiB",
    )


def test_unnamed_framework_gets_every_framework_setting(matrix):
    plan = make_plan(view("h100-load-tf-jax-configured"), 0, parse_jobs(["x=5GiB"]), matrix=matrix)
    settings = plan.jobs[0].settings
    assert [fw for fw, _ in settings.snippets] == ["torch", "tensorflow", "jax"]
    assert [e.name for e in settings.env if e.active] == [
        "CUDA_DEVICE_ORDER",
        "CUDA_VISIBLE_DEVICES",
        "TF_FORCE_GPU_ALLOW_GROWTH",
        "XLA_PYTHON_CLIENT_MEM_FRACTION",
    ]
    assert plan.jobs[0].overhead_bytes == 1536 * MIB
    assert "each ignores the others'" in settings.note


def test_a_gpu_that_does_not_exist_is_a_usage_error(matrix):
    with pytest.raises(UsageError) as err:
        make_plan(view("h100-load-tf-jax-configured"), 3, parse_jobs(["x=5GiB"]), matrix=matrix)
    assert err.value.message == "there is no GPU 3 on this machine (GPUs: 0)"


# --- isolation with MIG ------------------------------------------------------------------------------------


def test_isolated_jobs_on_an_h100_get_profiles_that_fit(matrix):
    # usable = 81559 MiB x slices/8 x 0.95: 1 slice 9685 MiB, 2 slices 19370, 4 slices 38740.
    # a 8704 -> 1g.10gb (1c, 1m); b 17408 -> 1g.20gb (1c, 2m); c 31232 -> 3g.40gb (3c, 4m): 5 of 7, 7 of 8.
    plan = make_plan(
        view("h100-load-tf-jax-configured"),
        0,
        parse_jobs(["a=8GiB:torch", "b=16GiB:jax", "c=30GiB:other"]),
        isolate=True,
        matrix=matrix,
    )
    assert plan.isolation == "asked for with --isolate"
    fit = plan.mig
    assert fit.row.model == "H100 80GB"
    assert [(job, p.name) for job, p in fit.choices] == [("a", "1g.10gb"), ("b", "1g.20gb"), ("c", "3g.40gb")]
    assert (fit.compute_used, fit.memory_used, fit.fits, plan.ok) == (5, 7, True, True)
    assert plan.jobs[2].settings.snippets == () and "MIG instance" in plan.jobs[2].settings.note


def test_a_program_no_setting_caps_brings_in_mig_by_itself(matrix):
    plan = make_plan(view("h100-load-tf-jax-configured"), 0, parse_jobs(["server=20GiB:other"]), matrix=matrix)
    assert plan.isolation == "no software setting caps server"
    assert [(job, p.name) for job, p in plan.mig.choices] == [("server", "3g.40gb")]


def test_isolation_that_does_not_fit_fails_the_plan(matrix):
    # a 41472 MiB > 38740 -> 7g.80gb (7c, 8m); b 31744 -> 3g.40gb: 10 of 7 compute slices.
    plan = make_plan(
        view("h100-load-tf-jax-configured"), 0, parse_jobs(["a=40GiB:torch", "b=30GiB:jax"]), isolate=True, matrix=matrix
    )
    assert [(job, p.name) for job, p in plan.mig.choices] == [("a", "7g.80gb"), ("b", "3g.40gb")]
    assert (plan.mig.fits, plan.mig.why, plan.ok) == (False, "more slices than one GPU has", False)


def test_isolation_on_a_gpu_without_mig(matrix):
    plan = make_plan(view("t4-jax-beside-tf-notebook"), 0, parse_jobs(["a=2GiB:torch"]), isolate=True, matrix=matrix)
    assert plan.mig is None and plan.fits and not plan.ok
    assert plan.isolation == "asked for with --isolate; GPU 0 (Tesla T4) has no MIG: give each such job its own GPU"


def test_jobs_onto_the_free_instances_of_a_gpu_split_by_mig(matrix):
    # Free: MIG 0 40422 MiB, MIG 1 20079, MIG 2 and 3 9975. Largest need first onto the smallest that holds it.
    plan = make_plan(
        view("h100-mig-four-instances"),
        0,
        parse_jobs(["bert=12GiB:torch", "resnet=7GiB:tensorflow", "tiny=1GiB:jax"]),
        matrix=matrix,
    )
    assert plan.mode == "mig-instances" and plan.fits and plan.ok
    assert [(p.job.name, p.instance.device) for p in plan.jobs] == [("bert", 1), ("resnet", 2), ("tiny", 3)]
    # Fractions of the instance: 12288 / 20096 = 0.6115 -> 0.611; 1024 / 9984 = 0.1026 -> 0.102.
    assert "set_per_process_memory_fraction(0.611, device=0)" in plan.jobs[0].settings.snippets[0][1]
    assert plan.jobs[2].settings.env[-2].value == "0.102"
    assert plan.jobs[0].settings.env[0].value == "MIG-<uuid of MIG 1 from nvidia-smi -L>"


def test_a_job_larger_than_any_free_instance(matrix):
    plan = make_plan(view("h100-mig-four-instances"), 0, parse_jobs(["big=45GiB:torch"]), matrix=matrix)
    assert (plan.fits, plan.ok, plan.jobs[0].instance) == (False, False, None)
    assert plan.suggestions == (
        "no free MIG instance holds big: a job cannot span instances",
        "re-partition GPU 0 with the MIG profiles below (destroys its instances)",
    )
    assert [(job, p.name) for job, p in plan.mig.choices] == [("big", "7g.80gb")]


# --- the MIG table ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, total_mib, model",
    [
        ("NVIDIA A100-SXM4-40GB", 40960, "A100 40GB"),
        ("NVIDIA A100-SXM4-80GB", 81920, "A100 80GB"),
        ("NVIDIA A100 80GB PCIe", 81920, "A100 80GB"),
        ("NVIDIA H100 80GB HBM3", 81559, "H100 80GB"),
        ("NVIDIA H100 NVL", 95830, "H100 94GB"),
        ("NVIDIA H200", 143771, "H200 141GB"),
        ("NVIDIA A30", 24576, "A30 24GB"),
        ("NVIDIA GeForce RTX 4090", 24564, None),
        ("Tesla T4", 15360, None),
    ],
)
def test_mig_rows_by_name_and_memory(name, total_mib, model):
    row = mig_gpu(name, total_mib * MIB)
    assert (row.model if row else None) == model


def test_a100_40gb_profiles_by_hand():
    row = mig_gpu("NVIDIA A100-SXM4-40GB", 40960 * MIB)
    # 40960 / 8 x 0.95 = 4864 MiB: the real 1g.5gb instance, exactly.
    assert usable_bytes(row, row.profiles[0], 40960 * MIB) == 4864 * MIB
    fit = fit_profiles(row, 40960 * MIB, [("x", 4864 * MIB), ("y", 9216 * MIB), ("z", 18432 * MIB)])
    assert [(j, p.name) for j, p in fit.choices] == [("x", "1g.5gb"), ("y", "1g.10gb"), ("z", "3g.20gb")]
    assert (fit.compute_used, fit.memory_used, fit.fits) == (5, 7, True)
    assert fit_profiles(row, 40960 * MIB, [("x", 4865 * MIB)]).choices[0][1].name == "1g.10gb"
    eight = fit_profiles(row, 40960 * MIB, [(str(i), 1 * GIB) for i in range(8)])
    assert (eight.compute_used, eight.fits, eight.why) == (8, False, "more slices than one GPU has")
    big = fit_profiles(row, 40960 * MIB, [("big", 39936 * MIB)])
    assert (big.fits, big.why) == (False, "big needs more than the largest instance holds")


def test_a30_profile():
    row = mig_gpu("NVIDIA A30", 24576 * MIB)
    # 24576 / 4 x 0.95 = 5836.8 MiB.
    assert usable_bytes(row, row.profiles[0], 24576 * MIB) == int(24576 * MIB / 4 * 0.95)
    assert fit_profiles(row, 24576 * MIB, [("a", 5 * GIB)]).choices[0][1].name == "1g.6gb"


def test_the_mig_table_is_self_consistent():
    for row in TABLE:
        assert row.profiles[-1].compute == row.compute_slices and row.profiles[-1].memory == row.memory_slices
        for p in row.profiles:
            assert p.name.startswith(f"{p.compute}g.") and p.max_instances * p.compute <= row.compute_slices
            assert p.max_instances * p.memory <= row.memory_slices


def test_the_mig_table_in_the_docs_is_the_code_table():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "memory.md").read_text(encoding="utf-8")
    for row in TABLE:
        model = row.model + (" (medium confidence)" if row.confidence != "high" else "")
        for p in row.profiles:
            line = f"| {model} | {p.name} | {p.compute} of {row.compute_slices} | {p.memory} of {row.memory_slices} | {p.max_instances} |"
            assert line in doc, line
    for o in OVERHEADS.values():
        assert f"| {o.framework} | {o.bytes // MIB} MiB |" in doc


# --- small pieces ---------------------------------------------------------------------------------------------


def test_fraction_rounds_down_and_never_reaches_zero():
    assert fraction(5 * GIB, 81559 * MIB) == 0.062
    assert fraction(1, 10**15) == 0.001
    assert fraction(GIB, GIB) == 1.0


def test_sizes_below_a_gib_read_in_mib():
    assert (fmt_size(19 * MIB), fmt_size(1536 * MIB), fmt_size(None)) == ("19 MiB", "1.50 GiB", "?")


def test_settings_with_a_uuid_need_no_device_order(matrix):
    s = job_settings("jax", 4 * GIB, 16 * GIB, "GPU-00000000-0000-0000-0000-000000000001", 2, matrix)
    assert [line for e in s.env for line in e.lines()] == [
        "# this job sees only this GPU (as device 0)",
        "CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000001",
        "# JAX reserves this share of the GPU at its first operation",
        "XLA_PYTHON_CLIENT_MEM_FRACTION=0.25",
        "# or: allocate on demand instead (more fragmentation)",
        "# XLA_PYTHON_CLIENT_PREALLOCATE=false",
    ]
    assert s.snippets[0][1].splitlines()[2] == 'os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "0.25"'
    assert s.sources == ("jax-memory-docs", "jax-changelog")


def test_an_instance_a_process_runs_on_is_not_free(matrix):

    snap = load_snapshot(str(MACHINES / "h100-mig-four-instances" / "snapshot.json"))
    snap["commands"]["nvidia-smi"]["stdout"] = snap["commands"]["nvidia-smi"]["stdout"].replace(
        "|  No running processes found                                                             |",
        "|    0    3    0            7001      C   python                                  1200MiB |",
    )
    seen = read_memory(ReplayHost(snap), 1.0)
    plan = make_plan(seen, 0, parse_jobs(["bert=12GiB:torch"]), matrix=matrix)
    # MIG 1 (GI 3) holds pid 7001: bert goes to the next instance large enough, MIG 0.
    assert plan.jobs[0].instance.device == 0
    # NVML gives no placement: an instance using more than an idle one (64 MiB) counts as taken.
    gpu = GpuMemory(
        0,
        "NVIDIA A100-SXM4-40GB",
        None,
        40960 * MIB,
        1000 * MIB,
        39960 * MIB,
        "nvml",
        True,
        (
            MigInstance(0, 0, total_bytes=19968 * MIB, used_bytes=900 * MIB),
            MigInstance(0, 1, total_bytes=19968 * MIB, used_bytes=19 * MIB),
        ),
    )
    plan = make_plan(MemoryView((gpu,)), 0, parse_jobs(["a=4GiB:torch"]), matrix=matrix)
    assert plan.jobs[0].instance.device == 1 and plan.available_bytes == (19968 - 19) * MIB


def test_a_plan_for_a_stated_gpu_needs_no_gpu():
    """Issue 31, item 9: `memory plan --gpu-memory 24GiB` plans without reading a machine."""
    from tests.hostile.test_corpus import run_cli

    code, out, err = run_cli("memory", "plan", "bert=5GiB:torch", "llama=12GiB", "--gpu-memory", "24GiB", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["gpu"]["total_bytes"], doc["gpu"]["free_bytes"], doc["fits"]) == (24 * 2**30, 24 * 2**30, True)
    code, out, _ = run_cli("memory", "plan", "bert=5GiB", "--gpu-memory", "lots", "--format", "json")
    assert code == 2 and json.loads(out)["exit_code"] == 2


def test_budgets_are_offered_cut_to_half_at_most():
    """Issue 31, item 9: no "budgets cut to 3%": a plan that does not fit says so, and smaller budgets are offered
    only while each keeps at least half of what it asked for."""
    from tests.hostile.test_corpus import run_cli

    def suggestions(*jobs: str) -> list[str]:
        code, out, _ = run_cli("memory", "plan", *jobs, "--gpu-memory", "24GiB", "--format", "json")
        doc = json.loads(out)
        assert code == 1 and doc["fits"] is False
        return [s for s in doc["suggestions"] if s.startswith("budgets cut to")]

    (cut,) = suggestions("bert=5GiB:torch", "llama=30GiB")  # 62% of each still fits
    assert cut.startswith("budgets cut to 62% fit")
    assert suggestions("bert=5GiB:torch", "llama=300GiB") == []  # 7%: not a budget any more


# --- the fit rule and what would fit, at their boundaries (docs/memory.md, "Fit rule", "When they do not fit") ---


def _gpu(index: int, total: int, free: int, holders=(), name: str = "NVIDIA GeForce RTX 4090"):
    return GpuMemory(index, name, None, total, total - free, free, "nvml", holders=tuple(holders))


@pytest.mark.parametrize(("stated", "fits"), [("1536MiB", True), (f"{1536 * MIB - 1}b", False)])
def test_the_jobs_fit_when_the_need_is_exactly_the_free_memory(stated, fits):
    """memory.md: "the jobs fit when the sum is at most the GPU's free memory now": a torch job of 1 GiB needs
    1536 MiB (its budget and torch's 512 MiB), so a 1536 MiB GPU holds it and one a byte smaller does not."""
    plan = make_plan(stated_gpu(stated), 0, parse_jobs(["a=1GiB:torch"]))
    assert (plan.need_bytes, plan.fits, plan.ok, plan.shortfall_bytes) == (1536 * MIB, fits, fits, 0 if fits else 1)


@pytest.mark.parametrize(("free", "fits"), [(6 * GIB, True), (6 * GIB - 1, False)])
def test_on_a_busy_gpu_the_free_memory_is_what_is_compared(free, fits):
    """memory.md: the sum against "the GPU's free memory now", not its total: two jobs (torch,
    tensorflow) need 2.5 + 0.5 and 1.5 + 1.5 GiB with their overheads: 6 GiB free holds them, a byte less does not."""
    jobs = parse_jobs(["a=2560MiB:torch", "b=1536MiB:tensorflow"])
    plan = make_plan(MemoryView((_gpu(0, 24 * GIB, free),)), 0, jobs)
    assert (plan.need_bytes, plan.available_bytes, plan.fits) == (6 * GIB, free, fits)


@pytest.mark.parametrize(("held", "offered"), [(GIB, True), (GIB - 1, False)])
def test_stopping_processes_is_offered_when_they_free_exactly_enough(held, offered):
    """memory.md: "the processes whose stopping frees enough (largest first)": freeing exactly the shortfall is
    enough, a byte less is not."""
    gpu = _gpu(0, 8 * GIB, 6 * GIB + GIB // 2, [Holder(77, "python", "C", held), Holder(78, "Xorg", "G", GIB // 2)])
    plan = make_plan(MemoryView((gpu,)), 0, parse_jobs(["a=7GiB:torch"]))  # 7.5 GiB with torch's 512 MiB
    assert plan.need_bytes - plan.available_bytes == GIB
    said = [s for s in plan.suggestions if s.startswith("stopping")]
    if offered:
        assert said == [f"stopping process 77 (python, {fmt_size(held)}) frees enough"]
    else:  # the two together free enough: both named, largest first
        assert said == [f"stopping processes 77 (python, {fmt_size(held)}), 78 (Xorg, 512 MiB) frees enough"]


@pytest.mark.parametrize(("other_free", "offered"), [(6 * GIB, True), (6 * GIB - 1, False)])
def test_another_gpu_is_offered_when_its_free_memory_holds_the_need_exactly(other_free, offered):
    """memory.md: "another GPU with enough free memory": free memory equal to the need is enough."""
    view = MemoryView((_gpu(0, 24 * GIB, 2 * GIB), _gpu(1, 24 * GIB, other_free)))
    plan = make_plan(view, 0, parse_jobs(["a=5632MiB:torch"]))  # 5.5 GiB + 512 MiB = 6 GiB
    assert plan.need_bytes == 6 * GIB and not plan.fits
    assert any(s.startswith("GPU 1 ") for s in plan.suggestions) is offered


@pytest.mark.parametrize(("free", "offered"), [(3 * GIB, True), (3 * GIB - 1, False)])
def test_the_job_without_which_the_others_fit_exactly_is_offered(free, offered):
    """memory.md: "the job without which the others fit": the others' need equal to the free memory fits."""
    plan = make_plan(MemoryView((_gpu(0, 24 * GIB, free),)), 0, parse_jobs(["a=2560MiB:torch", "b=4GiB:torch"]))
    assert (plan.need_bytes, plan.fits) == (7.5 * GIB, False)
    assert ("without b (4.50 GiB) the others fit" in plan.suggestions) is offered
    assert "without a (3.00 GiB) the others fit" not in plan.suggestions


@pytest.mark.parametrize(("free", "offered"), [(3 * GIB, True), (3 * GIB - MIB, False)])
def test_budgets_are_offered_cut_to_exactly_half_and_no_further(free, offered):
    """memory.md: "the budgets scaled down to what fits, while each keeps at least half of what it asked for": two
    torch jobs of 2 GiB (budgets 4 GiB, overheads 1 GiB) on 3 GiB free keep exactly half."""
    plan = make_plan(MemoryView((_gpu(0, 24 * GIB, free),)), 0, parse_jobs(["a=2GiB:torch", "b=2GiB:torch"]))
    cut = [s for s in plan.suggestions if s.startswith("budgets cut to")]
    assert cut == (["budgets cut to 50% fit: a=1024MiB b=1024MiB"] if offered else [])


@pytest.mark.parametrize(("extra", "profile"), [(0, "1g.10gb"), (1, "1g.20gb")])
def test_the_smallest_mig_profile_whose_usable_memory_holds_the_need(matrix, extra, profile):
    """memory.md: "the smallest profile whose usable memory holds the job's need": a need equal to a profile's usable
    memory takes that profile, a byte more the next."""
    row = mig_gpu("NVIDIA A100-SXM4-80GB", 80 * GIB)
    small = next(p for p in row.profiles if p.name == "1g.10gb")
    fit = fit_profiles(row, 80 * GIB, [("a", usable_bytes(row, small, 80 * GIB) + extra)])
    assert [(job, p.name) for job, p in fit.choices] == [("a", profile)]


@pytest.mark.parametrize(("count", "why"), [(7, None), (8, "more slices than one GPU has")])
def test_mig_instances_fit_up_to_the_gpus_slices_and_no_more(count, why):
    """memory.md: "checks that the instances fit one GPU: at most its compute and memory slices, and at most each
    profile's instance count": seven 1g.10gb instances of an A100 80GB fit, an eighth does not."""
    row = mig_gpu("NVIDIA A100-SXM4-80GB", 80 * GIB)
    fit = fit_profiles(row, 80 * GIB, [(f"j{i}", GIB) for i in range(count)])
    assert (fit.compute_used, fit.fits, fit.why) == (count, why is None, why)


@pytest.mark.parametrize(("count", "why"), [(4, None), (5, "a GPU holds at most 4 1g.20gb instance(s), 5 wanted")])
def test_a_profiles_instance_count_is_a_limit_of_its_own(count, why):
    """memory.md: "at most each profile's instance count": 1g.20gb, four per A100 80GB (memory slices 2 of 8 each: a
    fifth passes the compute count and fails on its own limit, or on the memory slices)."""
    row = mig_gpu("NVIDIA A100-SXM4-80GB", 80 * GIB)
    need = usable_bytes(row, next(p for p in row.profiles if p.name == "1g.10gb"), 80 * GIB) + 1
    fit = fit_profiles(row, 80 * GIB, [(f"j{i}", need) for i in range(count)])
    assert fit.fits is (why is None)
    if why is not None:
        assert fit.why in (why, "more slices than one GPU has")


@pytest.mark.parametrize(("used_mib", "free"), [(63, True), (64, False)])
def test_a_mig_instance_is_free_below_64_mib_used(matrix, used_mib, free):
    """memory.md: free MIG instances have "no process placed on them, and less than 64 MiB used"."""
    inst = MigInstance(0, 0, total_bytes=19968 * MIB, used_bytes=used_mib * MIB)
    gpu = GpuMemory(0, "NVIDIA A100-SXM4-80GB", None, 80 * GIB, 1000 * MIB, 79 * GIB, "nvml", True, (inst,))
    plan = make_plan(MemoryView((gpu,)), 0, parse_jobs(["a=4GiB:torch"]), matrix=matrix)
    assert (plan.mode, plan.fits, plan.jobs[0].instance is not None) == ("mig-instances", free, free)


@pytest.mark.parametrize(("extra", "holds"), [(0, True), (1, False)])
def test_a_free_instance_holds_a_job_whose_need_is_exactly_its_free_memory(matrix, extra, holds):
    """memory.md: "largest job first onto the smallest instance that holds it": free memory equal to the need holds."""
    inst = MigInstance(0, 0, total_bytes=4608 * MIB, used_bytes=0)
    gpu = GpuMemory(0, "NVIDIA A100-SXM4-80GB", None, 80 * GIB, 0, 80 * GIB, "nvml", True, (inst,))
    plan = make_plan(MemoryView((gpu,)), 0, (Job("a", 4 * GIB + extra, "torch"),), matrix=matrix)
    assert (plan.fits, plan.ok) == (holds, holds)
