"""Findings for the messages only the catalogue reads (gpudoctor/parsers/catalogue.toml), on pasted reports.

Each check here judges one evidence kind the catalogue makes and emits the code the fact-based check would,
only where no other check (run on the same facts) already says it: one finding per cause, with the line.
The checks live by family, each module beside its own helpers: `containers`, `clusters`, `framework_builds`,
`gpu_floors`, `companions`, `runtime_floors`, `builds`, `compilers`, `windows_wsl`, `devices`, `stated` (`_common` holds what they share).
`CHECKS` keeps one order across them: the order of the findings follows it.
"""

from __future__ import annotations

from gpudoctor.checks.base import Check
from gpudoctor.checks.catalogued.builds import (
    check_build_cudnn_headers,
    check_build_needs_torch_first,
    check_build_toolkit_missing,
    check_cmake_arch_list,
    check_cuda_vs_integration,
    check_deepspeed_aio,
    check_python_headers,
    check_shell_nvcc_not_found,
    check_triton_libcuda,
    check_triton_ptxas_newer_than_driver,
)
from gpudoctor.checks.catalogued.clusters import (
    check_nccl_interface_unroutable,
    check_nccl_memlock_low,
    check_nccl_socket_ifname_unmatched,
    check_p2p_behind_switch,
    check_pyxis_container_without_driver,
    check_slurm_devices_unconstrained,
    check_slurm_job_without_gpus,
)
from gpudoctor.checks.catalogued.companions import (
    check_apex_not_built,
    check_bitsandbytes_binary,
    check_bitsandbytes_windows,
    check_companion_messages,
    check_numpy_abi,
    check_numpy_too_old,
)
from gpudoctor.checks.catalogued.compilers import check_host_compiler, check_nvcc_arch, check_ptxas_messages
from gpudoctor.checks.catalogued.containers import (
    check_app_image_variant,
    check_cdi_host_device_stale,
    check_cdi_unresolved,
    check_compose_gpu_option,
    check_docker_cli_before_gpus,
    check_docker_gpu_driver,
    check_docker_gpus_one_argument,
    check_docker_unknown_runtime,
    check_driver_container_kernel,
    check_hook_cgroup_not_permitted,
    check_hook_devices_allow_rootless,
    check_image_cuda_compat_refused,
    check_image_driver_files,
    check_image_tag_missing,
    check_persistenced_socket_bound,
    check_podman_cdi_as_path,
    check_shared_memory,
)
from gpudoctor.checks.catalogued.devices import (
    check_compute_mode_restricted,
    check_cuda_init_unknown,
    check_gpu_memory_error,
    check_mig_mode_pending,
    check_video_capability,
    check_video_library_packages,
)
from gpudoctor.checks.catalogued.engines import check_tensorrt_engine_elsewhere
from gpudoctor.checks.catalogued.framework_builds import (
    check_allocator_backend,
    check_faiss_cpu_build,
    check_framework_cpu_instructions,
    check_jax_no_cuda_platform,
    check_numba_driver_variable,
    check_said_cpu_build,
    check_stub_libcuda,
    check_tf_cudart_missing,
    check_tf_gpu_libraries,
    check_xla_libdevice_root,
    check_xla_libdevice_wheel,
)
from gpudoctor.checks.catalogued.gpu_floors import (
    check_app_gpu_too_old,
    check_component_below_min_arch,
    check_other_vendor_gpu_only,
    check_tf_gpu_below_minimum,
    check_triton_gpu_too_old,
)
from gpudoctor.checks.catalogued.library_arch import check_library_below_arch_floor
from gpudoctor.checks.catalogued.runtime_floors import check_runtime_floor
from gpudoctor.checks.catalogued.stated import check_accelerate_p2p_ib, check_tcpstore_without_libuv
from gpudoctor.checks.catalogued.windows_wsl import (
    check_cuda13_dll_folder,
    check_cuda_path_folder,
    check_inductor_triton_windows,
    check_powershell_script_policy,
    check_shell_posix_syntax,
    check_triton_windows_cuda,
    check_windows_commit_limit,
    check_windows_launch_timeout,
    check_wsl_libcuda,
    check_wsl_nccl_too_old,
)

CHECKS = (
    Check("catalogued-triton-gpu", "frameworks", ("framework-arch-unsupported",), check_triton_gpu_too_old, ("pasted",)),
    Check("catalogued-other-vendor-gpu", "gpu", ("gpu-none",), check_other_vendor_gpu_only, ("pasted",)),
    Check("catalogued-docker-gpu", "platform", ("container-no-gpu",), check_docker_gpu_driver, ("pasted",)),
    Check("catalogued-image-tag", "platform", ("container-image-tag-missing",), check_image_tag_missing, ("pasted",)),
    Check(
        "catalogued-driver-container-kernel",
        "driver",
        ("driver-container-kernel-unsupported",),
        check_driver_container_kernel,
        ("pasted",),
    ),
    Check("catalogued-app-image-variant", "platform", ("app-image-cpu-variant",), check_app_image_variant, ("pasted",)),
    Check("catalogued-image-driver-files", "platform", ("container-no-gpu",), check_image_driver_files, ("pasted",)),
    Check("catalogued-persistenced-socket", "platform", ("container-no-gpu",), check_persistenced_socket_bound, ("pasted",)),
    Check("catalogued-cdi-device", "platform", ("container-no-gpu",), check_cdi_unresolved, ("pasted",)),
    Check("catalogued-docker-runtime", "platform", ("container-no-gpu",), check_docker_unknown_runtime, ("pasted",)),
    Check("catalogued-compose-gpu-option", "platform", ("container-no-gpu",), check_compose_gpu_option, ("pasted",)),
    Check("catalogued-docker-cli-gpus", "platform", ("container-no-gpu",), check_docker_cli_before_gpus, ("pasted",)),
    Check("catalogued-docker-gpus-argument", "platform", ("container-no-gpu",), check_docker_gpus_one_argument, ("pasted",)),
    Check("catalogued-podman-cdi-path", "platform", ("container-no-gpu",), check_podman_cdi_as_path, ("pasted",)),
    Check("catalogued-cdi-host-device", "platform", ("container-no-gpu",), check_cdi_host_device_stale, ("pasted",)),
    Check("catalogued-shared-memory", "platform", ("shm-too-small",), check_shared_memory, ("pasted",)),
    Check("catalogued-hook-cgroup", "platform", ("container-no-gpu",), check_hook_cgroup_not_permitted, ("pasted",)),
    Check("catalogued-hook-rootless", "platform", ("container-no-gpu",), check_hook_devices_allow_rootless, ("pasted",)),
    Check(
        "catalogued-image-cuda-compat", "toolkit", ("toolkit-newer-than-driver",), check_image_cuda_compat_refused, ("pasted",)
    ),
    Check("catalogued-slurm-devices", "gpu", ("cuda-visible-devices-hides-all",), check_slurm_devices_unconstrained, ("pasted",)),
    Check("catalogued-accelerate-p2p-ib", "frameworks", ("nccl-transport-disabled",), check_accelerate_p2p_ib, ("pasted",)),
    Check(
        "catalogued-tcpstore-libuv", "frameworks", ("framework-windows-native-gpu",), check_tcpstore_without_libuv, ("pasted",)
    ),
    Check("catalogued-p2p-acs", "frameworks", ("nccl-transport-disabled",), check_p2p_behind_switch, ("pasted",)),
    Check("catalogued-nccl-interface", "platform", ("nccl-interface-unroutable",), check_nccl_interface_unroutable, ("pasted",)),
    Check("catalogued-nccl-ifname", "platform", ("nccl-interface-unroutable",), check_nccl_socket_ifname_unmatched, ("pasted",)),
    Check("catalogued-nccl-memlock", "platform", ("nccl-memlock-too-low",), check_nccl_memlock_low, ("pasted",)),
    Check("catalogued-slurm-no-gpus", "gpu", ("cuda-visible-devices-hides-all",), check_slurm_job_without_gpus, ("pasted",)),
    Check("catalogued-pyxis-driver", "platform", ("container-no-gpu",), check_pyxis_container_without_driver, ("pasted",)),
    Check("catalogued-tf-libraries", "frameworks", ("framework-cuda-libs-missing",), check_tf_gpu_libraries, ("pasted",)),
    Check("catalogued-tf-cudart", "frameworks", ("framework-cuda-libs-missing",), check_tf_cudart_missing, ("pasted",)),
    Check(
        "catalogued-cpu-instructions",
        "frameworks",
        ("framework-cpu-unsupported",),
        check_framework_cpu_instructions,
        ("pasted",),
    ),
    Check("catalogued-tf-gpu-minimum", "frameworks", ("framework-arch-unsupported",), check_tf_gpu_below_minimum, ("pasted",)),
    Check("catalogued-app-gpu-too-old", "frameworks", ("framework-arch-unsupported",), check_app_gpu_too_old, ("pasted",)),
    Check(
        "catalogued-tensorrt-engine",
        "frameworks",
        ("tensorrt-engine-not-portable",),
        check_tensorrt_engine_elsewhere,
        ("pasted",),
    ),
    Check("catalogued-jax-platform", "frameworks", ("framework-cpu-build",), check_jax_no_cuda_platform, ("pasted",)),
    Check("catalogued-cpu-build", "frameworks", ("framework-cpu-build",), check_said_cpu_build, ("pasted",)),
    Check("catalogued-faiss-cpu-build", "frameworks", ("framework-cpu-build",), check_faiss_cpu_build, ("pasted",)),
    Check("catalogued-windows-tdr", "driver", ("windows-tdr-timeout",), check_windows_launch_timeout, ("pasted",)),
    Check("catalogued-cuda13-dll-folder", "toolkit", ("cuda13-dll-folder",), check_cuda13_dll_folder, ("pasted",)),
    Check("catalogued-companions", "frameworks", ("companion-torch-mismatch",), check_companion_messages, ("pasted",)),
    Check("catalogued-apex-not-built", "frameworks", ("extension-not-built",), check_apex_not_built, ("pasted",)),
    Check("catalogued-deepspeed-aio", "frameworks", ("extension-not-built",), check_deepspeed_aio, ("pasted",)),
    Check("catalogued-build-torch-first", "frameworks", ("extension-not-built",), check_build_needs_torch_first, ("pasted",)),
    Check("catalogued-runtime-floor", "frameworks", ("extension-glibc-too-old",), check_runtime_floor, ("pasted",)),
    Check("catalogued-numpy-abi", "frameworks", ("numpy-abi-mismatch",), check_numpy_abi, ("pasted",)),
    Check("catalogued-numpy-too-old", "frameworks", ("numpy-abi-mismatch",), check_numpy_too_old, ("pasted",)),
    Check("catalogued-bitsandbytes", "frameworks", ("companion-torch-mismatch",), check_bitsandbytes_binary, ("pasted",)),
    Check("catalogued-video-packages", "driver", ("driver-video-library-missing",), check_video_library_packages, ("pasted",)),
    Check(
        "catalogued-video-capability",
        "platform",
        ("container-video-capability-missing",),
        check_video_capability,
        ("pasted",),
    ),
    Check("catalogued-triton-libcuda", "frameworks", ("framework-cuda-libs-missing",), check_triton_libcuda, ("pasted",)),
    Check(
        "catalogued-triton-ptxas-driver",
        "toolkit",
        ("toolkit-newer-than-driver",),
        check_triton_ptxas_newer_than_driver,
        ("pasted",),
    ),
    Check("catalogued-build-toolkit", "toolkit", ("toolkit-missing-for-build",), check_build_toolkit_missing, ("pasted",)),
    Check("catalogued-shell-nvcc", "toolkit", ("toolkit-missing-for-build",), check_shell_nvcc_not_found, ("pasted",)),
    Check("catalogued-python-headers", "frameworks", ("framework-cuda-libs-missing",), check_python_headers, ("pasted",)),
    Check("catalogued-build-cudnn", "cudnn", ("cudnn-headers-missing-for-build",), check_build_cudnn_headers, ("pasted",)),
    Check(
        "catalogued-component-arch", "frameworks", ("framework-arch-unsupported",), check_component_below_min_arch, ("pasted",)
    ),
    Check("catalogued-library-arch", "frameworks", ("framework-arch-unsupported",), check_library_below_arch_floor, ("pasted",)),
    Check("catalogued-cmake-arch-list", "frameworks", ("framework-arch-unsupported",), check_cmake_arch_list, ("pasted",)),
    Check(
        "catalogued-bitsandbytes-windows",
        "frameworks",
        ("framework-windows-native-gpu",),
        check_bitsandbytes_windows,
        ("pasted",),
    ),
    Check("catalogued-triton-windows", "toolkit", ("framework-cuda-libs-missing",), check_triton_windows_cuda, ("pasted",)),
    Check(
        "catalogued-inductor-triton-windows",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_inductor_triton_windows,
        ("pasted",),
    ),
    Check("catalogued-wsl-libcuda", "frameworks", ("framework-cuda-libs-missing",), check_wsl_libcuda, ("pasted",)),
    Check("catalogued-stub-libcuda", "frameworks", ("framework-cuda-libs-missing",), check_stub_libcuda, ("pasted",)),
    Check(
        "catalogued-numba-driver-variable",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_numba_driver_variable,
        ("pasted",),
    ),
    Check("catalogued-wsl-nccl", "frameworks", ("nccl-too-old",), check_wsl_nccl_too_old, ("pasted",)),
    Check("catalogued-cuda-path-folder", "toolkit", ("windows-cuda-path-missing",), check_cuda_path_folder, ("pasted",)),
    Check("catalogued-shell-syntax", "platform", ("windows-shell-syntax",), check_shell_posix_syntax, ("pasted",)),
    Check("catalogued-script-policy", "platform", ("windows-script-policy",), check_powershell_script_policy, ("pasted",)),
    Check(
        "catalogued-windows-commit-limit",
        "platform",
        ("windows-paging-file-too-small",),
        check_windows_commit_limit,
        ("pasted",),
    ),
    Check(
        "catalogued-ptx-version",
        "toolkit",
        ("toolkit-newer-than-driver", "toolkit-arch-unsupported"),
        check_ptxas_messages,
        ("pasted",),
    ),
    Check("catalogued-cuda-init-unknown", "driver", ("cuda-init-unknown",), check_cuda_init_unknown, ("pasted",)),
    Check("catalogued-compute-mode", "gpu", ("gpu-compute-mode-restricted",), check_compute_mode_restricted, ("pasted",)),
    Check("catalogued-mig-pending", "gpu", ("mig-enabled",), check_mig_mode_pending, ("pasted",)),
    Check("catalogued-nvcc-arch", "toolkit", ("toolkit-arch-unsupported",), check_nvcc_arch, ("pasted",)),
    Check("catalogued-host-compiler", "toolkit", ("host-compiler-unsupported",), check_host_compiler, ("pasted",)),
    Check("catalogued-gpu-memory", "health", ("gpu-ecc-errors",), check_gpu_memory_error, ("pasted",)),
    Check("catalogued-allocator", "frameworks", ("torch-allocator-unsupported",), check_allocator_backend, ("pasted",)),
    Check("catalogued-cuda-vs-integration", "toolkit", ("toolkit-missing-for-build",), check_cuda_vs_integration, ("pasted",)),
    Check("catalogued-xla-libdevice", "toolkit", ("toolkit-missing-for-build",), check_xla_libdevice_root, ("pasted",)),
    Check("catalogued-xla-libdevice-wheel", "toolkit", ("toolkit-missing-for-build",), check_xla_libdevice_wheel, ("pasted",)),
)
