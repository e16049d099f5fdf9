"""Case data, part 4."""

from tests.blind.plans._cases_part1 import case

case(
    slug="023-bnb1106-windows-conda-genai-unofficial-041-wheel",
    url="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1106",
    title="Bitsandbytes cannot find CUDA libraries",
    kind="wrong-wheel",
    platform="windows (conda env genai)",
    input="""### System Info

Windows 10
Python 3.10.3

### Reproduction

I installed bitsandbytes on Windows this way:

> pip install https://github.com/jllllll/bitsandbytes-windows-webui/releases/download/wheels/bitsandbytes-0.41.0-py3-none-win_amd64.whl

But I get the following error when I try to import the lib:

> UserWarning: C:\\Users\\kevguima\\AppData\\Local\\anaconda3\\envs\\genai did not contain ['cudart64_110.dll', 'cudart64_12.dll'] as expected! Searching further paths...
>   warn(msg)
> The following directories listed in your path were found to be non-existent: {WindowsPath('/EMED2ADC01')}
> The following directories listed in your path were found to be non-existent: {WindowsPath('C:/Users/kevguima/Documents/WindowsPowerShell/Modules')}
> CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...
> The following directories listed in your path were found to be non-existent: {WindowsPath('/usr/local/cuda/lib64')}
> DEBUG: Possible options found for libcudart.so: set()
> CUDA SETUP: PyTorch settings found: CUDA_VERSION=118, Highest Compute Capability: 8.6.
> CUDA SETUP: To manually override the PyTorch CUDA version please see:https://github.com/TimDettmers/bitsandbytes/blob/main/how_to_use_nonpytorch_cuda.md
> CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.dll. Ma""",
    diagnosis="The unofficial 0.41.0 Windows wheel has no CUDA 11.8 DLL for this torch (cu118); bitsandbytes >= 0.43.0 ships official Windows wheels with the CUDA 11.8 DLL.",
    fixed_by="Closed after bitsandbytes 0.43.0 (official Windows support, DLLs for CUDA 11.7-12.3 in the wheel).",
    plan=["conda activate genai", "python -m pip uninstall -y bitsandbytes", "python -m pip install bitsandbytes==0.43.0"],
    alternatives=[['python -m pip install -U "bitsandbytes>=0.43.0" in the genai env']],
    wrong_if=["installing the CUDA toolkit/cudart", "LD_LIBRARY_PATH/Linux commands", "changing torch"],
    pins=["bitsandbytes==0.43.0 cp310 win_amd64 (see pins-checked.txt)"],
)

case(
    slug="024-ds4553-docker-no-nvcc-deepspeed-p100",
    url="https://github.com/deepspeedai/DeepSpeed/issues/4553",
    title="installation problem: No such file or directory: '/usr/local/cuda/bin/nvcc'",
    kind="toolkit-missing",
    platform="docker (Ubuntu image, conda env)",
    input="""Hi, I met this problem as shown. But I actually have nvcc in my conda environment. 

conda list |grep nvcc
nvidia-cuda-nvcc-cu11     11.7.99                  pypi_0    pypi

And torch shows GPUs are available in my environment:
code:
#########
import torch

if torch.cuda.is_available():
    print("GPU is available.")
else:
    print("No GPU available.")
num_gpus = torch.cuda.device_count()
print(f"Number of available GPUs: {num_gpus}")
device=torch.cuda.get_device_name(0)
print(f"config.device is {device}")

print(torch.version.cuda)
#########

output:
#########
GPU is available.
Number of available GPUs: 2
config.device is Tesla P100-PCIE-16GB
11.7
#########

So, in this case, How can fix it?
""",
    diagnosis="DeepSpeed's op builder needs a CUDA toolkit (nvcc under CUDA_HOME); the container has only the pip nvcc wheel, not a toolkit at /usr/local/cuda. Install a CUDA 11.7 toolkit (torch's CUDA) in the container, no driver.",
    fixed_by="Reporter (2023-10-24): installed the CUDA Toolkit from NVIDIA inside the container, everything except the driver; DeepSpeed then installed.",
    plan=[
        "inside the container: install the CUDA 11.7 toolkit without the driver (e.g. sh cuda_11.7.1_515.65.01_linux.run --silent --toolkit)",
        "export CUDA_HOME=/usr/local/cuda-11.7",
        "python -m pip install deepspeed",
    ],
    alternatives=[
        [
            "rebuild from an nvidia/cuda:11.7.1-devel base image",
            "conda install -c nvidia/label/cuda-11.7.1 cuda-nvcc cuda-cudart-dev (then CUDA_HOME=$CONDA_PREFIX)",
        ]
    ],
    wrong_if=[
        "installs an NVIDIA driver in the container",
        "a CUDA 12 toolkit (mismatches torch 11.7)",
        "host-side driver/toolkit changes",
    ],
    pins=["none from the package index"],
)

case(
    slug="025-mgm91-deepspeed-cuda122-torch117-mismatch",
    url="https://github.com/JIA-Lab-research/MGM/issues/91",
    title="Which deepspeed version is it",
    kind="toolkit-mismatch",
    platform="linux",
    input="""deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without a matching cuda version.

how should i fix it
""",
    diagnosis="The CUDA toolkit (nvcc 12.2) and torch's CUDA (11.7) differ in major; DeepSpeed cannot JIT its ops. Align them: a CUDA 11.x toolkit for this torch (user-level via conda) or a torch built for CUDA 12.",
    fixed_by="yanwei-li (maintainer): align the CUDA and compiled PyTorch versions (11.7 or 12.2); reporter solved it.",
    plan=["conda install -c nvidia/label/cuda-11.7.1 cuda-toolkit", "export CUDA_HOME=$CONDA_PREFIX"],
    alternatives=[["install a torch built for CUDA 12 (e.g. 2.1.x cu121) with its torchvision, if the project allows"]],
    wrong_if=["downgrading the system driver", "sudo apt remove of the 12.2 toolkit as a first step", "torch moved alone"],
    pins=["nvidia/label/cuda-11.7.1 is NVIDIA's conda channel label for 11.7.1"],
)

case(
    slug="026-seamless167-wsl-libcuda-so-cudnn-cnn-infer",
    url="https://github.com/facebookresearch/seamless_communication/issues/167",
    title="Demo crash on Linux Subsystem",
    kind="wsl",
    platform="wsl",
    input="""I've looking into test a little on my computer to also check how would perform, that's why i'm trying the demo before tweaking anything, but if i hit "translate" it shows the following error:

"Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory"

i'm using Python 3.10.12 and followed the instructions as it shows to run on a Ubuntu Subsystem on Windows.

i thought was cuda not working as well, but torch.cuda.is_available() returns True. I also run some other AI tool with cuda enabled and had no problem.

Here's the results of the deviceQuery sample that WSL2 made available.

CUDA Device Query (Runtime API) version (CUDART static linking)

Detected 1 CUDA Capable device(s)

Device 0: "NVIDIA GeForce RTX 3060 Ti"
  CUDA Driver Version / Runtime Version          12.2 / 12.2
  CUDA Capability Major/Minor version number:    8.6
""",
    diagnosis="On WSL2 libcuda.so lives in /usr/lib/wsl/lib, which cuDNN's dlopen of the unversioned libcuda.so does not search; add /usr/lib/wsl/lib to LD_LIBRARY_PATH (no driver in WSL).",
    fixed_by="Known WSL fix (nougat#105, cuda-python#17): put /usr/lib/wsl/lib on LD_LIBRARY_PATH (or link libcuda.so into cuDNN's lib dir).",
    plan=[
        "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH",
        "echo 'export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH' >> ~/.bashrc",
    ],
    alternatives=[["sudo ldconfig after fixing the /usr/lib/wsl/lib symlinks (WSL issue tracker)"]],
    wrong_if=[
        "installs a Linux NVIDIA driver inside WSL",
        "apt install cuda (pulls a driver)",
        "reinstall cuDNN/torch",
        "Windows-side driver reinstall as step 1",
    ],
    pins=["none"],
)

case(
    slug="027-tgi1312-docker-gpus-no-container-toolkit",
    url="https://github.com/huggingface/text-generation-inference/issues/1312",
    title="gpu device driver not recognized",
    kind="container",
    platform="docker host (linux)",
    input="""### System Info

(text-generation-inference) BMH-C-001:~/text-generation-inference$ sudo docker run --gpus all --shm-size 1g -p 3000:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:1.0.0 --model-id $model --quantize bitsandbytes

docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
ERRO[0000] error waiting for container:
""",
    diagnosis="Docker has no GPU device driver registered: the NVIDIA Container Toolkit is not installed/configured on the host.",
    fixed_by="Maintainers' standing answer in sister threads (TGI#904, TEI#458): install the NVIDIA container runtime/toolkit.",
    plan=[
        "install nvidia-container-toolkit on the host (NVIDIA's apt repository): sudo apt-get install -y nvidia-container-toolkit",
        "sudo nvidia-ctk runtime configure --runtime=docker",
        "sudo systemctl restart docker",
        "rerun the same docker run --gpus all command",
    ],
    alternatives=[],
    wrong_if=[
        "changes inside the container",
        "driver reinstall as first step (the host driver was not shown broken)",
        "removing --gpus all (the GPU is needed)",
    ],
    pins=["none"],
)

case(
    slug="028-tgi904-toolkit-installed-docker-not-configured",
    url="https://github.com/huggingface/text-generation-inference/issues/904",
    title="Error when launching docker run --gpus all",
    kind="container",
    platform="docker host (linux)",
    input="""### Reproduction

I launch:
**model=meta-llama/Llama-2-7b-chat-hf**
**volume=$PWD/data** 

**docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:1.0.1 --model-id $model**

**and I have this error**
**docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
ERRO[0000] error waiting for container:**  

Nvidia Container Toolkit installed
**nvidia-ctk --version
NVIDIA Container Toolkit CLI version 1.13.5**
""",
    diagnosis="The toolkit CLI is installed but Docker was not configured/restarted to use it (no GPU device driver registered with the daemon).",
    fixed_by="Narsil (maintainer): 'You need nvidia-docker' (the NVIDIA runtime registered with Docker).",
    plan=[
        "sudo nvidia-ctk runtime configure --runtime=docker",
        "sudo systemctl restart docker",
        "rerun the docker run --gpus all command",
    ],
    alternatives=[["sudo apt-get install -y nvidia-container-toolkit first if the package (not only the CLI) is missing"]],
    wrong_if=["reinstall the driver", "steps inside the container", "remove --gpus all"],
    pins=["none"],
)

case(
    slug="029-tei149-cpu-image-gpus-all-no-gpu-machine",
    url="https://github.com/huggingface/text-embeddings-inference/issues/149",
    title="why would the cpu-0.6 try to use gpu ?",
    kind="container",
    platform="docker host without GPU",
    input="""### System Info

docker image built for cpu

### Reproduction

I try the simplest command to start the cpu version as below

docker run --gpus all -p 8888:80 -v $volume:/data -d ghcr.io/huggingface/text-embeddings-inference:cpu-0.6 --model-id $model --revision $revision

but get error below
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].

this is a machine without gpu card
""",
    diagnosis="A CPU image on a machine without a GPU was started with --gpus all; drop the flag.",
    fixed_by="OlivierDehaene (maintainer): 'Remove `--gpus all` from the docker command.'",
    plan=[
        "docker run -p 8888:80 -v $volume:/data -d ghcr.io/huggingface/text-embeddings-inference:cpu-0.6 --model-id $model --revision $revision"
    ],
    alternatives=[],
    wrong_if=["installs the NVIDIA driver or container toolkit (no GPU)", "restarts docker"],
    pins=["none"],
)
