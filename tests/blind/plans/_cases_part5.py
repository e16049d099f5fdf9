"""Case data, part 5."""

from tests.blind.plans._cases_part1 import case

case(
    slug="030-ort25609-onnxruntime-gpu-cudnn-wheel-not-on-path",
    url="https://github.com/microsoft/onnxruntime/issues/25609",
    title="[Build] CUDAExecutionProvider fails to load due to missing libcudnn.so.9 in LD_LIBRARY_PATH when using onnxruntime-gpu==1.22.0",
    kind="cudnn-missing",
    platform="linux (pip)",
    input="""When using `onnxruntime-gpu==1.22.0` alone, running inference with `providers=["CUDAExecutionProvider"]` fails at runtime with the following error:

```bash
2025-07-31 15:09:16.647314988 [E:onnxruntime:Default, provider_bridge_ort.cc:2195 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1778 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory

2025-07-31 15:09:16.647341662 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1055 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*. Please install all dependencies as mentioned in the GPU requirements page (https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements), make sure they're in the PATH, and that your GPU is supported.
```

This happens even when the appropriate version of cuDNN (installed via PyPI, i.e., nvidia-cudnn-cu12) is already present in the environment.
""",
    diagnosis="cuDNN 9 is installed as the nvidia-cudnn-cu12 wheel but onnxruntime-gpu does not add site-packages/nvidia/cudnn/lib to the loader path; preload it (onnxruntime.preload_dlls() / import torch first) or put that directory on LD_LIBRARY_PATH.",
    fixed_by="Thread: the wheel's lib directory is not on LD_LIBRARY_PATH; onnxruntime >= 1.21 provides onnxruntime.preload_dlls() to load the pip CUDA/cuDNN libraries.",
    plan=[
        "export LD_LIBRARY_PATH=$(python -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))')/lib:$LD_LIBRARY_PATH"
    ],
    alternatives=[
        [
            "call onnxruntime.preload_dlls() before creating the session",
            'python -m pip install "onnxruntime-gpu[cuda,cudnn]==1.22.0" then preload_dlls()',
        ]
    ],
    wrong_if=[
        "sudo apt install of a system cuDNN for a pip-only stack",
        "driver/toolkit installs",
        "reinstalling nvidia-cudnn-cu12 alone (it is installed)",
    ],
    pins=["onnxruntime-gpu==1.22.0 + nvidia-cudnn-cu12==9.10.2.21 cp310 manylinux (see pins-checked.txt)"],
)

case(
    slug="031-bioimageio307-conda-pytorch-cpu-build-with-cudatoolkit",
    url="https://github.com/bioimage-io/core-bioimage-io-python/issues/307",
    title="Cuda not available when installing using the command in README",
    kind="cpu-build",
    platform="linux (conda)",
    input="""I created a new conda environment and followed the instructions in the [README](https://github.com/bioimage-io/core-bioimage-io-python/blob/main/README.md)
````
# gpu installation
conda install -c pytorch -c conda-forge bioimageio.core pytorch torchvision cudatoolkit
`````
The result of the following python code gives a telling error:
````
print(torch.cuda.get_device_name(0))
...
AssertionError: Torch not compiled with CUDA enabled
````
`cudatoolkit` appears in the conda list though. 
````
cudatoolkit               11.7.0              ha6f8bbd_10    conda-forge
````

Yes, it seems like the cpu version got installed:
````
pytorch                   1.12.1              py3.9_cpu_0    pytorch
````
""",
    diagnosis="conda resolved pytorch 1.12.1 as the CPU build (py3.9_cpu_0) because the pytorch channel had no build for conda-forge's cudatoolkit 11.7; request a cudatoolkit the channel builds for (11.6 or 11.3) so the CUDA build is chosen, torchvision with it.",
    fixed_by="Reporter: `conda install pytorch torchvision torchaudio cudatoolkit=11.6 -c pytorch -c conda-forge` in another env gave a working CUDA build.",
    plan=["conda install pytorch=1.12.1 torchvision torchaudio cudatoolkit=11.6 -c pytorch -c conda-forge"],
    alternatives=[["conda install pytorch torchvision pytorch-cuda=11.7 -c pytorch -c nvidia (pytorch >= 1.13)"]],
    wrong_if=[
        "pip install into the conda env on top of conda's pytorch",
        "driver/toolkit installs",
        "pytorch without torchvision",
    ],
    pins=[
        "pytorch 1.12.1 had cudatoolkit 10.2/11.3/11.6 builds on the pytorch conda channel (shared/reference/pytorch.yaml: 1.12 variants cu102/cu113/cu116)"
    ],
)

case(
    slug="032-autocut106-torchaudio-cu117-torch-cu118",
    url="https://github.com/mli/autocut/issues/106",
    title="PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7",
    kind="companion-mismatch",
    platform="unknown",
    input="""RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7. Please install the TorchAudio version that matches your PyTorch version.

my TorchAudio version is 2.0.2 ，Does the latest version of TorchAudio not support CUDA 11.8？
""",
    diagnosis="torch is a cu118 build but torchaudio 2.0.2 is the package index's cu117 build; install torchaudio 2.0.2 from the cu118 index to match.",
    fixed_by="No fix in the thread (maintainer redirected); the error's own remedy: install the torchaudio that matches PyTorch (2.0.2+cu118).",
    plan=[
        "python -m pip install --force-reinstall --no-deps torchaudio==2.0.2 --index-url https://download.pytorch.org/whl/cu118"
    ],
    alternatives=[
        [
            "reinstall torch and torchaudio together from the same index: python -m pip install torch==2.0.1 torchaudio==2.0.2 --index-url https://download.pytorch.org/whl/cu118"
        ]
    ],
    wrong_if=["driver/toolkit changes", "moving torch to cu117 without torchvision", "unpinned torchaudio (pulls a new torch)"],
    pins=[
        "torchaudio 2.0.2 is torch 2.0.1's companion; cu117/cu118 variants per shared/reference/pytorch.yaml (2.0 variants cu117/cu118)"
    ],
)

case(
    slug="033-nanodet547-torchaudio-undefined-symbol-torch1131",
    url="https://github.com/RangiLyu/nanodet/issues/547",
    title="OSError: /usr/local/lib/python3.8/dist-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl",
    kind="companion-mismatch",
    platform="linux",
    input="""OSError: /usr/local/lib/python3.8/dist-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl

How can I solve this issue? It seems to be caused by mismatched library versions or corrupted library files. My torch version is 1.13.1, and pytorch_lightning version is 1.9.5.
""",
    diagnosis="torchaudio was built for a newer torch (SymBool exists from 2.x) than the installed 1.13.1; install torchaudio 0.13.1, the companion of torch 1.13.1.",
    fixed_by="PaVaNTrIpAtHi: version mismatch; pin matching torch/torchaudio/torchvision versions together.",
    plan=["python3 -m pip install torchaudio==0.13.1"],
    alternatives=[["python3 -m pip install torch==1.12.1 torchaudio==0.12.1 torchvision==0.13.1 (the thread's matching set)"]],
    wrong_if=["driver/toolkit steps", "upgrading torch alone", "unpinned torchaudio"],
    pins=["torchaudio==0.13.1 cp38 manylinux (see pins-checked.txt)"],
)

case(
    slug="034-yolov10-395-wsl2-libcuda-so-cudnn",
    url="https://github.com/THU-MIG/yolov10/issues/395",
    title="Error: libcuda.so",
    kind="wsl",
    platform="wsl2 (conda)",
    input="""Hi,
I followed the installation procedure. I try run train command and get the following error output:

`
AMP: running Automatic Mixed Precision (AMP) checks with YOLOv8n...
Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory
Aborted
`

I not sucssed to fix this and I not understand what the problem in addition to the conda installation packages I need cudNN on my wsl2 machine ?
""",
    diagnosis="On WSL2 the unversioned libcuda.so is in /usr/lib/wsl/lib, not on the dlopen path cuDNN 8 uses; add /usr/lib/wsl/lib to LD_LIBRARY_PATH (no cuDNN or driver install needed).",
    fixed_by="Reporter: reinstalled pytorch 2.0.1 with pytorch-cuda=11.8 via conda (conda-forge cudatoolkit-dev). The cheaper known WSL fix is the loader path.",
    plan=["export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH"],
    alternatives=[
        [
            "conda install pytorch==2.0.1 torchvision==0.15.2 torchaudio==2.0.2 pytorch-cuda=11.8 -c pytorch -c nvidia (the reporter's)"
        ]
    ],
    wrong_if=["installs a Linux driver inside WSL", "apt install cuda", "system cuDNN via sudo apt as the first step"],
    pins=["none for the primary plan"],
)

case(
    slug="035-ollama17290-p40-driver535-too-old-for-ollama030",
    url="https://github.com/ollama/ollama/issues/17290",
    title="Models fully offloaded to CPU on NVIDIA Tesla P40 after v0.24.0",
    kind="driver-too-old",
    platform="docker on a Proxmox VM (Ubuntu guest)",
    input="""## What is the issue?

On a system with 2x NVIDIA Tesla P40 (24GB each, 48GB total, compute capability 6.1), Ollama versions v0.30.0 through v0.32.1 (latest tested) load models entirely onto CPU regardless of model size, model architecture, or configuration — despite both GPUs being correctly detected with ample free VRAM.

This is confirmed as a genuine regression via bisection: v0.24.0 works correctly (100% GPU), v0.30.0 is broken (100% CPU). The regression might coincide with the llama.cpp engine integration introduced in v0.30.0.

## Environment

- Hardware: 2x NVIDIA Tesla P40 (24GB VRAM each), PCI passthrough via Proxmox VE to a Ubuntu guest VM
- Driver: NVIDIA 535.309.01, CUDA 12.2
- Docker with `runtime: nvidia`, NVIDIA Container Toolkit installed and functional (verified via `docker run --rm --gpus all nvidia/cuda:... nvidia-smi`)
- `nvidia-smi` inside the container correctly shows both GPUs with full free VRAM
- Ollama's own GPU discovery correctly detects both cards (see "inference compute" log lines, present on working versions)
""",
    diagnosis="Ollama >= 0.30 requires driver >= 550 for its bundled CUDA backend, and 570 for compute capability 5.0-6.2 (the P40 is 6.1; docs/gpu.mdx); 535.309.01 is filtered out and it falls back to CPU. Upgrade the guest's driver (Pascal is supported through R580).",
    correction="After the first run, checked against Ollama's docs/gpu.mdx: added the 570 floor for compute capability 5.0-6.2. The plan (nvidia-driver-580) is unchanged; gpudoctor's output did not prompt this.",
    fixed_by="Reporter (2026-07-22): upgraded the host driver 535.309.01 -> 580.159.03 (nvidia-driver-580 on Ubuntu 24.04); Ollama 0.32.1 then ran 100% GPU with no other change.",
    plan=[
        "on the Ubuntu VM (not in the container): sudo apt install nvidia-driver-580",
        "sudo reboot",
        "docker restart <ollama container>",
    ],
    alternatives=[["keep Ollama at v0.24.0 until the driver can be upgraded"]],
    wrong_if=[
        "steps inside the container",
        "container toolkit reinstall/reconfigure (it was verified working)",
        "open kernel modules for Pascal (unsupported)",
        "CUDA toolkit install",
    ],
    pins=["nvidia-driver-580 is the Ubuntu 24.04 package the reporter installed"],
)

case(
    slug="036-textgen486-wsl-conda-libcuda-cudnn-cnn-infer",
    url="https://github.com/oobabooga/textgen/issues/486",
    title="Whisper TTS bug",
    kind="wsl",
    platform="wsl (conda env textgen)",
    input="""### Describe the bug

I am using WSL
Had to install all the requirements manually using pip (because It didnt install it automatically, nor the other extensions)
after installing I get the error below, Tried:
LD_LIBRARY_PATH=$LD_LIBRARY_PATH:home\\ultra\\miniconda3\\envs\\textgen\\lib\\libcudnn_cnn_infer.so.8
export LD_LIBRARY_PATH
Still same error, any idea?

### Logs

```shell
Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory
Please make sure libcudnn_cnn_infer.so.8 is in your library path!
```

### System Info

```shell
Windows11 WSL
```
""",
    diagnosis="WSL: the missing piece is libcuda.so (in /usr/lib/wsl/lib), not cuDNN; the reporter's LD_LIBRARY_PATH had a Windows-style path to a file. Put /usr/lib/wsl/lib on LD_LIBRARY_PATH.",
    fixed_by="EliasVincent: link /usr/lib/wsl/lib/libcuda.so into the conda env's lib (ln -s /usr/lib/wsl/lib/libcuda.so $CONDA_PREFIX/lib/libcuda.so).",
    plan=["export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH"],
    alternatives=[["ln -s /usr/lib/wsl/lib/libcuda.so $CONDA_PREFIX/lib/libcuda.so (the thread's)"]],
    wrong_if=["installs cuDNN (it is there)", "Linux driver in WSL", "Windows commands"],
    pins=["none"],
)

case(
    slug="037-tei458-docker-gpus-no-nvidia-runtime",
    url="https://github.com/huggingface/text-embeddings-inference/issues/458",
    title='Getting error: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
    kind="container",
    platform="docker host (linux)",
    input="""### System Info

while running this 
model=Alibaba-NLP/gte-large-en-v1.5
volume=$PWD/data 
sudo docker run --gpus all -p 5001:80 -v $volume:/data --pull always ghcr.io/huggingface/text-embeddings-inference:1.5 --model-id $model

I'm getting this error
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].

how to solve it?
""",
    diagnosis="Docker has no NVIDIA runtime/CDI for --gpus: install and configure the NVIDIA Container Toolkit on the host.",
    fixed_by="OlivierDehaene (maintainer): 'You need to install the nvidia container runtime.'",
    plan=[
        "sudo apt-get install -y nvidia-container-toolkit (after adding NVIDIA's repository)",
        "sudo nvidia-ctk runtime configure --runtime=docker",
        "sudo systemctl restart docker",
        "rerun the docker run --gpus all command",
    ],
    alternatives=[["nvidia-smi on the host first to confirm a GPU and driver"]],
    wrong_if=["steps inside the container", "drop --gpus all for a GPU image", "driver reinstall first"],
    pins=["none"],
)

case(
    slug="038-a1111-15614-windows-torch-cannot-use-gpu-driver",
    url="https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/15614",
    title="Torch is not able to see GPU",
    kind="driver-broken",
    platform="windows 11",
    input="""> Same error as this but with the path different.
> 
> Traceback (most recent call last): File "/home/angel/stable-diffusion-webui/launch.py", line 48, in main() File "/home/angel/stable-diffusion-webui/launch.py", line 39, in main prepare_environment() File "/home/angel/stable-diffusion-webui/modules/launch_utils.py", line 386, in prepare_environment raise RuntimeError( RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS
> 
> Clean install of windows 11 with an RTX3080 and an Intel chip.
> 
> Installed git, installed python, git cloned, and I get the same error.
""",
    diagnosis="On a clean Windows 11 with an RTX 3080 the webui's CUDA torch could not use the GPU: the NVIDIA driver was missing/stale (the reporter fixed it by installing the latest driver).",
    fixed_by="dklange: 'I reinstalled the latest nvidia driver and it worked.'",
    plan=[
        "nvidia-smi (is a driver installed?)",
        "install the latest NVIDIA driver for the RTX 3080",
        "restart Windows",
        "run webui-user.bat again",
    ],
    alternatives=[],
    wrong_if=[
        "--skip-torch-cuda-test (runs on CPU)",
        "Linux commands/sudo",
        "CUDA toolkit install as the fix",
        "reinstalling torch first without evidence it is a CPU build",
    ],
    pins=["none"],
)

case(
    slug="039-gptsovits83-found11040-torch-too-new",
    url="https://github.com/RVC-Boss/GPT-SoVITS/issues/83",
    title="对gpu驱动版本要求是？",
    kind="driver-too-old",
    platform="unknown (linux likely)",
    input="""`RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new versi        on from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled         with your version of the CUDA driver.`
""",
    diagnosis="Driver covers CUDA 11.4 (R470) but torch is a CUDA 12 build; install a torch built for CUDA 11.8 (runs on R470 by minor-version compatibility) or upgrade the driver.",
    fixed_by="hyhuc0079: cu118 and cu121 both tested working; RVC-Boss: 'pytorch version (too new) and your driver (too old) do not match'.",
    plan=[
        "python -m pip install torch==<installed version> torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118 (companions pinned to torch's release)"
    ],
    alternatives=[["upgrade the driver to >= 525.60.13 and reboot"]],
    wrong_if=["CUDA toolkit install", "torch alone", "reboot without a change"],
    pins=["cu118 builds exist for torch 2.0-2.7 (shared/reference/pytorch.yaml)"],
)

case(
    slug="040-omost120-found11060",
    url="https://github.com/lllyasviel/Omost/issues/120",
    title="NVDIA driver version issue",
    kind="driver-too-old",
    platform="unknown",
    input="""Hi, I've met the driver verson issue as bellows:

RuntimeError: The NVIDIA driver on your system is too old (found version 11060). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.

Could anyone give any supports on this issue?
""",
    diagnosis="Driver covers CUDA 11.6 (R510); Omost installs a CUDA 12.1 torch. Upgrade the driver, or install the same torch from the cu118 index (runs on R510).",
    fixed_by="No reply in the stored thread; the error's own two remedies.",
    plan=["nvidia-smi (OS, GPU, driver)", "upgrade the driver to >= 525.60.13 (Linux) / a current driver (Windows)", "reboot"],
    alternatives=[
        ["python -m pip install torch==<installed> torchvision==<matching> --index-url https://download.pytorch.org/whl/cu118"]
    ],
    wrong_if=["CUDA toolkit install", "torch alone", "platform-specific commands without knowing the OS"],
    pins=["none beyond cu118 index (reference)"],
)

case(
    slug="041-bnb17-wsl-libcuda-so-conda-cudatoolkit",
    url="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/17",
    title="WSL: libcuda.so: cannot open shared object file",
    kind="wsl",
    platform="wsl (conda env in a folder)",
    input="""Hello, I'm on a completely fresh Windows Subsystem for Linux with CUDA support installation of Ubuntu. What I've done so far:
1. Installed MiniForge/Conda
2. Made a new env in a folder
3. Ran `conda install cudatoolkit`
4. Pip installed pytorch, transformers, accelerate, and bitsandbytes
5. Attempted to run the HF Pipeline demo with 8 bit quant enabled.

When running a model, I get the following error:

```
CUDA SETUP: CUDA runtime path found: /home/zaptrem/bigmodels/env/lib/libcudart.so
Traceback (most recent call last):
  File "/home/zaptrem/bigmodels/env/lib/python3.8/site-packages/bitsandbytes/cuda_setup/main.py", line 57, in get_cuda_lib_handle
    cuda = ctypes.CDLL("libcuda.so")
  File "/home/zaptrem/bigmodels/env/lib/python3.8/ctypes/__init__.py", line 373, in __init__
    self._handle = _dlopen(self._name, mode)
OSError: libcuda.so: cannot open shared object file: No such file or directory
""",
    diagnosis="WSL: bitsandbytes dlopens the unversioned libcuda.so, which is only in /usr/lib/wsl/lib; put that directory on LD_LIBRARY_PATH (later bitsandbytes releases search it).",
    fixed_by="Known WSL remedy (LD_LIBRARY_PATH=/usr/lib/wsl/lib); fixed upstream in later bitsandbytes releases.",
    plan=["export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH"],
    alternatives=[["python -m pip install -U bitsandbytes (later releases find libcuda on WSL)"]],
    wrong_if=["Linux driver in WSL", "apt install cuda", "conda cudatoolkit reinstall"],
    pins=["none"],
)
