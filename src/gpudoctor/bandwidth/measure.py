"""The timed copies: per GPU and between GPUs, returning plain samples (`Measurement`).

How a sample is timed:
- Pinned, device-to-device, bidirectional and peer copies are asynchronous; they are timed on
  the GPU's own timeline with CUDA events recorded around a batch of copies in one stream, the
  way NVIDIA's bandwidthTest does.
- Pageable copies are synchronous for the host (the driver copies through its own pinned staging
  buffer), so they are timed with the host clock around the batch plus a context synchronise,
  again as bandwidthTest does.
- Small copies last microseconds, so a sample repeats the copy until it moves about
  `plan.sample_bytes` (see `stats.copies_per_sample`); `plan.warmup` untimed batches come first
  (first-touch, TLB fills, the link leaving its idle power state).
- Both directions at once: host-to-device on one stream and device-to-host on another, started
  by one event and joined by another; the figure is the bytes of both over the joint time.

Every resource is held by a context manager on an ExitStack; on any error the stack first
synchronises the context (so no copy is in flight into memory being freed), then releases.
"""

from __future__ import annotations

import contextlib
import ctypes
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from gpudoctor.bandwidth.cuda_driver import CudaDriver, fill, host_buffer, read, zero
from gpudoctor.bandwidth.results import BenchPlan, Measurement, PeerRun
from gpudoctor.bandwidth.stats import copies_per_sample, gb_per_s

Step = Callable[[str, int], None]  # (test, size_bytes), after each measured size
_PATTERN_PERIOD = 4093  # a prime: a copy that lands at the wrong offset cannot match by accident
_COMPARE_CHUNK = 16 * 1024 * 1024
# The host clock that times pageable copies (module-level so the tests can put the fake driver's
# simulated time here: host memcpy speed must not decide a test's outcome).
host_clock: Callable[[], float] = time.perf_counter


def make_pattern(nbytes: int, seed: int = 0) -> bytes:
    """Deterministic, non-repeating at power-of-two strides, different for each seed."""
    block = bytes(((i * 131 + (i >> 7) * 29 + seed * 71 + 17) & 0xFF) for i in range(_PATTERN_PERIOD))
    return (block * (nbytes // _PATTERN_PERIOD + 1))[:nbytes]


def matches(address: int, expected: bytes, nbytes: int) -> bool:
    """Whether host memory at `address` holds the first `nbytes` of `expected`."""
    view = memoryview(expected)
    for offset in range(0, nbytes, _COMPARE_CHUNK):
        n = min(_COMPARE_CHUNK, nbytes - offset)
        if read(address + offset, n) != view[offset : offset + n]:
            return False
    return True


def _noop(test: str, size: int) -> None:
    pass


def _sync_quietly(drv: CudaDriver) -> None:
    # Unwinding after an error: the first error is the one to report.
    with contextlib.suppress(Exception):
        drv.synchronize()


class _Timer:
    """Times batches of copies for one plan; holds the two events every event-timed sample uses."""

    def __init__(self, drv: CudaDriver, plan: BenchPlan, start: int, stop: int, joint: int) -> None:
        self.drv = drv
        self.plan = plan
        self.start = start
        self.stop = stop
        self.joint = joint  # the second stream's end, for bidirectional samples

    def on_stream(self, test: str, size: int, stream: int, enqueue: Callable[[], None]) -> Measurement:
        drv, plan = self.drv, self.plan
        copies = copies_per_sample(size, plan.sample_bytes, plan.max_copies_per_sample)
        for _ in range(plan.warmup * copies):
            enqueue()
        drv.stream_synchronize(stream)
        samples = []
        for _ in range(plan.repeats):
            drv.event_record(self.start, stream)
            for _ in range(copies):
                enqueue()
            drv.event_record(self.stop, stream)
            drv.event_synchronize(self.stop)
            samples.append(gb_per_s(size * copies, drv.event_elapsed_s(self.start, self.stop)))
        return Measurement(test, size, tuple(samples), copies, "events")

    def two_streams(self, size: int, first: int, second: int, enqueue: Callable[[], None]) -> Measurement:
        """`enqueue` issues one copy on each stream; both are timed from one start to the later end."""
        drv, plan = self.drv, self.plan
        copies = copies_per_sample(size, plan.sample_bytes, plan.max_copies_per_sample)
        for _ in range(plan.warmup * copies):
            enqueue()
        drv.stream_synchronize(first)
        drv.stream_synchronize(second)
        samples = []
        for _ in range(plan.repeats):
            drv.event_record(self.start, first)
            drv.stream_wait_event(second, self.start)
            for _ in range(copies):
                enqueue()
            drv.event_record(self.joint, second)
            drv.stream_wait_event(first, self.joint)
            drv.event_record(self.stop, first)
            drv.event_synchronize(self.stop)
            samples.append(gb_per_s(2 * size * copies, drv.event_elapsed_s(self.start, self.stop)))
        return Measurement("bidir", size, tuple(samples), copies, "events")

    def on_host(self, test: str, size: int, copy: Callable[[], None]) -> Measurement:
        drv, plan = self.drv, self.plan
        copies = copies_per_sample(size, plan.sample_bytes, plan.max_copies_per_sample)
        for _ in range(plan.warmup * copies):
            copy()
        drv.synchronize()
        samples = []
        for _ in range(plan.repeats):
            began = host_clock()
            for _ in range(copies):
                copy()
            drv.synchronize()  # a pageable host-to-device copy may return before its last DMA
            samples.append(gb_per_s(size * copies, host_clock() - began))
        return Measurement(test, size, tuple(samples), copies, "host")


def _with_verified(m: Measurement, ok: bool | None) -> Measurement:
    return Measurement(m.test, m.size_bytes, m.samples_gb_per_s, m.copies_per_sample, m.timer, ok)


def measure_gpu(
    drv: CudaDriver,
    ordinal: int,
    plan: BenchPlan,
    step: Step = _noop,
    on_load: Callable[[], Any] | None = None,
) -> tuple[list[Measurement], Any]:
    """Run every per-GPU test of `plan` on CUDA device `ordinal`.

    Returns the measurements and what `on_load` returned: it is called once while a long queue
    of host-to-device copies is running, to read the link state under load (GPUs lower their
    link generation at idle to save power, so a reading at rest says little).
    """
    tests = [t for t in plan.tests if t != "p2p"]
    if not tests:
        return [], None
    size_max = max(plan.sizes_bytes)
    pinned_tests = {"h2d", "d2h", "bidir"}
    need_pinned = bool(pinned_tests & set(tests)) or (plan.verify and "d2d" in tests)
    need_pageable = any(t.endswith("-pageable") for t in tests)
    need_second_device = "d2d" in tests or "bidir" in tests
    pattern = make_pattern(size_max, seed=ordinal)
    out: list[Measurement] = []
    load_state: Any = None
    dev = drv.device(ordinal)
    with contextlib.ExitStack() as stack:
        ctx = stack.enter_context(drv.primary_context(dev))
        stack.enter_context(drv.current(ctx))
        dev_a = stack.enter_context(drv.device_memory(size_max))
        dev_b = stack.enter_context(drv.device_memory(size_max)) if need_second_device else 0
        pin_a = stack.enter_context(drv.pinned_memory(size_max)) if need_pinned else 0
        pin_b = stack.enter_context(drv.pinned_memory(size_max)) if need_pinned else 0
        page_a = host_buffer(size_max) if need_pageable else None
        page_b = host_buffer(size_max) if need_pageable else None
        s1 = stack.enter_context(drv.stream())
        s2 = stack.enter_context(drv.stream()) if "bidir" in tests else 0
        timer = _Timer(
            drv,
            plan,
            stack.enter_context(drv.event()),
            stack.enter_context(drv.event()),
            stack.enter_context(drv.event()),
        )
        # Runs first when the stack unwinds: nothing may still copy into memory about to be freed.
        stack.callback(_sync_quietly, drv)
        # Sources hold the pattern from the start, so pages are resident and --verify has data.
        if pin_a:
            fill(pin_a, pattern)
            zero(pin_b, size_max)
        addr_page_a = ctypes.addressof(page_a) if page_a is not None else 0
        addr_page_b = ctypes.addressof(page_b) if page_b is not None else 0
        if page_a is not None:
            fill(addr_page_a, pattern)
            zero(addr_page_b, size_max)

        for test in tests:
            # partial() binds this iteration's size (the timer calls each copy before the loop moves on anyway).
            for size in plan.sizes_bytes:
                if test == "h2d":
                    m = timer.on_stream(test, size, s1, partial(drv.memcpy_htod_async, dev_a, pin_a, size, s1))
                elif test == "d2h":
                    m = timer.on_stream(test, size, s1, partial(drv.memcpy_dtoh_async, pin_b, dev_a, size, s1))
                elif test == "h2d-pageable":
                    m = timer.on_host(test, size, partial(drv.memcpy_htod, dev_a, addr_page_a, size))
                elif test == "d2h-pageable":
                    m = timer.on_host(test, size, partial(drv.memcpy_dtoh, addr_page_b, dev_a, size))
                elif test == "d2d":
                    m = timer.on_stream(test, size, s1, partial(drv.memcpy_dtod_async, dev_b, dev_a, size, s1))
                elif test == "bidir":

                    def both(size: int = size) -> None:
                        drv.memcpy_htod_async(dev_a, pin_a, size, s1)
                        drv.memcpy_dtoh_async(pin_b, dev_b, size, s2)

                    m = timer.two_streams(size, s1, s2, both)
                else:
                    raise ValueError(f"unknown test {test!r}")
                if plan.verify:
                    bufs = _Buffers(dev_a, dev_b, pin_a, pin_b, addr_page_a, addr_page_b, s1, s2)
                    m = _with_verified(m, _verify(drv, test, size, pattern, bufs, ordinal))
                out.append(m)
                step(test, size)
            if test == "h2d" and on_load is not None:
                load_state = _read_under_load(drv, on_load, dev_a, pin_a, size_max, s1, out)
    return out, load_state


class _Buffers:
    def __init__(self, dev_a: int, dev_b: int, pin_a: int, pin_b: int, page_a: int, page_b: int, s1: int, s2: int) -> None:
        self.dev_a, self.dev_b, self.pin_a, self.pin_b = dev_a, dev_b, pin_a, pin_b
        self.page_a, self.page_b, self.s1, self.s2 = page_a, page_b, s1, s2


def _clear_device(drv: CudaDriver, dptr: int, size: int) -> None:
    drv.memset_d8(dptr, 0, size)
    drv.synchronize()  # cuMemsetD8 runs on the legacy stream, which our non-blocking streams do not wait for


def _verify(drv: CudaDriver, test: str, size: int, pattern: bytes, b: _Buffers, seed: int) -> bool:
    """Copy known data along the measured path and back, and compare. The round trip checks both directions."""
    if test in ("h2d", "d2h"):
        _clear_device(drv, b.dev_a, size)
        zero(b.pin_b, size)
        drv.memcpy_htod_async(b.dev_a, b.pin_a, size, b.s1)
        drv.memcpy_dtoh_async(b.pin_b, b.dev_a, size, b.s1)
        drv.stream_synchronize(b.s1)
        return matches(b.pin_b, pattern, size)
    if test in ("h2d-pageable", "d2h-pageable"):
        _clear_device(drv, b.dev_a, size)
        zero(b.page_b, size)
        drv.memcpy_htod(b.dev_a, b.page_a, size)
        drv.synchronize()
        drv.memcpy_dtoh(b.page_b, b.dev_a, size)
        return matches(b.page_b, pattern, size)
    if test == "d2d":
        _clear_device(drv, b.dev_b, size)
        zero(b.pin_b, size)
        drv.memcpy_htod_async(b.dev_a, b.pin_a, size, b.s1)
        drv.memcpy_dtod_async(b.dev_b, b.dev_a, size, b.s1)
        drv.memcpy_dtoh_async(b.pin_b, b.dev_b, size, b.s1)
        drv.stream_synchronize(b.s1)
        return matches(b.pin_b, pattern, size)
    if test == "bidir":
        # Both copies in flight at once, each with its own data: dev_b -> host while host -> dev_a.
        other = make_pattern(size, seed=seed + 101)
        fill(b.pin_b, other)
        drv.memcpy_htod_async(b.dev_b, b.pin_b, size, b.s2)
        drv.stream_synchronize(b.s2)
        zero(b.pin_b, size)
        _clear_device(drv, b.dev_a, size)
        drv.memcpy_htod_async(b.dev_a, b.pin_a, size, b.s1)
        drv.memcpy_dtoh_async(b.pin_b, b.dev_b, size, b.s2)
        drv.stream_synchronize(b.s1)
        drv.stream_synchronize(b.s2)
        ok = matches(b.pin_b, other, size)
        zero(b.pin_b, size)
        drv.memcpy_dtoh_async(b.pin_b, b.dev_a, size, b.s1)
        drv.stream_synchronize(b.s1)
        return ok and matches(b.pin_b, pattern, size)
    raise ValueError(f"unknown test {test!r}")


def _read_under_load(
    drv: CudaDriver, on_load: Callable[[], Any], dev_a: int, pin_a: int, size_max: int, stream: int, done: list[Measurement]
) -> Any:
    """Queue about 0.3 s of the largest host-to-device copy, read the link meanwhile, then wait."""
    largest = [m for m in done if m.test == "h2d" and m.size_bytes == size_max]
    rate = largest[-1].summary.median * 1e9 if largest else 10e9
    copies = max(2, min(256, int(0.3 * rate / size_max) + 1))
    for _ in range(copies):
        drv.memcpy_htod_async(dev_a, pin_a, size_max, stream)
    try:
        return on_load()
    except Exception:  # noqa: BLE001 - a failed side reading must not cost the measurements
        return None
    finally:
        drv.stream_synchronize(stream)


def measure_peer(drv: CudaDriver, src: int, dst: int, plan: BenchPlan, step: Step = _noop) -> PeerRun:
    """Copies from GPU `src` to GPU `dst` with peer access enabled both ways, timed on `src`'s stream."""
    dev_src, dev_dst = drv.device(src), drv.device(dst)
    if not (drv.can_access_peer(dev_src, dev_dst) and drv.can_access_peer(dev_dst, dev_src)):
        return PeerRun(
            src,
            dst,
            note="no peer access between these GPUs (cuDeviceCanAccessPeer = 0): copies between them go through host memory",
        )
    size_max = max(plan.sizes_bytes)
    pattern = make_pattern(size_max, seed=src * 31 + dst) if plan.verify else b""
    out: list[Measurement] = []
    with contextlib.ExitStack() as stack:
        ctx_src = stack.enter_context(drv.primary_context(dev_src))
        ctx_dst = stack.enter_context(drv.primary_context(dev_dst))
        stack.enter_context(drv.current(ctx_dst))
        buf_dst = stack.enter_context(drv.device_memory(size_max))
        stack.enter_context(drv.current(ctx_src))
        buf_src = stack.enter_context(drv.device_memory(size_max))
        stream = stack.enter_context(drv.stream())
        timer = _Timer(drv, plan, stack.enter_context(drv.event()), stack.enter_context(drv.event()), 0)
        stack.enter_context(drv.peer_access(ctx_src, ctx_dst))
        stack.enter_context(drv.peer_access(ctx_dst, ctx_src))
        stack.callback(_sync_quietly, drv)
        host = host_buffer(size_max) if plan.verify else None
        for size in plan.sizes_bytes:
            m = timer.on_stream(
                "p2p", size, stream, partial(drv.memcpy_peer_async, buf_dst, ctx_dst, buf_src, ctx_src, size, stream)
            )
            if plan.verify and host is not None:
                m = _with_verified(m, _verify_peer(drv, size, pattern, host, buf_src, buf_dst, ctx_src, ctx_dst, stream))
            out.append(m)
            step("p2p", size)
    return PeerRun(src, dst, tuple(out))


def _verify_peer(
    drv: CudaDriver, size: int, pattern: bytes, host: Any, buf_src: int, buf_dst: int, ctx_src: int, ctx_dst: int, stream: int
) -> bool:
    address = ctypes.addressof(host)
    fill(address, pattern[:size])
    drv.memcpy_htod(buf_src, address, size)
    drv.synchronize()
    with drv.current(ctx_dst):
        _clear_device(drv, buf_dst, size)
    drv.memcpy_peer_async(buf_dst, ctx_dst, buf_src, ctx_src, size, stream)
    drv.stream_synchronize(stream)
    zero(address, size)
    with drv.current(ctx_dst):
        drv.memcpy_dtoh(address, buf_dst, size)
    return matches(address, pattern, size)
