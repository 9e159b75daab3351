// GPU test of test/gpu/kernels/dequant_gemm_t.tile (issue 17's silent miscompile): int4 weights
// dequantized into a register fragment, A from that fragment, B from shared memory transposed,
// the output transposed through strides. Built for sm_90a (register strategy), sm_80 (PTX JIT)
// and with --codegen=reference. Random inputs, CT poisoned, guard bytes, double reference.

#include "GpuTest.h"
#include "dequant_gemm_t.h"
#include "dequant_gemm_t_ref.h"
#include "dequant_gemm_t_sm_80.h"
#include "dequant_gemm_t_w4.h"

#include <cstring>
#include <functional>

using namespace tlc::gputest;

namespace {
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
constexpr int64_t GS = 128;

bool runCase(const GpuContext &gpu, const char *what, Launch launch, int64_t m, int64_t n,
             int64_t k, uint32_t seed) {
  int64_t kh = (k + 1) / 2, kg = (k + GS - 1) / GS, ldc = n + 3;
  std::mt19937 gen(seed);
  std::vector<float> a(m * k);
  randomFill(a, seed + 1);
  std::vector<uint16_t> aBits(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    aBits[i] = toF16(a[i]);
    a[i] = fromF16(aBits[i]);
  }
  std::vector<uint8_t> bq(kh * n);
  for (uint8_t &v : bq)
    v = static_cast<uint8_t>(gen() & 0xFF);
  std::vector<float> sc(kg * n);
  randomFill(sc, seed + 2);
  std::vector<uint16_t> scBits(sc.size());
  for (size_t i = 0; i < sc.size(); ++i) {
    scBits[i] = toF16(0.05f * sc[i]);
    sc[i] = fromF16(scBits[i]);
  }
  size_t ctElems = m ? (m - 1) * ldc + n : 0;
  DeviceBuffer da(a.size() * 2), dbq(bq.size()), dsc(sc.size() * 2),
      dct((ctElems + GuardElements) * 2);
  if (!a.empty())
    CHECK_CU(cuMemcpyHtoD(da.ptr(), aBits.data(), aBits.size() * 2));
  CHECK_CU(cuMemcpyHtoD(dbq.ptr(), bq.data(), bq.size()));
  CHECK_CU(cuMemcpyHtoD(dsc.ptr(), scBits.data(), scBits.size() * 2));
  poison(dct, gpu.stream());
  CHECK_TLC(launch(gpu.stream(), da.ptr(), dbq.ptr(), dsc.ptr(), dct.ptr(), m, k, kh, n, kg, ldc));
  gpu.synchronize();
  std::vector<uint16_t> ct(ctElems);
  if (ctElems)
    CHECK_CU(cuMemcpyDtoH(ct.data(), dct.ptr(), ctElems * 2));
  // The dequantized weights, rounded to f16 as the kernel's f16 product is.
  std::vector<float> w(k * n);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      uint8_t byte = bq[(kk / 2) * n + j];
      int q = (kk % 2 == 0 ? byte % 16 : byte / 16) - 8;
      w[kk * n + j] = fromF16(toF16(float(q) * sc[(kk / GS) * n + j]));
    }
  std::vector<float> got(m * n);
  std::vector<double> ref(m * n), magnitude(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        double t = double(a[i * k + kk]) * w[kk * n + j];
        sum += t;
        mag += std::fabs(t);
      }
      ref[i * n + j] = sum;
      magnitude[i * n + j] = mag;
      got[i * n + j] = fromF16(ct[i * ldc + j]);
    }
  Comparison cmp = compare(got, ref, magnitude, 2e-3);
  if (!cmp.pass) {
    // Where the wrong elements are: by row of C^T (n) and column (m), in groups of 8.
    std::vector<size_t> byN(16), byM(8);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double err = std::fabs(got[i * n + j] - ref[i * n + j]);
        if (!(err <= 2e-3 * std::max(std::fabs(ref[i * n + j]), magnitude[i * n + j]) + 1e-30)) {
          ++byN[(j % 128) / 8];
          ++byM[(i % 64) / 8];
        }
      }
    std::printf("  wrong by n %% 128 / 8:");
    for (size_t v : byN)
      std::printf(" %zu", v);
    std::printf("\n  wrong by m %% 64 / 8:");
    for (size_t v : byM)
      std::printf(" %zu", v);
    std::printf("\n");
  }
  char name[128];
  std::snprintf(name, sizeof(name), "dequant_gemm_t %s M=%lld N=%lld K=%lld", what, (long long)m,
                (long long)n, (long long)k);
  return report(name, cmp, got, ref, clobberedGuardBytes(dct, ctElems * 2));
}
} // namespace

int main() {
  GpuContext gpu;
  struct Build {
    const char *what;
    Launch launch;
  } builds[] = {{"sm_90a", tlc::dequant_gemm_t::launch},
                {"sm_90a-4warps", tlc::dequant_gemm_t_w4::launch},
                {"sm_80-jit", tlc::dequant_gemm_t_sm_80::launch},
                {"reference", tlc::dequant_gemm_t_ref::launch}};
  struct Shape {
    int64_t m, n, k;
  } shapes[] = {{1, 128, 256},    {2, 128, 256},     {3, 128, 256},  {64, 128, 256}, {64, 256, 512},
                {1000, 256, 512}, {1000, 1111, 778}, {3, 1111, 778}, {65, 129, 130}};
  bool ok = true;
  uint32_t seed = 1;
  for (const Build &build : builds)
    for (const Shape &s : shapes)
      ok &= runCase(gpu, build.what, build.launch, s.m, s.n, s.k, seed++);
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
