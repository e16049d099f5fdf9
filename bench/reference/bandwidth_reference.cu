// The reference for gpudoctor's bandwidth benchmark: host<->device copies with the CUDA runtime, with the
// same method, the same default sizes and the same repetitions as `gpudoctor bench bandwidth`
// (src/gpudoctor/bandwidth/measure.py, results.py BenchPlan, sizes.py DEFAULT_SIZES):
//   - pinned (h2d, d2h): cudaMemcpyAsync on cudaMallocHost memory in one non-blocking stream, timed on
//     the GPU's timeline with CUDA events recorded around the batch (gpudoctor: cuMemcpyHtoDAsync and
//     cuMemcpyDtoHAsync, cuEventRecord);
//   - pageable (h2d-pageable, d2h-pageable): cudaMemcpy on ordinary host memory (new[]), synchronous for
//     the host, timed with the host's monotonic clock around the batch plus cudaDeviceSynchronize
//     (gpudoctor: cuMemcpyHtoD and cuMemcpyDtoH, time.perf_counter and cuCtxSynchronize), as NVIDIA's
//     bandwidthTest times pageable copies;
//   - sizes 64 KiB .. 256 MiB in powers of two (or --sizes BYTES,BYTES,...);
//   - a timed sample repeats the copy until it moves about --sample-bytes (32 MiB), at most
//     --max-copies (512) copies, preceded by --warmup (2) untimed batches;
//   - --repeats (10) samples per size; the median is reported, in GB/s = 1e9 bytes/s.
// --tests picks the tests (default h2d,d2h: pinned only, what tests/gpu/test_bandwidth_gpu.py compares;
// `--tests all` adds the two pageable ones).
// Output: one JSON object per line (test, size_bytes, timer, median_gb_per_s, samples_gb_per_s), so tests
// and tools/gpu_truth.py can read it line by line next to gpudoctor's `--format json`.
// Build: ./build.sh (nvcc). No device code: any GPU architecture runs it.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::printf("{\"error\": \"%s\", \"call\": \"%s\", \"line\": %d}\n",                   \
                        cudaGetErrorName(err_), #call, __LINE__);                                \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static std::vector<std::string> split(const char *text) {
    std::vector<std::string> out;
    std::string s(text);
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty()) out.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

static std::vector<size_t> parse_sizes(const char *text) {
    std::vector<size_t> out;
    for (const std::string &part : split(text)) out.push_back(std::strtoull(part.c_str(), nullptr, 10));
    return out;
}

static bool known_test(const std::string &t) {
    return t == "h2d" || t == "d2h" || t == "h2d-pageable" || t == "d2h-pageable";
}

int main(int argc, char **argv) {
    int device = 0, repeats = 10, warmup = 2, max_copies = 512;
    size_t sample_bytes = 32u << 20;
    std::vector<size_t> sizes;
    std::vector<std::string> tests = {"h2d", "d2h"};
    for (size_t s = 64u << 10; s <= (256u << 20); s *= 2) sizes.push_back(s);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--device")) device = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--warmup")) warmup = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--max-copies")) max_copies = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--sample-bytes")) sample_bytes = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--sizes")) sizes = parse_sizes(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--tests")) {
            tests = !std::strcmp(argv[i + 1], "all")
                        ? std::vector<std::string>{"h2d", "d2h", "h2d-pageable", "d2h-pageable"}
                        : split(argv[i + 1]);
        } else {
            std::fprintf(stderr, "usage: %s [--device N] [--sizes B,B,...] [--repeats R] [--warmup W] "
                                 "[--sample-bytes B] [--max-copies M] [--tests all|h2d,d2h,h2d-pageable,d2h-pageable]\n", argv[0]);
            return 2;
        }
    }
    bool tests_ok = !tests.empty();
    for (const std::string &t : tests) tests_ok = tests_ok && known_test(t);
    if (sizes.empty() || repeats < 1 || warmup < 0 || max_copies < 1 || !tests_ok) {
        std::fprintf(stderr, "bad arguments\n");
        return 2;
    }
    size_t size_max = *std::max_element(sizes.begin(), sizes.end());

    CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));
    char bus[32];
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));

    void *host_src = nullptr, *host_dst = nullptr, *dev = nullptr;
    CHECK(cudaMallocHost(&host_src, size_max));
    CHECK(cudaMallocHost(&host_dst, size_max));
    CHECK(cudaMalloc(&dev, size_max));
    std::memset(host_src, 0x5a, size_max);
    std::memset(host_dst, 0, size_max);
    // Pageable buffers, written once so that their pages are resident before the first timed copy (gpudoctor
    // fills its pageable buffers too); allocated only when a pageable test runs.
    bool pageable = false;
    for (const std::string &t : tests) pageable = pageable || t.find("pageable") != std::string::npos;
    std::vector<unsigned char> page_src(pageable ? size_max : 0, 0x5a), page_dst(pageable ? size_max : 0, 0);
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    for (const std::string &test : tests) {
        bool h2d = test.rfind("h2d", 0) == 0;
        bool on_host = test.find("pageable") != std::string::npos;
        for (size_t size : sizes) {
            size_t copies = std::max<size_t>(1, std::min<size_t>(max_copies, (sample_bytes + size - 1) / size));
            auto enqueue = [&]() {
                if (on_host && h2d) CHECK(cudaMemcpy(dev, page_src.data(), size, cudaMemcpyHostToDevice));
                else if (on_host) CHECK(cudaMemcpy(page_dst.data(), dev, size, cudaMemcpyDeviceToHost));
                else if (h2d) CHECK(cudaMemcpyAsync(dev, host_src, size, cudaMemcpyHostToDevice, stream));
                else CHECK(cudaMemcpyAsync(host_dst, dev, size, cudaMemcpyDeviceToHost, stream));
            };
            for (size_t i = 0; i < (size_t)warmup * copies; i++) enqueue();
            CHECK(cudaDeviceSynchronize());
            std::vector<double> samples;
            for (int r = 0; r < repeats; r++) {
                double seconds;
                if (on_host) {
                    auto began = std::chrono::steady_clock::now();
                    for (size_t i = 0; i < copies; i++) enqueue();
                    CHECK(cudaDeviceSynchronize());  // a pageable host-to-device copy may return before its last DMA
                    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
                } else {
                    CHECK(cudaEventRecord(start, stream));
                    for (size_t i = 0; i < copies; i++) enqueue();
                    CHECK(cudaEventRecord(stop, stream));
                    CHECK(cudaEventSynchronize(stop));
                    float ms = 0.0f;
                    CHECK(cudaEventElapsedTime(&ms, start, stop));
                    seconds = ms / 1e3;
                }
                samples.push_back((double)size * copies / seconds / 1e9);
            }
            std::printf("{\"tool\": \"reference\", \"device\": %d, \"name\": \"%s\", \"pci_bus_id\": \"%s\", "
                        "\"test\": \"%s\", \"memory\": \"%s\", \"timer\": \"%s\", \"size_bytes\": %zu, "
                        "\"copies_per_sample\": %zu, \"median_gb_per_s\": %.4f, \"samples_gb_per_s\": [",
                        device, prop.name, bus, test.c_str(), on_host ? "pageable" : "pinned", on_host ? "host" : "events",
                        size, copies, median(samples));
            for (size_t i = 0; i < samples.size(); i++) std::printf("%s%.4f", i ? ", " : "", samples[i]);
            std::printf("]}\n");
            std::fflush(stdout);
        }
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host_dst));
    CHECK(cudaFreeHost(host_src));
    return 0;
}
