"""`gpudoctor bench bandwidth`: measure host<->GPU copy bandwidth and judge it against the link.

- `cuda_driver`: the ctypes binding to libcuda.so.1 (the only module that touches a GPU);
- `measure`: the timed copies, returning plain samples;
- `placement`: where each GPU sits (NUMA node, CPU affinity, PCIe switch), read through the Host seam;
- `stats`, `sizes`, `expected`, `judge`, `chart`, `results`, `render`: pure code, tested without a GPU.

Importing this package does nothing but define things: no library is loaded until a benchmark runs.
"""
