"""Case data, part 1 (inputs verbatim from the stored thread excerpts; expectations from the threads)."""

CASES = []


def case(**kw):
    CASES.append(kw)


case(
    slug="001-fa931-torch230-flashattn257-setdevice",
    url="https://github.com/Dao-AILab/flash-attention/issues/931",
    title="flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
    kind="compiled-extension",
    platform="linux",
    input="""installing all from scratch. 

torch: 2.3.0
flash-attn: 2.5.7
exllama: 0.0.19

Still getting the error:

flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi
""",
    diagnosis="The flash-attn 2.5.7 binary was built against another torch than the installed 2.3.0 (a c10::cuda symbol it needs is gone); flash-attn 2.5.8 ships wheels built for torch 2.3.0.",
    fixed_by="tridao (2024-04-27): 'we have new wheels compiled for pytorch 2.3.0' (flash-attn 2.5.8); rkuo2000 and Bellocccc confirm torch 2.3.0 + flash-attn 2.5.8 works.",
    plan=["python -m pip install --no-build-isolation --force-reinstall --no-deps flash-attn==2.5.8"],
    alternatives=[
        [
            "build flash-attn from source against the installed torch: python -m pip install --no-build-isolation --no-binary flash-attn flash-attn==2.5.8 (needs nvcc matching torch's CUDA major)"
        ]
    ],
    wrong_if=[
        "changes torch (reinstall/downgrade/upgrade) instead of the extension",
        "touches the driver, the CUDA toolkit or cuDNN",
        "installs an unpinned flash-attn (the newest needs a newer torch)",
        "no step that replaces flash-attn",
    ],
    pins=[
        "flash-attn 2.5.8 listed by `pip index versions flash-attn` (sdist; setup.py fetches the torch2.3 wheel from the project's release)"
    ],
)

case(
    slug="002-fa1832-torch260-flashattn263-cxx11-error",
    url="https://github.com/Dao-AILab/flash-attention/issues/1832",
    title="undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    kind="compiled-extension",
    platform="linux",
    input="""python 3.12.7+gc
cuda 12.8
torch 2.6.0
flash-attn 2.6.3

import flash_attn_2_cuda as flash_attn_cuda
ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE
""",
    diagnosis="flash-attn 2.6.3 has no build for torch 2.6 (its binary was built for another torch / C++ ABI); a flash-attn release with torch 2.6 wheels (2.7.3, 2.7.4.post1) matches the installed torch.",
    fixed_by="Thread: 'downgrading to 2.7.3 (which had my wheels built) worked' (DineshDhanji quoting); Ken-g6: install the wheel matching the system from the project's wheel finder.",
    plan=["python -m pip install --no-build-isolation --force-reinstall --no-deps flash-attn==2.7.4.post1"],
    alternatives=[["python -m pip install --no-build-isolation --force-reinstall --no-deps flash-attn==2.7.3"]],
    wrong_if=[
        "changes torch 2.6.0 or the CUDA toolkit",
        "a driver step",
        "unpinned flash-attn (2.8.x wheels target newer torch)",
    ],
    pins=[
        "flash-attn 2.7.3 and 2.7.4.post1 listed by `pip index versions flash-attn` (sdist; release wheels for torch2.6 cp312)"
    ],
)

case(
    slug="003-fa940-nvcc123-torch230-c10-error",
    url="https://github.com/Dao-AILab/flash-attention/issues/940",
    title="flash-attn error flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    kind="compiled-extension",
    platform="linux",
    input="""flash-attn error flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE

My environment is as follows：

nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2023 NVIDIA Corporation
Built on Wed_Nov_22_10:17:15_PST_2023
Cuda compilation tools, release 12.3, V12.3.107
Build cuda_12.3.r12.3/compiler.33567101_0

torch==2.3.0

how to solve this problem
""",
    diagnosis="The installed flash-attn binary was built for another torch/C++ ABI than torch 2.3.0; nvcc 12.3 is irrelevant to a prebuilt wheel. flash-attn 2.5.8 has wheels for torch 2.3.0.",
    fixed_by="mingboiz: reinstall flash_attn per the README; Bellocccc: torch 2.3.0 + flash_attn==2.5.8 works.",
    plan=["python -m pip install --no-build-isolation --force-reinstall --no-deps flash-attn==2.5.8"],
    alternatives=[
        [
            "build flash-attn from source against torch 2.3.0 with nvcc 12.x: python -m pip install --no-build-isolation --no-binary flash-attn flash-attn==2.5.8"
        ]
    ],
    wrong_if=[
        "changes nvcc/the CUDA toolkit (12.3 vs torch's 12.1 is same major and not the cause)",
        "changes torch",
        "a driver step",
    ],
    pins=["flash-attn 2.5.8 listed by `pip index versions flash-attn`"],
)

case(
    slug="004-reforge77-xformers-built-212-have-231",
    url="https://github.com/Panchovix/stable-diffusion-webui-reForge/issues/77",
    title="[Bug]: xformers error",
    kind="companion-mismatch",
    platform="unknown (reForge; Python 3.10.11 is the Windows installer build)",
    input="""WARNING:xformers:WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.3.1+cu121)
    Python  3.10.11 (you have 3.10.11)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details
""",
    diagnosis="xformers was built for torch 2.1.2 but torch 2.3.1+cu121 is installed; install the xformers release built for torch 2.3.1 (0.0.27) in the webui's venv.",
    fixed_by="No fix posted in the stored thread; the standing answer (the warning's own) is to reinstall the xformers built for the installed torch: xformers 0.0.27 targets torch 2.3.1 (xformers CHANGELOG).",
    plan=["<the webui venv's python> -m pip install xformers==0.0.27 --index-url https://download.pytorch.org/whl/cu121"],
    alternatives=[
        ["<venv python> -m pip install xformers==0.0.27 (the package index build; depends on torch==2.3.1, already satisfied)"],
        ["move torch back: torch==2.1.2 torchvision==0.16.2 with xformers 0.0.23.post1 (all together)"],
    ],
    wrong_if=[
        "reinstalls torch without moving xformers or torchvision with it",
        "driver/toolkit steps",
        "unpinned xformers (latest pulls a newer torch and replaces 2.3.1)",
    ],
    pins=["xformers==0.0.27 resolves for cp310 win_amd64 and manylinux2014_x86_64 (see pins-checked.txt)"],
)

case(
    slug="005-dynamicrafter86-xformers-built-230-have-200",
    url="https://github.com/Doubiiu/DynamiCrafter/issues/86",
    title="xformer warning",
    kind="companion-mismatch",
    platform="linux (venv)",
    input=""" ✗ bash scripts/run.sh 1024 
@DynamiCrafter cond-Inference: 2024-05-31-20-03-01
Global seed set to 123
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.3.0+cu121 with CUDA None (you have 2.0.0+cu117)
    Python  3.11.9 (you have 3.11.9)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details

fresh install within venv
""",
    diagnosis="The venv has torch 2.0.0+cu117 but an xformers built for torch 2.3.0; no xformers wheel for torch 2.0.0 exists for Python 3.11 (0.0.18/0.0.19 have none), so torch, torchvision and xformers move together to a matching set.",
    fixed_by="Maintainer: reinstall xformers for the current environment; jbartolozzi: torch==2.5.1 torchvision==0.20.1 xformers==0.0.29.post1 worked.",
    plan=["python -m pip install torch==2.5.1 torchvision==0.20.1 xformers==0.0.29.post1"],
    alternatives=[
        [
            "python -m pip install torch==2.0.1 torchvision==0.15.2 xformers==0.0.20 (all three together; only if 0.0.20 has a cp311 wheel, see pins-checked.txt)"
        ]
    ],
    wrong_if=[
        "xformers==0.0.19/0.0.18 (no Python 3.11 wheel: pip would try to build from source)",
        "moves torch alone (torchvision/xformers left behind)",
        "driver/toolkit/cuDNN steps",
        "unpinned xformers",
    ],
    pins=[
        "xformers==0.0.19 and 0.0.18: NO cp311 wheel (dry-run fails); torch==2.5.1 torchvision==0.20.1 xformers==0.0.29.post1 resolve for cp311 manylinux: see pins-checked.txt"
    ],
)
