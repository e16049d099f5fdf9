"""`gpudoctor switch-cuda` on native Windows: CUDA_PATH and PATH instead of /usr/local/cuda.

Two scopes, as on Linux:
- this shell: code for PowerShell (`... --shell powershell | Invoke-Expression`) or cmd.exe
  (`for /f "delims=" %i in ('gpudoctor switch-cuda 11.8 --shell cmd') do %i`) that sets CUDA_PATH to the
  toolkit and puts its bin first on PATH, other toolkits' folders removed;
- the machine: CUDA_PATH and the machine-level Path in the registry (HKLM ... Session Manager\\Environment),
  which is what the CUDA installer itself writes. Administrator rights, a confirmation (or --yes), and
  an undo line printed after the change. Only toolkit folders are removed from Path; every other entry
  is kept, in order, with its own spelling (REG_EXPAND_SZ values keep their %VARIABLES%).

Planning is pure (facts in, values out); the registry is reached only through `MachineEnvironment`,
whose Windows implementation imports winreg when used, so Linux CI tests the logic on plain data.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gpudoctor import cmdline
from gpudoctor.cmdline import Cmd
from gpudoctor.errors import UnsafeOperation, UsageError
from gpudoctor.facts import Facts
from gpudoctor.host import winpath
from gpudoctor.versions import vkey
from gpudoctor.windows_facts import WindowsToolkit

WINDOWS_SHELLS = ("powershell", "cmd")
# A toolkit's own PATH entries, as the installer writes them (bin and libnvvp), in any spelling.
_TOOLKIT_ENTRY = re.compile(r"nvidia gpu computing toolkit[\\/]+cuda[\\/]+v\d+\.\d+([\\/]+(bin|libnvvp))?[\\/]*\Z", re.IGNORECASE)
MACHINE_KEY = r"SYSTEM\CurrentControlSet\Control\Session Manager\Environment"


@dataclass(frozen=True)
class WindowsSwitch:
    requested: str
    target: WindowsToolkit | None
    previous: str | None  # CUDA_PATH as it is now
    env: tuple[tuple[str, str], ...] = ()  # the shell scope's assignments
    refusal: str | None = None
    manual: tuple[str, ...] = ()


def matching(toolkits: Sequence[WindowsToolkit], requested: str) -> list[WindowsToolkit]:
    """The toolkits `requested` names (11.8, 12, v12.1, or a folder), those with nvcc first, newest first."""
    from gpudoctor.switch_cuda import parse_request

    if winpath.is_windows_path(requested):
        key = winpath.key(requested)
        return [t for t in toolkits if winpath.key(t.root) == key]
    want = parse_request(requested)
    found = [t for t in toolkits if vkey(t.version)[: len(want)] == want]
    return sorted(found, key=lambda t: (not t.nvcc, tuple(-n for n in vkey(t.version))))


def is_toolkit_entry(entry: str) -> bool:
    return _TOOLKIT_ENTRY.search(entry.strip().strip('"')) is not None


def rebuild_path(path_value: str, target: WindowsToolkit) -> str:
    """`path_value` with every toolkit folder removed and the target's bin and libnvvp first; the rest kept in order."""
    first = [winpath.to_native(winpath.join(target.root, "bin")), winpath.to_native(winpath.join(target.root, "libnvvp"))]
    kept = [e for e in path_value.split(";") if e and not is_toolkit_entry(e)]
    return ";".join([*first, *kept])


def plan_windows_switch(facts: Facts, requested: str) -> WindowsSwitch:
    win = facts.windows
    toolkits = win.toolkits if win is not None else ()
    previous = win.cuda_path if win is not None else None
    found = matching(toolkits, requested)
    if not found:
        installed = ", ".join(f"{t.version} ({winpath.to_native(t.root)})" for t in toolkits) or "none"
        return WindowsSwitch(
            requested,
            None,
            previous,
            refusal=f"CUDA {requested} is not installed (installed: {installed})",
            manual=("Install it with NVIDIA's Windows installer (developer.nvidia.com/cuda-toolkit-archive), then rerun.",),
        )
    target = found[0]
    if not target.nvcc:
        return WindowsSwitch(
            requested,
            target,
            previous,
            refusal=f"the CUDA {target.version} toolkit at {winpath.to_native(target.root)} has no bin\\nvcc.exe (incomplete)",
            manual=("Reinstall it, or choose another: gpudoctor switch-cuda --list",),
        )
    env = (
        ("CUDA_PATH", winpath.to_native(target.root)),
        ("PATH", rebuild_path(facts.platform.env.get("PATH", ""), target)),
    )
    return WindowsSwitch(requested, target, previous, env=env)


def render_shell(env: Sequence[tuple[str, str]], shell: str) -> str:
    """PowerShell or cmd.exe code setting `env` (gpudoctor.cmdline quotes every value). Raises UsageError."""
    if shell not in WINDOWS_SHELLS:
        raise UsageError(f"unsupported shell {shell!r} on Windows", "name powershell (also pwsh) or cmd")
    return cmdline.render_export_script(env, shell)


# --- the machine scope ------------------------------------------------------------------------------


class MachineEnvironment(Protocol):
    """Machine-level environment variables: (value, is_expandable) or None when unset."""

    def get(self, name: str) -> tuple[str, bool] | None: ...

    def set(self, name: str, value: str, expandable: bool) -> None: ...

    def announce(self) -> None:
        """Tell running programs (Explorer, new terminals) that the environment changed."""


@dataclass(frozen=True)
class MachineChange:
    cuda_path: tuple[str | None, str]  # before, after
    path: tuple[str, str]
    path_expandable: bool


def plan_machine(env: MachineEnvironment, target: WindowsToolkit) -> MachineChange:
    old_cuda = env.get("CUDA_PATH")
    old_path = env.get("Path") or ("", True)
    return MachineChange(
        (old_cuda[0] if old_cuda else None, winpath.to_native(target.root)),
        (old_path[0], rebuild_path(old_path[0], target)),
        old_path[1],
    )


def apply_machine(env: MachineEnvironment, change: MachineChange) -> None:
    """Write CUDA_PATH, then Path; announce once. Path is written only after CUDA_PATH took."""
    env.set("CUDA_PATH", change.cuda_path[1], False)
    env.set("Path", change.path[1], change.path_expandable)
    env.announce()


def undo_lines(change: MachineChange, previous_version: str | None) -> tuple[Cmd, ...]:
    """How to go back: switch back to the previous toolkit, or restore the previous CUDA_PATH by hand."""
    if previous_version:
        return (Cmd(("gpudoctor", "switch-cuda", previous_version, "--yes"), root=True),)
    before = change.cuda_path[0]
    if before:
        return (Cmd(("setx", "CUDA_PATH", before, "/M"), root=True),)
    return (Cmd(("reg", "delete", "HKLM\\" + MACHINE_KEY, "/v", "CUDA_PATH", "/f"), root=True),)


def is_admin() -> bool:
    """Whether this process runs with Administrator rights (Windows only; False elsewhere)."""
    import ctypes

    windll = getattr(ctypes, "windll", None)
    if windll is None:
        return False
    try:
        return bool(windll.shell32.IsUserAnAdmin())
    except OSError:
        return False


class RegistryEnvironment:
    """The machine environment in the registry. Windows only: winreg is imported on use."""

    def get(self, name: str) -> tuple[str, bool] | None:
        winreg: Any = importlib.import_module("winreg")  # Windows only; typed loosely so Linux mypy passes

        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, MACHINE_KEY) as key:
            try:
                value, kind = winreg.QueryValueEx(key, name)
            except FileNotFoundError:
                return None
        return str(value), kind == winreg.REG_EXPAND_SZ

    def set(self, name: str, value: str, expandable: bool) -> None:
        winreg: Any = importlib.import_module("winreg")  # Windows only; typed loosely so Linux mypy passes

        try:
            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, MACHINE_KEY, 0, winreg.KEY_SET_VALUE) as key:
                winreg.SetValueEx(key, name, 0, winreg.REG_EXPAND_SZ if expandable else winreg.REG_SZ, value)
        except PermissionError:
            raise UnsafeOperation(
                "changing the machine environment needs Administrator rights", "run it in an Administrator PowerShell"
            ) from None

    def announce(self) -> None:
        import ctypes

        windll = getattr(ctypes, "windll", None)
        if windll is None:
            return
        hwnd_broadcast, wm_settingchange, smto_abortifhung = 0xFFFF, 0x001A, 0x0002
        result = ctypes.c_ulong()
        windll.user32.SendMessageTimeoutW(
            hwnd_broadcast, wm_settingchange, 0, "Environment", smto_abortifhung, 5000, ctypes.byref(result)
        )


def toolkit_version_at(facts: Facts, root: str | None) -> str | None:
    """The version of the installed toolkit at `root` (a CUDA_PATH value), or None."""
    if facts.windows is None or not root or not winpath.is_windows_path(root):
        return None
    return next((t.version for t in facts.windows.toolkits if winpath.key(t.root) == winpath.key(root)), None)


def render_list(facts: Facts) -> str:
    """`--list` on Windows: each toolkit, `*` for the one CUDA_PATH names."""
    win = facts.windows
    toolkits = win.toolkits if win is not None else ()
    active = winpath.key(win.cuda_path) if win is not None and win.cuda_path and winpath.is_windows_path(win.cuda_path) else None
    lines = ["CUDA toolkits (* active: the one CUDA_PATH names)"]
    if not toolkits:
        lines.append("  none found")
    for tk in toolkits:
        mark = "*" if active == winpath.key(tk.root) else " "
        state = "" if tk.nvcc else "  incomplete: no bin\\nvcc.exe"
        lines.append(f"{mark} {tk.version}  {winpath.to_native(tk.root)}{state}")
    if win is not None and win.cuda_path and active not in {winpath.key(t.root) for t in toolkits}:
        lines.append(f"CUDA_PATH = {win.cuda_path} (not an installed toolkit)")
    return "\n".join(lines) + "\n"
