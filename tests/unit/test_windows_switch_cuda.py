"""switch-cuda on native Windows: the plan from recorded facts, the shell code, the machine change and its undo."""

from __future__ import annotations

import pytest

from gpudoctor import switch_cuda_windows as sw
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot

BASE = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"


def _facts(path: str, cuda_path: str = BASE + "\\v12.1", toolkits=("v11.8", "v12.1"), nvcc=("v11.8", "v12.1")):
    snap = {
        "format": "gpudoctor-snapshot/1",
        "platform": {"system": "Windows", "release": "11", "machine": "AMD64"},
        "env": {"PATH": path, "CUDA_PATH": cuda_path},
        "dirs": {BASE: list(toolkits)},
        "files": {f"{BASE}\\{v}\\bin\\nvcc.exe": {"type": "file"} for v in nvcc},
    }
    return diagnose(ReplayHost(validate_snapshot(snap))).facts


PATH = f"{BASE}\\v12.1\\bin;{BASE}\\v12.1\\libnvvp;C:\\Windows\\system32;C:\\Users\\me\\bin;{BASE}\\v11.8\\bin"


def test_shell_scope_sets_cuda_path_and_puts_the_toolkit_first():
    plan = sw.plan_windows_switch(_facts(PATH), "11.8")
    assert plan.refusal is None and plan.target is not None and plan.target.version == "11.8"
    assert dict(plan.env) == {
        "CUDA_PATH": BASE + "\\v11.8",
        "PATH": f"{BASE}\\v11.8\\bin;{BASE}\\v11.8\\libnvvp;C:\\Windows\\system32;C:\\Users\\me\\bin",
    }
    ps = sw.render_shell(plan.env, "powershell")
    assert ps.splitlines()[0] == f"$env:CUDA_PATH = '{BASE}\\v11.8'"
    cmd = sw.render_shell(plan.env, "cmd")
    assert cmd.splitlines()[0] == f'set "CUDA_PATH={BASE}\\v11.8"'


def test_a_hostile_path_entry_stays_one_quoted_value():
    hostile = "C:\\x'; Start-Process calc; '"
    plan = sw.plan_windows_switch(_facts(hostile + ";C:\\Windows"), "12.1")
    ps = sw.render_shell(plan.env, "powershell").splitlines()[1]
    assert ps.startswith("$env:PATH = '") and ps.endswith("'")
    assert "x''; Start-Process calc; ''" in ps  # the quote is doubled: one literal string, nothing run


def test_requests_that_name_no_installed_toolkit_are_refused():
    plan = sw.plan_windows_switch(_facts(PATH), "10.2")
    assert plan.target is None and "CUDA 10.2 is not installed (installed: 11.8" in (plan.refusal or "")


def test_a_toolkit_without_nvcc_is_refused():
    plan = sw.plan_windows_switch(_facts(PATH, nvcc=("v12.1",)), "11.8")
    assert plan.target is not None and "no bin\\nvcc.exe" in (plan.refusal or "")


def test_a_folder_can_be_named():
    plan = sw.plan_windows_switch(_facts(PATH), "c:/program files/nvidia gpu computing toolkit/cuda/v11.8")
    assert plan.target is not None and plan.target.version == "11.8"


class _Registry:
    """The machine environment as plain data (the registry's stand-in in a Linux test)."""

    def __init__(self, values):
        self.values = dict(values)
        self.announced = 0

    def get(self, name):
        return self.values.get(name)

    def set(self, name, value, expandable):
        self.values[name] = (value, expandable)

    def announce(self):
        self.announced += 1


def test_machine_switch_rewrites_only_toolkit_entries_and_keeps_expandable_path():
    facts = _facts(PATH)
    target = sw.plan_windows_switch(facts, "11.8").target
    reg = _Registry(
        {
            "CUDA_PATH": (BASE + "\\v12.1", False),
            "Path": (f"%SystemRoot%\\system32;{BASE}\\v12.1\\bin;{BASE}\\v12.1\\libnvvp;%SystemRoot%", True),
        }
    )
    change = sw.plan_machine(reg, target)
    sw.apply_machine(reg, change)
    assert reg.values["CUDA_PATH"] == (BASE + "\\v11.8", False)
    assert reg.values["Path"] == (f"{BASE}\\v11.8\\bin;{BASE}\\v11.8\\libnvvp;%SystemRoot%\\system32;%SystemRoot%", True)
    assert reg.announced == 1
    (undo,) = sw.undo_lines(change, sw.toolkit_version_at(facts, change.cuda_path[0]))
    assert undo.argv == ("gpudoctor", "switch-cuda", "12.1", "--yes") and undo.root


def test_undo_restores_a_cuda_path_that_named_no_toolkit():
    target = sw.plan_windows_switch(_facts(PATH), "11.8").target
    change = sw.plan_machine(_Registry({"CUDA_PATH": ("D:\\old\\cuda", False)}), target)
    (undo,) = sw.undo_lines(change, None)
    assert undo.argv == ("setx", "CUDA_PATH", "D:\\old\\cuda", "/M")


@pytest.mark.parametrize("entry", [f"{BASE}\\v9.0\\bin", f'"{BASE}\\v11.2\\bin\\"', BASE.lower() + "/v12.4/libnvvp"])
def test_every_spelling_of_a_toolkit_entry_is_recognised(entry):
    assert sw.is_toolkit_entry(entry)


def test_list_marks_the_toolkit_cuda_path_names():
    text = sw.render_list(_facts(PATH))
    assert f"* 12.1  {BASE}\\v12.1" in text and f"  11.8  {BASE}\\v11.8" in text


def _cli(monkeypatch, capsys, facts, *args, admin=True, registry=None):
    import gpudoctor.probes
    from gpudoctor.cli import main

    monkeypatch.setattr(gpudoctor.probes, "run_probes", lambda host, options: facts)
    monkeypatch.setattr(sw, "is_admin", lambda: admin)
    if registry is not None:
        monkeypatch.setattr(sw, "RegistryEnvironment", lambda: registry)
    with pytest.raises(SystemExit) as exc:
        main(["switch-cuda", *args])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_cli_shell_scope_prints_powershell_by_default_and_cmd_on_request(monkeypatch, capsys):
    facts = _facts(PATH)
    code, out, err = _cli(monkeypatch, capsys, facts, "11.8", "--shell")
    assert code == 0 and out.startswith(f"$env:CUDA_PATH = '{BASE}\\v11.8'\n") and "CUDA 11.8" in err
    code, out, _ = _cli(monkeypatch, capsys, facts, "11.8", "cmd", "--shell")
    assert code == 0 and out.startswith(f'set "CUDA_PATH={BASE}\\v11.8"\n')


def test_cli_list_on_windows(monkeypatch, capsys):
    code, out, _ = _cli(monkeypatch, capsys, _facts(PATH), "--list")
    assert code == 0 and "* 12.1" in out


def test_cli_machine_switch_needs_administrator(monkeypatch, capsys):
    reg = _Registry({"CUDA_PATH": (BASE + "\\v12.1", False), "Path": (f"{BASE}\\v12.1\\bin;C:\\Windows", True)})
    code, _, err = _cli(monkeypatch, capsys, _facts(PATH), "11.8", "--yes", admin=False, registry=reg)
    assert code == 3 and "Administrator" in err and "Invoke-Expression" in err
    assert reg.values["CUDA_PATH"] == (BASE + "\\v12.1", False)  # nothing changed


def test_cli_machine_switch_dry_run_then_for_real_with_the_undo_line(monkeypatch, capsys):
    reg = _Registry({"CUDA_PATH": (BASE + "\\v12.1", False), "Path": (f"{BASE}\\v12.1\\bin;C:\\Windows", True)})
    code, out, _ = _cli(monkeypatch, capsys, _facts(PATH), "11.8", "--dry-run", registry=reg)
    assert code == 0 and "dry run: nothing changed" in out and reg.values["CUDA_PATH"][0].endswith("v12.1")
    code, out, _ = _cli(monkeypatch, capsys, _facts(PATH), "11.8", "--yes", registry=reg)
    assert code == 0 and reg.values["CUDA_PATH"] == (BASE + "\\v11.8", False)
    assert reg.values["Path"] == (f"{BASE}\\v11.8\\bin;{BASE}\\v11.8\\libnvvp;C:\\Windows", True)
    assert "to undo (as Administrator): gpudoctor switch-cuda 12.1 --yes" in out


def test_cli_machine_switch_asks_first(monkeypatch, capsys):
    import sys

    reg = _Registry({"CUDA_PATH": (BASE + "\\v12.1", False), "Path": ("C:\\Windows", True)})
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    code, _, err = _cli(monkeypatch, capsys, _facts(PATH), "11.8", registry=reg)
    assert code == 2 and "--yes" in err and reg.values["CUDA_PATH"][0].endswith("v12.1")
