#!/bin/sh
# How snapshot.json was recorded (issue 32): on the project's build machine (no GPU), not a real user's report.
# A venv at /opt/pidjob/env holds a torch 2.3.1+cu121 stand-in whose libtorch_cuda.so (built here with cc) NEEDs
# libcudart.so.12 with the wheel's RUNPATH ($ORIGIN/../../nvidia/cuda_runtime/lib), so the loader model
# predicts env/.../nvidia/cuda_runtime/lib/libcudart.so.12. A job (a small C program) then dlopen()s that copy,
# a second libcudart.so.12 from /opt/pidjob/job/lib and a libnccl.so.2 from there, by full path, and
# `gpudoctor snapshot --pid` records its /proc/PID/maps beside the model. Run as root from the repository root.
set -eu
R=/opt/pidjob
SITE=$R/env/lib/python3.11/site-packages
rm -rf "$R" && mkdir -p "$R/src" "$R/job/lib" "$SITE/torch/lib" "$SITE/nvidia/cuda_runtime/lib"
python3 -m venv --without-pip "$R/env"
mkdir -p "$SITE/torch-2.3.1+cu121.dist-info" "$SITE/nvidia_cuda_runtime_cu12-12.1.105.dist-info"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1+cu121\n' >"$SITE/torch-2.3.1+cu121.dist-info/METADATA"
printf 'Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\nVersion: 12.1.105\n' \
  >"$SITE/nvidia_cuda_runtime_cu12-12.1.105.dist-info/METADATA"
printf "__version__ = '2.3.1+cu121'\ndebug = False\ncuda = '12.1'\nhip = None\n" >"$SITE/torch/version.py"
printf 'int cudart_marker(void) { return 12; }\n' >"$R/src/cudart.c"
printf 'int nccl_marker(void) { return 2; }\n' >"$R/src/nccl.c"
printf 'extern int cudart_marker(void);\nint torch_cuda_marker(void) { return cudart_marker(); }\n' >"$R/src/torch_cuda.c"
printf 'int torch_global_deps_marker(void) { return 0; }\n' >"$R/src/global_deps.c"
cc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$SITE/nvidia/cuda_runtime/lib/libcudart.so.12" "$R/src/cudart.c"
cc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$R/job/lib/libcudart.so.12" "$R/src/cudart.c"
cc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$R/job/lib/libnccl.so.2" "$R/src/nccl.c"
cc -shared -fPIC -o "$SITE/torch/lib/libtorch_global_deps.so" "$R/src/global_deps.c"
cc -shared -fPIC -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../nvidia/cuda_runtime/lib' \
  -o "$SITE/torch/lib/libtorch_cuda.so" "$R/src/torch_cuda.c" -L"$SITE/nvidia/cuda_runtime/lib" -l:libcudart.so.12
cat >"$R/src/job.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    printf("ready\n");
    fflush(stdout);
    getchar();
    return 0;
}
C
cc -o "$R/job/job" "$R/src/job.c" -ldl
mkfifo "$R/hold"
"$R/job/job" "$SITE/nvidia/cuda_runtime/lib/libcudart.so.12" "$R/job/lib/libcudart.so.12" "$R/job/lib/libnccl.so.2" \
  <"$R/hold" >"$R/job/ready" &
JOB=$!
exec 3>"$R/hold"
while ! grep -q ready "$R/job/ready"; do sleep 0.1; done
.venv/bin/gpudoctor snapshot --pid "$JOB" --python "$R/env/bin/python" \
  --note "Built here, not a real report (issue 32; record.sh): the project's build machine (no GPU); a job (PID $JOB) \
dlopen()ed the torch stand-in's predicted libcudart.so.12, a second copy from /opt/pidjob/job/lib and libnccl.so.2 by full path." \
  -o tests/machines/build-machine-job-maps-another-cudart/snapshot.json
exec 3>&-
wait "$JOB"
