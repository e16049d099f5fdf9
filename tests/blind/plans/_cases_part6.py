"""Case data, part 6."""

from tests.blind.plans._cases_part1 import case

case(
    slug="042-tldream3-windows-installer-torch-cpu-xformers-cu118",
    url="https://github.com/Sanster/tldream/issues/3",
    title="Torch not compiled with CUDA enabled",
    kind="cpu-build",
    platform="windows (1-click installer env E:\\lama-tldream\\installer)",
    input="""I am using the  1-Click Windows Installer
When I run 'win_config.bat' it was all good and no errors.
However, when I run 'win_start.bat' it show Torch not compiled with CUDA enabled...

Log:

```
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.0.0+cu118 with CUDA 1108 (you have 2.0.0+cpu)
    Python  3.10.10 (you have 3.10.9)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details
2023-04-09 20:16:31.534 | INFO     | tldream.server:main:153 - tldream 0.6.1
2023-04-09 20:16:31.535 | INFO     | tldream.server:main:154 - Model cache dir: C:\\Users\\xxx\\.cache\\huggingface\\hub
2023-04-09 20:16:31.540 | INFO     | tldream.util:init_pipe:102 - Loading model: runwayml/stable-diffusion-v1-5
vae\\diffusion_pytorch_model.safetensors not found
""",
    diagnosis="The installer env got torch 2.0.0+cpu (the Windows package index build) while xformers expects 2.0.0+cu118; install torch 2.0.0 from the cu118 index into the installer's own python (E:\\lama-tldream\\installer).",
    fixed_by="No fix in the stored excerpt; the xformers warning shows the expected build (2.0.0+cu118).",
    plan=[
        "E:\\lama-tldream\\installer\\python.exe -m pip install --force-reinstall torch==2.0.0 --index-url https://download.pytorch.org/whl/cu118"
    ],
    alternatives=[["same command also moving torchvision==0.15.1 if installed"]],
    wrong_if=[
        "bare pip/python (another interpreter)",
        "Linux commands",
        "driver/toolkit installs",
        "unpinned torch (would break xformers 0.0.18/0.0.19's pin)",
    ],
    pins=["torch 2.0.0+cu118 win cp310 on the PyTorch index (reference pytorch.yaml: 2.0 variants cu117/cu118)"],
)

case(
    slug="043-mistral59-xformers-cu121-torch210-cpu-already-satisfied",
    url="https://github.com/mistralai/mistral-inference/issues/59",
    title="Can't load xFormers because of PyTorch 2.1.0+cu121",
    kind="cpu-build",
    platform="unknown (Python 3.10.11: Windows installer build)",
    input="""I installed everything from the requirements, but when I run the demo, it tells me:

>WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
>   PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cpu)
>    Python  3.10.11 (you have 3.10.11)
>   Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)

So I go over to that page and do

>  pip3 install -U xformers --index-url https://download.pytorch.org/whl/cu121

But everything comes up "Requirement already satisfied".  I don't know what else I can do to switch from 2.1.0+cpu to 2.1.0+cu121
""",
    diagnosis="torch is the CPU build 2.1.0+cpu; reinstalling xformers does not touch it ('already satisfied'). Force-reinstall torch 2.1.0 from the cu121 index.",
    fixed_by="No fix in the thread; the warning names the needed build (2.1.0+cu121), and pip needs --force-reinstall to replace a same-version build.",
    plan=["python -m pip install --force-reinstall --no-deps torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121"],
    alternatives=[
        ["pip uninstall -y torch, then python -m pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121"]
    ],
    wrong_if=[
        "reinstalling xformers again",
        "unpinned torch (moves off 2.1.0 and breaks xformers)",
        "driver/toolkit steps",
        "says no command can be chosen",
    ],
    pins=["torch 2.1.0 cu121 (reference pytorch.yaml: 2.1 variants cu118/cu121)"],
)

case(
    slug="044-xformers874-conda-torch210-cu121-pip-xformers-for-201",
    url="https://github.com/facebookresearch/xformers/issues/874",
    title="xFormers compiled without CUDA extensions",
    kind="companion-mismatch",
    platform="windows 11 (conda)",
    input="""On a clean install, xFormers requires `PyTorch 2.0.1` and doesn't support `PyTorch 2.0.1+cu121`. 

Occurs on clean install in clean conda environment.

1. `pip install xformers`

```
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.0.1 (you have 2.1.0+cu121)
    Python  3.11.5 (you have 3.11.5)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details
```

- PyTorch Version (e.g., 1.0): PyTorch 2.0.1+cu121
- OS (e.g., Linux): Windows 11
- How you installed PyTorch (`conda`, `pip`, source): `conda install pytorch torchvision torchaudio pytorch-cuda=12.1 -c pytorch -c nvidia`
- Python version: 3.11.5
- CUDA/cuDNN version: 12.1
""",
    diagnosis="pip's xformers was built for torch 2.0.1 while conda's torch is 2.1.0+cu121; install the xformers built for torch 2.1.0 without letting pip replace conda's torch (--no-deps).",
    fixed_by="xformers 0.0.22.post4+ wheels target torch 2.1.0 (xformers releases); the maintainers' standing answer: install the xformers built for the installed torch.",
    plan=["conda activate <env>", "python -m pip install --no-deps xformers==0.0.22.post7"],
    alternatives=[["conda install xformers -c xformers (the conda build for pytorch 2.1 / cuda 12.1)"]],
    wrong_if=[
        "pip install xformers without --no-deps (pulls a pip torch over conda's)",
        "driver/toolkit steps",
        "moving torch alone",
    ],
    pins=["xformers==0.0.22.post7 cp311 win_amd64: see pins-checked.txt"],
)

case(
    slug="045-comfyui5281-windows-py312-torch-cpu-xformers027",
    url="https://github.com/Comfy-Org/ComfyUI/issues/5281",
    title="AssertionError: Torch not compiled with CUDA enabled even after re-installing torch",
    kind="cpu-build",
    platform="windows 11 (Python 3.12.0)",
    input="""### Your question

Hi everyone,

I’m encountering an AssertionError stating that "Torch not compiled with CUDA enabled" despite having reinstalled PyTorch. Here are my system specifications:

- Laptop Model: Dell G5 5500
- GPU: NVIDIA GeForce RTX 2070
- Windows Version: 24H2
- CUDA Version: 12.7

Current Versions:
- Python: 3.12.0
- pip: 23.2.1
- xformers: 0.0.27

Has anyone experienced this issue and found a solution? Any help would be greatly appreciated!
Thank you!
""",
    diagnosis="torch in this Python is a CPU build (xformers 0.0.27 from the package index pulls the CPU torch 2.3.1 on Windows); reinstall torch, torchvision, torchaudio and a matching xformers from the CUDA index together.",
    fixed_by="LukeG89: uninstall xformers and torch/torchvision/torchaudio, then `pip install torch torchvision torchaudio xformers --extra-index-url https://download.pytorch.org/whl/cu124`.",
    plan=[
        "python -m pip uninstall -y xformers torch torchvision torchaudio",
        "python -m pip install torch torchvision torchaudio xformers --index-url https://download.pytorch.org/whl/cu124",
    ],
    alternatives=[["the same from the cu121 index (driver CUDA 12.7 runs both)"]],
    wrong_if=["installing the CUDA toolkit 12.7", "Linux commands", "torch alone while xformers stays built for another torch"],
    pins=[
        "torch 2.5.x/2.6.x cu124 with xformers 0.0.28.post3/0.0.29.post3 for cp312 win on the PyTorch index (reference pytorch.yaml; index unreachable from here)"
    ],
)

case(
    slug="046-apex1012-nvcc91-usr-bin-torch140-cudatoolkit100",
    url="https://github.com/NVIDIA/apex/issues/1012",
    title="error: command '/usr/bin/nvcc' failed with exit status 1",
    kind="toolkit-mismatch",
    platform="linux (conda, Ubuntu nvidia-cuda-toolkit 9.1 on PATH)",
    input="""Hello, 

When running apex command `python setup.py install --cuda_ext --cpp_ext`  I get the following error  `error: command '/usr/bin/nvcc' failed with exit status 1`

Here's my system details:

```
cudatoolkit: 10.0.130
Pytorch: 1.4.0
Python: 3.6.9
GCC: 7.3.0
```

```
$which gcc
/usr/bin/gcc
```
```
$which nvcc
/usr/bin/nvcc
```
```
$nvcc -V
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2017 NVIDIA Corporation
Built on Fri_Nov__3_21:07:56_CDT_2017
Cuda compilation tools, release 9.1, V9.1.85
```

```
$which g++
/usr/bin/g++
```

```
$which make
/usr/bin/make
```
```
vendor   : NVIDIA Corporation
model    : GP107M [GeForce GTX 1050 Mobile]
driver   : nvidia-driver-450
```

```
$nvidia-smi
 NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0  
```
I also should mention that I was having this error raised when I was trying to install apex:
```
"Cuda extensions are being compiled with a version of Cuda that does " +
                           "not match the version used to compile Pytorch binaries.  " +
                           "Pytorch binaries were compiled with Cuda {}.\\n".format(torch.version.cuda) +
                           "In some cases, a minor-version mismatch will not cause later errors:  " +
                           "https://github.com/NVIDIA/apex/pull/323#discussion_r287021798.  " +
```
""",
    diagnosis="apex compiles with the nvcc on PATH, Ubuntu's CUDA 9.1 (/usr/bin/nvcc), while torch 1.4.0 was built with CUDA 10.0; install a CUDA 10.0 toolkit (nvcc) and point CUDA_HOME/PATH at it. The driver (450, CUDA 11.0) is fine.",
    fixed_by="Maintainers' standing answer on this check (apex#323, ptrblck): make the local CUDA toolkit match the one PyTorch was built with.",
    plan=[
        "install the CUDA 10.0 toolkit only (NVIDIA runfile: sh cuda_10.0.130_410.48_linux.run --silent --toolkit --toolkitpath=$HOME/cuda-10.0, no driver)",
        "export CUDA_HOME=$HOME/cuda-10.0 PATH=$HOME/cuda-10.0/bin:$PATH",
        "python setup.py install --cuda_ext --cpp_ext",
    ],
    alternatives=[["conda install -c conda-forge cudatoolkit-dev=10.0 in the env and CUDA_HOME=$CONDA_PREFIX"]],
    wrong_if=[
        "driver change (450 is fine)",
        "a CUDA toolkit of another version than 10.0",
        "sudo apt remove nvidia-cuda-toolkit as step 1 without a replacement",
        "upgrading torch alone",
    ],
    pins=["CUDA 10.0.130 runfile is NVIDIA's archived release for 10.0"],
)
