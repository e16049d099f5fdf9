"""Catalogued messages of torch's companions and numpy: a companion built for another torch, numpy's C ABI (a module
built against another numpy, or a numpy too old for it), bitsandbytes' binary on Linux and on native Windows.

The framework is fine; a package beside it was built for another one, so the fix is that package's matching release.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.facts import JETSON_SAID, Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.probed import Found

# The companion each catalogued "built for another torch" message is printed by (catalogue ids).
_COMPANION_OF = {
    "xformers-built-for-another-torch": "xformers",
    "torchaudio-cuda-mismatch": "torchaudio",
    "torchvision-cuda-mismatch": "torchvision",
    "torchaudio-extension-not-loaded": "torchaudio",
    "torchvision-operator-missing": "torchvision",
    "torchvision-custom-ops-not-loaded": "torchvision",
    "torchvision-op-no-cuda-kernel": "torchvision",
    "torchvision-op-no-cuda-kernel-table": "torchvision",
}


def _torch(facts: Facts) -> tuple[str | None, str | None]:
    """(the installed torch's version, its CUDA) as the facts have them."""
    t = facts.frameworks.torch
    return (t.value.version, t.value.cuda) if isinstance(t, Found) else (None, None)


def check_companion_messages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A companion's own words that it was built for another torch: xformers' "xFormers was built for: PyTorch X ...
    (you have Y)", torchaudio's and torchvision's "compiled with different CUDA versions"."""
    from gpudoctor.checks.extensions import check_companions, companion_fix
    from gpudoctor.checks.frameworks import check_cpu_build

    said = _said(facts, "companion-built-for") + _said(facts, "companion-cuda-mismatch") + _said(facts, "companion-load-failed")
    if not said or any(f.code == "companion-torch-mismatch" for f in check_companions(facts, ctx)):
        return
    if any(f.code == "framework-cpu-build" for f in check_cpu_build(facts, ctx)):
        return  # "(you have 2.1.0+cpu)": the torch is the fault, a CPU build (framework-cpu-build says so)
    torch, cuda = _torch(facts)
    e = said[0]
    # pip's conflict line names the companion itself (catalogue.toml's pip-companion-requires-other-torch)
    name = _COMPANION_OF.get(e.get("entry") or "") or e.get("companion") or "a companion"
    pip_said = e.get("entry") == "pip-companion-requires-other-torch"
    if pip_said:
        why = f"{name} {e.get('version')} requires torch=={e.get('built')}, and torch {e.get('have')} is installed"
    elif e.kind == "companion-built-for":
        why = f"it says it was built for PyTorch {e.get('built')}, and the torch it imported is {e.get('have')}"
    elif e.get("entry") == "torchvision-custom-ops-not-loaded":
        why = "its compiled operators (torchvision/_C) did not load into the torch it imported, so none of them is registered"
    elif e.get("entry") == "torchvision-operator-missing":
        why = (
            f"torch's dispatcher has no operator torchvision::{e.get('op') or 'nms'}, which torchvision's compiled "
            "extension registers when it loads into the torch it was built for"
        )
    elif e.get("entry") in ("torchvision-op-no-cuda-kernel", "torchvision-op-no-cuda-kernel-table"):
        why = (
            f"torch's dispatcher has no CUDA kernel of torchvision::{e.get('op') or 'nms'} (it lists CPU only), which "
            "a torchvision built with CUDA registers: this torchvision is a build without CUDA beside a torch on the GPU"
        )
    elif e.kind == "companion-load-failed":
        why = (
            "Windows' loader refused its compiled library, a file that is there: a DLL it links (torch's own) is not "
            "the build it was made for"
        )
    else:
        why = f"its extension is built with CUDA {e.get('companion_cuda')}, torch with CUDA {e.get('torch_cuda')}"
    jetson = any(c.get("cue") == JETSON_SAID for c in facts.pasted.cues)
    if jetson and not torch:
        # A Jetson's torch is NVIDIA's JetPack build (its .nv version), which no index of PyTorch's carries: the
        # companion is the one built against it, installed without its requirements so that pip keeps that torch
        # (NVIDIA's "PyTorch for Jetson" wheels; the torchvision built from source with FORCE_CUDA=1 otherwise).
        rem = Remediation(
            f"Install the {name} built against the Jetson's own torch (the JetPack wheel of the release that pairs with "
            f"it, or {name} built from source on the device with FORCE_CUDA=1), with pip's --no-deps so that pip keeps "
            "NVIDIA's torch; PyTorch's indexes hold no build for Jetson. The torch version was not shown (the commands "
            "that show it are asked for).",
            (),
            component="torch",
        )
    elif torch:
        rem = companion_fix(facts, ctx, name, torch, cuda)
    else:
        index = f" (cu{(e.get('torch_cuda') or '').replace('.', '')})" if e.get("torch_cuda") else ""
        rem = Remediation(
            f"Install the {name} release built for the installed torch, from PyTorch's index of torch's CUDA variant"
            f"{index}, with the Python that runs the program (or reinstall torch and {name} together from one index); "
            "the torch version was not shown (the commands that show it are asked for).",
            (),
            component="torch",
        )
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"{name} is built for another torch than the installed {torch or 'one'}",
        f"{'pip' if pip_said else name.capitalize() if name.islower() else name} said so: {why}. Its compiled parts bind to the torch they "
        "were built against, so they do not load (the features that need them are unavailable, or the import fails).",
        (ev("pasted", e.line),),
        rem,
    )


def check_numpy_abi(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NumPy's own message: a module compiled against NumPy 1.x imported with NumPy 2 (`_ARRAY_API not found`)."""
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "numpy-abi")
    if not said:
        return
    version = next((e.get("numpy") for e in said if e.get("numpy")), None)
    yield Finding(
        "numpy-abi-mismatch",
        Severity.ERROR,
        "frameworks",
        f"a module compiled against NumPy 1.x is imported with NumPy {version or '2'}",
        "NumPy said so ('A module that was compiled using NumPy 1.x cannot be run in NumPy 2' / '_ARRAY_API not "
        "found'): NumPy 2 changed the C ABI, so an extension built against NumPy 1.x (an older torch, TensorFlow, "
        "OpenCV, or another compiled package) cannot use it; its NumPy interop fails or the import does.",
        tuple(ev("pasted", e.line) for e in said[:2]),
        Remediation(
            "Install NumPy 1.x beside it (numpy<2), as NumPy's message advises; or upgrade the module to a release "
            "built against NumPy 2.",
            (pip(facts, "install", "numpy<2"),),
            component="environment",
        ),
    )


# NumPy's C-API feature versions and the first release of each (numpy/numpy numpy/_core/code_generators/cversions.txt
# @1f90bbb5: "# Version 12 (NumPy 1.14)" above 0x0000000c, ...); 0x12 (2.0) on is NumPy 2's C ABI.
_NUMPY_C_API = {
    0xA: "1.10", 0xB: "1.13", 0xC: "1.14", 0xD: "1.16", 0xE: "1.20", 0xF: "1.22", 0x10: "1.23", 0x11: "1.25",
    0x12: "2.0", 0x13: "2.1", 0x14: "2.3", 0x15: "2.4", 0x16: "2.5",
}  # fmt: skip


def check_numpy_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NumPy's own message the other way round: a module built against a newer NumPy C-API than the NumPy imported."""
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "numpy-too-old")
    if not said:
        return
    e = said[0]
    built, running = int(e.get("built") or "0", 16), int(e.get("running") or "0", 16)
    needs = _NUMPY_C_API.get(built)
    if needs is None or built <= running:
        return
    # A module built against NumPy 1.x headers cannot run on NumPy 2 (its ABI changed): the upgrade stays below 2.
    spec = f"numpy>={needs}" + (",<2" if built < 0x12 else "")
    had = _NUMPY_C_API.get(running)
    yield Finding(
        "numpy-abi-mismatch",
        Severity.ERROR,
        "frameworks",
        f"a module compiled against NumPy {needs} or newer is imported with an older NumPy"
        + (f" (C-API {e.get('running')}, first in NumPy {had})" if had else ""),
        f"NumPy said so ('module compiled against API version {e.get('built')} but this version of numpy is "
        f"{e.get('running')}'): the module (here the one being imported) was built against NumPy {needs}'s C-API, and "
        "the NumPy this Python imports is older, so the module does not load. Often an old NumPy copy is left beside a "
        "newer one (another site-packages, a user install): the upgrade must reach the one imported.",
        (ev("pasted", e.line),),
        Remediation(
            f"Upgrade the NumPy of the Python that fails to {spec.removeprefix('numpy')} (check with "
            '`python -c "import numpy; print(numpy.__version__, numpy.__file__)"` that this NumPy is the one '
            "imported; uninstall a stale copy first where it is not).",
            (pip(facts, "install", "--upgrade", spec),),
            component="environment",
        ),
    )


def check_bitsandbytes_binary(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """bitsandbytes' "Required library version not found: libbitsandbytes_cudaNNN" (0.44-0.45: "Could not find the
    bitsandbytes CUDA binary"), else its "compiled without GPU support": no binary for torch's CUDA (read from disk:
    gpudoctor.checks.extensions, the same fix)."""
    from gpudoctor.checks.extensions import bnb_install

    said = _said(facts, "bitsandbytes-binary-missing")
    if not said:
        yield from _bitsandbytes_cpu_library(facts, ctx)
        return
    e = said[0]
    cuda = e.get("cuda") or ""
    label = f"{cuda[:-1]}.{cuda[-1]}" if len(cuda) >= 2 else cuda
    torch, torch_cuda = _torch(facts)
    what, commands = bnb_install(facts, ctx, torch, torch_cuda or label or None)
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"the installed bitsandbytes has no binary for CUDA {label}, the CUDA of the torch it loads with",
        f"bitsandbytes said so ('Required library version not found: {e.get('library')}'): its build carries "
        "binaries for other CUDA versions only (an older or unofficial build), so it cannot use the GPU with this torch.",
        (ev("pasted", e.line),),
        Remediation(what[:1].upper() + what[1:] + ".", commands, component="torch"),
    )


def _bitsandbytes_cpu_library(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """bitsandbytes' "compiled without GPU support": it loaded its CPU library, because torch has no CUDA or because
    the release ships no library for torch's CUDA version (bitsandbytes/cextension.py get_native_library @64d382da).
    With a CUDA torch in the paste the release is the fault: one that ships torch's CUDA and accepts that torch
    (gpudoctor.checks.extensions.bnb_install). Without torch, the asks decide (the catalogue's)."""
    from gpudoctor.checks.extensions import bnb_install

    said = _said(facts, "bitsandbytes-cpu-library")
    if not said:
        return
    if facts.platform.system.lower().startswith("win") and _said(facts, "bitsandbytes-linux-cuda-setup"):
        return  # a release before Windows support loaded its Linux library: check_bitsandbytes_windows says it
    t = facts.frameworks.torch
    if isinstance(t, Found) and t.value.build_known and not t.value.cuda:
        return  # a CPU torch: torch is the fault, and bitsandbytes follows it
    torch, cuda = _torch(facts)
    first = ctx.matrix.bnb_first_for(cuda) if cuda else None
    if cuda is None or first is None:
        yield Finding(
            "companion-torch-mismatch",
            Severity.WARNING,
            "frameworks",
            "bitsandbytes loaded its CPU library (it says it was compiled without GPU support)",
            "bitsandbytes said so: it found no library for the CUDA of the torch it runs with and loaded its CPU one, so "
            "8-bit optimizers and quantization do not use the GPU. Either that torch has no CUDA, or the bitsandbytes "
            "release ships no library for torch's CUDA version (each release ships a list of them; releases before "
            "0.43 had no official Windows build). Which one the versions decide.",
            (ev("pasted", said[0].line),),
        )
        return
    what, commands = bnb_install(facts, ctx, torch, cuda)
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"bitsandbytes loaded its CPU library: its release ships no library for torch's CUDA {cuda}",
        f"bitsandbytes said it was compiled without GPU support: it loads the library of torch's CUDA version and, "
        f"where its release has none, its CPU library. torch here is a CUDA {cuda} build, and bitsandbytes ships a "
        f"library for CUDA {cuda} from {first.since} on, so the installed bitsandbytes is older (or an unofficial "
        "build). The driver, the toolkit and torch need no change.",
        (ev("pasted", said[0].line),),
        Remediation(what[:1].upper() + what[1:] + " (in the environment the program runs with).", commands, component="torch"),
    )


def check_bitsandbytes_windows(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A bitsandbytes before 0.43 on native Windows: its CUDA setup searches libcudart.so (Linux's runtime) and fails
    whatever the GPU; 0.43.0 is the first release that supports Windows (bitsandbytes-foundation/bitsandbytes CHANGELOG.md
    @a0ae4608, 0.43.0: "Windows should be officially supported in bitsandbytes"; its package index files include a
    py3-none-win_amd64 wheel from that release on), so the fix is that release or newer in the same environment."""
    from gpudoctor.checks.libraries import fork_installed, fork_replaced
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "bitsandbytes-linux-cuda-setup")
    if not said or not facts.platform.system.lower().startswith("win") or _said(facts, "bitsandbytes-binary-missing"):
        return  # (its "Required library version not found" is check_bitsandbytes_binary's: one finding per cause)
    yield Finding(
        "framework-windows-native-gpu",
        Severity.ERROR,
        "frameworks",
        "the installed bitsandbytes predates Windows support (before 0.43): it looks for Linux's libcudart.so",
        (
            "bitsandbytes' CUDA setup says it found no libcudart.so and searched /usr/local/cuda/lib64, Linux's names and "
            "folders, on a Windows machine (its paths print as WindowsPath)"
            if "libcudart" in said[0].line
            else "bitsandbytes names its Linux library (.so) under a Windows path, the only kind releases before 0.43 shipped"
            if "libbitsandbytes_" in said[0].line and ".so" in said[0].line
            else "Windows could not load bitsandbytes' CUDA library from bitsandbytes\\cuda_setup, the CUDA setup of "
            "releases before 0.43 (an unofficial Windows build of one)"
        )
        + ": releases before 0.43 had no Windows build, so it cannot load its CUDA library whatever the driver, the "
        "toolkit or torch. 0.43.0 brought official Windows wheels; no CUDA toolkit is needed for them (they use torch's "
        "CUDA).",
        (ev("pasted", said[0].line),),
        (
            Remediation(
                f"Uninstall the unofficial {fork.fork} {fork.version} (it installs the same bitsandbytes package) and "
                f"install the official {fork.requirement}, whose Windows wheels carry their CUDA libraries, in the "
                "environment that runs it; then restart the program or kernel (`python -m bitsandbytes` then reports "
                "success; torch must be a CUDA build).",
                fork_replaced(facts, fork),
                component="torch",
            )
            if (fork := fork_installed(facts)) is not None and fork.official == "bitsandbytes"
            else Remediation(
                "Upgrade bitsandbytes to 0.43.0 or newer in the environment that runs it (a notebook's kernel: its own "
                "python), then restart the program or kernel; `python -m bitsandbytes` then reports success.",
                (pip(facts, "install", "--upgrade", "bitsandbytes>=0.43.0"),),
                component="torch",
            )
        ),
    )


# The check that an Apex build carries its fused kernels: the extension modules the README's --cpp_ext and --cuda_ext
# build (NVIDIA/apex README.md @6424da3b, "Custom C++/CUDA Extensions and Install Options"), imported beside the package.
_APEX_BUILT = "import apex, apex_C, amp_C, fused_layer_norm_cuda; print(apex.__file__)"


def check_apex_not_built(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NVIDIA Apex missing, or built without its extensions (catalogue.toml: apex-not-built). Not on the package index
    under its name, it is built from its repository with the extensions, against the installed torch
    (gpudoctor.checks.extensions' FROM_SOURCE and its build, the one answer to how Apex is rebuilt); where the text does
    not show torch and its CUDA, the build's toolchain is read first, since the extensions need an nvcc of torch's CUDA
    major. The fix ends by importing the extensions: a plain `pip install .` installs the Python package alone. Where
    the traceback shows the index's own "apex" (a Pyramid toolkit of that name, 2013) installed instead, it is
    uninstalled first: it owns the same apex/ folder (NVIDIA/apex#1063)."""
    from gpudoctor.checks.extensions import build_toolchain, source_build
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "apex-not-built")
    if not said:
        return
    e = said[0]
    module = e.get("module") or ""
    torch, cuda = _torch(facts)
    impostor = any(s.get("installed") == "index" for s in said)
    extension = bool(module) and not module.startswith("apex") and not impostor
    what = (
        "the package index's unrelated 'apex' is installed, not NVIDIA Apex,"
        if impostor
        else f"Apex's extension {module} is not built"
        if extension
        else "NVIDIA Apex is not installed"
    )
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        what + " in the interpreter that ran",
        (
            "The apex package that loaded is the package index's 'apex' (a Pyramid web toolkit of 2013, what `pip "
            "install apex` installs), as its own import of pyramid or zope.interface in the traceback shows"
            if impostor
            else "The program imports "
            + (f"{module}, one of Apex's compiled extensions" if extension else "NVIDIA Apex")
            + ", as the text shows"
        )
        + ". Apex is built from NVIDIA's repository, not installed from the package index (the "
        "index's 'apex' is an unrelated project), and its fused kernels (fused_layer_norm_cuda behind FusedLayerNorm, "
        "amp_C, apex_C) are built only when the build is asked for its C++ and CUDA extensions, with a CUDA toolkit of "
        "torch's CUDA major; a plain 'pip install .' installs the Python package without them. The GPU and the driver "
        "are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            "Build Apex from NVIDIA's repository with its C++ and CUDA extensions, against the installed torch"
            + (f" {torch}" if torch else "")
            + (f" (CUDA {cuda}: the nvcc that builds must be of that major)" if cuda else "")
            + ", with the interpreter that failed (the --config-settings form needs pip 23.1 or newer); then import "
            "the extensions. NVIDIA's PyTorch containers ship Apex built, a way out as well.",
            (
                *((pip(facts, "uninstall", "-y", "apex"),) if impostor else ()),
                *(() if cuda else (build_toolchain(facts),)),
                *source_build(facts, ctx, "apex"),
                Cmd((python_exe(facts), "-c", _APEX_BUILT), note="the extensions import: the build took"),
            ),
            component="torch",
        ),
    )


# The options of a pip command that name the index it installs from (a URL: NVIDIA's own indexes carry DALI's builds).
_INDEX_OPTION = re.compile(r"(?:^|\s)(?P<opt>--extra-index-url|--index-url|-i|--find-links|-f)[= ](?P<url>https?://\S{1,300})")


def _index_of(facts: Facts, package: str) -> tuple[str, str] | None:
    """(the option, the URL) of the index the paste's own pip command installed `package` from, or None."""
    name = re.compile(r"(?:^|\s)" + re.escape(package) + r"(?:[=<>~!\[\s]|$)", re.IGNORECASE)
    for e in facts.pasted.reported("pip-install-said"):
        args = e.get("args") or ""
        if name.search(args) and (m := _INDEX_OPTION.search(args)) is not None:
            opt = "--extra-index-url" if m.group("opt") in ("--extra-index-url", "--index-url", "-i") else "--find-links"
            return opt, m.group("url")
    return None


_FRAMEWORK_NAMES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


def check_addon_extension_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A framework add-on imported without the separate package that carries its integration with the framework
    (catalogue.toml's addon-extension-missing: DALI's nvidia-dali-tf-plugin, Transformer Engine's
    transformer-engine-torch): that package is built for, or picked for, the framework installed when it is installed,
    so the fix is to install it (the add-on's packages again, where one of them is at fault) in the interpreter that
    failed, from the index the add-on came from, and import the module that failed."""
    from gpudoctor.checks.extensions import build_toolchain
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "addon-extension-missing")
    if not said:
        return
    e = said[0]
    addon, extension = e.get("addon") or "", e.get("extension") or ""
    install, module, framework = e.get("install") or extension, e.get("module") or "", e.get("framework") or "the framework"
    shown = _FRAMEWORK_NAMES.get(framework, framework)
    reinstall = tuple((e.get("reinstall") or "").split())
    built_here = e.get("build") == "framework"
    index = _index_of(facts, addon)
    torch, _ = _torch(facts)
    py = python_exe(facts)
    listed = Cmd(
        (py, "-m", "pip", "list"),
        pipe=("grep", "-iE", "|".join((re.escape(addon.split("-")[-1]) if "-" in addon else addon, framework))),
        note=f"which {addon} packages and which {shown} is installed: {extension} must be of {addon}'s release",
    )
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        f"{addon}'s {shown} integration ({extension}) is not installed in the interpreter that ran",
        f"The import of {module or addon} fails where it loads the compiled library of {addon}'s {shown} "
        f"integration, as the text shows. That library comes in a separate package, {extension}, "
        + (
            f"built from source against the {shown} installed when it is installed (pip's {install} extra)"
            if built_here
            else f"built or picked for the {shown} installed when it is installed"
        )
        + f"; {addon} installed without it (or with it installed for another {shown}) has none that loads. "
        "The GPU and the driver are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            f"In the interpreter that failed, install {extension}"
            + (
                f" (uninstalling {addon}'s packages first, then {install}, built against the installed torch"
                + (f" {torch}" if torch else "")
                + ": the nvcc that builds must be of torch's CUDA major)"
                if reinstall
                else f" of the same release as {addon}"
            )
            + (f", from the index {addon} came from ({index[1]})" if index else "")
            + f"; then import {module or addon}.",
            (
                listed,
                *((build_toolchain(facts),) if built_here and not torch else ()),
                *((pip(facts, "uninstall", "-y", *reinstall),) if reinstall else ()),
                pip(
                    facts,
                    "install",
                    *(index if index else ()),
                    *(("--no-build-isolation",) if built_here else ()),
                    install,
                ),
                *(
                    (Cmd((py, "-c", f"import {module}; print({module}.__name__)"), note="the integration loads"),)
                    if module
                    else ()
                ),
            ),
            component=framework if framework in ("torch", "tensorflow") else "",
        ),
    )
