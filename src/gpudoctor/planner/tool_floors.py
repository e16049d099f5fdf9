"""The release a printed command's tool must be at for the option it uses, and what the report shows of that release.

A plan is printed for a machine of its own era: `nvidia-ctk runtime configure` does not exist on a node whose NVIDIA
runtime came with nvidia-docker2 before the NVIDIA Container Toolkit 1.11, `docker run --gpus` not on a Docker before
19.03 (issue 27, kinds 3 and 8). FLOORS is that table, each row with its source; `shown` reads the release from the
report (each fact with the line it was read from). The consequence model (gpudoctor.planner.needs) fails a command whose
tool is shown older than its floor, or whose release is unknown with no earlier command asking it; the planner
(gpudoctor.planner.deciders.with_release_asks) puts the asking command before such a command.

Where the release is not shown, the plan asks it before the command, and this is why per product (rather than the form
that works on every release):

- the NVIDIA Container Toolkit: ask (`nvidia-ctk --version`). Its answer both proves the program exists (a node set up
  with nvidia-docker2 before 1.10 has no nvidia-ctk at all) and names the release; the form that works on every
  release, editing /etc/docker/daemon.json by hand, has no command that keeps the file's other keys, so it stays the
  step's prose.
- Docker: ask (`docker --version`). `--gpus` has no older form that works everywhere: `--runtime=nvidia` needs a
  runtime named nvidia in daemon.json (nvidia-docker2's, or `nvidia-ctk runtime configure`'s), which a Docker set up
  for `--gpus` alone need not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudoctor.cmdline import Cmd, Line
from gpudoctor.versions import version_key


@dataclass(frozen=True)
class Product:
    """A tool whose release decides what its commands accept: the packages that install it (a plan that installs
    one brings the newest release), the evidence kinds that show its release (`version` value) or prove a floor (a
    message only a release at or past it prints), and the command whose output shows it."""

    name: str
    packages: tuple[str, ...]
    version_kinds: tuple[str, ...]
    proves: tuple[tuple[str, str], ...]  # (evidence kind, the release its message proves at least)
    ask: tuple[str, ...]  # printed before a command that needs a floor where no release is shown (the docstring: why)


TOOLKIT = Product(
    "NVIDIA Container Toolkit",
    ("nvidia-container-toolkit",),
    ("container-toolkit-version",),  # gpudoctor/parsers/catalogue.toml nvidia-ctk-version: `nvidia-ctk --version`
    (),
    ("nvidia-ctk", "--version"),
)
DOCKER = Product(
    "Docker",
    ("docker-ce", "docker.io", "moby-engine"),
    ("docker-version",),  # catalogue.toml docker-version: `docker --version`
    # moby's "could not select device driver ... with capabilities: [[gpu]]" answers a device request, which the API
    # has from version 1.40 (Docker 19.03) on: a daemon that prints it took --gpus.
    (("docker-gpu-driver-missing", "19.03.0"),),
    ("docker", "--version"),
)


@dataclass(frozen=True)
class Floor:
    """A command of `program` whose words include all of `words` needs `product` at `minimum` or newer (`source`)."""

    program: str
    words: tuple[str, ...]
    product: Product
    minimum: str
    source: str


# Most specific first: the first row whose words a command holds decides it.
FLOORS = (
    Floor("nvidia-ctk", ("runtime", "configure", "--runtime=containerd"), TOOLKIT, "1.14.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.14.0-rc.1: 'Add support for updating containerd "
          "configs to the nvidia-ctk runtime configure command'"),
    Floor("nvidia-ctk", ("runtime", "configure"), TOOLKIT, "1.11.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.11.0-rc.1: 'Add nvidia-ctk runtime configure "
          "command' (commit 9f0060f6, with --set-as-default)"),
    Floor("nvidia-ctk", ("system", "create-dev-char-symlinks"), TOOLKIT, "1.12.0",
          "NVIDIA/nvidia-container-toolkit commit 8188400c 'Move create-dev-char-symlinks subcommand from hook to "
          "system', first tagged v1.12.0"),
    Floor("nvidia-ctk", ("cdi", "list"), TOOLKIT, "1.14.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.14.0-rc.1: 'Add nvidia-ctk cdi list command'"),
    Floor("nvidia-ctk", ("cdi", "generate"), TOOLKIT, "1.12.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.12.0-rc.2: 'Use nvidia-ctk cdi generate to "
          "generate CDI specifications'"),
    Floor("docker", ("run", "--gpus"), DOCKER, "19.03.0",
          "docker/cli cli/command/container/opts.go: flags.SetAnnotation(\"gpus\", \"version\", []string{\"1.40\"}); "
          "API 1.40 is Docker Engine 19.03"),
)  # fmt: skip
PRODUCTS = tuple(dict.fromkeys(f.product for f in FLOORS))


@dataclass(frozen=True)
class Shown:
    """A product's release as the report shows it: at least `version` (exactly, where `exact`), read from `line`."""

    version: str
    line: str
    exact: bool = True


def floor_of(line: Line) -> Floor | None:
    """The floor a printed command needs, or None."""
    if not isinstance(line, Cmd) or not line.argv or not isinstance(line.argv[0], str):
        return None
    prog = line.argv[0].rsplit("/", 1)[-1]
    words = {str(a).split("=", 1)[0] if str(a).startswith("--gpus") else str(a) for a in line.argv[1:]}
    return next((f for f in FLOORS if f.program == prog and all(w in words for w in f.words)), None)


def shown(facts: Any, product: Product) -> Shown | None:
    """What the report shows of `product`'s release: the newest it names, else the floor a message proves; None."""
    pasted = getattr(facts, "pasted", None)
    if pasted is None:
        return None
    named = [Shown(v, e.line) for kind in product.version_kinds for e in pasted.reported(kind) if (v := e.get("version"))]
    if named:
        return max(named, key=lambda s: version_key(s.version))
    proved = [Shown(least, e.line, exact=False) for kind, least in product.proves for e in pasted.reported(kind)]
    return max(proved, key=lambda s: version_key(s.version)) if proved else None


def below(facts: Any, floor: Floor) -> Shown | None:
    """The release shown where it is older than `floor` needs, else None."""
    got = shown(facts, floor.product)
    return got if got is not None and got.exact and version_key(got.version) < version_key(floor.minimum) else None


def installs(line: Line, product: Product) -> bool:
    """Whether `line` installs `product` from a package manager (the newest release its source serves)."""
    if not isinstance(line, Cmd):
        return False
    words = [str(a) for a in line.argv]
    verbs = {"install", "upgrade", "-S"}
    return bool(verbs & set(words)) and any(w.split("=")[0] in product.packages for w in words[1:])
