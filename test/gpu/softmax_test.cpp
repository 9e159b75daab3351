// GPU test of kernels/softmax.tile: row softmax over rows of any length, f32 tensors and, with
// -D T=bf16 / -D T=f16 (f32 arithmetic inside), 16-bit ones; and builds whose blocks run
// several row tiles on the cp.async ring for any number of rows (-D WAVE=1, 3 or 5 tiles per
// block, 4 or 2 stages): rings that end mid-way and copies past the end; and each of the two
// configurations forced, for every row length.

#include "GpuTest.h"
#include "HalfFloat.h"
#include "softmax.h"
#include "softmax_bf16.h"
#include "softmax_f16.h"
#include "softmax_rings_bf16.h"
#include "softmax_rings_f32.h"

using namespace tlc::gputest;

/// ref[r, :] = softmax(x[r, :]) in double.
static void softmaxReference(const std::vector<float> &x, std::vector<double> &ref, size_t M,
                             size_t N) {
  for (size_t r = 0; r < M; ++r) {
    double mx = -INFINITY, sum = 0;
    for (size_t c = 0; c < N; ++c)
      mx = std::max(mx, double(x[r * N + c]));
    for (size_t c = 0; c < N; ++c)
      sum += std::exp(double(x[r * N + c]) - mx);
    for (size_t c = 0; c < N; ++c)
      ref[r * N + c] = std::exp(double(x[r * N + c]) - mx) / sum;
  }
}

/// Which kernel a case runs: the shipped build's choice, the -D WAVE=1 build (`Rings`), or one
/// configuration of the shipped build forced (`LongRows`: configuration 0, 512 threads, rows of
/// 4096 < N <= 32768 in registers, its other branches otherwise; `Sweeps`: configuration 1).
enum class Build { Shipped, Rings, LongRows, Sweeps };

static const char *buildName(Build build) {
  switch (build) {
  case Build::Shipped:
    return "";
  case Build::Rings:
    return " rings";
  case Build::LongRows:
    return " config0";
  case Build::Sweeps:
    return " config1";
  }
  return "";
}

/// `build`: see Build (Rings: the -D WAVE=1 build, 5 row tiles per block on 2 stages).
static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, float scale, uint32_t seed,
                    Build build = Build::Shipped) {
  size_t M = m, N = n;
  std::vector<float> x(M * N);
  randomFill(x, seed);
  for (float &v : x)
    v *= scale;
  DeviceBuffer dx(x.size() * 4), dy((x.size() + GuardElements) * 4);
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());
  if (build == Build::Rings)
    CHECK_TLC(tlc::softmax_rings_f32::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else if (build == Build::LongRows)
    CHECK_TLC(tlc::softmax::softmax::variant0::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else if (build == Build::Sweeps)
    CHECK_TLC(tlc::softmax::softmax::variant1::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else
    CHECK_TLC(tlc::softmax::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), x.size());
  std::vector<double> ref(x.size()), magnitude(x.size(), 0.0);
  softmaxReference(x, ref, M, N);
  Comparison cmp = compare(y, ref, magnitude, 1e-5);
  char name[96];
  std::snprintf(name, sizeof(name), "softmax%s %lldx%lld scale=%g", buildName(build), (long long)m,
                (long long)n, double(scale));
  return report(name, cmp, y, ref, clobberedGuardBytes(dy, x.size() * 4));
}

/// bf16 (`f16` false) or f16 tensors: the input rounded to the type, the reference in double
/// from the rounded input, the output within the type's rounding (relative 2^-8 for bf16,
/// 2^-11 for f16, above f16's smallest normal 2^-14) and the f32 arithmetic's error. `build`
/// (bf16 only): Rings is the -D WAVE=1 build (3 row tiles per block on 4 stages).
static bool runHalfCase(const GpuContext &gpu, bool f16, int64_t m, int64_t n, float scale,
                        uint32_t seed, Build build = Build::Shipped) {
  size_t M = m, N = n;
  std::vector<float> x(M * N);
  randomFill(x, seed);
  std::vector<uint16_t> bits(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    bits[i] = f16 ? floatToF16(x[i] * scale) : floatToBf16(x[i] * scale);
    x[i] = f16 ? f16ToFloat(bits[i]) : bf16ToFloat(bits[i]);
  }
  DeviceBuffer dx(x.size() * 2), dy((x.size() + GuardElements) * 2);
  if (!bits.empty())
    CHECK_CU(cuMemcpyHtoD(dx.ptr(), bits.data(), bits.size() * 2));
  poison(dy, gpu.stream());
  if (f16)
    CHECK_TLC(tlc::softmax_f16::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else if (build == Build::Rings)
    CHECK_TLC(tlc::softmax_rings_bf16::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else if (build == Build::LongRows)
    CHECK_TLC(tlc::softmax_bf16::softmax::variant0::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else if (build == Build::Sweeps)
    CHECK_TLC(tlc::softmax_bf16::softmax::variant1::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  else
    CHECK_TLC(tlc::softmax_bf16::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<uint16_t> out(x.size());
  if (!out.empty())
    CHECK_CU(cuMemcpyDtoH(out.data(), dy.ptr(), out.size() * 2));
  std::vector<float> y(x.size());
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = f16 ? f16ToFloat(out[i]) : bf16ToFloat(out[i]);
  std::vector<double> ref(x.size()), magnitude(x.size(), f16 ? std::ldexp(1.0, -14) : 0.0);
  softmaxReference(x, ref, M, N);
  // Half an ulp of the 16-bit type (rounding the f32 result) plus the f32 arithmetic's error.
  double tolerance = (f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8)) + 4e-6;
  Comparison cmp = compare(y, ref, magnitude, tolerance);
  char name[96];
  std::snprintf(name, sizeof(name), "softmax %s%s %lldx%lld scale=%g", f16 ? "f16" : "bf16",
                buildName(build), (long long)m, (long long)n, double(scale));
  return report(name, cmp, y, ref, clobberedGuardBytes(dy, x.size() * 2));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 4.0f, 31);
  ok &= runCase(gpu, 1, 1, 1.0f, 33);
  ok &= runCase(gpu, 37, 256, 10.0f, 35);
  ok &= runCase(gpu, 3, 5000, 30.0f, 37);
  ok &= runCase(gpu, 4096, 1024, 2.0f, 39);
  ok &= runCase(gpu, 5, 4096, 8.0f, 41);
  ok &= runCase(gpu, 3, 12289, 8.0f, 43);
  ok &= runCase(gpu, 19, 130, 30.0f, 45);
  for (bool f16 : {false, true}) {
    ok &= runHalfCase(gpu, f16, 1000, 1111, 4.0f, 51);
    ok &= runHalfCase(gpu, f16, 1, 1, 1.0f, 53);
    ok &= runHalfCase(gpu, f16, 7, 4096, 8.0f, 55);
    ok &= runHalfCase(gpu, f16, 3, 9001, 6.0f, 57);
    ok &= runHalfCase(gpu, f16, 45, 256, 8.0f, 59); // the short-row tiles, ragged row counts
    ok &= runHalfCase(gpu, f16, 33, 1000, 8.0f, 61);
  }
  // Every tile path on the ring: 16-row tiles (N <= 256), 4-row tiles (N <= 1024), 2-row tiles
  // (N <= 2048), one row (N <= 4096); tile counts that leave the last block 1 to R - 1 tiles or
  // none past M; long rows (two sweeps in one ring: fewer tiles than stages, a last tile of one
  // column, whole tiles).
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 7},
                      {47, 200},
                      {161, 256},
                      {50, 1000},
                      {9, 1024},
                      {7, 1500},
                      {21, 2048},
                      {13, 4000},
                      {31, 4096},
                      {2, 5000},
                      {3, 4097},
                      {2, 8192},
                      {2, 20001}}) {
    ok &= runCase(gpu, m, n, 8.0f, 71 + uint32_t(m), Build::Rings);
    ok &= runHalfCase(gpu, false, m, n, 8.0f, 73 + uint32_t(n), Build::Rings);
  }
  // Rows of 4096 < N <= 32768 (f32: in registers, configuration 0, chosen by its `when`; bf16:
  // configuration 0 where the parts are 7/8 full (8192, 16384, 32768 here), else 1; the
  // configurations forced below run both): 1 to 4
  // parts of 8192 columns, a last part of one column, whole parts; 1, 3, 8 and 16 rows per
  // block (min(16, cdiv(M, 264))) with the last block's rows past M.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 4097},
                      {3, 8192},
                      {5, 8193},
                      {2, 20001},
                      {17, 24577},
                      {3, 32768},
                      {600, 16385},
                      {2100, 8200},
                      {40, 16384},
                      {4300, 4500}}) {
    ok &= runCase(gpu, m, n, 8.0f, 81 + uint32_t(m));
    ok &= runHalfCase(gpu, false, m, n, 8.0f, 83 + uint32_t(n));
  }
  // Each configuration is correct for every row length: configuration 0's short-row and
  // two-sweep branches on 512 threads, configuration 1's two sweeps where 0 is chosen.
  for (auto [m, n] :
       {std::pair<int64_t, int64_t>{47, 200}, {50, 1000}, {7, 1500}, {13, 4000}, {2, 40000}}) {
    ok &= runCase(gpu, m, n, 8.0f, 91 + uint32_t(m), Build::LongRows);
    ok &= runHalfCase(gpu, false, m, n, 8.0f, 93 + uint32_t(n), Build::LongRows);
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{3, 20001}, {600, 16385}}) {
    ok &= runCase(gpu, m, n, 8.0f, 95 + uint32_t(m), Build::Sweeps);
    ok &= runHalfCase(gpu, false, m, n, 8.0f, 97 + uint32_t(n), Build::Sweeps);
  }
  // bf16 rows in registers (configuration 0 forced; chosen for 16-bit rows only where their
  // parts are 7/8 full): 1, 2, 3 (an empty fourth step of the shifted ring) and 4 parts.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{4, 5000},
                      {5, 8193},
                      {3, 20001},
                      {17, 24577},
                      {2100, 8200},
                      {6, 32768}})
    ok &= runHalfCase(gpu, false, m, n, 8.0f, 99 + uint32_t(n), Build::LongRows);
  std::printf("softmax_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
