// Experiment (issue 11, twelfth session; not part of the build): TMA copies of tiles whose
// rows are not 16-byte aligned, through one tensor map per row residue class (rows r = 8q + s:
// a 16-byte aligned stride of 8 * ld elements), and one-row boxes. Build and run on the H200:
//   nvcc -O2 -arch=sm_90a -std=c++17 tma_unaligned_rows.cu -o tma_rows -lcuda
//   ./tma_rows 0..3   one block, boxes at columns 0, 64, 5, 960, 950, 999 (residue maps or one
//                     big box; 128-byte swizzle or none). Every form that starts a box at a
//                     column that is not 16 bytes into its row dies with an illegal
//                     instruction: that is the finding (bench/RESULTS.md, twelfth session).
//   ./tma_rows 4      persistent fill loop (no math) over GEMM tiles: one big box per operand
//                     vs one-row boxes vs 8 residue boxes for A (env V0/V1 pick the shapes).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cstring>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
#define CD(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char *s; cuGetErrorString(e, &s); printf("CU %s at %d: %s\n", #x, __LINE__, s); exit(1);} } while (0)

struct Maps { CUtensorMap m[8]; int delta[8]; };

__device__ __forceinline__ uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbarInit(uint64_t *b, int n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n)); }
__device__ __forceinline__ void mbarExpect(uint64_t *b, int bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(bytes)); }
__device__ __forceinline__ void mbarArrive(uint64_t *b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(b))); }
__device__ __forceinline__ void mbarWait(uint64_t *b, int phase) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" :: "r"(smem(b)), "r"(phase));
}
__device__ __forceinline__ void tma2d(void *dst, const CUtensorMap *map, int c0, int c1, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(dst)), "l"(map), "r"(c0), "r"(c1), "r"(smem(bar)) : "memory");
}

// ---------------------------------------------------------------- 1. correctness
__global__ void rowsKernel(const __grid_constant__ Maps maps, const __grid_constant__ CUtensorMap big, int useBig,
                           int row0, int col0, int rows, uint16_t *out) {
  extern __shared__ __align__(1024) unsigned char raw[];
  unsigned char *tile = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) { mbarInit(&bar, 1); asm volatile("fence.mbarrier_init.release.cluster;"); }
  __syncthreads();
  if (threadIdx.x == 0) mbarExpect(&bar, rows * 128);
  __syncwarp();
  if (threadIdx.x < 32) {
    if (useBig) { if (threadIdx.x == 0) tma2d(tile, &big, col0, row0, &bar); }
    else for (int r = threadIdx.x; r < rows; r += 32) {
      int g = row0 + r, s = g & 7;
      tma2d(tile + r * 128, &maps.m[s], col0 + maps.delta[s], g >> 3, &bar);
    }
  }
  mbarWait(&bar, 0);
  for (int i = threadIdx.x; i < rows * 64; i += blockDim.x) out[i] = ((uint16_t *)tile)[i];
}

// ---------------------------------------------------------------- 2. throughput
// A [M, K] (ld lda), B [K, N] (ld ldb); tiles BM=128 x BK=64 of A, BK=64 x BN=256 of B.
struct Fill { Maps a, b, a16; CUtensorMap abig, bbig; int M, N, K; int mode; };
constexpr int STAGES = 4;
__global__ void __launch_bounds__(256) fillKernel(const __grid_constant__ Fill f, unsigned long long *sink) {
  extern __shared__ __align__(1024) unsigned char raw[];
  unsigned char *ring = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int stageBytes = 128 * 128 + 64 * 512;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) { mbarInit(&full[s], 1); mbarInit(&empty[s], 4); }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  int tilesM = (f.M + 127) / 128, tilesN = (f.N + 255) / 256, kt = (f.K + 63) / 64;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned long long acc = 0;
  int it = 0;
  for (int t = blockIdx.x; t < tilesM * tilesN; t += gridDim.x) {
    int m0 = (t % tilesM) * 128, n0 = (t / tilesM) * 256;
    for (int k = 0; k < kt; ++k, ++it) {
      int st = it % STAGES, ph = (it / STAGES) & 1;
      unsigned char *sa = ring + st * stageBytes, *sb = sa + 128 * 128;
      if (warp == 0) {
        if (it >= STAGES) mbarWait(&empty[st], ph ^ 1);
        if (lane == 0) mbarExpect(&full[st], stageBytes);
        __syncwarp();
        int k0 = k * 64;
        if (f.mode == 0) {
          if (lane == 0) {
            tma2d(sa, &f.abig, k0, m0, &full[st]);
            for (int c = 0; c < 4; ++c) tma2d(sb + c * 64 * 128, &f.bbig, n0 + c * 64, k0, &full[st]);
          }
        } else {
          if (f.mode == 3) { // A: 8 residue boxes of 16 rows (rows permuted), B big
            if (lane < 8) { int s = lane; int q0 = (m0 + s) >> 3; tma2d(sa + s * 16 * 128, &f.a16.m[s], k0 + f.a16.delta[s], q0, &full[st]); }
            if (lane == 0) for (int c = 0; c < 4; ++c) tma2d(sb + c * 64 * 128, &f.bbig, n0 + c * 64, k0, &full[st]);
          } else if (f.mode == 1) { // A rows one box each, B big
            for (int r = lane; r < 128; r += 32) { int g = m0 + r, s = g & 7; tma2d(sa + r * 128, &f.a.m[s], k0 + f.a.delta[s], g >> 3, &full[st]); }
            if (lane == 0) for (int c = 0; c < 4; ++c) tma2d(sb + c * 64 * 128, &f.bbig, n0 + c * 64, k0, &full[st]);
          } else { // both
            for (int r = lane; r < 128; r += 32) { int g = m0 + r, s = g & 7; tma2d(sa + r * 128, &f.a.m[s], k0 + f.a.delta[s], g >> 3, &full[st]); }
            for (int i = lane; i < 256; i += 32) { int r = i & 63, c = i >> 6; int g = k0 + r, s = g & 7;
              tma2d(sb + c * 64 * 128 + r * 128, &f.b.m[s], n0 + c * 64 + f.b.delta[s], g >> 3, &full[st]); }
          }
        }
      } else if (warp >= 4) { // 4 consumer warps: wait, touch, release
        mbarWait(&full[st], ph);
        acc += ((volatile unsigned *)sa)[lane + warp * 32];
        __syncwarp();
        if (lane == 0) mbarArrive(&empty[st]);
      }
    }
  }
  if (acc == 0x123456789ull) *sink = acc;
}

#define encode cuTensorMapEncodeTiled
static CUtensorMapSwizzle gSwizzle = CU_TENSOR_MAP_SWIZZLE_128B;
static void encodeMap(CUtensorMap *m, void *base, uint64_t cols, uint64_t rows, uint64_t strideBytes, uint32_t boxC, uint32_t boxR) {
  cuuint64_t dims[2] = {cols, rows}; cuuint64_t strides[1] = {strideBytes};
  cuuint32_t box[2] = {boxC, boxR}; cuuint32_t es[2] = {1, 1};
  CD(encode(m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
            gSwizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}
// Residue maps of a [rows, cols] tensor at base (element pointer), row stride ld elements.
static void residueMaps(Maps *maps, uint16_t *base, int64_t rows, int64_t cols, int64_t ld, uint32_t boxC, uint32_t boxR = 1) {
  for (int s = 0; s < 8; ++s) {
    uintptr_t start = (uintptr_t)(base + s * ld);
    uintptr_t aligned = start & ~(uintptr_t)15;
    int delta = (int)((start - aligned) / 2);
    int64_t n = rows > s ? (rows - s + 7) / 8 : 1;
    maps->delta[s] = delta;
    encodeMap(&maps->m[s], (void *)aligned, getenv("PAD") ? (cols + delta + 7) / 8 * 8 : cols + delta, n, 8 * ld * 2, boxC, boxR);
  }
}

int main(int argc, char **argv) {
  CD(cuInit(0));
  int test = argc > 1 ? atoi(argv[1]) : 0;
  if (test == 1 || test == 3) gSwizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  int useBig = test >= 2;
  // ---- 1
  if (test < 4) {
    int rows = 300, cols = getenv("COLS") ? atoi(getenv("COLS")) : 1001, ld = 1001, off = 1;
    std::vector<uint16_t> h((size_t)rows * 1024 + 64);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (uint16_t)(i * 2654435761u >> 7);
    uint16_t *d; CK(cudaMalloc(&d, h.size() * 2 + 256));
    CK(cudaMemcpy(d, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
    uint16_t *base = d + off;
    Maps maps; residueMaps(&maps, base, rows, cols, ld, 64);
    CUtensorMap big; memset(&big, 0, sizeof big);
    if (useBig) { base = d; ld = 1008; encodeMap(&big, d, cols, rows, ld * 2, 64, 128); off = 0; }
    uint16_t *out; CK(cudaMalloc(&out, 128 * 64 * 2));
    CK(cudaFuncSetAttribute(rowsKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 128 * 128 + 1024));
    int bad = 0, checked = 0;
    int cases[][2] = {{0, 0}, {8, 64}, {3, 5}, {128, 960}, {200, 950}, {5, 999}};
    for (auto &c : cases) {
      int row0 = c[0], col0 = c[1], n = 128;
      CK(cudaMemset(out, 0xff, 128 * 64 * 2));
      rowsKernel<<<1, 128, 128 * 128 + 1024>>>(maps, big, useBig, row0, col0, n, out);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      std::vector<uint16_t> o(128 * 64);
      CK(cudaMemcpy(o.data(), out, o.size() * 2, cudaMemcpyDeviceToHost));
      for (int r = 0; r < n; ++r) for (int cc = 0; cc < 64; ++cc) {
        int gr = row0 + r, gc = col0 + cc;
        uint16_t want = (gr < rows && gc < cols) ? h[(size_t)gr * ld + gc + off] : 0;
        uint16_t got = o[r * 64 + (((cc / 8) ^ (gSwizzle == CU_TENSOR_MAP_SWIZZLE_NONE ? 0 : r % 8)) * 8) + cc % 8];
        ++checked;
        if (got != want && bad++ < 5) printf("  mismatch row0 %d col0 %d r %d c %d: got %04x want %04x\n", row0, col0, r, cc, got, want);
      }
    }
    printf("test %d correctness (%s, %s): %d of %d wrong\n", test, useBig ? "big box" : "1-row boxes", gSwizzle ? "sw128" : "no swizzle", bad, checked);
    return 0;
  }
  // ---- 2
  for (int variant = getenv("V0") ? atoi(getenv("V0")) : 0; variant < (getenv("V1") ? atoi(getenv("V1")) : 3); ++variant) {
    int M = 4096, N = 4096, K = 4096;
    int lda = K, ldb = N, offA = 0;
    const char *name = "aligned 4096^3";
    if (variant == 1) { K = 4095; lda = 4095; name = "odd K 4096x4096x4095"; }
    if (variant == 2) { N = 4095; ldb = 4095; name = "odd N 4096x4095x4096"; }
    if (variant == 3) { K = 4095; lda = 4096; name = "K 4095, lda 4096"; }
    uint16_t *A, *B; CK(cudaMalloc(&A, (size_t)M * lda * 2 + 64)); CK(cudaMalloc(&B, (size_t)K * ldb * 2 + 64));
    CK(cudaMemset(A, 0x3c, (size_t)M * lda * 2)); CK(cudaMemset(B, 0x3c, (size_t)K * ldb * 2));
    Fill f; memset(&f, 0, sizeof f); f.M = M; f.N = N; f.K = K;
    residueMaps(&f.a, A + offA, M, K, lda, 64); residueMaps(&f.a16, A + offA, M, K, lda, 64, 16); residueMaps(&f.b, B, K, N, ldb, 64);
    bool aOk = (lda * 2) % 16 == 0, bOk = (ldb * 2) % 16 == 0;
    if (aOk) encodeMap(&f.abig, A, getenv("PADK") ? (K + 7) / 8 * 8 : K, M, lda * 2, 64, 128);
    if (bOk) encodeMap(&f.bbig, B, N, K, ldb * 2, 64, 64);
    unsigned long long *sink; CK(cudaMalloc(&sink, 8));
    int smemBytes = STAGES * (128 * 128 + 64 * 512) + 1024;
    CK(cudaFuncSetAttribute(fillKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes));
    double bytes = (double)((M + 127) / 128) * ((N + 255) / 256) * ((K + 63) / 64) * (128 * 128 + 64 * 512);
    for (int mode = 0; mode < 4; ++mode) {
      if (mode == 0 && !(aOk && bOk)) continue;
      if ((mode == 1 || mode == 3) && !bOk) continue;
      if (mode == 2 && variant != 2) continue;
      f.mode = mode;
      cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
      for (int w = 0; w < 3; ++w) fillKernel<<<132, 256, smemBytes>>>(f, sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0));
      for (int w = 0; w < 20; ++w) fillKernel<<<132, 256, smemBytes>>>(f, sink);
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ms /= 20;
      printf("%-24s mode %d (%s): %.1f us, smem fill %.2f TB/s (GEMM at 716 TFLOP/s needs %.2f TB/s)\n", name, mode,
             mode == 0 ? "big boxes" : mode == 1 ? "A rows, B big" : mode == 3 ? "A 8 residue boxes" : "A rows, B rows", ms * 1e3, bytes / ms / 1e9,
             bytes / (2.0 * M * N * K / 716e12) / 1e12);
    }
    CK(cudaFree(A)); CK(cudaFree(B));
  }
  return 0;
}
