// GPU test of test/gpu/kernels/bit_ops.tile: bitwise operators, shifts by run-time amounts
// (negative and >= 32 included: `<<` gives 0, `>>` the sign), int4 unpacking, 64-bit shifts,
// bitcast, floor/ceil/round (halves to even) on f32 and f16, u8 shifts; compared bit for bit
// with a host reference.

#include "GpuTest.h"
#include "bit_ops.h"

#include <cmath>
#include <cstring>

using namespace tlc::gputest;

static int32_t shiftLeft(int32_t x, int32_t s) {
  return s < 0 || s >= 32 ? 0 : int32_t(uint32_t(x) << s);
}
static int32_t shiftRight(int32_t x, int32_t s) { return x >> (s < 0 || s >= 32 ? 31 : s); }

static bool runCase(const GpuContext &gpu, int64_t n, uint32_t seed) {
  size_t N = n;
  std::mt19937 gen(seed);
  std::vector<int32_t> x(N), s(N);
  std::vector<float> f(N);
  std::vector<uint16_t> h(N);
  std::vector<uint8_t> b(N);
  for (size_t i = 0; i < N; ++i) {
    x[i] = int32_t(gen());
    // Mostly in-range amounts, and every few elements one outside [0, 32).
    s[i] = i % 7 == 0 ? int32_t(gen() % 80) - 40 : int32_t(gen() % 32);
    // Halves (ties of round), integers, and plain values of both signs.
    float v = std::ldexp(float(int32_t(gen() % 2001) - 1000), -int(gen() % 4));
    f[i] = i % 3 == 0 ? v : (float(gen()) / 4294967296.0f - 0.5f) * 200.0f;
    h[i] = toF16(i % 2 ? v : f[i] / 8.0f);
    b[i] = uint8_t(gen());
  }
  DeviceBuffer dx(N * 4), ds(N * 4), df(N * 4), dh(N * 2), db(N);
  DeviceBuffer dy((8 * N + GuardElements) * 4), dg((5 * N + GuardElements) * 4),
      dhr((N + GuardElements) * 2), dbo(N + GuardElements);
  if (N) {
    CHECK_CU(cuMemcpyHtoD(dx.ptr(), x.data(), N * 4));
    CHECK_CU(cuMemcpyHtoD(ds.ptr(), s.data(), N * 4));
    CHECK_CU(cuMemcpyHtoD(df.ptr(), f.data(), N * 4));
    CHECK_CU(cuMemcpyHtoD(dh.ptr(), h.data(), N * 2));
    CHECK_CU(cuMemcpyHtoD(db.ptr(), b.data(), N));
  }
  for (const DeviceBuffer *out : {&dy, &dg, &dhr, &dbo})
    poison(*out, gpu.stream());
  CHECK_TLC(tlc::bit_ops::launch(gpu.stream(), dx.ptr(), ds.ptr(), df.ptr(), dh.ptr(), db.ptr(),
                                 dy.ptr(), dg.ptr(), dhr.ptr(), dbo.ptr(), n));
  gpu.synchronize();
  std::vector<int32_t> y(8 * N);
  std::vector<float> g(5 * N);
  std::vector<uint16_t> hr(N);
  std::vector<uint8_t> bo(N);
  if (N) {
    CHECK_CU(cuMemcpyDtoH(y.data(), dy.ptr(), 8 * N * 4));
    CHECK_CU(cuMemcpyDtoH(g.data(), dg.ptr(), 5 * N * 4));
    CHECK_CU(cuMemcpyDtoH(hr.data(), dhr.ptr(), N * 2));
    CHECK_CU(cuMemcpyDtoH(bo.data(), dbo.ptr(), N));
  }
  size_t wrong[16] = {};
  auto bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  };
  for (size_t i = 0; i < N; ++i) {
    int32_t want[8] = {x[i] & s[i],
                       x[i] | s[i],
                       x[i] ^ s[i],
                       shiftLeft(x[i], s[i]),
                       shiftRight(x[i], s[i]),
                       ~x[i],
                       (x[i] >> (4 * int(i % 8))) & 0xF,
                       int32_t(int64_t(uint64_t(int64_t(x[i])) << 33) >> 40)};
    for (int k = 0; k < 8; ++k)
      wrong[k] += y[k * N + i] != want[k];
    float fwant[5] = {std::fabs(f[i]), std::floor(f[i]), std::ceil(f[i]), std::nearbyint(f[i]),
                      -fromF16(h[i])};
    for (int k = 0; k < 5; ++k)
      wrong[8 + k] += bits(g[k * N + i]) != bits(fwant[k]);
    wrong[13] += hr[i] != toF16(std::nearbyint(fromF16(h[i])));
    wrong[14] += bo[i] != uint8_t((uint32_t(b[i]) << 1) ^ 0x5A);
  }
  static const char *names[15] = {"&",    "|",     "^",    "<<",        ">>",
                                  "~",    "int4",  "i64",  "fabs",      "floor",
                                  "ceil", "round", "-f16", "round f16", "u8"};
  bool ok = true;
  for (int k = 0; k < 15; ++k)
    if (wrong[k]) {
      std::printf("  %s: %zu of %zu elements wrong\n", names[k], wrong[k], N);
      ok = false;
    }
  size_t clobbered = clobberedGuardBytes(dy, 8 * N * 4) + clobberedGuardBytes(dg, 5 * N * 4) +
                     clobberedGuardBytes(dhr, N * 2) + clobberedGuardBytes(dbo, N);
  if (clobbered) {
    std::printf("  %zu guard bytes written past the outputs\n", clobbered);
    ok = false;
  }
  std::printf("bit_ops N=%lld: %s\n", (long long)n, ok ? "ok" : "FAILED");
  return ok;
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 100003, 11);
  ok &= runCase(gpu, 1, 13);
  ok &= runCase(gpu, 4096, 17);
  std::printf("bit_ops_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
