"""Plain-text tables of the compatibility matrix (for ``gpudoctor matrix show``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from gpudoctor.errors import UsageError
from gpudoctor.matrix.files import SECTIONS
from gpudoctor.matrix.queries import Matrix
from gpudoctor.sanitize import clean_line

#: Extra names accepted for a section (file stems and framework spellings).
ALIASES = {
    "cuda_driver": "cuda",
    "driver": "cuda",
    "gpu_arch": "gpu",
    "gpus": "gpu",
    "arch": "gpu",
    "pytorch": "torch",
    "tf": "tensorflow",
    "jaxlib": "jax",
    "link_bandwidth": "link",
    "links": "link",
    "bandwidth": "link",
    "memory_settings": "memory",
    "cuda_repos": "repos",
    "repo": "repos",
    "source": "sources",
}


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces, a dashed rule under the header."""
    # A matrix file is data (a candidate matrix can come from anyone): each cell is one line, shown, not obeyed.
    body = [["" if c is None else clean_line(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in body)
    return "\n".join(out)


def _src(keys: Iterable[str]) -> str:
    return ",".join(keys)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _cuda(m: Matrix) -> str:
    parts = [
        "CUDA toolkit -> minimum driver (toolkit driver: full support without minor-version compatibility)",
        table(
            ("CUDA", "release", "Linux", "Windows", "source"),
            ((r.cuda, r.label, r.linux or "-", r.windows or "-", _src(r.source)) for r in m.cuda_releases),
        ),
        "",
        "Minor-version compatibility floors (any toolkit of the major runs at or above the floor)",
        table(
            ("CUDA", "Linux", "Windows", "branches", "source"),
            (
                (
                    f"{r.major}.x",
                    r.linux,
                    r.windows or "-",
                    f"R{r.branch_min}+" + (f" (<R{r.branch_max_exclusive})" if r.branch_max_exclusive else ""),
                    _src(r.source),
                )
                for r in m.minor_compat
            ),
        ),
        "",
        "Driver branch -> CUDA version nvidia-smi reports",
        table(
            ("branch", "CUDA", "confidence", "source"),
            ((f"R{b.branch}", b.cuda, b.confidence, _src(b.source)) for b in m.driver_branches),
        ),
        "",
        "PTX ISA version -> the CUDA that writes it and the driver CUDA that loads it",
        table(("PTX ISA", "CUDA", "source"), ((r.ptx, r.cuda, _src(r.source)) for r in m.ptx_isas)),
    ]
    return "\n".join(parts)


def _gpu(m: Matrix) -> str:
    parts = [
        "Architectures and the CUDA releases that can target each compute capability",
        table(
            ("CC", "architecture", "first CUDA", "last CUDA", "source"),
            ((t.cc, t.arch, t.first_cuda or "<8.0", t.last_cuda or "-", _src(t.source)) for t in m.cc_targets),
        ),
        "",
        "GPU products (matched against NVML / nvidia-smi names)",
        table(
            ("GPU", "CC", "segment", "note", "source"),
            ((g.name, g.cc, g.segment, "inferred" if g.inferred else "", _src(g.source)) for g in m.gpus),
        ),
    ]
    return "\n".join(parts)


def _cudnn(m: Matrix) -> str:
    parts = [
        "cuDNN releases and the CUDA toolkits they ship for",
        table(
            ("cuDNN", "through", "CUDA", "majors", "min CC", "source"),
            (
                (
                    r.version,
                    r.through,
                    " ".join(r.cuda),
                    ",".join(str(x) for x in r.cuda_majors),
                    r.min_cc or "-",
                    _src(r.source),
                )
                for r in m.cudnn_releases
            ),
        ),
        "",
        table(
            ("major", "soname", "header", "CUDNN_VERSION", "source"),
            (
                (c.major, c.soname, c.header, f"MAJOR*{c.version_multiplier}+MINOR*100+PATCH", _src(c.source))
                for c in m.cudnn_majors
            ),
        ),
        "",
        table(
            ("PyPI package", "CUDA", "first", "last", "source"),
            ((p.package, p.cuda_major, p.first, p.last, _src(p.source)) for p in m.cudnn_pip),
        ),
    ]
    return "\n".join(parts)


def _torch(m: Matrix) -> str:
    rows = []
    for r in m.torch_releases:
        for v in r.variants.values():
            default = "PyPI default" if v.tag == r.pypi_default else ""
            rows.append(
                (
                    r.version,
                    v.tag,
                    v.cuda,
                    v.cudnn or "-",
                    r.python,
                    " ".join(v.arch),
                    " ".join(v.ptx) or "-",
                    ", ".join(x for x in (v.status or "", default) if x),
                    _src(v.source),
                )
            )
    return "PyTorch CUDA wheels\n" + table(
        ("torch", "variant", "CUDA", "cuDNN", "Python", "arch (cubins)", "PTX", "status", "source"), rows
    )


def _tensorflow(m: Matrix) -> str:
    return "TensorFlow tested GPU configurations\n" + table(
        ("TF", "tested", "Python", "CUDA", "cuDNN", "Windows GPU", "sonames", "source"),
        (
            (
                t.version,
                t.tested,
                t.python,
                t.cuda,
                t.cudnn,
                _yes(t.windows_gpu),
                " ".join(t.sonames),
                _src(t.source),
            )
            for t in m.tf_releases
        ),
    )


def _jax(m: Matrix) -> str:
    rows = []
    for r in m.jax_releases:
        for c in r.cuda.values():
            rows.append(
                (
                    f">={r.version}",
                    r.python,
                    r.packaging,
                    f"CUDA {c.major}",
                    c.cuda,
                    c.cudnn or "-",
                    c.driver_linux or "-",
                    c.plugin or "-",
                    " ".join(c.arch + c.ptx) or "-",
                    _src(c.source),
                )
            )
    pins = table(
        ("since", "packages", "rule", "source"),
        ((p.since, " / ".join(p.packages), p.rule, _src(p.source)) for p in m.jax_pins),
    )
    return (
        "JAX NVIDIA GPU builds (each row applies until the next)\n"
        + table(("jax", "Python", "packaging", "major", "CUDA", "cuDNN", "driver", "plugin", "arch", "source"), rows)
        + "\n\nVersions that must agree\n"
        + pins
    )


def _precision(m: Matrix) -> str:
    return "Tensor Core formats by compute capability\n" + table(
        ("CC", "arch", "Tensor Cores", "formats", "source"),
        (
            (p.cc, m.arch_name(p.cc) or "-", _yes(p.tensor_cores), " ".join(p.precisions) or "-", _src(p.source))
            for p in m.precision_rows
        ),
    )


def _link(m: Matrix) -> str:
    rows = []
    for p in m.pcie:
        x16 = m.link(p.gen, 16)
        assert x16 is not None
        practical = f"{x16.practical_gb_per_s:.1f}" if x16.practical_gb_per_s is not None else "-"
        rows.append(
            (
                f"Gen{p.gen}",
                f"{p.rate_gt_s:g} GT/s",
                p.encoding,
                f"{p.per_lane_gb_per_s:.3f}",
                f"{x16.theoretical_gb_per_s:.2f}",
                practical,
                _src(p.source),
            )
        )
    c2c = table(
        ("link", "systems", "bidir GB/s", "practical GB/s", "source"),
        (
            (
                c.name,
                " ".join(c.systems),
                f"{c.bidirectional_gb_per_s:g}",
                f"{c.practical_gb_per_s:g}" if c.practical_gb_per_s else "-",
                _src(c.source),
            )
            for c in m.c2c
        ),
    )
    th = table(("threshold", "value", "source"), ((t.name, f"{t.value:g}", _src(t.source)) for t in m.thresholds))
    return (
        "PCIe per-direction bandwidth (GB/s = 1e9 B/s)\n"
        + table(("PCIe", "rate", "encoding", "GB/s/lane", "x16 theoretical", "x16 practical", "source"), rows)
        + "\n\n"
        + c2c
        + "\n\n"
        + th
    )


def _memory(m: Matrix) -> str:
    parts = []
    for f in m.memory:
        head = f"{f.framework}: {f.default}"
        if f.default_fraction is not None:
            head += f" (default fraction {f.default_fraction:g})"
        parts.append(head)
        parts.append(
            table(
                ("control", "kind", "default", "since", "source"),
                ((c.name, c.kind, c.default or "-", c.since or "-", _src(c.source)) for c in f.controls),
            )
        )
        parts.append("")
    return "\n".join(parts).rstrip()


def _repos(m: Matrix) -> str:
    def bound(v: str | None, verified: bool, open_end: str) -> str:
        return open_end if v is None else v + ("" if verified else " (?)")

    return (
        "NVIDIA CUDA repositories (x86_64): cuda-toolkit-X-Y packaged from first to last\n"
        "(?: versions beyond this bound not verified; last 'current': still receives new releases)\n"
        + table(
            ("repo", "serves", "first", "last", "source"),
            (
                (
                    r.repo,
                    f"{'/'.join(r.distro)} {r.release}",
                    bound(r.first, r.first_verified, "?"),
                    bound(r.last, r.last_verified, "current" if r.first else "?"),
                    _src(r.source),
                )
                for r in m.cuda_repos
            ),
        )
    )


def _sources(m: Matrix) -> str:
    return "Sources\n" + table(
        ("key", "title", "where", "accessed"),
        ((s.key, s.title, s.where, s.accessed) for s in m.sources.values()),
    )


RENDERERS: dict[str, Callable[[Matrix], str]] = {
    "cuda": _cuda,
    "gpu": _gpu,
    "cudnn": _cudnn,
    "torch": _torch,
    "tensorflow": _tensorflow,
    "jax": _jax,
    "precision": _precision,
    "link": _link,
    "memory": _memory,
    "repos": _repos,
    "sources": _sources,
}
assert tuple(RENDERERS) == SECTIONS


def render(matrix: Matrix, section: str | None = None) -> str:
    """One section (see SECTIONS; file stems also accepted) or, with None, all of them."""
    if section is None:
        return "\n\n".join(f"== {name} ==\n{RENDERERS[name](matrix)}" for name in SECTIONS) + "\n"
    key = section.strip().lower()
    key = ALIASES.get(key, key)
    if key not in RENDERERS:
        import difflib

        close = difflib.get_close_matches(key, [*SECTIONS, *ALIASES], n=1)
        raise UsageError(
            f"unknown matrix section {section!r}",
            hint=(f"did you mean {ALIASES.get(close[0], close[0])!r}? " if close else "")
            + f"choose one of: {', '.join(SECTIONS)}",
        )
    return RENDERERS[key](matrix) + "\n"
