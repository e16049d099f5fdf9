"""Case data, part 3."""

from tests.blind.plans._cases_part1 import case

case(
    slug="016-comfyui6197-pip-into-system-python-not-embeded",
    url="https://github.com/Comfy-Org/ComfyUI/issues/6197",
    title="ComfyUI portable is using its own PyTorch version that cannot be updated",
    kind="wrong-interpreter",
    platform="windows (ComfyUI portable)",
    input="""According to the attached error log, ComfyUI portable is using Pytorch **2.0.1**, even when I executed the install comand in the **python_embeded** folder as follows:

`pip install torch==2.5.0 torchvision==0.20.0 torchaudio==2.5.0 --index-url https://download.pytorch.org/whl/cu124`

which said:
```
Requirement already satisfied: MarkupSafe>=2.0 in c:\\users\\andres\\appdata\\local\\programs\\python\\python310\\lib\\site-packages (from jinja2->torch==2.5.0) (2.1.3)
Installing collected packages: torch, torchvision, torchaudio
  Attempting uninstall: torch
    Found existing installation: torch 2.5.1
    Uninstalling torch-2.5.1:
      Successfully uninstalled torch-2.5.1
  Attempting uninstall: torchvision
    Found existing installation: torchvision 0.20.1
    Uninstalling torchvision-0.20.1:
      Successfully uninstalled torchvision-0.20.1
  Attempting uninstall: torchaudio
    Found existing installation: torchaudio 2.5.1
    Uninstalling torchaudio-2.5.1:
      Successfully uninstalled torchaudio-2.5.1
Successfully installed torch-2.5.0+cu124 torchaudio-2.5.0+cu124 torchvision-0.20.0+cu124
```
""",
    diagnosis="The bare `pip` belongs to the system Python 3.10 (C:\\Users\\andres\\AppData\\Local\\Programs\\Python\\Python310), so the install went there; the portable's python_embeded still has torch 2.0.1. Run pip through python_embeded\\python.exe.",
    fixed_by="Maintainers' standing answer for the portable: install with `python_embeded\\python.exe -m pip ...` from the portable folder.",
    plan=[
        "cd <ComfyUI_windows_portable>",
        ".\\python_embeded\\python.exe -m pip install torch==2.5.0 torchvision==0.20.0 torchaudio==2.5.0 --index-url https://download.pytorch.org/whl/cu124",
    ],
    alternatives=[["download the current portable release (ships a current CUDA torch)"]],
    wrong_if=["bare pip/python again", "driver/toolkit steps", "torch alone"],
    pins=[
        "torch 2.5.0 cu124 with torchvision 0.20.0/torchaudio 2.5.0 (reference pytorch.yaml: 2.5 variants cu118/cu121/cu124); the reporter's own install of those pins succeeded"
    ],
)

case(
    slug="017-leggedlab26-rtx5090-sm120-torch-sm90",
    url="https://github.com/Hellod035/LeggedLab/issues/26",
    title="CUDA error：RTX 50xx‘s sm_120 is not compatible with the current PyTorch installation",
    kind="arch-unsupported",
    platform="linux",
    input="""环境：
5090+i9-14th
运行：
python legged_lab/scripts/train.py --task=g1_flat --headless --logger=tensorboard --num_envs=64
报错：
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/
""",
    diagnosis="The installed torch has no sm_120 kernels (built for CUDA 12.4/12.6); the RTX 5090 needs a CUDA 12.8 build (torch >= 2.7 cu128), with a driver >= 570.",
    fixed_by="Reporter: `pip install --upgrade --pre torch torchvision --index-url https://download.pytorch.org/whl/nightly/cu128` (at the time; stable cu128 builds exist since torch 2.7).",
    plan=["python -m pip install torch==2.7.1 torchvision==0.22.1 --index-url https://download.pytorch.org/whl/cu128"],
    alternatives=[["nightly cu128 (the thread's) with torchvision together", "nvidia-smi first to confirm driver >= 570"]],
    wrong_if=[
        "a cu126/cu124 build",
        "torch without torchvision",
        "driver/toolkit installs as the fix",
        "a CUDA 13 build when the driver is unknown without naming its floor",
    ],
    pins=[
        "torch 2.7.1/torchvision 0.22.1 resolve for cp310 manylinux (PyPI build is cu126); the cu128 variant is on the PyTorch index per shared/reference/pytorch.yaml (2.7 variants cu118/cu126/cu128)"
    ],
)

case(
    slug="018-comfyui7127-rtx5070ti-portable-sm120",
    url="https://github.com/Comfy-Org/ComfyUI/issues/7127",
    title="UserWarning: NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    kind="arch-unsupported",
    platform="windows (ComfyUI portable)",
    input="""On a fresh install (or an older install), when using a 5070 ti the following error comes up:

```
A:\\Sin Sincronización\\Chrome\\ComfyUI_windows_portable>.\\python_embeded\\python.exe -s ComfyUI\\main.py --windows-standalone-build
Checkpoint files will always be loaded safely.
A:\\Sin Sincronización\\Chrome\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\cuda\\__init__.py:235: UserWarning:
NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5070 Ti GPU with PyTorch, please check the inst""",
    diagnosis="The portable's torch (CUDA 12.4/12.6 build) has no sm_120 kernels; install a CUDA 12.8 torch into python_embeded (or use the cu128 portable), driver >= 572 on Windows.",
    fixed_by="Thread: manual reinstall of torch cu128 into the portable; later the ComfyUI portable cu128 release.",
    plan=[
        'cd "A:\\Sin Sincronización\\Chrome\\ComfyUI_windows_portable"',
        ".\\python_embeded\\python.exe -m pip install --upgrade torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu128",
    ],
    alternatives=[["download the ComfyUI portable built with cu128"]],
    wrong_if=["bare pip/python", "Linux commands/sudo", "cu124/cu126 builds", "torch alone"],
    pins=["cu128 torch (>= 2.7) for Windows cp312 on the PyTorch index (reference pytorch.yaml)"],
)

case(
    slug="019-torchsig238-wsl-numpy2-opencv",
    url="https://github.com/TorchDSP/torchsig/issues/238",
    title="NumPy 1.x cannot be run in NumPy 2.0.0 as it may crash; .../examples/00_example_sig53_dataset.ipynb",
    kind="numpy-abi",
    platform="wsl (venv)",
    input="""**Describe the bug**
A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

**To Reproduce**
using venv
git clone
pip install -e . 
run example notebook ; 00_example_sig53_dataset.ipynb

**Expected behavior**
no errors

**Desktop **
 - OS: Ubuntu24 on WSL2
-  IDE : vscode-insiders
""",
    diagnosis="A compiled module in the venv (opencv-python per the reporter) was built against NumPy 1.x and numpy 2.0.0 got installed; pin numpy below 2 in the venv.",
    fixed_by='nsbruce: `pip install "numpy<2"`; reporter: that worked (opencv-python).',
    plan=['python -m pip install "numpy<2"'],
    alternatives=[["upgrade the module built against NumPy 1 (opencv-python >= 4.10) instead"]],
    wrong_if=["GPU/driver/CUDA steps", "Windows commands (this is the WSL venv)", "reinstalling torch"],
    pins=["numpy<2 resolves to numpy 1.26.4 for cp310-cp312 manylinux (see pins-checked.txt)"],
)

case(
    slug="020-meteors20-torch-numpy200-array-api",
    url="https://github.com/xai4space/meteors/issues/20",
    title="`numpy 2.0.0` support",
    kind="numpy-abi",
    platform="windows (..\\torch\\csrc path)",
    input="""It seems that the package `torch` raises a suspicious warning
```
>>> import torch
>>> sample = torch.tensor([[0]])

A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

If you are a user of the module, the easiest solution will be to
downgrade to 'numpy<2' or try to upgrade the affected module.
We expect that some modules will need time to support NumPy 2.

Traceback (most recent call last):  File "<stdin>", line 1, in <module>
<stdin>:1: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)
```
""",
    diagnosis="The installed torch (< 2.3, built against NumPy 1.x) meets numpy 2.0.0; install numpy<2 (or a torch >= 2.3 built against NumPy 2, with its companions).",
    fixed_by="Project pinned numpy<2 (issue closed by that change).",
    plan=['python -m pip install "numpy<2"'],
    alternatives=[["upgrade torch to >= 2.3 together with torchvision/torchaudio"]],
    wrong_if=["sudo/Linux commands", "GPU/driver steps", "torch upgraded alone"],
    pins=["numpy 1.26.4 resolves for cp310/cp312 win_amd64 (see pins-checked.txt)"],
)

case(
    slug="021-lipwise20-windows-venv-numpy2-torch",
    url="https://github.com/pawansharmaaaa/Lip_Wise/issues/20",
    title="RuntimeError: Numpy is not available Press any key to continue . . .",
    kind="numpy-abi",
    platform="windows (venv D:\\AI\\Lip_Wise-1.2\\.lip-wise)",
    input="""A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

If you are a user of the module, the easiest solution will be to
downgrade to 'numpy<2' or try to upgrade the affected module.
We expect that some modules will need time to support NumPy 2.

Traceback (most recent call last):  File "D:\\AI\\Lip_Wise-1.2\\launch.py", line 7, in <module>
    import infer
  File "D:\\AI\\Lip_Wise-1.2\\infer.py", line 5, in <module>
    import torch
  File "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\lib\\site-packages\\torch\\__init__.py", line 1382, in <module>
    from .functional import *  # noqa: F403
  File "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\lib\\site-packages\\torch\\functional.py", line 7, in <module>
    import torch.nn.functional as F
  File "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\lib\\site-packages\\torch\\nn\\__init__.py", line 1, in <module>
    from .modules import *  # noqa: F403
  File "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\lib\\site-packages\\torch\\nn\\modules\\__init__.py", line 35, in <module>
    from .transformer import TransformerEncoder, TransformerDecoder, \\
  File "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\lib\\site-packages\\torch\\nn\\modules\\transformer.py", line 20, in <module>
    devi""",
    diagnosis="torch in the .lip-wise venv was built against NumPy 1.x and numpy 2.0.0 is installed; install numpy<2 with that venv's python.",
    fixed_by="No fix in the stored excerpt; the message's own remedy: downgrade to numpy<2 in the venv.",
    plan=['D:\\AI\\Lip_Wise-1.2\\.lip-wise\\Scripts\\python.exe -m pip install "numpy<2"'],
    alternatives=[['activate the venv (.lip-wise\\Scripts\\activate) then python -m pip install "numpy<2"']],
    wrong_if=["bare pip/python outside the venv", "Linux commands", "GPU steps"],
    pins=["numpy<2 -> 1.26.4 cp310 win_amd64 (see pins-checked.txt)"],
)

case(
    slug="022-bnb1058-windows-store-py312-cuda116-dll",
    url="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1058",
    title="Could not find module libbitsandbytes_cuda116.dll",
    kind="wrong-wheel",
    platform="windows (Microsoft Store Python 3.12)",
    input="""### System Info

Windows 10

### Reproduction

binary_path: C:\\Users\\medha\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0\\LocalCache\\local-packages\\Python312\\site-packages\\bitsandbytes\\cuda_setup\\libbitsandbytes_cuda116.dll
CUDA SETUP: Loading binary C:\\Users\\medha\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0\\LocalCache\\local-packages\\Python312\\site-packages\\bitsandbytes\\cuda_setup\\libbitsandbytes_cuda116.dll...
Could not find module 'C:\\Users\\medha\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0\\LocalCache\\local-packages\\Python312\\site-packages\\bitsandbytes\\cuda_setup\\libbitsandbytes_cuda116.dll' (or one of its dependencies). Try using the full path with constructor syntax.
""",
    diagnosis="An unofficial Windows bitsandbytes build (cuda116 DLL) cannot load; bitsandbytes >= 0.43.0 has official Windows wheels with the CUDA DLLs included.",
    fixed_by="Titus-von-Koeller (maintainer): install the new release with official Windows support (0.43.0).",
    plan=["python3.12 -m pip uninstall -y bitsandbytes", "python3.12 -m pip install bitsandbytes==0.43.0"],
    alternatives=[['python -m pip install -U "bitsandbytes>=0.43.0" with the same Store Python']],
    correction="After the first run: the plan first used `py -3.12`, but the Microsoft Store Python does not install the py launcher; its app alias python3.12 is the interpreter the paste shows. gpudoctor's output did not prompt this.",
    wrong_if=["Linux commands/LD_LIBRARY_PATH", "installing the CUDA toolkit 11.6", "copying DLLs by hand"],
    pins=["bitsandbytes==0.43.0 resolves for cp312 win_amd64 (see pins-checked.txt)"],
)
