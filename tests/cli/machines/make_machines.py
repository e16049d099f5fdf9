"""Writes the replayed machines of tests/cli/ (run it after changing a machine: python tests/cli/machines/make_machines.py).

Each machine is a gpudoctor-snapshot/1 document written by hand around real captures:
the `nvidia-smi -q -x` output is a file of tests/fixtures/nvidia-smi-xml/ byte for byte,
torch/version.py and TensorFlow's build_info.py come from tests/fixtures/torch-version/ and
tests/fixtures/tf-build-info/, and the NVML state (where present) restates what that same XML
says, as NVML reports it. Everything else (sysfs, device nodes, the loader cache, the Python
environment) is what such a machine holds.

- rtx4090-torch-cu121: healthy. 1x GeForce RTX 4090, driver 535.86.05 (CUDA 12.2), nvidia-smi only
  (no NVML), Debian 12, a venv with torch 2.2.1+cu121 and the NVIDIA wheels it depends on.
- rtx2070x2-cpu-builds: 2x GeForce RTX 2070 (Turing, CC 7.5, 8 GiB), driver 590.44.01 (CUDA 13.1),
  NVML present; torch 2.13.0+cpu, tensorflow-cpu 2.21.0, jax 0.4.38 without a CUDA plugin.
- t4-tf-jax: 1x Tesla T4 (CC 7.5, 15 GiB), driver 515.105.01 (CUDA 11.7); TensorFlow 2.11.0 (CUDA 11.2
  build) with Debian's CUDA 11 and cuDNN 8 libraries in the loader cache, jax 0.4.13 with
  jaxlib 0.4.13+cuda11.cudnn86, NVML present.
- no-driver: a GeForce RTX 3060 on the PCI bus, no NVIDIA driver loaded, torch 2.2.1+cu121.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures")
sys.path.insert(0, os.path.join(ROOT, "src"))


def fixture(*parts: str) -> str:
    with open(os.path.join(FIX, *parts), encoding="utf-8", newline="") as fh:
        return fh.read()


OS_RELEASE_DEBIAN12 = (
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
    'VERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n'
)
OS_RELEASE_UBUNTU2204 = (
    'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\n'
    "ID=ubuntu\nID_LIKE=debian\n"
)
NODE = {"type": "char", "readable": True, "writable": True}
FILE = {"type": "file"}


def proc_modules(*names: str) -> str:
    return "".join(f"{n} 57344 0 - Live 0x0000000000000000\n" for n in names)


def pci(slot: str, device: str, driver: str | None) -> dict:
    base = f"/sys/bus/pci/devices/{slot}"
    files = {f"{base}/vendor": "0x10de\n", f"{base}/device": f"{device}\n", f"{base}/class": "0x030000\n"}
    if driver:
        files[f"{base}/driver"] = {"link": f"../../../../bus/pci/drivers/{driver}"}
    return files


def gpu_nodes(count: int) -> dict:
    nodes = {"/dev/nvidiactl": NODE, "/dev/nvidia-uvm": NODE, "/dev/nvidia-uvm-tools": NODE}
    nodes.update({f"/dev/nvidia{i}": NODE for i in range(count)})
    return nodes


def nvml_from_xml(xml: str, cc: str, cuda_int: int) -> dict:
    """NVML's answer for the GPUs that `nvidia-smi -q -x` describes (same driver, same numbers)."""
    from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

    report = parse_nvidia_smi_xml(xml)
    devices = []
    for i, g in enumerate(report.gpus):
        mib = 1024 * 1024
        devices.append(
            {
                "index": i,
                "name": g.name,
                "uuid": g.uuid,
                "pci_bus_id": g.pci_bus_id,
                "compute_capability": cc,
                "memory": {
                    "total_bytes": g.memory_total_mib * mib,
                    "used_bytes": g.memory_used_mib * mib,
                    "free_bytes": g.memory_free_mib * mib,
                },
                "pcie_gen_current": g.pcie_gen_current,
                "pcie_gen_max": g.pcie_gen_max,
                "pcie_width_current": g.pcie_width_current,
                "pcie_width_max": g.pcie_width_max,
                "persistence_mode": bool(g.persistence_mode),
                "temperature_c": g.temperature_c,
                "power_draw_w": g.power_draw_w,
                "clock_event_reasons": 1,
                "processes": [],
            }
        )
    return {
        "status": "ok",
        "driver_version": report.driver_version,
        "nvml_version": f"{cuda_int // 1000}.{report.driver_version}",
        "cuda_driver_version": cuda_int,
        "devices": devices,
    }


def venv(prefix: str, dists: dict[str, str], version: str = "3.11.2") -> tuple[dict, dict]:
    site = f"{prefix}/lib/python3.11/site-packages"
    python = {
        "executable": f"{prefix}/bin/python",
        "version": version,
        "prefix": prefix,
        "kind": "venv",
        "site_packages": [site],
        "distributions": dists,
        "locations": {name: site for name in dists},
    }
    return python, {f"{prefix}/bin/python": FILE, f"{prefix}/bin/python3": {"link": "python"}}


TORCH_221_WHEELS = {
    "nvidia-cublas-cu12": "12.1.3.1",
    "nvidia-cuda-cupti-cu12": "12.1.105",
    "nvidia-cuda-nvrtc-cu12": "12.1.105",
    "nvidia-cuda-runtime-cu12": "12.1.105",
    "nvidia-cudnn-cu12": "8.9.2.26",
    "nvidia-cufft-cu12": "11.0.2.54",
    "nvidia-curand-cu12": "10.3.2.106",
    "nvidia-cusolver-cu12": "11.4.5.107",
    "nvidia-cusparse-cu12": "12.1.0.106",
    "nvidia-nccl-cu12": "2.19.3",
    "nvidia-nvjitlink-cu12": "12.4.99",
    "nvidia-nvtx-cu12": "12.1.105",
}
TORCH_221_LIBS = {
    "cublas": ("libcublas.so.12", "libcublasLt.so.12", "libnvblas.so.12"),
    "cuda_cupti": ("libcupti.so.12",),
    "cuda_nvrtc": ("libnvrtc.so.12", "libnvrtc-builtins.so.12.1"),
    "cuda_runtime": ("libcudart.so.12",),
    "cudnn": (
        "libcudnn.so.8",
        "libcudnn_adv_infer.so.8",
        "libcudnn_adv_train.so.8",
        "libcudnn_cnn_infer.so.8",
        "libcudnn_cnn_train.so.8",
        "libcudnn_ops_infer.so.8",
        "libcudnn_ops_train.so.8",
    ),
    "cufft": ("libcufft.so.11", "libcufftw.so.11"),
    "curand": ("libcurand.so.10",),
    "cusolver": ("libcusolver.so.11", "libcusolverMg.so.11"),
    "cusparse": ("libcusparse.so.12",),
    "nccl": ("libnccl.so.2",),
    "nvjitlink": ("libnvJitLink.so.12",),
    "nvtx": ("libnvToolsExt.so.1",),
}


def torch_cu121_files(site: str) -> dict:
    files = {f"{site}/torch/version.py": fixture("torch-version", "version.py_torch-2.2.1+cu121.py")}
    for name in ("libtorch.so", "libtorch_cpu.so", "libtorch_cuda.so", "libc10.so", "libc10_cuda.so", "libgomp-a34b3233.so.1"):
        files[f"{site}/torch/lib/{name}"] = FILE
    for pkg, libs in TORCH_221_LIBS.items():
        files[f"{site}/nvidia/{pkg}/__init__.py"] = ""
        for lib in libs:
            files[f"{site}/nvidia/{pkg}/lib/{lib}"] = FILE
    return files


def snapshot(note: str, files: dict, commands: dict, env: dict, python: dict | None, nvml: dict | None, release: str) -> dict:
    snap = {
        "format": "gpudoctor-snapshot/1",
        "recorded_with": "hand-written for tests/cli (make_machines.py)",
        "redacted": True,
        "note": note,
        "platform": {"system": "Linux", "release": release, "machine": "x86_64"},
        "env": env,
        "files": dict(sorted(files.items())),
        "dirs": {},
        "commands": commands,
    }
    if python is not None:
        snap["python"] = python
    if nvml is not None:
        snap["nvml"] = nvml
    return snap


def rtx4090() -> dict:
    xml = fixture("nvidia-smi-xml", "geforce-rtx-4090_driver-535.86.05_cuda-12.2.xml")
    prefix = "/opt/venv"
    site = f"{prefix}/lib/python3.11/site-packages"
    python, py_files = venv(prefix, {"torch": "2.2.1+cu121", "triton": "2.2.0", "numpy": "1.26.4", **TORCH_221_WHEELS})
    files = {
        "/etc/os-release": OS_RELEASE_DEBIAN12,
        "/proc/version": "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n",
        "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.05  Fri Jul 14 20:20:58 UTC 2023\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14) \n",
        "/sys/module/nvidia/version": "535.86.05\n",
        "/proc/modules": proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "drm_kms_helper"),
        **pci("0000:84:00.0", "0x2684", "nvidia"),
        **gpu_nodes(1),
        **py_files,
        **torch_cu121_files(site),
    }
    commands = {
        "nvidia-smi -q -x": {"rc": 0, "stdout": xml, "stderr": ""},
        "lspci -nn": {
            "rc": 0,
            "stdout": "84:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)\n",
            "stderr": "",
        },
        "ldconfig -p": {
            "rc": 0,
            "stdout": "2 libs found in cache `/etc/ld.so.cache'\n\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1\n\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1\n",
            "stderr": "",
        },
    }
    env = {"PATH": f"{prefix}/bin:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": prefix}
    return snapshot("healthy RTX 4090 with a CUDA 12.1 PyTorch in a venv", files, commands, env, python, None, "6.1.0-18-amd64")


def rtx2070x2() -> dict:
    xml = fixture("nvidia-smi-xml", "geforce-rtx-2070-x2_driver-590.44.01_cuda-13.1.xml")
    prefix = "/home/user/.venvs/ml"
    site = f"{prefix}/lib/python3.11/site-packages"
    python, py_files = venv(
        prefix, {"torch": "2.13.0+cpu", "tensorflow-cpu": "2.21.0", "jax": "0.4.38", "jaxlib": "0.4.38", "numpy": "2.1.3"}
    )
    files = {
        "/etc/os-release": OS_RELEASE_UBUNTU2204,
        "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  590.44.01  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Sat Nov 29 10:05:25 UTC 2025\n"
        "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n",
        "/sys/module/nvidia/version": "590.44.01\n",
        "/proc/modules": proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"),
        **pci("0000:01:00.0", "0x1f02", "nvidia"),
        **pci("0000:02:00.0", "0x1f02", "nvidia"),
        **gpu_nodes(2),
        **py_files,
        f"{site}/torch/version.py": fixture("torch-version", "version.py_torch-2.13.0+cpu.py"),
        f"{site}/tensorflow/python/platform/build_info.py": fixture(
            "tf-build-info", "build_info.py_tensorflow-cpu-2.21.0_linux_cpu-only.py"
        ),
    }
    commands = {
        "nvidia-smi -q -x": {"rc": 0, "stdout": xml, "stderr": ""},
        "ldconfig -p": {
            "rc": 0,
            "stdout": "2 libs found in cache `/etc/ld.so.cache'\n\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1\n\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1\n",
            "stderr": "",
        },
    }
    env = {"PATH": f"{prefix}/bin:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": prefix}
    return snapshot(
        "two RTX 2070s with CPU builds of every framework",
        files,
        commands,
        env,
        python,
        nvml_from_xml(xml, "7.5", 13010),
        "6.8.0-49-generic",
    )


CUDA11_DEBIAN_LIBS = (
    "libcudart.so.11.0",
    "libcublas.so.11",
    "libcublasLt.so.11",
    "libcufft.so.10",
    "libcurand.so.10",
    "libcusolver.so.11",
    "libcusparse.so.11",
    "libnvrtc.so.11.2",
    "libcudnn.so.8",
    "libcudnn_ops_infer.so.8",
    "libcudnn_cnn_infer.so.8",
)


def t4() -> dict:
    xml = fixture("nvidia-smi-xml", "tesla-t4_driver-515.105.01_cuda-11.7_passthrough.xml")
    prefix = "/srv/env"
    site = f"{prefix}/lib/python3.11/site-packages"
    python, py_files = venv(
        prefix, {"tensorflow": "2.11.0", "jax": "0.4.13", "jaxlib": "0.4.13+cuda11.cudnn86", "numpy": "1.24.3"}
    )
    lib = "/usr/lib/x86_64-linux-gnu"
    ld = [f"\t{n} (libc6,x86-64) => {lib}/{n}" for n in CUDA11_DEBIAN_LIBS]
    ld += [
        f"\tlibcuda.so.1 (libc6,x86-64) => {lib}/libcuda.so.1",
        f"\tlibnvidia-ml.so.1 (libc6,x86-64) => {lib}/libnvidia-ml.so.1",
    ]
    files = {
        "/etc/os-release": OS_RELEASE_DEBIAN12,
        "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.105.01  Sat Mar 25 00:45:02 UTC 2023\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14) \n",
        "/sys/module/nvidia/version": "515.105.01\n",
        "/proc/modules": proc_modules("nvidia_uvm", "nvidia"),
        **pci("0000:00:1e.0", "0x1eb8", "nvidia"),
        **gpu_nodes(1),
        **py_files,
        **{f"{lib}/{n}": FILE for n in CUDA11_DEBIAN_LIBS},
        f"{site}/tensorflow/python/platform/build_info.py": fixture(
            "tf-build-info", "build_info.py_tensorflow-2.11.0_linux_cuda-11.2_cudnn-8.py"
        ),
    }
    commands = {
        "nvidia-smi -q -x": {"rc": 0, "stdout": xml, "stderr": ""},
        "ldconfig -p": {
            "rc": 0,
            "stdout": f"{len(ld)} libs found in cache `/etc/ld.so.cache'\n" + "\n".join(ld) + "\n",
            "stderr": "",
        },
    }
    env = {"PATH": f"{prefix}/bin:/usr/bin:/bin", "VIRTUAL_ENV": prefix}
    return snapshot(
        "Tesla T4 with TensorFlow 2.11 (CUDA 11.2) and JAX 0.4.13 (CUDA 11 jaxlib)",
        files,
        commands,
        env,
        python,
        nvml_from_xml(xml, "7.5", 11070),
        "6.1.0-18-cloud-amd64",
    )


def no_driver() -> dict:
    prefix = "/opt/venv"
    site = f"{prefix}/lib/python3.11/site-packages"
    python, py_files = venv(prefix, {"torch": "2.2.1+cu121", **TORCH_221_WHEELS})
    files = {
        "/etc/os-release": OS_RELEASE_DEBIAN12,
        "/proc/modules": proc_modules("snd_hda_intel", "i915"),
        **pci("0000:01:00.0", "0x2503", None),
        **py_files,
        **torch_cu121_files(site),
    }
    commands = {
        "lspci -nn": {
            "rc": 0,
            "stdout": "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA106 [GeForce RTX 3060] [10de:2503] (rev a1)\n",
            "stderr": "",
        },
        "ldconfig -p": {"rc": 0, "stdout": "0 libs found in cache `/etc/ld.so.cache'\n", "stderr": ""},
    }
    env = {"PATH": f"{prefix}/bin:/usr/bin:/bin", "VIRTUAL_ENV": prefix}
    return snapshot("an RTX 3060 with no NVIDIA driver installed", files, commands, env, python, None, "6.1.0-18-amd64")


MACHINES = {
    "rtx4090-torch-cu121": rtx4090,
    "rtx2070x2-cpu-builds": rtx2070x2,
    "t4-tf-jax": t4,
    "no-driver": no_driver,
}


def main() -> None:
    for name, make in MACHINES.items():
        path = os.path.join(HERE, f"{name}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(make(), fh, indent=1, sort_keys=True, ensure_ascii=False)
            fh.write("\n")
        print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
