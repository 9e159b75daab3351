// GPU test of kernels/fp8_gemm.tile: C = (A B^T) * SA * SB with 8-bit float A [M, K] and
// B [N, K], bf16 C. Each configuration (variant) of the shipped sm_90a kernel, in f8e4m3 and
// (kernels/fp8_gemm.tile -D T=f8e5m2) f8e5m2, on ragged shapes (M, N, K not multiples of the
// tiles, M = 1), rows that are not 16-byte aligned (K odd: the entry for tensors TMA cannot
// read) and a base one byte off; plus the generic lowering (sm_80's, PTX JIT) on small tiles.
// Random codes in [-1, 1] (never zero), C poisoned, guard bytes, a double reference.

#include "Float8Reference.h"
#include "GpuTest.h"
#include "fp8_gemm.h"
#include "fp8_gemm_e5m2.h"
#include "fp8_gemm_sm_80.h"

using namespace tlc::gputest;

namespace {
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, int64_t, int64_t, int64_t);

struct Build {
  const char *what;
  bool e4m3;
  Launch launch;
};

/// Random codes of values in [-1, 1], never zero.
std::vector<uint8_t> randomCodes(bool e4m3, size_t count, uint32_t seed) {
  std::vector<float> values(count);
  randomFill(values, seed);
  std::vector<uint8_t> codes(count);
  for (size_t i = 0; i < count; ++i) {
    do {
      codes[i] = encodeFloat8(e4m3, values[i]);
      values[i] *= 2.0f; // a draw that rounds to zero is doubled until it does not
    } while (decodeFloat8(e4m3, codes[i]) == 0.0);
  }
  return codes;
}

/// `offset`: bytes between each operand's allocation and its first element.
bool runCase(const GpuContext &gpu, const Build &build, int64_t m, int64_t n, int64_t k,
             size_t offset, uint32_t seed) {
  std::vector<uint8_t> a = randomCodes(build.e4m3, m * k, seed);
  std::vector<uint8_t> b = randomCodes(build.e4m3, n * k, seed + 1);
  const float scales[2] = {0.75f, 1.5f};
  DeviceBuffer da(a.size() + offset + 1), db(b.size() + offset + 1), dsa(4), dsb(4),
      dc((m * n + GuardElements) * 2);
  if (!a.empty())
    CHECK_CU(cuMemcpyHtoD(da.ptr() + offset, a.data(), a.size()));
  if (!b.empty())
    CHECK_CU(cuMemcpyHtoD(db.ptr() + offset, b.data(), b.size()));
  CHECK_CU(cuMemcpyHtoD(dsa.ptr(), &scales[0], 4));
  CHECK_CU(cuMemcpyHtoD(dsb.ptr(), &scales[1], 4));
  poison(dc, gpu.stream());
  CHECK_TLC(build.launch(gpu.stream(), da.ptr() + offset, db.ptr() + offset, dsa.ptr(), dsb.ptr(),
                         dc.ptr(), m, k, n));
  gpu.synchronize();
  std::vector<uint16_t> c(m * n);
  if (!c.empty())
    CHECK_CU(cuMemcpyDtoH(c.data(), dc.ptr(), c.size() * 2));
  std::vector<double> av(a.size()), bv(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    av[i] = decodeFloat8(build.e4m3, a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    bv[i] = decodeFloat8(build.e4m3, b[i]);
  double scale = double(scales[0]) * scales[1];
  std::vector<float> got(m * n);
  std::vector<double> ref(m * n), magnitude(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        double t = av[i * k + kk] * bv[j * k + kk];
        sum += t;
        mag += std::fabs(t);
      }
      ref[i * n + j] = sum * scale;
      magnitude[i * n + j] = mag * scale;
      got[i * n + j] = fromBf16(c[i * n + j]);
    }
  // bf16's rounding (2^-8 relative) over f32 accumulation of exact products.
  Comparison cmp = compare(got, ref, magnitude, 1.0 / 128);
  char name[160];
  std::snprintf(name, sizeof(name), "fp8_gemm %s M=%lld N=%lld K=%lld%s", build.what, (long long)m,
                (long long)n, (long long)k, offset ? " (base +1)" : "");
  return report(name, cmp, got, ref, clobberedGuardBytes(dc, c.size() * 2));
}
} // namespace

int main() {
  GpuContext gpu;
  namespace e4 = tlc::fp8_gemm::fp8_gemm;
  namespace e5 = tlc::fp8_gemm_e5m2::fp8_gemm;
  const Build builds[] = {{"e4m3", true, e4::launch},
                          {"e4m3 variant0", true, e4::variant0::launch},
                          {"e4m3 variant1", true, e4::variant1::launch},
                          {"e4m3 variant2", true, e4::variant2::launch},
                          {"e5m2", false, e5::launch},
                          {"e5m2 variant2", false, e5::variant2::launch},
                          {"generic (sm_80 PTX)", true, tlc::fp8_gemm_sm_80::fp8_gemm::launch}};
  struct Shape {
    int64_t m, n, k;
    size_t offset;
  } shapes[] = {{1, 256, 128, 0},     {64, 128, 256, 0},   {128, 256, 1024, 0}, {130, 300, 384, 0},
                {257, 513, 4096, 0},  {300, 1111, 778, 0}, {65, 129, 131, 0},   {3, 1000, 2048, 0},
                {256, 1024, 1024, 0}, {200, 384, 512, 1},  {0, 128, 128, 0}};
  bool ok = true;
  uint32_t seed = 1;
  for (const Build &build : builds)
    for (const Shape &s : shapes)
      ok &= runCase(gpu, build, s.m, s.n, s.k, s.offset, seed += 2);
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
