#!/usr/bin/env bash
# Build the CUDA C reference for `gpudoctor bench bandwidth` into bench/reference/build/.
# Needs the CUDA toolkit (nvcc); running it needs an NVIDIA GPU and driver. The program has no
# device code, so the default target architecture does for every GPU. Extra arguments go to nvcc.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-nvcc}"
if ! command -v "$nvcc" >/dev/null 2>&1; then
    echo "build.sh: nvcc not found; install the CUDA toolkit or set NVCC=/path/to/nvcc" >&2
    exit 2
fi
mkdir -p "$here/build"
"$nvcc" -O2 -std=c++17 -o "$here/build/bandwidth_reference" "$here/bandwidth_reference.cu" "$@"
echo "$here/build/bandwidth_reference"
