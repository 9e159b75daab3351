// GPU test of test/gpu/kernels/float8.tile, built for sm_90a (cvt.rn.satfinite) and sm_80
// (integer code, run through the PTX JIT): every f8e4m3 and f8e5m2 pattern decoded to f32,
// bf16 and f16; f32 and bf16 values encoded — every representable value, every midpoint between
// neighbours (ties to even) and one f32 ulp either side of it, saturation, infinities, NaN,
// zeros of both signs, f32 subnormals and random magnitudes — against a host reference that
// searches the nearest code by brute force over the decoded table.

#include "Float8Reference.h"
#include "GpuTest.h"
#include "float8.h"
#include "float8_sm_80.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tlc::gputest;

namespace {

uint32_t bitsOf(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

bool sameFloat(float got, double want) {
  return std::isnan(want) ? std::isnan(got) : bitsOf(got) == bitsOf(float(want));
}

using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, CUdeviceptr, int64_t);

bool runCase(const GpuContext &gpu, const char *build, Launch launch, uint32_t seed) {
  // Inputs to encode: the values, midpoints and their f32 neighbours of both formats, specials,
  // and random magnitudes.
  std::vector<float> x;
  for (bool e4m3 : {true, false})
    for (int c = 0; c < 0x7F; ++c) {
      double v = decodeFloat8(e4m3, uint8_t(c)), next = decodeFloat8(e4m3, uint8_t(c + 1));
      if (!std::isfinite(v))
        continue;
      x.push_back(float(v));
      if (std::isfinite(next)) {
        float mid = float((v + next) / 2);
        x.insert(x.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)});
      } else {
        float over = float(v * 1.0625);
        x.insert(x.end(), {over, float(v * 1.2), float(v * 4)});
      }
    }
  const float inf = std::numeric_limits<float>::infinity();
  x.insert(x.end(), {0.0f, inf, std::numeric_limits<float>::quiet_NaN(), 1e-40f, 1e30f,
                     std::numeric_limits<float>::max()});
  std::mt19937 gen(seed);
  while (x.size() % 1000 != 777)
    x.push_back(std::ldexp(float(gen() % 100000) / 100000.0f + 0.5f, int(gen() % 50) - 25));
  size_t base = x.size();
  for (size_t i = 0; i < base; ++i)
    x.push_back(-x[i]);
  size_t N = x.size();
  std::vector<uint16_t> h(N);
  std::vector<uint8_t> p4(N), p5(N);
  for (size_t i = 0; i < N; ++i) {
    h[i] = toBf16(x[i]);
    p4[i] = uint8_t(i * 7 + seed);
    p5[i] = uint8_t(i);
  }
  DeviceBuffer dx(N * 4), dh(N * 2), dp4(N), dp5(N);
  DeviceBuffer de4(N + GuardElements), de5(N + GuardElements), deh(N + GuardElements),
      dd((4 * N + GuardElements) * 4), ddb((N + GuardElements) * 2), ddh((N + GuardElements) * 2),
      ddc((N + GuardElements) * 4);
  CHECK_CU(cuMemcpyHtoD(dx.ptr(), x.data(), N * 4));
  CHECK_CU(cuMemcpyHtoD(dh.ptr(), h.data(), N * 2));
  CHECK_CU(cuMemcpyHtoD(dp4.ptr(), p4.data(), N));
  CHECK_CU(cuMemcpyHtoD(dp5.ptr(), p5.data(), N));
  for (const DeviceBuffer *out : {&de4, &de5, &deh, &dd, &ddb, &ddh, &ddc})
    poison(*out, gpu.stream());
  CHECK_TLC(launch(gpu.stream(), dx.ptr(), dh.ptr(), de4.ptr(), de5.ptr(), deh.ptr(), dp4.ptr(),
                   dp5.ptr(), dd.ptr(), ddb.ptr(), ddh.ptr(), ddc.ptr(), int64_t(N)));
  gpu.synchronize();
  std::vector<uint8_t> e4(N), e5(N), eh(N);
  std::vector<float> d(4 * N), dc(N);
  std::vector<uint16_t> db(N), dhh(N);
  CHECK_CU(cuMemcpyDtoH(e4.data(), de4.ptr(), N));
  CHECK_CU(cuMemcpyDtoH(e5.data(), de5.ptr(), N));
  CHECK_CU(cuMemcpyDtoH(eh.data(), deh.ptr(), N));
  CHECK_CU(cuMemcpyDtoH(d.data(), dd.ptr(), 4 * N * 4));
  CHECK_CU(cuMemcpyDtoH(dc.data(), ddc.ptr(), N * 4));
  CHECK_CU(cuMemcpyDtoH(db.data(), ddb.ptr(), N * 2));
  CHECK_CU(cuMemcpyDtoH(dhh.data(), ddh.ptr(), N * 2));
  size_t wrong[9] = {};
  size_t shown = 0;
  auto encodedOk = [&](bool e4m3, uint8_t got, float v) {
    uint8_t want = encodeFloat8(e4m3, v);
    return std::isnan(v) ? std::isnan(decodeFloat8(e4m3, got)) : got == want;
  };
  for (size_t i = 0; i < N; ++i) {
    bool bad4 = !encodedOk(true, e4[i], x[i]), bad5 = !encodedOk(false, e5[i], x[i]);
    if ((bad4 || bad5) && shown++ < 8)
      std::printf("  %s: x = %.9g: e4m3 0x%02x (want 0x%02x), e5m2 0x%02x (want 0x%02x)\n", build,
                  x[i], e4[i], encodeFloat8(true, x[i]), e5[i], encodeFloat8(false, x[i]));
    wrong[0] += bad4;
    wrong[1] += bad5;
    wrong[2] += !encodedOk(true, eh[i], fromBf16(h[i]));
    double v4 = decodeFloat8(true, p4[i]), v5 = decodeFloat8(false, p5[i]);
    wrong[3] += !sameFloat(d[i], v4);
    wrong[4] += !sameFloat(d[N + i], v5);
    wrong[5] += !sameFloat(d[2 * N + i], i % 2 == 0 ? v4 : -1.5);
    wrong[6] += !sameFloat(d[3 * N + i], v5);
    wrong[7] += !sameFloat(fromBf16(db[i]), v4) + !sameFloat(fromF16(dhh[i]), v5);
    wrong[8] += !sameFloat(dc[i], v4);
  }
  static const char *names[9] = {"f32 -> e4m3", "f32 -> e5m2",  "bf16 -> e4m3 (shared)",
                                 "e4m3 -> f32", "e5m2 -> f32",  "select of e4m3",
                                 "bitcast",     "-> bf16, f16", "copy e4m3 -> f32 tile"};
  bool ok = true;
  for (int k = 0; k < 9; ++k)
    if (wrong[k]) {
      std::printf("  %s: %s: %zu of %zu wrong\n", build, names[k], wrong[k], N);
      ok = false;
    }
  size_t clobbered = clobberedGuardBytes(de4, N) + clobberedGuardBytes(de5, N) +
                     clobberedGuardBytes(deh, N) + clobberedGuardBytes(dd, 4 * N * 4) +
                     clobberedGuardBytes(ddb, N * 2) + clobberedGuardBytes(ddh, N * 2) +
                     clobberedGuardBytes(ddc, N * 4);
  if (clobbered) {
    std::printf("  %s: %zu guard bytes written past the outputs\n", build, clobbered);
    ok = false;
  }
  std::printf("float8 %s N=%zu: %s\n", build, N, ok ? "ok" : "FAILED");
  return ok;
}

} // namespace

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, "sm_90a", tlc::float8::launch, 3);
  ok &= runCase(gpu, "sm_80", tlc::float8_sm_80::launch, 5);
  std::printf("float8_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
