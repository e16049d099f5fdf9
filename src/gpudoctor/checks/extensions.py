"""Torch's companions and compiled extensions, its NCCL, and what a running job mapped.

Rules (sources in compat_matrix/torch.toml `companion` and each finding page):
- A companion's binaries bind to one torch: its wheel's own Requires-Dist pin on torch, the matrix's
  release rows (torchvision, torchaudio, xformers, flash-attn), and a local version tag
  (flash-attn's +cu12torch2.4cxx11abiFALSE, torchaudio's +cu118) each name the torch, CUDA major and
  C++ ABI it was built for; any that disagrees with the installed torch is a mismatch. So is an extension that
  NEEDs the CUDA runtime (libcudart/libcublas) of another major than torch's.
- An extension whose ELF needs torch names (c10::, at::, torch::) that none of torch's libraries
  exports fails to import with `undefined symbol`: the name, demangled, and the library that should
  export it (gpudoctor.symbols) are the evidence. The same judgement reads a pasted `undefined symbol`.
- Torch's wheel pins its NCCL (nvidia-nccl-cuNN==V): an older one installed, or an older system copy the
  loader finds first, is older than its build needs.
- NCCL_*_DISABLE and *_LEVEL variables that turn transports off are named when set (info).
(check --pid's comparison of a running process with the loader model: gpudoctor.checks.process.)
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import replace

from gpudoctor import symbols
from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd, Line, SetEnv
from gpudoctor.facts import SOURCE_CHECKOUT, TORCH_OF_IMAGE, Facts
from gpudoctor.lazypattern import LazyPattern  # a companion's or a paste's texts only
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import pip, rebuild_args
from gpudoctor.probed import Found

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # built only where there are companions (an import would build its five classes on every check)
    from gpudoctor.extension_facts import Companion, ExtensionFacts

TORCH_INDEX = "https://download.pytorch.org/whl"
_LOCAL_CUDA = LazyPattern(r"\+cu(\d+)")
_FLASH_TAG = LazyPattern(r"\+cu(?P<cuda>\d+)torch(?P<torch>\d+\.\d+)cxx11abi(?P<abi>TRUE|FALSE)", re.IGNORECASE)
_NCCL_WHEEL = LazyPattern(r"^nvidia-nccl-cu(\d+)$")
_PIN = LazyPattern(r"^(?P<name>[A-Za-z0-9_.-]+)\s*\(?\s*(?P<spec>[<>=!~][^;)]*)\)?\s*(?:;\s*(?P<marker>.*))?$")
# Module paths in `undefined symbol` lines and the companion they belong to.
_OBJECT_OWNER = (
    (LazyPattern(r"flash_attn_2_cuda"), "flash-attn"),
    (LazyPattern(r"[/\\]vllm[/\\]_"), "vllm"),
    (LazyPattern(r"[/\\]xformers[/\\]"), "xformers"),
    (LazyPattern(r"[/\\]torchaudio[/\\]"), "torchaudio"),
    (LazyPattern(r"_torch_sox"), "torchaudio"),  # torchaudio's first extension, installed beside its package
    (LazyPattern(r"[/\\]torchvision[/\\]"), "torchvision"),
    (LazyPattern(r"[/\\]deepspeed[/\\]ops[/\\]"), "deepspeed"),
    (LazyPattern(r"(amp_C|fused_layer_norm_cuda|apex_C)"), "apex"),
    (LazyPattern(r"[/\\]detectron2[/\\]"), "detectron2"),
    # mamba-ssm's one extension, installed beside its package: CUDAExtension(name="selective_scan_cuda") in
    # state-spaces/mamba setup.py @fe5f0c85, whose build fetches or compiles it for the torch it builds against.
    (LazyPattern(r"selective_scan_cuda"), "mamba-ssm"),
    # causal-conv1d's, which mamba-ssm requires: CUDAExtension(name="causal_conv1d_cuda") in Dao-AILab/causal-conv1d
    # setup.py @dedc05ff, built or fetched the same way.
    (LazyPattern(r"causal_conv1d_cuda"), "causal-conv1d"),
)
# NCCL variables that turn a transport off (NCCL's environment variable reference:
# https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html).
NCCL_TRANSPORT_VARS = {
    "NCCL_P2P_DISABLE": ("1", "peer-to-peer (NVLink, PCIe) between GPUs"),
    "NCCL_SHM_DISABLE": ("1", "shared-memory transport between processes"),
    "NCCL_IB_DISABLE": ("1", "InfiniBand/RoCE (falls back to TCP sockets)"),
    "NCCL_NVLS_ENABLE": ("0", "NVLink SHARP"),
    "NCCL_P2P_LEVEL": ("LOC", "peer-to-peer at any distance (LOC: never)"),
    "NCCL_NET_GDR_LEVEL": ("LOC", "GPUDirect RDMA (LOC: never)"),
}
SOURCE_NCCL_ENV = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
# Companions that are not on the package index under their own name: a rebuild installs them from their source tree, with the
# build options that compile their extensions, and never `pip install NAME==V` (the index's "apex" is another project).
# apex: NVIDIA/apex README, "From Source", Linux (https://github.com/NVIDIA/apex#from-source; pip >= 23.1's --config-settings).
# `optional`: why removing it is a way out as well (torch's own AMP and fused LayerNorm cover apex.amp and FusedLayerNorm;
# https://github.com/ostris/ai-toolkit/issues/242 solved apex's undefined symbol so); "" where the program cannot do
# without it.
# detectron2: facebookresearch/detectron2 INSTALL.md @e7182d58 ("Build Detectron2 from Source": python -m pip install
# 'git+https://github.com/facebookresearch/detectron2.git'; "You often need to rebuild detectron2 after reinstalling
# PyTorch"; undefined torch symbols: "rebuild it so it can pick up the version of pytorch currently in your environment").
FROM_SOURCE: dict[str, tuple[str, tuple[str, ...], str]] = {
    "detectron2": ("git+https://github.com/facebookresearch/detectron2.git", (), ""),
    "apex": (
        "git+https://github.com/NVIDIA/apex",
        ("--config-settings", "--build-option=--cpp_ext", "--config-settings", "--build-option=--cuda_ext"),
        "torch's own automatic mixed precision (torch.amp) and LayerNorm replace apex.amp and FusedLayerNorm, and code that "
        "imports apex optionally falls back to them",
    ),
}
# The source tag an interpreter older than the given Python builds instead of the default branch, whose setup.py refuses
# it: detectron2's python_requires is ">=3.7" on the default branch (setup.py @02b5c4e2) and ">=3.6" at v0.6 (@d1e04565),
# both with torch >= 1.8 asserted.
_SOURCE_TAG_FOR_OLD_PYTHON: dict[str, tuple[tuple[int, int], str]] = {"detectron2": ((3, 7), "v0.6")}
_LIB_PYTHON = LazyPattern(r"/lib/python(\d+)\.(\d+)/")
# The CUDA runtime sonames an extension NEEDs whose number is the CUDA major it was built with (libcudart.so.11.0,
# libcublas.so.12); other CUDA libraries number their sonames on their own (libcufft.so.11 is CUDA 12's).
_CUDA_MAJOR_SONAME = LazyPattern(r"^lib(?:cudart|cublas|cublasLt)(?:-[0-9a-f]{8})?\.so\.(\d+)")
# Companions that ship one library per CUDA major on purpose and load the one that fits at run time.
_MULTI_CUDA = ("bitsandbytes", "triton")
# bitsandbytes loads libbitsandbytes_cuda<torch.version.cuda without its dot>.so, or the version BNB_CUDA_VERSION names
# (bitsandbytes-foundation/bitsandbytes bitsandbytes/cextension.py get_cuda_bnb_library_path @1e54f912, 0.46.0; releases
# before 0.43 add _nocublaslt for GPUs under 7.5). From 0.50.0 (@9da71092, #1980), without the override, a binary of the
# same CUDA major stands in: the newest one not newer than torch's CUDA, else the oldest newer one.
BNB_BINARY = "libbitsandbytes_cuda{}.so"
BNB_SAME_MAJOR_FALLBACK = "0.50.0"
_BNB_BINARY = LazyPattern(r"^libbitsandbytes_cuda(\d+)(?:_nocublaslt\d*)?\.so$")
BNB_FIX = (
    "install a current official bitsandbytes release, whose wheels carry the binaries of the CUDA versions it supports "
    "(Linux; Windows from 0.43)"
)


def bnb_install(facts: Facts, ctx: Context, torch: str | None, cuda: str | None) -> tuple[str, tuple[Line, ...]]:
    """(what to do, the command) for a bitsandbytes with no library for torch's CUDA `cuda` ("12.6"): the newest release
    the matrix pins that ships one and whose wheels accept the installed torch `torch` (None: not known, then only a
    release naming no torch version), so pip leaves torch as it is (compat_matrix/libraries.toml, bitsandbytes)."""
    from gpudoctor.planner.plan_state import python_version

    row = ctx.matrix.bnb_pin_for(cuda, torch, python_version(facts)) if cuda else None
    first = ctx.matrix.bnb_first_for(cuda) if cuda else None
    if row is None or row.pin is None or first is None:
        return BNB_FIX, (pip(facts, "install", "--upgrade", "bitsandbytes"),)
    fits = (
        f"installs beside torch {_base(torch)} (its wheels require torch{row.torch})"
        if torch and row.torch
        else f"installs beside torch {_base(torch)}"
        if torch
        else "names no torch version, so pip leaves the installed torch as it is"
    )
    whose = "torch's " if torch else ""
    return (
        f"install bitsandbytes {row.pin}, a release that ships a library for {whose}CUDA {cuda} (releases from "
        f"{first.since} do) and {fits}",
        (pip(facts, "install", f"bitsandbytes=={row.pin}"),),
    )


def _base(version: str | None) -> str:
    return (version or "").split("+", 1)[0]


def _pins(requires: Iterable[str], name: str) -> list[str]:
    """The specifiers `requires` puts on `name` (markers of other platforms are not evaluated: the pin is
    the wheel's, and torch pins triton and NCCL for Linux x86_64 only)."""
    out = []
    for r in requires:
        m = _PIN.match(r.strip())
        if m and m.group("name").lower().replace("_", "-") == name:
            out.append(m.group("spec").strip())
    return out


def _satisfies(version: str, spec: str) -> bool | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return Version(_base(version)) in SpecifierSet(spec)
    except (InvalidSpecifier, InvalidVersion):
        return None


def _tag(torch_version: str | None) -> str | None:
    m = _LOCAL_CUDA.search(torch_version or "")
    return f"cu{m.group(1)}" if m else None


def _arch_list(facts: Facts, ctx: Context) -> str | None:
    """TORCH_CUDA_ARCH_LIST for this machine's GPUs: NVML's compute capability, else the matrix's for the GPU's name."""
    from gpudoctor.checks.toolkit import gpu_cc

    ccs = sorted({cc for cc in (g.compute_capability or gpu_cc(g, ctx) for g in facts.driver.gpus) if cc})
    return ";".join(ccs) if ccs else None


def _reasons(
    c: Companion, ext: ExtensionFacts, ctx: Context, env: dict[str, str], *, read: bool = True
) -> tuple[list[str], list[str]]:
    """(why `c` does not fit the installed torch, the matrix sources used). `read`: the companion was read from
    its installed files, not from a pasted list (where an untagged version states no build)."""
    torch = ext.torch_version or ""
    why: list[str] = []
    sources: list[str] = []
    if c.name == "bitsandbytes" and ext.torch_cuda:
        # (its libraries as read from disk; a pasted list or a fresh wheel the plan installs, whose files and METADATA
        # were not read: its release, by the matrix)
        on_disk = read and (c.objects or c.metadata is not None)
        why += _bnb_reasons(c, ext.torch_cuda, env) if on_disk else _bnb_release_reasons(c, ext.torch_cuda, ctx)
    for spec in _pins(c.requires, "torch"):
        if _satisfies(torch, spec) is False:
            why.append(f"its wheel requires torch{spec}")
    row = next((r for r in ctx.matrix.companion_releases(c.name) if _base(r.version) == _base(c.version)), None)
    if row is not None and not row.fits(torch) and c.name != "flash-attn" and not why:
        why.append(f"{c.name} {row.version} is built for torch {', '.join(row.torch)}")
        sources += list(row.source)
    tag = _FLASH_TAG.search(c.version)
    if tag:
        minor = ".".join(_base(torch).split(".")[:2])
        if tag.group("torch") != minor:
            why.append(f"its wheel is tagged for torch {tag.group('torch')}")
        abi = tag.group("abi").upper() == "TRUE"
        if ext.torch_cxx11abi is not None and abi != ext.torch_cxx11abi:
            why.append(
                f"it is built with the {'new' if abi else 'old'} C++ ABI (cxx11abi{tag.group('abi').upper()}), torch with the other"
            )
        if ext.torch_cuda and not ext.torch_cuda.startswith(tag.group("cuda")[:2]):
            why.append(f"it is built for CUDA {tag.group('cuda')[:2]}, torch for CUDA {ext.torch_cuda}")
    elif row is None and c.name == "flash-attn" and ext.torch_cxx11abi is not None:
        abis = {o.cxx11abi for o in c.objects if o.cxx11abi is not None}
        if abis and ext.torch_cxx11abi not in abis:
            why.append("its extension uses the other C++ ABI than torch's")
    tag_says_cuda = bool(tag and ext.torch_cuda and not ext.torch_cuda.startswith(tag.group("cuda")[:2]))
    if ext.torch_cuda and not tag_says_cuda:  # the ELF's runtime, where the wheel's tag has not said it already
        why += _cuda_major_reasons(c, ext.torch_cuda)
    ctag, ttag = _tag(c.version), _tag(torch)
    if ctag is None and ttag and c.name in ("torchvision", "torchaudio") and read and ".dev" not in c.version:
        # An untagged torchvision/torchaudio installed here is the package index's build: the release's default CUDA
        # variant. Not from a pasted list (the text states no build: a conda package, a source build or the index's
        # are all untagged), nor for a nightly (never on the package index: an untagged one is built from source).
        release = ctx.matrix.torch_release(_base(torch))
        if release is not None and release.pypi_default.startswith("cu"):
            ctag = release.pypi_default
            sources += list(release.source)
    if not tag and ctag and ttag and ctag != ttag:
        why.append(f"it is the {ctag} build, torch the {ttag} build")
    return why, sources


def _bnb_reasons(c: Companion, torch_cuda: str, env: dict[str, str]) -> list[str]:
    """bitsandbytes without the binary it loads for torch's CUDA (or BNB_CUDA_VERSION's): `Configured CUDA binary not
    found` (0.44+) or `Required library version not found` and the CPU library instead (earlier releases)."""
    override = env.get("BNB_CUDA_VERSION", "").strip()
    want = override or torch_cuda.replace(".", "")
    have = sorted({m.group(1) for o in c.objects if (m := _BNB_BINARY.match(posixpath.basename(o.path)))}, key=int)
    if want in have:
        return []
    major = torch_cuda.split(".", 1)[0]
    if not override and _satisfies(c.version, ">=" + BNB_SAME_MAJOR_FALLBACK) and any(v[:-1] == major for v in have):
        return []  # it loads another binary of torch's CUDA major
    whose = f"BNB_CUDA_VERSION={override}'s" if override else f"torch's CUDA {torch_cuda}"
    carried = f"it has {', '.join('cuda' + v for v in have)}" if have else "it has no CUDA binary at all"
    return [f"it carries no {BNB_BINARY.format(want)}, the binary for {whose} ({carried})"]


def _bnb_release_reasons(c: Companion, torch_cuda: str, ctx: Context) -> list[str]:
    """A bitsandbytes named in a pasted list (its files unread): whether its release ships a library for torch's CUDA,
    by the matrix (compat_matrix/libraries.toml, bitsandbytes); a release outside the rows is not judged."""
    row = next((r for r in ctx.matrix.bnb_releases if c.version and r.holds(_base(c.version))), None)
    if row is None or row.ships(torch_cuda):
        return []
    first = ctx.matrix.bnb_first_for(torch_cuda)
    since = f" (releases from {first.since} do)" if first else ""
    return [f"bitsandbytes {c.version} ships no library for torch's CUDA {torch_cuda}{since}"]


def _cuda_major_reasons(c: Companion, torch_cuda: str) -> list[str]:
    """Each extension of `c` that NEEDs the CUDA runtime of another major than torch's: the loader then looks for a
    libcudart.so.N torch does not bring (`cannot open shared object file`), or loads a second CUDA runtime beside torch's."""
    if c.name in _MULTI_CUDA:
        return []
    major = torch_cuda.split(".", 1)[0]
    out = []
    for o in c.objects:
        for soname in o.needed_cuda:
            m = _CUDA_MAJOR_SONAME.match(soname)
            if m and m.group(1) != major:
                out.append(
                    f"its {posixpath.basename(o.path)} links {soname} (CUDA {m.group(1)}), torch is built for CUDA {torch_cuda}"
                )
                break
    return out


def _companion_step(facts: Facts, ctx: Context, c: Companion, ext: ExtensionFacts) -> tuple[str, tuple[Line, ...]]:
    """(what to do, the commands) for one companion that does not fit the installed torch."""
    torch = ext.torch_version or ""
    if c.name in ("torchvision", "torchaudio", "xformers"):
        row = ctx.matrix.companion_for(c.name, torch)
        if row is not None:
            tag = _tag(torch)
            index = ("--index-url", f"{TORCH_INDEX}/{tag}") if tag and c.name != "xformers" else ()
            return (
                f"install {c.name} {row.version}, the release built for torch {_base(torch)}",
                (pip(facts, "install", "--force-reinstall", "--no-deps", f"{c.name}=={row.version}", *index),),
            )
    if c.name == "bitsandbytes":
        return bnb_install(facts, ctx, torch, ext.torch_cuda)
    if c.name == "flash-attn":
        nearest = _nearest(ctx, c.name, c.version, torch, ext.torch_cuda)
        if nearest is not None:
            which = "nearest" if c.version else "first"
            return (
                f"install flash-attn {nearest}, the {which} release with wheels built for torch {'.'.join(_base(torch).split('.')[:2])} "
                "(its setup.py fetches the wheel matching torch's CUDA major and C++ ABI)",
                (pip(facts, "install", "--no-build-isolation", "--force-reinstall", "--no-deps", f"flash-attn=={nearest}"),),
            )
    pin = next((p for p in _pins(c.requires, "torch") if p.startswith("==")), None)
    if pin is not None:
        from gpudoctor.planner.pick_torch import companion_specs

        # Every other companion goes in the same line, as the planner's torch lines do (one rule: companion_specs).
        companions = facts.extensions.companions if facts.extensions else ()
        others = companion_specs(ctx.matrix, {o.name: o.version for o in companions if o.name != c.name}, pin[2:])
        return (
            f"put back torch {pin[2:]}, the torch {c.name} {c.version} is built for"
            + (f", with the {', '.join(o.split('==')[0] for o in others)} built for it" if others else ""),
            (pip(facts, "install", f"torch{pin}", *others),),
        )
    # No published build for this torch: rebuild against it.
    where = f" from its source tree ({FROM_SOURCE[c.name][0]})" if c.name in FROM_SOURCE else ""
    return f"rebuild {c.name} {_base(c.version)}{where} against the installed torch {_base(torch)}", _rebuild(facts, ctx, c)


def _nearest(ctx: Context, package: str, installed: str, torch: str, cuda: str | None = None) -> str | None:
    """The release of `package` a companion moves to for `torch` (the matrix's one answer, companion_nearest)."""
    row = ctx.matrix.companion_nearest(package, _base(installed), torch, cuda)
    return row.version if row else None


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _remediation(facts: Facts, ctx: Context, companions: list[Companion], ext: ExtensionFacts) -> Remediation:
    steps = [_companion_step(facts, ctx, c, ext) for c in companions]
    back = [s for s in steps if s[0].startswith("put back torch")]
    if back:
        # A companion that has no build for this torch decides: torch goes back, the others with it.
        steps = back[:1]
    tail = "" if back else " Torch stays as it is: the companions move to it."
    return Remediation(
        _sentence("; ".join(s for s, _ in steps)) + "." + tail,
        tuple(cmd for _, cmds in steps for cmd in cmds),
        component="torch",
        alternative=_removal(facts, companions[0]) if len(companions) == 1 and not back else None,
    )


def check_companions(facts: Facts, ctx: Context) -> Iterable[Finding]:
    ext = facts.extensions
    if ext is None or ext.torch_version is None:
        return
    bad: list[tuple[Companion, list[str]]] = []
    used: list[str] = []
    # A companion pip is installing with the torch it pins ("Collecting torch==2.0.0 (from xformers==0.0.19)") is
    # not one built for another torch beside this one: pip moves torch to it (gpudoctor.checks.reported's
    # check_reported_torch_pulled says so, one finding per cause).
    pulling = {
        (e.get("package"), e.get("version"))
        for e in (facts.pasted.reported("pip-torch-pinned-by") if facts.pasted.partial else [])
    }
    for c in ext.companions:
        if c.name == "triton":
            continue  # judged from torch's own pin below
        if (c.name, c.version) in pulling:
            continue
        why, sources = _reasons(c, ext, ctx, facts.platform.env, read=not facts.pasted.partial)
        if why:
            bad.append((c, why))
            used += sources
    triton = next((c for c in ext.companions if c.name == "triton"), None)
    if triton is not None:
        for spec in _pins(ext.torch_requires, "triton") or _pins(ext.torch_requires, "pytorch-triton"):
            if _satisfies(triton.version, spec) is False:
                bad.append((triton, [f"torch {ext.torch_version} requires triton{spec}"]))
    if not bad:
        return
    described = "; ".join(f"{c.name} {c.version}: {', '.join(why)}" for c, why in bad)
    names = ", ".join(f"{c.name} {c.version}" for c, _ in bad)
    steps = []
    for c, _ in bad:
        if c.name == "triton":
            spec = (_pins(ext.torch_requires, "triton") or ["==" + triton.version if triton else ""])[0]
            steps.append(("triton", spec))
    rem = (
        _remediation(facts, ctx, [c for c, _ in bad if c.name != "triton"], ext)
        if any(c.name != "triton" for c, _ in bad)
        else None
    )
    if steps:
        triton_cmd = pip(facts, "install", "--force-reinstall", "--no-deps", f"triton{steps[0][1]}")
        rem = Remediation(
            ((rem.summary + " ") if rem else "") + f"Install the triton torch {ext.torch_version} pins (triton{steps[0][1]}).",
            ((*rem.commands,) if rem else ()) + (triton_cmd,),
            component="torch",
        )
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"{names} {'is' if len(bad) == 1 else 'are'} built for another torch than the installed {ext.torch_version}",
        f"{described}. A companion's compiled parts bind to the torch they were built against: expect "
        "`undefined symbol`, `operator ... does not exist` or a 'was built for' warning at import.",
        tuple(ev(c.metadata or f"dist:{c.name}", f"{c.name} {c.version}; " + ", ".join(c.requires[:4])) for c, _ in bad)
        + (ev("dist:torch", ext.torch_version),),
        rem,
        tuple(dict.fromkeys(used)),
    )


def check_symbols(facts: Facts, ctx: Context) -> Iterable[Finding]:
    ext = facts.extensions
    missing: list[tuple[Companion, str, tuple[str, ...], bool | None]] = []
    if ext is not None and ext.torch_libs:
        for c in ext.companions:
            for o in c.objects:
                if o.unresolved:
                    missing.append((c, o.path, o.unresolved, o.cxx11abi))
    if missing and ext is not None:
        c, path, names, abi = missing[0]
        first = names[0]
        lib = symbols.exporting_library(first)
        abi_note = ""
        if abi is not None and ext.torch_cxx11abi is not None and abi != ext.torch_cxx11abi:
            abi_note = (
                f" It is compiled with the {'new' if abi else 'old'} C++ ABI (_GLIBCXX_USE_CXX11_ABI={int(abi)}) and torch "
                f"with the {'new' if ext.torch_cxx11abi else 'old'} one, so none of its std::string names can match."
            )
        more = f" ({len(names) - 1} more torch names are missing)" if len(names) > 1 else ""
        others = "".join(f"; {cc.name}: {posixpath.basename(p)} misses {len(n)}" for cc, p, n, _ in missing[1:])
        yield Finding(
            "extension-symbol-missing",
            Severity.ERROR,
            "frameworks",
            f"{c.name} {c.version}'s {posixpath.basename(path)} needs {symbols.demangle(first)}, which torch {ext.torch_version} does not export",
            f"{path} needs {first} ({symbols.demangle(first)}), which {lib or 'torch'} should export; none of torch "
            f"{ext.torch_version}'s libraries read ({', '.join(ext.torch_libs)}) does{more}{others}. Importing it fails with "
            f"`undefined symbol: {first}`: it was built against another torch.{abi_note}",
            (ev(f"elf:{path}", f"undefined {first}"), ev("dist:torch", ext.torch_version or "")),
            _remediation(facts, ctx, [c], ext),
        )
        return
    yield from _pasted_symbols(facts, ctx)
    # The loader's other undefined symbol: a library of NVIDIA's wheels bound to another copy of its sibling.
    from gpudoctor.checks.wheel_siblings import check_wheel_sibling_shadowed

    yield from check_wheel_sibling_shadowed(facts, ctx)


def _pasted_symbols(facts: Facts, ctx: Context) -> Iterable[Finding]:
    errors = [e for e in facts.pasted.errors if getattr(e, "kind", None) == "undefined-symbol"]
    if not errors:
        return
    # The same symbol named again with the object that needs it (an issue's title quotes the error without the path
    # the traceback below prints): the line with the object speaks for both.
    named = {e.get("symbol"): e for e in errors if e.get("object")}
    errors = [e if e.get("object") else named.get(e.get("symbol"), e) for e in errors]
    # Imported here, past the test above, not at the top: a check without a pasted undefined symbol never builds
    # their classes (gpudoctor.checks imports this module on every check).
    from gpudoctor.extension_facts import Companion, ExtensionFacts

    for e in errors:
        name = e.get("symbol") or ""
        if not symbols.is_torch(name):
            continue
        obj = e.get("object") or "an extension"
        owner = object_owner(obj)
        lib = symbols.exporting_library(name)
        ext = facts.extensions
        companion = next((c for c in ext.companions if c.name == owner), None) if ext and owner else None
        torch = facts.frameworks.torch.value.version if isinstance(facts.frameworks.torch, Found) else None
        python = facts.frameworks.python
        dists = python.value.distributions if isinstance(python, Found) else {}
        if companion is None and owner is not None and owner in dists and torch:
            # Pasted evidence: the versions the text showed stand in for what was not read from disk.
            companion = Companion(owner, dists[owner], "")
            torch_facts = facts.frameworks.torch.value if isinstance(facts.frameworks.torch, Found) else None
            ext = ExtensionFacts(torch, getattr(torch_facts, "cuda", None), None, (), (), (companion,))
        rem = None
        image = _image_of_torch(facts, torch)
        checkout = next(
            (c.get("means") for c in facts.pasted.cues if c.get("cue") == SOURCE_CHECKOUT and c.get("package") == owner), None
        )
        replaced = _image_torch_replaced(facts, torch, obj)
        if replaced is not None:
            rem = replaced
        elif checkout and companion is None:
            rem = _rebuild_checkout(facts, ctx, owner or "", checkout)
        elif image and owner in _MOVES_TO_TORCH:
            # No release wheel of anything is built for an image's own torch: the extension is built against it.
            built = Companion(owner, (companion.version if companion else dists.get(owner, "")), "")
            rem = Remediation(
                f"Rebuild {owner} against the torch of {image}: that torch is NVIDIA's own build, for which no release "
                f"wheel of {owner} is made (--no-build-isolation builds against the installed torch, --no-binary from "
                "its source).",
                _rebuild(facts, ctx, built),
                component="torch",
            )
        elif companion is not None and ext is not None and ext.torch_version:
            rem = _remediation(facts, ctx, [companion], ext)
        elif companion is None and owner in FROM_SOURCE:
            # Built from its source tree only (no release wheel under its name): built again there, against the torch
            # installed now, whichever release it is (the build reads it; its version need not be shown).
            rem = Remediation(
                f"Rebuild {owner} from its source tree ({FROM_SOURCE[owner][0]}) against the installed torch"
                + (f" {_base(torch)}" if torch else "")
                + " with the interpreter that failed: --no-build-isolation builds against that torch, --no-deps leaves "
                "torch as it is.",
                (*(() if torch else (build_toolchain(facts),)), *_rebuild(facts, ctx, Companion(owner, "", ""))),
                component="torch",
            )
        elif companion is None and torch and owner in _MOVES_TO_TORCH:
            # Its own version was not shown, torch's was: the release of it built for this torch (issue 27, kind 9).
            rem = _unversioned_fix(facts, ctx, owner, torch)
        if rem is None and owner in _BUILDS_AGAINST_TORCH:
            rem = _rebuild_here(facts, ctx, owner, (companion.version if companion else dists.get(owner, "")), torch, obj)
        if rem is None and (cached := _JIT_CACHE.fullmatch(obj)):
            rem = _clear_jit_cache(facts, cached.group("dir"), torch)
        elif rem is None and (root := in_tree_build(obj)):
            rem = _rebuild_in_tree(facts, obj, root, torch)
        abi = symbols.cxx11_abi(name)
        if abi is False and rem is not None and (ext is None or ext.torch_cxx11abi is None):
            # The missing name spells std::string the old ABI's way (Ss: built with _GLIBCXX_USE_CXX11_ABI=0), which a
            # torch of the new ABI exports none of (pip's torch wheels are new-ABI from torch 2.7 on, and several
            # extensions publish a cxx11abiTRUE and a cxx11abiFALSE build of each release): torch's own flag decides
            # whether the build fetched is of the other ABI, before any reinstall (plans21/2103 mamba-ssm,
            # plans19/1953 exllamav3, blind/pasted/007 vllm).
            rem = replace(rem, commands=(_torch_abi_check(facts), *rem.commands))
        yield Finding(
            "extension-symbol-missing",
            Severity.ERROR,
            "frameworks",
            f"{owner or posixpath.basename(obj)} needs {symbols.demangle(name)}, which the installed torch does not export",
            f"{obj} was built against another torch: it needs {name} ({symbols.demangle(name)}), which {lib} of the "
            f"torch it loads{f' ({torch})' if torch else ''} does not export"
            + (" (the name uses the new C++ ABI, std::__cxx11)" if abi else "")
            + (" (the name uses the old C++ ABI: std::string mangled as Ss)" if abi is False else "")
            + (
                (
                    ". It was built against the image's own torch, which a torch release from the index replaced."
                    if torch
                    else ". It is the image's own, built against the image's torch: another torch loaded."
                )
                if replaced is not None
                else (
                    ". It is a just-in-time build torch.utils.cpp_extension cached for an earlier torch."
                    if _JIT_CACHE.fullmatch(obj)
                    else ". Install the build of it made for this torch, or rebuild it against this torch with --no-build-isolation."
                )
            ),
            (ev("pasted", e.line),),
            rem,
        )
        return


# An extension torch.utils.cpp_extension.load built just in time: its build folder under TORCH_EXTENSIONS_DIR, by default
# ~/.cache/torch_extensions/py<XY>_cu<ZZZ>/<name>/ (/tmp/torch_extensions/<name>/ before torch 1.10), keyed by the
# extension's name, Python and CUDA, never torch's version (pytorch/pytorch torch/utils/cpp_extension.py
# _get_build_directory; pytorch/pytorch#68905): after torch changes, the build made for the old torch loads again.
_JIT_CACHE = LazyPattern(
    r"(?P<dir>(?:~|/[^\s:'\"]{0,300}?)/torch_extensions(?:/py\d{2,3}_(?:cu\d{2,4}|cpu))?/[\w.-]{1,100})/[\w.-]{1,200}\.so"
)


def _clear_jit_cache(facts: Facts, folder: str, torch: str | None) -> Remediation:
    """The stale just-in-time build removed: the program's next import builds it again against the torch installed now
    (with the toolkit CUDA_HOME names, of torch's CUDA major). Only that extension's folder: the others in the cache
    build again only when they fail too."""
    cmds: list[Line] = [] if torch else [build_toolchain(facts)]
    cmds.append(Cmd(("rm", "-rf", folder), note="only this extension's cached build"))
    return Remediation(
        f"Remove the cached just-in-time build {folder}: torch.utils.cpp_extension caches it by the extension's name, "
        "Python and CUDA, not by torch's version, so the build made for an earlier torch loads again. Then run the "
        "program again: its import builds the extension against the installed torch"
        + (f" {torch}" if torch else "")
        + " (minutes; it needs the CUDA toolkit of torch's CUDA major).",
        tuple(cmds),
        component="torch",
    )


# A compiled Python extension module (name.cpython-310-x86_64-linux-gnu.so, _C.abi3.so, name.so; not a libname.so
# shared library) outside any site-packages: built in place in its source tree (pip install -e, setup.py develop,
# build_ext --inplace), where the import finds it.
_EXT_MODULE = LazyPattern(r"(?P<stem>(?!lib)[A-Za-z_]\w{0,100})(?:\.(?:cpython-\d{2,3}\w{0,4}-[\w-]{1,60}|abi3))?\.so")
_NOT_A_TREE = LazyPattern(
    r"(?:site|dist)-packages|/torch_extensions/|^/(?:usr|lib|lib64|opt/conda/lib|etc)/|/lib(?:64)?/|/stubs/|/torch/"
)


def in_tree_build(path: str) -> str | None:
    """The source tree an in-place built extension module named in an error belongs to, or None: its folder, or the
    one above where the module sits in a package of the tree (a private submodule, _C.abi3.so; a package folder named
    as the checkout above it, kvcached/kvcached)."""
    if not re.match(r"(?:~|/)", path) or _NOT_A_TREE.search(path):
        return None
    folder, name = posixpath.split(path)
    m = _EXT_MODULE.fullmatch(name)
    if not m or not folder or folder in ("/", "~"):
        return None
    above, pkg = posixpath.split(folder)
    if above and above not in ("/", "~") and (m.group("stem").startswith("_") or posixpath.basename(above) == pkg):
        return above
    return folder


def _rebuild_in_tree(facts: Facts, obj: str, root: str, torch: str | None) -> Remediation:
    """The extension built again in its source tree against the torch the failing interpreter loads: the stale module
    and the tree's build folder removed (setuptools skips a build whose output is newer than its sources, and links
    the objects left in build/), then an editable install, which builds it in place again, where the import finds it."""
    cmds: list[Line] = [] if torch else [build_toolchain(facts)]
    cmds.append(Cmd(("rm", "-rf", obj, posixpath.join(root, "build")), note="the stale module and the old build's objects"))
    cmds.append(pip(facts, "install", "--no-build-isolation", "--no-deps", "-e", root))
    stem = (_EXT_MODULE.fullmatch(posixpath.basename(obj)) or {"stem": ""})["stem"]
    folder = posixpath.dirname(obj)
    module = f"{posixpath.basename(folder)}.{stem}" if folder != root else stem
    if stem and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?", module):
        from gpudoctor.planner.remedy import python_exe

        cmds.append(Cmd((python_exe(facts), "-c", f"import torch, {module}"), note="the rebuilt module loads"))
    return Remediation(
        f"Rebuild the extension in its source tree {root} (the folder with its setup.py; the one above if not) against "
        "the installed torch" + (f" {torch}" if torch else "") + ", with the interpreter that failed: "
        "--no-build-isolation compiles against that torch, not a fresh one, with the toolkit CUDA_HOME names (of "
        "torch's CUDA major); -e builds it in place, where the import finds it.",
        tuple(cmds),
        component="torch",
    )


def _rebuild_checkout(facts: Facts, ctx: Context, name: str, checkout: str) -> Remediation:
    """`name` built again from the source checkout it was built in, against the torch installed now (no release wheel is
    what the environment runs). A checkout under the home directory keeps its ~/ (the quoting layer leaves it bare for
    the shell to expand), so the commands name the same folder from any directory."""
    where = checkout
    # torch's version not shown: what the build compiles against is read first, with the same interpreter
    shown = isinstance(facts.frameworks.torch, Found)
    cmds: list[Line] = [] if shown else [build_toolchain(facts)]
    if archs := _arch_list(facts, ctx):
        cmds.append(SetEnv("TORCH_CUDA_ARCH_LIST", archs))
    if name == "flash-attn":
        cmds.append(SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE"))
    # setuptools reuses the objects it finds in the checkout's build directory: left there, the old build's objects
    # (compiled against the other torch) would be linked again. It holds only what the build makes again.
    cmds.append(Cmd(("rm", "-rf", posixpath.join(where, "build"))))
    cmds.append(pip(facts, "install", "--no-build-isolation", "--force-reinstall", "--no-deps", where))
    return Remediation(
        f"Rebuild {name} from its checkout {checkout}, where it was built against another torch, with the interpreter "
        "whose torch it must load (--no-build-isolation builds against that torch), after removing the checkout's "
        "build directory: objects left there from the old build would be linked again.",
        tuple(cmds),
        component="torch",
    )


def _image_torch_replaced(facts: Facts, torch: str | None, obj: str = "") -> Remediation | None:
    """In NVIDIA's PyTorch image a torch release from the index (2.0.1) stands where the image's own build was
    (2.1.0a0+fe05266): a `pip install` of something that depends on torch replaced it, and every extension the image
    built against its own torch (Transformer Engine, apex) fails to load. No rebuild for the index's torch is the way:
    the image's torch comes back with a fresh container, and extras go in without their dependencies."""
    from gpudoctor.checks.frameworks import image_build
    from gpudoctor.planner.where import python_step

    image = next((c.get("means") for c in facts.pasted.cues if c.get("cue") == TORCH_OF_IMAGE), None)
    if image is None or (torch and image_build(torch)):
        return None
    if not torch:
        if not obj.startswith("/usr/local/lib/python"):
            return None
        # The image's own extension (its system site-packages) meets another torch than the image's, and the text
        # shows none installed: one from outside the image shadows it, most often the user site (~/.local), which
        # Singularity and Apptainer mount with the home directory, or a PYTHONPATH entry.
        return Remediation(
            "The extension is the image's own and was built with its torch, so the torch that loaded is another one: "
            "from outside the image, most often the user site (~/.local) of a mounted home directory (Singularity and "
            "Apptainer mount it by default) or a PYTHONPATH entry. See which torch loads, then keep the user site out "
            "(or start the container with --no-home / --cleanenv).",
            (
                python_step(facts, "-c", "import sys, torch; print(torch.__file__, torch.__version__); print(sys.path)"),
                SetEnv("PYTHONNOUSERSITE", "1", note="Python then ignores the user site, .local in the home directory"),
            ),
            component="environment",
        )
    return Remediation(
        f"pip replaced the torch of {image} (NVIDIA's own build, which the image's extensions are built against) with "
        f"torch {torch} from the index, so those extensions no longer load. Start a fresh container from the image, "
        "whose torch is intact (or rebuild the image without that pip line), and install extra packages there with "
        "--no-deps so that pip leaves torch alone; a package that needs a build for the image's torch is built against "
        "it (--no-build-isolation --no-binary). Check that torch.__version__ is the image's again.",
        (
            Cmd(("docker", "run", "--gpus", "all", "-it", "--rm", image), note="on the host: a fresh container of the image"),
            pip(facts, "show", "torch"),
        ),
        component="torch",
    )


def _image_of_torch(facts: Facts, torch: str | None) -> str | None:
    """NVIDIA's PyTorch image the pasted text names as where it runs (gpudoctor.facts.TORCH_OF_IMAGE), unless the torch
    shown is a release (a torch installed over the image's own)."""
    from gpudoctor.checks.frameworks import image_build

    if torch and not image_build(torch):
        return None
    return next((c.get("means") for c in facts.pasted.cues if c.get("cue") == TORCH_OF_IMAGE), None)


def object_owner(path: str) -> str | None:
    """The distribution a compiled object named in an error belongs to (flash_attn_2_cuda...so: flash-attn)."""
    return next((o for pattern, o in _OBJECT_OWNER if pattern.search(path)), None)


# Companions whose release built for a torch the matrix's companion rows name (gpudoctor.checks.extensions._companion_step).
_MOVES_TO_TORCH = ("torchvision", "torchaudio", "xformers", "flash-attn")


# Extensions published on the index as a source distribution whose setup.py builds against the torch installed in the
# interpreter that builds it (or fetches the release asset made for that torch's version, CUDA major and C++ ABI):
# flash-attn (Dao-AILab/flash-attention setup.py @00291362, CachedWheelsCommand; FLASH_ATTENTION_FORCE_BUILD "Force a
# fresh build locally, instead of attempting to find prebuilt wheels"), mamba-ssm and causal-conv1d (state-spaces/mamba
# setup.py @fe5f0c85 and Dao-AILab/causal-conv1d setup.py @dedc05ff, the same scheme). Where no release of it is known
# to be built for this torch, building it here against that torch is the fix whatever either version is.
_BUILDS_AGAINST_TORCH = ("flash-attn", "mamba-ssm", "causal-conv1d")
# Each one's switch that makes its setup.py build here instead of fetching a release asset (flash-attn setup.py
# @00291362; MAMBA_FORCE_BUILD and CAUSAL_CONV1D_FORCE_BUILD, the same scheme in state-spaces/mamba setup.py @fe5f0c85
# and Dao-AILab/causal-conv1d setup.py @dedc05ff).
_FORCE_BUILD = {
    "flash-attn": "FLASH_ATTENTION_FORCE_BUILD",
    "mamba-ssm": "MAMBA_FORCE_BUILD",
    "causal-conv1d": "CAUSAL_CONV1D_FORCE_BUILD",
}


def _top_level_module(obj: str) -> str | None:
    """The importable name of a compiled extension module an error names where it is a top-level module (its file
    alone, or directly in site-packages: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so, selective_scan_cuda...so),
    else None (a module inside a package is imported through it, under a name the file does not give)."""
    folder, name = posixpath.split(obj)
    m = _EXT_MODULE.fullmatch(name)
    if m is None or (folder and posixpath.basename(folder) not in ("site-packages", "dist-packages")):
        return None
    return m.group("stem")


def _rebuild_here(facts: Facts, ctx: Context, name: str, version: str, torch: str | None, obj: str = "") -> Remediation:
    """`name` built again against the torch the failing interpreter loads (_BUILDS_AGAINST_TORCH). Its version shown:
    the same release, built from source (a newer release may need a newer torch, or change the API the program uses).
    Not shown: decided with a named assumption (issue 27, kind 9), as a senior engineer pastes it: pip show first (the
    read that shows the release installed), the broken build removed, then the release pip picks installed without
    build isolation: its setup.py fetches the wheel made for this torch's version, CUDA major and C++ ABI, or builds
    against this torch (flash-attn's CachedWheelsCommand; mamba-ssm and causal-conv1d the same scheme), here told to
    build (_FORCE_BUILD). torch's version and toolkit are read first where the text did not show them. The
    module the error named is imported last (after torch, whose libc10 it links against): the rebuild took when it
    loads, which torch.cuda.is_available() does not show (plans20/2065)."""
    import dataclasses

    from gpudoctor.extension_facts import Companion

    cmds: list[Line] = [] if torch else [build_toolchain(facts)]
    if version:
        cmds.extend(_rebuild(facts, ctx, Companion(name, version, "")))
    else:
        cmds.append(pip(facts, "show", name))
        cmds.append(pip(facts, "uninstall", "-y", name))
        if archs := _arch_list(facts, ctx):
            cmds.append(SetEnv("TORCH_CUDA_ARCH_LIST", archs))
        # Built here, never the release asset its setup.py would fetch: the newest asset can be of the other C++ ABI
        # than this torch (huggingface/open-r1#684, "Latest version of flash_attn no longer works with torch==2.6.0":
        # 2.8.0.post2's std::__cxx11 names against torch 2.6.0's old ABI; plans3/247), and a build here matches
        # whichever torch it is (plans21/2102's mamba-ssm the same way).
        if force := _FORCE_BUILD.get(name):
            cmds.append(SetEnv(force, "TRUE"))
        install = pip(facts, "install", "--no-build-isolation", "--no-cache-dir", name)
        cmds.append(
            dataclasses.replace(
                install,
                note=f"assumes the newest {name} suits the program, built here against this torch. If pip show "
                f"printed a release the program needs, install {name}==that release instead",
            )
        )
    if module := _top_level_module(obj):
        from gpudoctor.planner.where import python_step

        cmds.append(dataclasses.replace(python_step(facts, "-c", f"import torch, {module}"), note="the rebuilt module loads"))
    return Remediation(
        (
            f"Rebuild {name} {_base(version)} against the installed torch"
            if version
            else f"Install {name} again, built for the installed torch"
        )
        + (f" {_base(torch)}" if torch else "")
        + " with the interpreter that failed: --no-build-isolation builds against that torch (an isolated build "
        "fetches another), --no-cache-dir keeps pip from reinstalling the wheel it built for the old torch"
        + (", --no-deps leaves torch as it is" if version else "")
        + ". A build needs nvcc of torch's CUDA major.",
        tuple(cmds),
        component="torch",
    )


def _unversioned_fix(facts: Facts, ctx: Context, name: str, torch: str) -> Remediation | None:
    """companion_fix for a companion whose own version is unknown; None where the matrix knows no release of it
    built for this torch (the finding then says what to install in words)."""
    if name == "flash-attn" and _nearest(ctx, name, "", torch) is None:
        return None
    torch_facts = facts.frameworks.torch.value if isinstance(facts.frameworks.torch, Found) else None
    return companion_fix(facts, ctx, name, torch, getattr(torch_facts, "cuda", None))


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def check_runtime(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An extension built against a newer C or C++ runtime than the one the loader finds here."""
    ext = facts.extensions
    if ext is None:
        return
    short: list[tuple[Companion, str, str, str]] = []  # (companion, object, needed version, family)
    for c in ext.companions:
        for o in c.objects:
            for family, need, have in (("GLIBC", o.glibc, ext.system_glibc), ("GLIBCXX", o.glibcxx, ext.system_glibcxx)):
                if need and have and _vkey(need) > _vkey(have):
                    short.append((c, o.path, need, family))
    if not short:
        return
    c, path, need, family = short[0]
    have = ext.system_glibc if family == "GLIBC" else ext.system_glibcxx
    lib = "libc.so.6" if family == "GLIBC" else "libstdc++.so.6"
    where = next((p for p in ext.runtime_paths if posixpath.basename(p) == lib), lib)
    others = "".join(f"; {cc.name}: {posixpath.basename(p)} needs {f}_{n}" for cc, p, n, f in short[1:])
    yield Finding(
        "extension-glibc-too-old",
        Severity.ERROR,
        "frameworks",
        f"{c.name} {c.version}'s {posixpath.basename(path)} needs {family}_{need}; {where} has {family}_{have} at most",
        f"{path} was built on a system with a newer {'C' if family == 'GLIBC' else 'C++'} runtime: it needs the symbol "
        f"version {family}_{need}, and the {lib} the loader finds here ({where}) defines versions up to {family}_{have}. "
        f"Import fails with `version '{family}_{need}' not found`{others}.",
        (ev(f"elf:{path}", f"needs {family}_{need}"), ev(f"elf:{where}", f"defines up to {family}_{have}")),
        Remediation(
            f"Build {c.name} here, against this system's runtime and the installed torch (a build made on this machine "
            f"needs no newer {family} than it has).",
            _rebuild(facts, ctx, c),
            component="torch",
            alternative=_removal(facts, c),
        ),
    )


def check_nccl(facts: Facts, ctx: Context) -> Iterable[Finding]:
    ext = facts.extensions
    if ext is None or not ext.torch_requires:
        return
    wheels = facts.frameworks.nvidia_wheels
    for name, version in sorted(wheels.items()):
        if not _NCCL_WHEEL.match(name):
            continue
        for spec in _pins(ext.torch_requires, name):
            if _satisfies(version, spec) is False:
                yield Finding(
                    "nccl-too-old",
                    Severity.ERROR,
                    "frameworks",
                    f"{name} {version} is not the NCCL torch {ext.torch_version} is built with ({name}{spec})",
                    f"torch {ext.torch_version}'s wheel requires {name}{spec}; {version} is installed. Distributed runs "
                    "torch's libtorch_cuda.so then needs NCCL functions the older library lacks: import fails with `undefined symbol: "
                    "nccl...`, or the first collective fails.",
                    (ev(f"dist:{name}", version), ev("dist:torch", f"requires {name}{spec}")),
                    Remediation(
                        f"Install the NCCL wheel torch {ext.torch_version} pins.",
                        (pip(facts, "install", f"{name}{spec}"),),
                        component="torch",
                    ),
                )
                return
    loading = facts.loading.of("torch") if facts.loading else None
    for res in loading.loads if loading else ():
        if not res.soname.startswith("libnccl.so") or res.path is None or "/nvidia/nccl/" in res.path or not res.version:
            continue
        for name in (n for n in wheels if _NCCL_WHEEL.match(n)):
            for spec in _pins(ext.torch_requires, name):
                if spec.startswith("==") and _satisfies(res.version, ">=" + spec[2:]) is False:
                    yield Finding(
                        "nccl-too-old",
                        Severity.ERROR,
                        "frameworks",
                        f"torch loads NCCL {res.version} from {res.path}, older than the {spec[2:]} it is built with",
                        f"The loader finds {res.path} ({res.via}) before torch's own {name} {wheels[name]}; torch "
                        f"{ext.torch_version} requires {name}{spec}.",
                        (ev("loader", f"{res.soname} -> {res.path} via {res.via}"), ev("dist:torch", f"requires {name}{spec}")),
                        Remediation(
                            f"Take {posixpath.dirname(res.path)} off the loader's path for this environment "
                            f"({res.via}), so torch loads its own {name}.",
                            component="torch",
                        ),
                    )
                    return


def check_nccl_env(facts: Facts, ctx: Context) -> Iterable[Finding]:
    env = facts.platform.env
    off = [(k, env[k], what) for k, (value, what) in NCCL_TRANSPORT_VARS.items() if env.get(k, "").strip().upper() == value]
    if not off:
        return
    yield Finding(
        "nccl-transport-disabled",
        Severity.INFO,
        "frameworks",
        "NCCL transports are turned off: " + ", ".join(f"{k}={v}" for k, v, _ in off),
        "; ".join(f"{k}={v} turns off {what}" for k, v, what in off)
        + ". Collectives then take a slower path; fine when set on purpose (a known-bad link), costly when left over.",
        tuple(ev("env", f"{k}={v}") for k, v, _ in off),
        Remediation(
            "Unset them unless they are set on purpose: " + ", ".join(k for k, _, _ in off) + f" ({SOURCE_NCCL_ENV}).",
            component="environment",
        ),
    )


CHECKS = (
    Check("companions", "frameworks", ("companion-torch-mismatch",), check_companions),
    Check("extension-symbols", "frameworks", ("extension-symbol-missing", "cuda-paths-disagree"), check_symbols),
    Check("extension-runtime", "frameworks", ("extension-glibc-too-old",), check_runtime),
    Check("nccl", "frameworks", ("nccl-too-old",), check_nccl),
    Check("nccl-env", "frameworks", ("nccl-transport-disabled",), check_nccl_env),
)


def _rebuild(facts: Facts, ctx: Context, c: Companion) -> tuple[Line, ...]:
    """Rebuild `c` from source against the installed torch: --no-build-isolation builds against it (an isolated
    build fetches the newest torch); TORCH_CUDA_ARCH_LIST names this machine's GPUs."""
    cmds: list[Line] = []
    archs = _arch_list(facts, ctx)
    if archs:
        cmds.append(SetEnv("TORCH_CUDA_ARCH_LIST", archs))
    if c.name == "flash-attn":
        cmds.append(SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE"))
    if c.name in FROM_SOURCE:
        url, options, _why = FROM_SOURCE[c.name]
        old = _SOURCE_TAG_FOR_OLD_PYTHON.get(c.name)
        python = _python_minor(facts)
        if old and python and python < old[0]:
            url = f"{url}@{old[1]}"
        flags = ("-v", "--no-build-isolation", "--no-cache-dir", "--force-reinstall", "--no-deps", *options)
        cmds.append(pip(facts, "install", *flags, f"{c.name} @ {url}"))
        return tuple(cmds)
    cmds.append(pip(facts, "install", *rebuild_args(c.name, f"{c.name}=={_base(c.version)}" if c.version else c.name)))
    return tuple(cmds)


def source_build(facts: Facts, ctx: Context, name: str) -> tuple[Line, ...]:
    """The build of `name`, one of FROM_SOURCE's, from its source tree against the installed torch (_rebuild's)."""
    from gpudoctor.extension_facts import Companion

    return _rebuild(facts, ctx, Companion(name, "", ""))


def torch_abi_known(facts: Facts) -> bool:
    """Whether the facts hold torch's C++ ABI (read from the machine's libtorch)."""
    return facts.extensions is not None and facts.extensions.torch_cxx11abi is not None


def _torch_abi_check(facts: Facts) -> Cmd:
    """torch's C++ ABI, read with the interpreter that failed: True is the new (std::__cxx11) ABI."""
    from gpudoctor.planner.remedy import python_exe

    return Cmd(
        (python_exe(facts), "-c", "import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)"),
        note="read-only: True means torch uses the new C++ ABI and the module the old one, whose std::string the "
        "missing name spells Ss: its cxx11abiTRUE build, or one built here against this torch. False means the ABIs "
        "agree and it was built for another torch release",
    )


def build_toolchain(facts: Facts) -> Cmd:
    """Where the text does not show torch: what a source build of a CUDA extension compiles against, read with the
    interpreter that builds it: torch's version, the CUDA it was built with, and the toolkit torch.utils.cpp_extension
    found (CUDA_HOME; None: no nvcc), whose major must be torch's CUDA major."""
    from gpudoctor.planner.remedy import python_exe

    return Cmd(
        (
            python_exe(facts),
            "-c",
            "import torch, torch.utils.cpp_extension as e; print(torch.__version__, torch.version.cuda, e.CUDA_HOME)",
        ),
        note="the torch the build compiles against, its CUDA, and the toolkit it finds: nvcc of that CUDA major",
    )


def _python_minor(facts: Facts) -> tuple[int, int] | None:
    """The environment's Python (major, minor): its version, else its lib/pythonX.Y site-packages; None if unknown."""
    python = facts.frameworks.python
    if not isinstance(python, Found):
        return None
    version = getattr(python.value, "version", "") or ""
    if m := re.match(r"(\d+)\.(\d+)", version):
        return int(m.group(1)), int(m.group(2))
    for site in getattr(python.value, "site_packages", ()) or ():
        if m := _LIB_PYTHON.search(site.replace("\\", "/") + "/"):
            return int(m.group(1)), int(m.group(2))
    return None


def _removal(facts: Facts, c: Companion) -> Remediation | None:
    """Uninstalling `c`, where that is a way out as well (FROM_SOURCE's `optional`); None elsewhere."""
    if not FROM_SOURCE.get(c.name, ("", (), ""))[2]:
        return None
    return Remediation(
        f"Uninstall {c.name}: {FROM_SOURCE[c.name][2]}.",
        (pip(facts, "uninstall", "-y", c.name),),
        component="torch",
    )


def companion_fix(facts: Facts, ctx: Context, name: str, torch_version: str, torch_cuda: str | None) -> Remediation:
    """The step that moves companion `name` (its own version unknown: a pasted message named only the torch it was
    built for) to the installed torch, as check_companions would (gpudoctor.checks.catalogued.companions)."""
    if name in ("torchvision", "torchaudio", "xformers") and ctx.matrix.companion_for(name, torch_version) is None:
        # No release of it the matrix knows is built for this torch (and its own version was not shown): no command.
        return Remediation(
            f"Install the {name} release built for torch {_base(torch_version)} (its release notes name it), or move "
            f"torch and {name} together to a release pair that exists.",
            (),
            component="torch",
        )
    from gpudoctor.extension_facts import Companion, ExtensionFacts

    ext = ExtensionFacts(torch_version, torch_cuda, None, (), (), (Companion(name, "", ""),))
    return _remediation(facts, ctx, [Companion(name, "", "")], ext)
