"""`--deep`: import each framework in the user's interpreter, in a subprocess with a time limit.

Only an import tells whether a GPU is really usable, how many devices a
framework sees, PyTorch's compiled arch list, and the exact error text. A
crashing or hanging import cannot take the doctor down: it is a recorded
command like any other, replayable from a snapshot.
"""

from __future__ import annotations

import json
from typing import Any

from gpudoctor.host import Host

# Kept short and stable: the script is part of the recorded command line.
SCRIPT = r"""
import json, sys
name = sys.argv[1]
out = {"framework": name}
try:
    if name == "torch":
        import torch
        out["version"] = torch.__version__
        out["cuda"] = torch.version.cuda
        out["cudnn"] = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        out["available"] = torch.cuda.is_available()
        out["device_count"] = torch.cuda.device_count()
        out["arch_list"] = torch.cuda.get_arch_list() if out["available"] else []
        out["devices"] = [
            {"name": torch.cuda.get_device_name(i), "capability": "%d.%d" % torch.cuda.get_device_capability(i)}
            for i in range(out["device_count"])
        ]
        if out["available"]:
            torch.ones(1, device="cuda").add_(1)
            out["kernel_ok"] = True
    elif name == "tensorflow":
        import os
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        out["version"] = tf.__version__
        out["built_with_cuda"] = tf.test.is_built_with_cuda()
        gpus = tf.config.list_physical_devices("GPU")
        out["device_count"] = len(gpus)
        out["available"] = bool(gpus)
        out["build_info"] = {k: str(v) for k, v in tf.sysconfig.get_build_info().items()}
    elif name == "jax":
        import jax
        out["version"] = jax.__version__
        out["backend"] = jax.default_backend()
        devices = jax.devices()
        out["devices"] = [str(d) for d in devices]
        out["device_count"] = len([d for d in devices if d.platform == "gpu"])
        out["available"] = out["device_count"] > 0
except BaseException as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
print("GPUDOCTOR-JSON " + json.dumps(out))
"""


def introspect(host: Host, executable: str, framework: str, timeout_s: float) -> dict[str, Any]:
    from gpudoctor.trust import not_run_note, refuse_on_host

    why = refuse_on_host(host, executable)  # as root, never import from an environment others can write
    if why:
        return {"framework": framework, "error": not_run_note(executable, why), "not_run": True}
    result = host.run([executable, "-c", SCRIPT, framework], timeout_s, key=f"gpudoctor-deep {framework}")
    if result.missing:
        return {"framework": framework, "error": f"no interpreter at {executable}"}
    if result.timed_out:
        return {"framework": framework, "error": f"import did not finish within {timeout_s:g} s", "timeout": True}
    if result.overflow:
        return {"framework": framework, "error": f"the import's {result.stderr}", "crashed": True}
    for line in reversed(result.stdout.splitlines()):
        if line.startswith("GPUDOCTOR-JSON "):
            try:
                reply = json.loads(line[len("GPUDOCTOR-JSON ") :])
            except ValueError:
                break
            if result.stderr.strip():
                reply["stderr_tail"] = result.stderr.strip()[-2000:]
            return reply
    # The interpreter died before replying (a segfault in a CUDA library, say).
    tail = (result.stderr or result.stdout).strip()[-2000:]
    return {"framework": framework, "error": f"exit status {result.rc}: {tail}", "crashed": True}
