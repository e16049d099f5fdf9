"""Case data, part 2."""

from tests.blind.plans._cases_part1 import case

case(
    slug="006-vllm3147-vllm032-torch221-undefined-symbol",
    url="https://github.com/vllm-project/vllm/issues/3147",
    title="ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so:",
    kind="compiled-extension",
    platform="linux",
    input="""I am trying to use vLLM with Langchain and I am getting this error:

`ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE`

CUDA: 12.0.1
torch : 2.2.1
transformers: 4.38.2
vllm: 0.3.2
accelerate: 0.27.2

Please help out if anyone solved this issue.
""",
    diagnosis="vllm 0.3.2's compiled _C was built against torch 2.1.2 (its pin) but torch 2.2.1 is installed; put back the torch vllm was built for (with its xformers), or install a vllm built for torch 2.2.1.",
    fixed_by="Reporter (2024-03-01): 'solved by downgrading torch to 2.1.2'; 777ki: 'just a torch version problem'.",
    plan=["python3 -m pip install torch==2.1.2 xformers==0.0.23.post1"],
    alternatives=[["python3 -m pip install vllm==0.4.1 (built for torch 2.2.1)"]],
    wrong_if=[
        "touches the driver or CUDA 12.0 toolkit",
        "rebuilds vllm from source as the first step",
        "unpinned torch",
    ],
    pins=["torch==2.1.2 + xformers==0.0.23.post1 cp310 manylinux; vllm==0.3.2 and 0.4.1 metadata: see pins-checked.txt"],
)

case(
    slug="007-vllm5501-vllm-abi3-torch-not-230",
    url="https://github.com/vllm-project/vllm/issues/5501",
    title="[Bug]: ailed to import from vllm._C with ImportError('/usr/local/lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')",
    kind="compiled-extension",
    platform="linux",
    input="""### Your current environment

```text
The output of `python collect_env.py`
```
 import vllm
WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')

### 🐛 Describe the bug

 import vllm
WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')

Does the `pip install vllm` supports torch2.3.0? If not, why not mentioned it in README?
""",
    diagnosis="The vllm binary (std::optional symbols) was built for torch 2.3.0 but an older torch (c10::optional) is installed in that Python 3.8; install the torch that vllm pins.",
    fixed_by="bnellnm (maintainer): older pytorch uses c10::optional, so torch 2.3.0 is not installed; the fix is the torch vllm was built for (vllm 0.5.0 pins torch==2.3.0).",
    plan=["python3 -m pip install torch==2.3.0"],
    alternatives=[["python3 -m pip install --force-reinstall vllm==<installed version> (reinstalls its pinned torch)"]],
    wrong_if=["driver/toolkit steps", "building vllm from source first", "a torch other than 2.3.0 for vllm 0.5.x"],
    pins=["torch==2.3.0 cp38 manylinux and vllm==0.5.0 cp38 (Requires torch==2.3.0): see pins-checked.txt"],
)

case(
    slug="008-vllm1772-build-from-source-driver-too-old",
    url="https://github.com/vllm-project/vllm/issues/1772",
    title='Error from "Build from source"',
    kind="driver-too-old",
    platform="linux",
    input="""I tried to build vllm from the source code, but encountered the following error:
RuntimeError: The NVIDIA driver on your system is too old
""",
    diagnosis="The driver is older than the CUDA runtime of the torch vllm builds with (the driver covers only CUDA 11.4); upgrade the driver (nvidia-smi needed to name the version).",
    fixed_by="WoosukKwon (maintainer): 'The driver only covers up to CUDA 11.4. Please upgrade the NVIDIA driver.'",
    plan=[
        "nvidia-smi (ask for it: driver version and GPU)",
        "upgrade the NVIDIA driver to a release that covers torch's CUDA (>= 525.60.13 for CUDA 12.1 wheels), e.g. sudo apt install nvidia-driver-535",
        "sudo reboot",
    ],
    alternatives=[
        [
            "if the driver cannot be upgraded: a torch built for CUDA 11.8 (runs on an R470 driver by minor-version compatibility) and a vllm built for it"
        ]
    ],
    wrong_if=[
        "installs a CUDA toolkit as the fix",
        "reboot without a driver change",
        "claims the version of the driver without asking nvidia-smi",
    ],
    pins=["none printed (driver)"],
)

case(
    slug="010-forge2053-windows-found11070",
    url="https://github.com/lllyasviel/stable-diffusion-webui-forge/issues/2053",
    title="RuntimeError: The NVIDIA driver on your system is too old (please help)",
    kind="driver-too-old",
    platform="windows",
    input="""RuntimeError: The NVIDIA driver on your system is too old (found version 11070). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.
Press any key to continue . . .
""",
    diagnosis="Windows driver covers CUDA 11.7 only, older than forge's CUDA 12.1 torch; install a current NVIDIA driver for the GPU.",
    fixed_by="ferater: update the graphics driver; reporter: 'i fixed it' (driver update).",
    plan=[
        "install the current NVIDIA Game Ready/Studio driver for the GPU (nvidia.com/Download or the NVIDIA app)",
        "restart Windows",
    ],
    alternatives=[["nvidia-smi first to name the GPU and driver"]],
    wrong_if=[
        "sudo/apt/Linux commands",
        "installs the CUDA toolkit as the fix",
        "reinstalls torch for CUDA 11.7 (forge needs cu121)",
    ],
    pins=["none (driver)"],
)

case(
    slug="012-ollama5493-libcuda-41874-too-old",
    url="https://github.com/ollama/ollama/issues/5493",
    title="unable to load nvcuda",
    kind="driver-too-old",
    platform="linux (/usr/lib64: RHEL/CentOS family)",
    input="""### What is the issue?

my ollama does not run on the NVIDIA gpu and i use the debug mode and find this message 
"time=2024-07-04T17:13:20.134+08:00 level=DEBUG source=gpu.go:385 msg="Unable to load nvcuda" library=/usr/lib/libcuda.so.418.74 error="Unable to load /usr/lib/libcuda.so.418.74 library to query for Nvidia GPUs: /usr/lib/libcuda.so.418.74: wrong ELF class: ELFCLASS32"
dlerr: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3
time=2024-07-04T17:13:20.135+08:00 level=DEBUG source=gpu.go:385 msg="Unable to load nvcuda" library=/usr/lib64/libcuda.so.418.74 error="symbol lookup for cuCtxCreate_v3 failed: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3"
time=2024-07-04T17:13:20.135+08:00 level=DEBUG source=gpu.go:304 msg="Searching for GPU library" name=libcudart.so*"
could you please clarify what this means and how can i resolving this issue?

### OS

Linux

### GPU

Nvidia

### CPU

Intel

### Ollama version

0.1.40

cat /proc/driver/nvidia/version,and the result is
NVRM version: NVIDIA UNIX x86_64 Kernel Module 418.74 Wed
""",
    diagnosis="Driver 418.74 (CUDA 10.1) is too old for Ollama's CUDA 11 runners (cuCtxCreate_v3 appeared in CUDA 11.x drivers); upgrade the driver.",
    fixed_by="No maintainer fix in the stored excerpt; Ollama's hardware page (docs/gpu.md) states a driver minimum (531 and newer in one copy; 550, and 570 for compute capability 5.0-6.2, in the current one): driver 418 is below all of them - upgrade the driver.",
    correction="After the first run, checked against Ollama's docs/gpu.md: the expectation first said 'driver >= 452'; the documented minimum is 531 (later 550/570). The plan (upgrade the driver) is unchanged; gpudoctor's output did not prompt this.",
    plan=[
        "nvidia-smi (GPU model, to pick the branch)",
        "upgrade the NVIDIA driver (e.g. NVIDIA's CUDA repository for RHEL: sudo dnf/yum install nvidia-driver-latest-dkms, or the current runfile)",
        "sudo reboot",
    ],
    alternatives=[],
    wrong_if=["installs a CUDA toolkit as the fix", "tries a pip/conda package", "reboot alone"],
    pins=["none (driver)"],
)

case(
    slug="013-comfyui6226-centos79-2xa100-driver-too-old",
    url="https://github.com/Comfy-Org/ComfyUI/issues/6226",
    title="RuntimeError: The NVIDIA driver on your system is too old",
    kind="driver-too-old",
    platform="linux (CentOS 7.9)",
    input="""RuntimeError: The NVIDIA driver on your system is too old

### Your question

我使用centos7.9系统安装了comfyUI    使用了两张A100 80G显卡，运行python main.py报错
I installed ComfyUI on  CentOS 7.9 system with two A100 80G GPUs. When I run python main.py, an error occurred.
""",
    diagnosis="The A100s' driver is older than the CUDA runtime of the installed torch (the screenshot showed CUDA 11.7); upgrade the driver, or install a torch built for CUDA 11.8 which an R515 driver runs.",
    fixed_by="ltdrdata (maintainer): 'Literally, you need to update your GPU driver.'",
    plan=[
        "nvidia-smi (driver version)",
        "upgrade the driver on CentOS 7 (NVIDIA's CUDA repository: sudo yum install nvidia-driver-latest-dkms, or the data-center runfile)",
        "sudo reboot",
    ],
    alternatives=[
        [
            "python -m pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118 (pinned to a release; CUDA 11.8 on an 11.7 driver by minor-version compatibility)"
        ]
    ],
    wrong_if=["apt commands on CentOS", "CUDA toolkit as the fix", "asserting the driver version without nvidia-smi"],
    pins=["none printed beyond the driver"],
)

case(
    slug="014-comfyui2427-portable-torch-cpu-after-update",
    url="https://github.com/Comfy-Org/ComfyUI/issues/2427",
    title="AssertionError: Torch not compiled with CUDA enabled",
    kind="cpu-build",
    platform="windows (ComfyUI portable, python_embeded)",
    input="""I just updated Comfyui and some custom nodes and cannot open Comfyui.

The last lines of the command :

File "C:\\Users\\Luna\\Documents\\ComfyUI_windows_portable\\python_embeded\\lib\\site-packages\\torch\\cuda\\__init__.py", line 289, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled

C:\\Users\\cebuk\\Documents\\ComfyUI_windows_portable>pause
Press any key to continue . . .
""",
    diagnosis="An update replaced the portable's CUDA torch with the CPU build from the package index; reinstall the CUDA build with the portable's own python (python_embeded), companions together.",
    fixed_by="narukaze132: `.\\python_embeded\\Scripts\\pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu118`; ltdrdata: `.\\python_embeded\\python.exe -m pip install --force-reinstall torch --index-url ...`.",
    plan=[
        "cd C:\\Users\\Luna\\Documents\\ComfyUI_windows_portable",
        ".\\python_embeded\\python.exe -m pip install --force-reinstall torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121",
    ],
    alternatives=[
        ["same with --index-url https://download.pytorch.org/whl/cu118 (the thread's; torchvision/torchaudio moved with it)"]
    ],
    wrong_if=[
        "bare pip/python/python3 (another interpreter)",
        "sudo/apt/Linux commands",
        "driver or CUDA toolkit install",
        "torch alone while torchvision stays on another build",
    ],
    pins=[
        "cu121 builds of torch 2.1.x/2.2.x for cp311 win_amd64 on the PyTorch index (shared/reference/pytorch.yaml; index unreachable from here)"
    ],
)

case(
    slug="015-tooncrafter15-requirements-torch230-cpu-portable",
    url="https://github.com/AIGODLIKE/ComfyUI-ToonCrafter/issues/15",
    title="requirements changes torch to cpu style .can't run comfy ui",
    kind="cpu-build",
    platform="windows (ComfyUI portable, python_embeded)",
    input="""before     \\python_embeded\\python.exe -m pip install -r requirements.txt

>>> import torch
>>> print(torch.__version__)
2.2.0+cu121
>>>torch.cuda.is_available()
True

安装依赖之后
after install requirements.txt
>>> print(torch.__version__)
2.3.0+cpu
>>> torch.cuda.is_available()
False

and can't run comfy ui：
 File "D:\\.....\\new_ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 284, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
  彻底打不开comfy ui了，
""",
    diagnosis="The node's requirements (torch 2.3.0) pulled the CPU build into python_embeded, replacing 2.2.0+cu121; install torch 2.3.0 (and its torchvision/torchaudio) from the CUDA 12.1 index with python_embeded.",
    fixed_by="Reporter: reinstall the CUDA build inside python_embeded (checked which pip's Location is the portable's).",
    plan=[
        "cd <new_ComfyUI_windows_portable>",
        ".\\python_embeded\\python.exe -m pip install torch==2.3.0 torchvision==0.18.0 torchaudio==2.3.0 --index-url https://download.pytorch.org/whl/cu121",
    ],
    alternatives=[
        [
            "put back 2.2.0+cu121 with its torchvision 0.17.0/torchaudio 2.2.0 from the cu121 index (then the node's torch 2.3 pin is unmet)"
        ]
    ],
    wrong_if=[
        "bare pip (the reporter's system pip was a different interpreter)",
        "Linux commands",
        "driver/toolkit steps",
        "torch alone",
    ],
    pins=[
        "torch 2.3.0 cu121 win wheels per shared/reference/pytorch.yaml (variants cu118/cu121); torchvision 0.18.0 and torchaudio 2.3.0 are 2.3.0's companions"
    ],
)
