/*
 * A fake libnvidia-ml.so.1 for gpudoctor's simulated machines. CONSTRUCTED: written by the gpudoctor
 * team, not NVIDIA code. It is compiled against NVIDIA's own nvml.h (the nvidia-nvml-dev-cu12 wheel),
 * so every entry point below has the exact prototype of the real library: a signature that drifts
 * from the header is a compile error, not a silent ABI mismatch. The real nvidia-ml-py loads it
 * through LD_LIBRARY_PATH and calls it with ctypes, as it calls the real library.
 *
 * What it answers comes from a data file (path in $GPUDOCTOR_SIM_NVML) that tests/sim/machine.py
 * writes from the `nvml` section of a recorded snapshot: one `key value` per line, e.g.
 *     init 0                       nvmlInit's return code (18 = LIB_RM_VERSION_MISMATCH, ...)
 *     hang_ms 30000                nvmlInit sleeps this long first (a GPU fallen off the bus)
 *     driver_version 550.54.14
 *     device_count 1
 *     dev.0.name NVIDIA H100 NVL
 *     dev.0.memory 100485038080 64424509440 36060528640     total used free (bytes)
 *     dev.0.proc 90211 63350767616 python3                  pid used name (repeatable): a compute process
 *     dev.0.gproc 607 573571072 /usr/lib/Xorg               the same for a graphics process (repeatable)
 *     dev.0.mig_dev 0 MIG-... 10468982784 0                 slot uuid total used (repeatable)
 *     fail nvmlDeviceGetRemappedRows 0 3                    function, device (-1: any), return code
 * A field the file does not give answers NOT_SUPPORTED, as the real library does for a field the
 * GPU lacks. Everything is bounded: fixed tables, fixed line length, no allocation.
 *
 * Older drivers' libraries lack the entry points that came later, and nvidia-ml-py then meets a library
 * older than itself: -DBEFORE_R535 leaves out nvmlDeviceGetCurrentClocksEventReasons (R535); -DBEFORE_R510
 * also nvmlDevice{Compute,Graphics}RunningProcesses_v3, nvmlDeviceGetMemoryInfo_v2 and
 * nvmlDeviceGetGpuMaxPcieLinkGeneration (R510).
 *
 * Build: cc -shared -fPIC -O1 -I<dir of nvml.h> -o libnvidia-ml.so.1 fake_nvml.c
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1 /* define every symbol under its own name, legacy ones too */
#include <nvml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEV 16
#define MAX_PROC 32
#define MAX_MIG 8
#define MAX_FAIL 64
#define TEXT 512 /* room for a process name with its arguments, as NVML gives it (a browser's GPU process) */

struct proc { unsigned int pid; unsigned long long used; char name[TEXT]; };
struct mig { int present; char uuid[TEXT]; unsigned long long total, used; };
struct nvmlDevice_st { int index; int slot; }; /* slot -1: the GPU itself; else a MIG device */

/* One GPU as the data file describes it; has[] says which fields were given. */
enum { F_NAME, F_UUID, F_BUS, F_CC, F_MEM, F_GEN_CUR, F_GEN_MAX, F_GEN_GPU_MAX, F_WIDTH_CUR, F_WIDTH_MAX,
       F_PERSIST, F_MIG, F_ECC, F_ECC_VOL, F_ECC_AGG, F_RETIRED, F_REMAP, F_REASONS, F_TEMP, F_POWER, F_PROCS,
       F_MIG_SLOTS, F_PSTATE, F_UTIL, F_GPROCS, F_COUNT };
struct gpu {
    int has[F_COUNT];
    char name[TEXT], uuid[TEXT], bus[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    int cc_major, cc_minor;
    unsigned long long total, used, free_b, reserved;
    unsigned int gen_cur, gen_max, gen_gpu_max, width_cur, width_max, persist, mig_cur, mig_pend, ecc_cur, ecc_pend;
    unsigned long long ecc_vol, ecc_agg, reasons;
    unsigned int retired, remap[4], temp, power_mw, mig_slots, pstate, util;
    int n_procs, n_gprocs;
    struct proc procs[MAX_PROC], gprocs[MAX_PROC]; /* compute and graphics processes */
    struct mig migs[MAX_MIG];
};
struct fail { char fn[64]; int dev; int code; };

static struct gpu gpus[MAX_DEV];
static struct nvmlDevice_st handles[MAX_DEV];
static struct nvmlDevice_st mig_handles[MAX_DEV][MAX_MIG];
static struct fail fails[MAX_FAIL];
static int n_fails, n_gpus, init_code, hang_ms, loaded, refcount, cuda_version = -1;
static char driver_version[TEXT], nvml_version[TEXT];

static void copy(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src); }

static void device_line(int i, const char *field, const char *v) {
    struct gpu *g = &gpus[i];
#define SET(flag) g->has[flag] = 1
    if (!strcmp(field, "name")) { copy(g->name, sizeof g->name, v); SET(F_NAME); }
    else if (!strcmp(field, "uuid")) { copy(g->uuid, sizeof g->uuid, v); SET(F_UUID); }
    else if (!strcmp(field, "bus_id")) { copy(g->bus, sizeof g->bus, v); SET(F_BUS); }
    else if (!strcmp(field, "cc") && sscanf(v, "%d %d", &g->cc_major, &g->cc_minor) == 2) SET(F_CC);
    else if (!strcmp(field, "memory") && sscanf(v, "%llu %llu %llu", &g->total, &g->used, &g->free_b) == 3) SET(F_MEM);
    else if (!strcmp(field, "reserved")) g->reserved = strtoull(v, NULL, 10);
    else if (!strcmp(field, "pcie_gen_current") && sscanf(v, "%u", &g->gen_cur) == 1) SET(F_GEN_CUR);
    else if (!strcmp(field, "pcie_gen_max") && sscanf(v, "%u", &g->gen_max) == 1) SET(F_GEN_MAX);
    else if (!strcmp(field, "pcie_gen_gpu_max") && sscanf(v, "%u", &g->gen_gpu_max) == 1) SET(F_GEN_GPU_MAX);
    else if (!strcmp(field, "pcie_width_current") && sscanf(v, "%u", &g->width_cur) == 1) SET(F_WIDTH_CUR);
    else if (!strcmp(field, "pcie_width_max") && sscanf(v, "%u", &g->width_max) == 1) SET(F_WIDTH_MAX);
    else if (!strcmp(field, "persistence_mode") && sscanf(v, "%u", &g->persist) == 1) SET(F_PERSIST);
    else if (!strcmp(field, "mig_mode") && sscanf(v, "%u %u", &g->mig_cur, &g->mig_pend) == 2) SET(F_MIG);
    else if (!strcmp(field, "ecc_mode") && sscanf(v, "%u %u", &g->ecc_cur, &g->ecc_pend) == 2) SET(F_ECC);
    else if (!strcmp(field, "ecc_volatile_uncorrected") && sscanf(v, "%llu", &g->ecc_vol) == 1) SET(F_ECC_VOL);
    else if (!strcmp(field, "ecc_aggregate_uncorrected") && sscanf(v, "%llu", &g->ecc_agg) == 1) SET(F_ECC_AGG);
    else if (!strcmp(field, "retired_pages_pending") && sscanf(v, "%u", &g->retired) == 1) SET(F_RETIRED);
    else if (!strcmp(field, "remapped_rows")
             && sscanf(v, "%u %u %u %u", &g->remap[0], &g->remap[1], &g->remap[2], &g->remap[3]) == 4) SET(F_REMAP);
    else if (!strcmp(field, "clock_event_reasons") && sscanf(v, "%llu", &g->reasons) == 1) SET(F_REASONS);
    else if (!strcmp(field, "temperature_c") && sscanf(v, "%u", &g->temp) == 1) SET(F_TEMP);
    else if (!strcmp(field, "power_mw") && sscanf(v, "%u", &g->power_mw) == 1) SET(F_POWER);
    else if (!strcmp(field, "performance_state") && sscanf(v, "%u", &g->pstate) == 1) SET(F_PSTATE);
    else if (!strcmp(field, "utilization_gpu") && sscanf(v, "%u", &g->util) == 1) SET(F_UTIL);
    else if (!strcmp(field, "procs")) SET(F_PROCS); /* the list is known, even when empty */
    else if (!strcmp(field, "gprocs")) SET(F_GPROCS);
    else if (!strcmp(field, "proc") || !strcmp(field, "gproc")) {
        int graphics = field[0] == 'g';
        int *n = graphics ? &g->n_gprocs : &g->n_procs;
        if (*n < MAX_PROC) {
            struct proc *p = graphics ? &g->gprocs[*n] : &g->procs[*n];
            int used = 0;
            if (sscanf(v, "%u %llu %n", &p->pid, &p->used, &used) >= 2) {
                copy(p->name, sizeof p->name, v + used);
                (*n)++;
                SET(graphics ? F_GPROCS : F_PROCS);
            }
        }
    } else if (!strcmp(field, "mig_slots") && sscanf(v, "%u", &g->mig_slots) == 1) {
        if (g->mig_slots > MAX_MIG) g->mig_slots = MAX_MIG;
        SET(F_MIG_SLOTS);
    } else if (!strcmp(field, "mig_dev")) {
        unsigned int slot;
        char uuid[TEXT];
        unsigned long long total, used;
        if (sscanf(v, "%u %127s %llu %llu", &slot, uuid, &total, &used) == 4 && slot < MAX_MIG) {
            struct mig *m = &g->migs[slot];
            m->present = 1; copy(m->uuid, sizeof m->uuid, uuid); m->total = total; m->used = used;
        }
    }
#undef SET
}

static void load(void) {
    if (loaded) return;
    loaded = 1;
    for (int i = 0; i < MAX_DEV; i++) {
        handles[i].index = i; handles[i].slot = -1;
        for (int s = 0; s < MAX_MIG; s++) { mig_handles[i][s].index = i; mig_handles[i][s].slot = s; }
    }
    const char *path = getenv("GPUDOCTOR_SIM_NVML");
    FILE *fh = path ? fopen(path, "r") : NULL;
    if (!fh) { init_code = NVML_ERROR_DRIVER_NOT_LOADED; return; } /* no machine described: no driver */
    char line[1024], key[96];
    int lines = 0;
    while (fgets(line, sizeof line, fh) && lines++ < 4096) {
        line[strcspn(line, "\n")] = 0;
        char *space = strchr(line, ' ');
        const char *v = space ? space + 1 : "";
        if (space) *space = 0;
        copy(key, sizeof key, line);
        int i;
        char field[64];
        if (sscanf(key, "dev.%d.%63s", &i, field) == 2) { if (i >= 0 && i < MAX_DEV) device_line(i, field, v); }
        else if (!strcmp(key, "init")) init_code = atoi(v);
        else if (!strcmp(key, "hang_ms")) hang_ms = atoi(v);
        else if (!strcmp(key, "driver_version")) copy(driver_version, sizeof driver_version, v);
        else if (!strcmp(key, "nvml_version")) copy(nvml_version, sizeof nvml_version, v);
        else if (!strcmp(key, "cuda_driver_version")) cuda_version = atoi(v);
        else if (!strcmp(key, "device_count")) { n_gpus = atoi(v); if (n_gpus < 0) n_gpus = 0; if (n_gpus > MAX_DEV) n_gpus = MAX_DEV; }
        else if (!strcmp(key, "fail") && n_fails < MAX_FAIL) {
            struct fail *f = &fails[n_fails];
            if (sscanf(v, "%63s %d %d", f->fn, &f->dev, &f->code) == 3) n_fails++;
        }
    }
    fclose(fh);
}

/* The injected error of `fn` on device `dev` (-1: a system call), or NVML_SUCCESS. */
static nvmlReturn_t injected(const char *fn, int dev) {
    for (int i = 0; i < n_fails; i++)
        if (!strcmp(fails[i].fn, fn) && (fails[i].dev == -1 || fails[i].dev == dev)) return (nvmlReturn_t)fails[i].code;
    return NVML_SUCCESS;
}

/* The GPU a handle names, or NULL for a pointer that is not one of ours (a truncated or garbage handle). */
static struct gpu *gpu_of(nvmlDevice_t d) {
    if (!d) return NULL;
    for (int i = 0; i < n_gpus; i++) {
        if (d == &handles[i]) return &gpus[i];
        for (int s = 0; s < MAX_MIG; s++) if (d == &mig_handles[i][s]) return &gpus[i];
    }
    return NULL;
}

#define ENTER(fn) do { if (!refcount) return NVML_ERROR_UNINITIALIZED; nvmlReturn_t _rc = injected(fn, -1); if (_rc) return _rc; } while (0)
#define DEVICE(fn, field)                                                                  \
    if (!refcount) return NVML_ERROR_UNINITIALIZED;                                        \
    struct gpu *g = gpu_of(device);                                                        \
    if (!g) return NVML_ERROR_INVALID_ARGUMENT;                                            \
    { nvmlReturn_t _rc = injected(fn, device->index); if (_rc) return _rc; }               \
    if ((field) >= 0 && !g->has[(field) < 0 ? 0 : (field)]) return NVML_ERROR_NOT_SUPPORTED
#define OUT(p) if (!(p)) return NVML_ERROR_INVALID_ARGUMENT

/* --- initialisation -------------------------------------------------------------------------- */
static nvmlReturn_t init(void) {
    load();
    if (hang_ms > 0) {
        long ms = hang_ms > 600000 ? 600000 : hang_ms; /* a hang, but a bounded one */
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0) {}
    }
    if (init_code) return (nvmlReturn_t)init_code;
    refcount++;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlInit_v2(void) { return init(); }
nvmlReturn_t nvmlInit(void) { return init(); }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; return init(); }
nvmlReturn_t nvmlShutdown(void) {
    if (!refcount) return NVML_ERROR_UNINITIALIZED;
    refcount--;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result) {
    /* The texts of the real library (as nvidia-smi and nvidia-ml-py print them). */
    switch ((int)result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    default: return "Unknown Error";
    }
}

/* --- system ------------------------------------------------------------------------------------- */
static nvmlReturn_t text_out(const char *value, char *buf, unsigned int length) {
    OUT(buf);
    if (!value[0]) return NVML_ERROR_NOT_SUPPORTED;
    if (strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    copy(buf, length, value);
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    ENTER("nvmlSystemGetDriverVersion");
    return text_out(driver_version, version, length);
}
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    ENTER("nvmlSystemGetNVMLVersion");
    return text_out(nvml_version, version, length);
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) {
    ENTER("nvmlSystemGetCudaDriverVersion"); OUT(v);
    if (cuda_version < 0) return NVML_ERROR_NOT_SUPPORTED;
    *v = cuda_version; return NVML_SUCCESS;
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return nvmlSystemGetCudaDriverVersion(v); }
nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length) {
    ENTER("nvmlSystemGetProcessName");
    for (int i = 0; i < n_gpus; i++) {
        for (int p = 0; p < gpus[i].n_procs; p++)
            if (gpus[i].procs[p].pid == pid && gpus[i].procs[p].name[0]) return text_out(gpus[i].procs[p].name, name, length);
        for (int p = 0; p < gpus[i].n_gprocs; p++)
            if (gpus[i].gprocs[p].pid == pid && gpus[i].gprocs[p].name[0]) return text_out(gpus[i].gprocs[p].name, name, length);
    }
    return NVML_ERROR_NOT_FOUND;
}

/* --- devices --------------------------------------------------------------------------------------- */
static nvmlReturn_t count(unsigned int *n, const char *fn) { ENTER(fn); OUT(n); *n = (unsigned int)n_gpus; return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { return count(n, "nvmlDeviceGetCount_v2"); }
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { return count(n, "nvmlDeviceGetCount_v2"); }
static nvmlReturn_t by_index(unsigned int index, nvmlDevice_t *device) {
    if (!refcount) return NVML_ERROR_UNINITIALIZED;
    OUT(device);
    if (index >= (unsigned int)n_gpus) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = injected("nvmlDeviceGetHandleByIndex_v2", (int)index);
    if (rc) return rc;
    *device = &handles[index];
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) { return by_index(index, device); }
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) { return by_index(index, device); }

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    DEVICE("nvmlDeviceGetName", F_NAME);
    return text_out(g->name, name, length);
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    DEVICE("nvmlDeviceGetUUID", -1);
    if (device->slot >= 0) {
        struct mig *m = &g->migs[device->slot];
        return m->present ? text_out(m->uuid, uuid, length) : NVML_ERROR_NOT_FOUND;
    }
    return g->has[F_UUID] ? text_out(g->uuid, uuid, length) : NVML_ERROR_NOT_SUPPORTED;
}
static nvmlReturn_t pci(nvmlDevice_t device, nvmlPciInfo_t *info, const char *fn) {
    DEVICE(fn, F_BUS);
    OUT(info);
    memset(info, 0, sizeof *info);
    copy(info->busId, sizeof info->busId, g->bus);
    copy(info->busIdLegacy, sizeof info->busIdLegacy, g->bus + (strlen(g->bus) > 12 ? 4 : 0));
    sscanf(g->bus, "%x:%x:%x", &info->domain, &info->bus, &info->device);
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *info) { return pci(device, info, "nvmlDeviceGetPciInfo_v3"); }
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *info) { return pci(device, info, "nvmlDeviceGetPciInfo_v3"); }
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *info) { return pci(device, info, "nvmlDeviceGetPciInfo_v3"); }
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    DEVICE("nvmlDeviceGetCudaComputeCapability", F_CC);
    OUT(major); OUT(minor);
    *major = g->cc_major; *minor = g->cc_minor; return NVML_SUCCESS;
}

/* Memory: a MIG device answers its own slice; v1 and v2 structs, v2 refusing a wrong version. */
static nvmlReturn_t memory(nvmlDevice_t device, unsigned long long *total, unsigned long long *used,
                           unsigned long long *free_b, unsigned long long *reserved, const char *fn) {
    DEVICE(fn, -1);
    if (device->slot >= 0) {
        struct mig *m = &g->migs[device->slot];
        if (!m->present) return NVML_ERROR_NOT_FOUND;
        *total = m->total; *used = m->used; *free_b = m->total - m->used; *reserved = 0;
        return NVML_SUCCESS;
    }
    if (!g->has[F_MEM]) return NVML_ERROR_NOT_SUPPORTED;
    *total = g->total; *used = g->used; *free_b = g->free_b; *reserved = g->reserved;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *m) {
    /* nvml.h: v1's used is the "Sum of Reserved and Allocated device memory" (a real H200 with driver
     * 580.159.04 answered so: v1 used = v2 used + v2 reserved); the data's used is v2's, allocated alone. */
    unsigned long long reserved = 0;
    if (!m) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = memory(device, &m->total, &m->used, &m->free, &reserved, "nvmlDeviceGetMemoryInfo");
    if (rc == NVML_SUCCESS) m->used += reserved;
    return rc;
}
#ifndef BEFORE_R510
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *m) {
    if (!m) return NVML_ERROR_INVALID_ARGUMENT;
    if (m->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    return memory(device, &m->total, &m->used, &m->free, &m->reserved, "nvmlDeviceGetMemoryInfo");
}
#endif

#define UINT_FIELD(fn, flag, member)                                 \
    nvmlReturn_t fn(nvmlDevice_t device, unsigned int *out) {        \
        DEVICE(#fn, flag);                                           \
        OUT(out);                                                    \
        *out = g->member;                                            \
        return NVML_SUCCESS;                                         \
    }
UINT_FIELD(nvmlDeviceGetCurrPcieLinkGeneration, F_GEN_CUR, gen_cur)
UINT_FIELD(nvmlDeviceGetMaxPcieLinkGeneration, F_GEN_MAX, gen_max)
#ifndef BEFORE_R510
UINT_FIELD(nvmlDeviceGetGpuMaxPcieLinkGeneration, F_GEN_GPU_MAX, gen_gpu_max)
#endif
UINT_FIELD(nvmlDeviceGetCurrPcieLinkWidth, F_WIDTH_CUR, width_cur)
UINT_FIELD(nvmlDeviceGetMaxPcieLinkWidth, F_WIDTH_MAX, width_max)
UINT_FIELD(nvmlDeviceGetPowerUsage, F_POWER, power_mw)
UINT_FIELD(nvmlDeviceGetMaxMigDeviceCount, F_MIG_SLOTS, mig_slots)

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode) {
    DEVICE("nvmlDeviceGetPersistenceMode", F_PERSIST);
    OUT(mode);
    *mode = g->persist ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED; return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *state) {
    DEVICE("nvmlDeviceGetPerformanceState", F_PSTATE);
    OUT(state);
    *state = (nvmlPstates_t)g->pstate; return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *rates) {
    DEVICE("nvmlDeviceGetUtilizationRates", F_UTIL);
    OUT(rates);
    rates->gpu = g->util; rates->memory = 0; return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending) {
    DEVICE("nvmlDeviceGetMigMode", F_MIG);
    OUT(current); OUT(pending);
    *current = g->mig_cur; *pending = g->mig_pend; return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig) {
    DEVICE("nvmlDeviceGetMigDeviceHandleByIndex", F_MIG_SLOTS);
    OUT(mig);
    if (device->slot >= 0 || !g->mig_cur) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= g->mig_slots) return NVML_ERROR_INVALID_ARGUMENT;
    if (!g->migs[index].present) return NVML_ERROR_NOT_FOUND; /* an empty slot */
    *mig = &mig_handles[device->index][index];
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending) {
    DEVICE("nvmlDeviceGetEccMode", F_ECC);
    OUT(current); OUT(pending);
    *current = g->ecc_cur ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    *pending = g->ecc_pend ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                                         unsigned long long *n) {
    DEVICE("nvmlDeviceGetTotalEccErrors", -1);
    OUT(n);
    if (type != NVML_MEMORY_ERROR_TYPE_UNCORRECTED) return NVML_ERROR_NOT_SUPPORTED; /* only these are recorded */
    if (counter == NVML_VOLATILE_ECC) { if (!g->has[F_ECC_VOL]) return NVML_ERROR_NOT_SUPPORTED; *n = g->ecc_vol; }
    else if (counter == NVML_AGGREGATE_ECC) { if (!g->has[F_ECC_AGG]) return NVML_ERROR_NOT_SUPPORTED; *n = g->ecc_agg; }
    else return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *pending) {
    DEVICE("nvmlDeviceGetRetiredPagesPendingStatus", F_RETIRED);
    OUT(pending);
    *pending = g->retired ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED; return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corr, unsigned int *unc, unsigned int *pending,
                                       unsigned int *failure) {
    DEVICE("nvmlDeviceGetRemappedRows", F_REMAP);
    OUT(corr); OUT(unc); OUT(pending); OUT(failure);
    *corr = g->remap[0]; *unc = g->remap[1]; *pending = g->remap[2]; *failure = g->remap[3];
    return NVML_SUCCESS;
}
static nvmlReturn_t reasons(nvmlDevice_t device, unsigned long long *out, const char *fn) {
    DEVICE(fn, F_REASONS);
    OUT(out);
    *out = g->reasons; return NVML_SUCCESS;
}
#if !defined(BEFORE_R535) && !defined(BEFORE_R510)
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *out) {
    return reasons(device, out, "nvmlDeviceGetCurrentClocksEventReasons");
}
#endif
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *out) {
    return reasons(device, out, "nvmlDeviceGetCurrentClocksThrottleReasons");
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *temp) {
    DEVICE("nvmlDeviceGetTemperature", F_TEMP);
    OUT(temp);
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    *temp = g->temp; return NVML_SUCCESS;
}

/* Running compute (and graphics) processes, in each struct version: the caller's count says how many fit; too
 * few is INSUFFICIENT_SIZE with the count needed (how nvidia-ml-py sizes its array), none is SUCCESS. */
#define PROCESSES_OF(fn, type, extra, flag, count, list)                              \
    nvmlReturn_t fn(nvmlDevice_t device, unsigned int *infoCount, type *infos) {      \
        DEVICE(#fn, flag);                                                            \
        OUT(infoCount);                                                               \
        unsigned int n = (unsigned int)g->count;                                      \
        if (n == 0) { *infoCount = 0; return NVML_SUCCESS; }                          \
        if (!infos || *infoCount < n) { *infoCount = n; return NVML_ERROR_INSUFFICIENT_SIZE; } \
        for (unsigned int i = 0; i < n; i++) {                                        \
            memset(&infos[i], 0, sizeof infos[i]);                                    \
            infos[i].pid = g->list[i].pid;                                            \
            infos[i].usedGpuMemory = g->list[i].used;                                 \
            extra                                                                     \
        }                                                                             \
        *infoCount = n;                                                               \
        return NVML_SUCCESS;                                                          \
    }
#define PROCESSES(fn, type, extra) PROCESSES_OF(fn, type, extra, F_PROCS, n_procs, procs)
#define GRAPHICS(fn, type, extra) PROCESSES_OF(fn, type, extra, F_GPROCS, n_gprocs, gprocs)
#define MIG_IDS infos[i].gpuInstanceId = 0xFFFFFFFFu; infos[i].computeInstanceId = 0xFFFFFFFFu;
PROCESSES(nvmlDeviceGetComputeRunningProcesses, nvmlProcessInfo_v1_t, )
PROCESSES(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, MIG_IDS)
#ifndef BEFORE_R510
PROCESSES(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t, MIG_IDS)
#endif
GRAPHICS(nvmlDeviceGetGraphicsRunningProcesses, nvmlProcessInfo_v1_t, )
GRAPHICS(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t, MIG_IDS)
#ifndef BEFORE_R510
GRAPHICS(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t, MIG_IDS)
#endif
