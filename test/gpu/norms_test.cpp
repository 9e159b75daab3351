// GPU test of kernels/rmsnorm.tile and kernels/layernorm.tile (with their fused residual
// variants): bf16 rows of any length against double-precision host references, outputs
// poisoned and followed by guard bytes, the residual output H bit for bit, and the in-place
// forms (Y = X, and H = R for the residual variants). The "rings" builds (-D WAVE=1) run
// several row tiles per block on the cp.async ring whatever the row count (rmsnorm: 3 tiles per
// block, 4 stages; layernorm: 5 tiles, 2 stages): rings that end mid-way and copies past the end.
// rmsnorm's and layernorm's configurations are also run forced, each for every row length;
// the ones that hold long rows in registers (rmsnorm's 0, layernorm's 2: 1-4 parts of 8192
// columns, several rows to a block on one ring) on rows of 1, 2, 3 and 4 parts and ragged row
// counts.

#include "GpuTest.h"
#include "layernorm.h"
#include "layernorm_rings.h"
#include "rmsnorm.h"
#include "rmsnorm_rings.h"

using namespace tlc::gputest;

namespace {

/// The kernels of this test.
enum class Norm {
  RmsNorm,
  RmsNormResidual,
  LayerNorm,
  LayerNormResidual,
  RmsNormRings,
  LayerNormRings,
  LayerNormConfig0, ///< layernorm's configuration 0 (W and B in registers) forced, any N
  LayerNormConfig1, ///< configuration 1 forced, also where 0 is chosen
  LayerNormConfig2, ///< layernorm's configuration 2 (rows in registers) forced, any N
  RmsNormConfig0,   ///< rmsnorm's configuration 0 (rows in registers) forced, any N
  RmsNormConfig1    ///< rmsnorm's configuration 1 (two sweeps) forced, any N
};

const char *normName(Norm norm) {
  switch (norm) {
  case Norm::RmsNorm:
    return "rmsnorm";
  case Norm::RmsNormResidual:
    return "rmsnorm_residual";
  case Norm::LayerNorm:
    return "layernorm";
  case Norm::LayerNormResidual:
    return "layernorm_residual";
  case Norm::RmsNormRings:
    return "rmsnorm rings";
  case Norm::LayerNormRings:
    return "layernorm rings";
  case Norm::LayerNormConfig0:
    return "layernorm config0";
  case Norm::LayerNormConfig1:
    return "layernorm config1";
  case Norm::LayerNormConfig2:
    return "layernorm config2";
  case Norm::RmsNormConfig0:
    return "rmsnorm config0";
  case Norm::RmsNormConfig1:
    return "rmsnorm config1";
  }
  return "?";
}

bool hasResidual(Norm norm) {
  return norm == Norm::RmsNormResidual || norm == Norm::LayerNormResidual;
}
bool isLayerNorm(Norm norm) {
  return norm == Norm::LayerNorm || norm == Norm::LayerNormResidual ||
         norm == Norm::LayerNormRings || norm == Norm::LayerNormConfig0 ||
         norm == Norm::LayerNormConfig1 || norm == Norm::LayerNormConfig2;
}

/// \p count random bf16 values offset + scale * u, u uniform in [-1, 1] and never zero (nor is
/// any value zero after rounding, for the offsets used here).
std::vector<uint16_t> randomBits(size_t count, uint32_t seed, float scale, float offset) {
  std::vector<float> f(count);
  randomFill(f, seed);
  std::vector<uint16_t> h(count);
  for (size_t i = 0; i < count; ++i) {
    h[i] = toBf16(offset + scale * f[i]);
    if (fromBf16(h[i]) == 0.0f)
      h[i] = toBf16(scale);
  }
  return h;
}

void uploadBits(CUdeviceptr dst, const std::vector<uint16_t> &src) {
  if (!src.empty())
    CHECK_CU(cuMemcpyHtoD(dst, src.data(), src.size() * 2));
}

std::vector<uint16_t> downloadBits(CUdeviceptr src, size_t count) {
  std::vector<uint16_t> out(count);
  if (count)
    CHECK_CU(cuMemcpyDtoH(out.data(), src, count * 2));
  return out;
}

/// The distance between bf16 neighbours at |v| (2^-7 of its binade; of the smallest normal
/// binade below it).
double bf16Ulp(double v) {
  double a = std::fabs(v);
  if (a < 1e-37)
    return std::ldexp(1.0, -133);
  return std::ldexp(1.0, std::ilogb(a) - 7);
}

/// A case's result: outputs against the reference in bf16 ulps.
struct UlpCheck {
  double maxUlps = 0;
  size_t worst = 0, over = 0, nonFinite = 0, firstNonFinite = 0;
};

/// Element i passes when |got - ref| <= tolUlps bf16 ulps of ref + 2^-16 * magnitude[i] (the
/// f32 rounding of terms that cancel, as (x - mean) * rstd * w + b can).
UlpCheck checkUlps(const std::vector<uint16_t> &got, const std::vector<double> &ref,
                   const std::vector<double> &magnitude, double tolUlps) {
  UlpCheck c;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = fromBf16(got[i]);
    if (!std::isfinite(g)) {
      if (c.nonFinite++ == 0)
        c.firstNonFinite = i;
      continue;
    }
    double err = std::fabs(g - ref[i]);
    double ulps = err / bf16Ulp(ref[i]);
    if (err > tolUlps * bf16Ulp(ref[i]) + std::ldexp(magnitude[i], -16))
      ++c.over;
    if (ulps > c.maxUlps) {
      c.maxUlps = ulps;
      c.worst = i;
    }
  }
  return c;
}

struct Shape {
  int64_t m, n;
};

/// Runs \p norm on an m x n problem and checks Y (and H). \p inPlace passes Y = X (and H = R
/// to the residual variants). \p offset shifts X away from zero mean (LayerNorm's variance
/// must not cancel).
bool runCase(const GpuContext &gpu, Norm norm, Shape shape, uint32_t seed, float offset,
             bool inPlace) {
  const size_t M = shape.m, N = shape.n, MN = M * N;
  const bool residual = hasResidual(norm), layer = isLayerNorm(norm);
  const float eps = layer ? 1e-5f : 1e-6f;
  std::vector<uint16_t> x = randomBits(MN, seed, 1.0f, offset);
  std::vector<uint16_t> r = randomBits(residual ? MN : 0, seed + 1, 0.5f, 0.0f);
  std::vector<uint16_t> w = randomBits(N, seed + 2, 0.5f, 1.0f);
  std::vector<uint16_t> b = randomBits(N, seed + 3, 0.5f, 0.0f);

  // Outputs (and, in place, the inputs they overwrite) are poisoned and followed by guards.
  const size_t outBytes = (MN + GuardElements) * 2;
  DeviceBuffer dx(inPlace ? outBytes : MN * 2), dr(inPlace ? outBytes : MN * 2);
  DeviceBuffer dw(N * 2), db(N * 2), dy(outBytes), dh(outBytes);
  for (const DeviceBuffer *out : {&dy, &dh})
    poison(*out, gpu.stream());
  if (inPlace) {
    poison(dx, gpu.stream());
    poison(dr, gpu.stream());
  }
  uploadBits(dx.ptr(), x);
  uploadBits(dr.ptr(), r);
  uploadBits(dw.ptr(), w);
  uploadBits(db.ptr(), b);
  const DeviceBuffer &outY = inPlace ? dx : dy;
  const DeviceBuffer &outH = inPlace ? dr : dh;
  CUstream s = gpu.stream();
  int64_t m = shape.m, n = shape.n;
  switch (norm) {
  case Norm::RmsNorm:
    CHECK_TLC(tlc::rmsnorm::rmsnorm::launch(s, dx.ptr(), dw.ptr(), outY.ptr(), eps, m, n));
    break;
  case Norm::RmsNormResidual:
    CHECK_TLC(tlc::rmsnorm::rmsnorm_residual::launch(s, dx.ptr(), dr.ptr(), dw.ptr(), outY.ptr(),
                                                     outH.ptr(), eps, m, n));
    break;
  case Norm::LayerNorm:
    CHECK_TLC(
        tlc::layernorm::layernorm::launch(s, dx.ptr(), dw.ptr(), db.ptr(), outY.ptr(), eps, m, n));
    break;
  case Norm::LayerNormResidual:
    CHECK_TLC(tlc::layernorm::layernorm_residual::launch(s, dx.ptr(), dr.ptr(), dw.ptr(), db.ptr(),
                                                         outY.ptr(), outH.ptr(), eps, m, n));
    break;
  case Norm::RmsNormRings:
    CHECK_TLC(tlc::rmsnorm_rings::rmsnorm::launch(s, dx.ptr(), dw.ptr(), outY.ptr(), eps, m, n));
    break;
  case Norm::LayerNormRings:
    CHECK_TLC(tlc::layernorm_rings::layernorm::launch(s, dx.ptr(), dw.ptr(), db.ptr(), outY.ptr(),
                                                      eps, m, n));
    break;
  case Norm::LayerNormConfig0:
    CHECK_TLC(tlc::layernorm::layernorm::variant0::launch(s, dx.ptr(), dw.ptr(), db.ptr(),
                                                          outY.ptr(), eps, m, n));
    break;
  case Norm::LayerNormConfig1:
    CHECK_TLC(tlc::layernorm::layernorm::variant1::launch(s, dx.ptr(), dw.ptr(), db.ptr(),
                                                          outY.ptr(), eps, m, n));
    break;
  case Norm::LayerNormConfig2:
    CHECK_TLC(tlc::layernorm::layernorm::variant2::launch(s, dx.ptr(), dw.ptr(), db.ptr(),
                                                          outY.ptr(), eps, m, n));
    break;
  case Norm::RmsNormConfig0:
    CHECK_TLC(
        tlc::rmsnorm::rmsnorm::variant0::launch(s, dx.ptr(), dw.ptr(), outY.ptr(), eps, m, n));
    break;
  case Norm::RmsNormConfig1:
    CHECK_TLC(
        tlc::rmsnorm::rmsnorm::variant1::launch(s, dx.ptr(), dw.ptr(), outY.ptr(), eps, m, n));
    break;
  }
  gpu.synchronize();
  std::vector<uint16_t> y = downloadBits(outY.ptr(), MN);
  std::vector<uint16_t> h = residual ? downloadBits(outH.ptr(), MN) : std::vector<uint16_t>();

  // The reference: H = bf16(x + r) with the sum in f32 (as the kernel rounds it), then the norm
  // of H (or of X) in double.
  std::vector<uint16_t> hRef(residual ? MN : 0);
  for (size_t i = 0; i < hRef.size(); ++i)
    hRef[i] = toBf16(fromBf16(x[i]) + fromBf16(r[i]));
  const std::vector<uint16_t> &in = residual ? hRef : x;
  std::vector<double> ref(MN), magnitude(MN);
  for (size_t row = 0; row < M; ++row) {
    const uint16_t *v = &in[row * N];
    double mean = 0, sq = 0;
    if (layer) {
      for (size_t c = 0; c < N; ++c)
        mean += fromBf16(v[c]);
      mean /= double(N);
    }
    for (size_t c = 0; c < N; ++c) {
      double d = fromBf16(v[c]) - mean;
      sq += d * d;
    }
    double rstd = 1.0 / std::sqrt(sq / double(N) + double(eps));
    for (size_t c = 0; c < N; ++c) {
      double scaled = (fromBf16(v[c]) - mean) * rstd * fromBf16(w[c]);
      double bias = layer ? fromBf16(b[c]) : 0.0;
      ref[row * N + c] = scaled + bias;
      // The kernels' f32 mean is off by a few units of 2^-24 of |mean|, which x - mean passes on
      // to the output: up to |mean| rstd |w| 2^-20, the 2^-16 share of |mean| rstd |w| / 16
      // (it shows where an output of rows far from zero mean nearly cancels with its bias).
      magnitude[row * N + c] = std::fabs(scaled) + std::fabs(bias) +
                               std::fabs(mean) * rstd * std::fabs(fromBf16(w[c])) / 16;
    }
  }
  UlpCheck yc = checkUlps(y, ref, magnitude, 1.0);
  size_t wrongH = 0;
  for (size_t i = 0; i < hRef.size(); ++i)
    wrongH += h[i] != hRef[i];
  size_t guard =
      clobberedGuardBytes(outY, MN * 2) + (residual ? clobberedGuardBytes(outH, MN * 2) : 0);
  bool pass = yc.nonFinite == 0 && yc.over == 0 && wrongH == 0 && guard == 0;

  char name[96];
  std::snprintf(name, sizeof(name), "%s %lldx%lld%s%s", normName(norm), (long long)m, (long long)n,
                offset != 0.0f ? " offset" : "", inPlace ? " in place" : "");
  std::printf("%-44s max err %.3f bf16 ulp  %s", name, yc.maxUlps, pass ? "PASS" : "FAIL");
  if (yc.nonFinite)
    std::printf("  (%zu non-finite/unwritten elements, first at %zu)", yc.nonFinite,
                yc.firstNonFinite);
  if (yc.over)
    std::printf("  (%zu over tolerance; worst at %zu: got %.9g, want %.9g)", yc.over, yc.worst,
                double(fromBf16(y[yc.worst])), ref[yc.worst]);
  if (wrongH)
    std::printf("  (%zu elements of H differ from bf16(x + r))", wrongH);
  if (guard)
    std::printf("  (%zu bytes written past the end of the outputs)", guard);
  std::printf("\n");
  std::fflush(stdout);
  return pass;
}

} // namespace

int main() {
  GpuContext gpu;
  // Rows of at most 256 and of at most 1024 columns take the kernels' short-row tiles (several
  // rows to a block): ragged row counts and full-width rows of both included.
  const Shape shapes[] = {{37, 1000}, {5, 1},    {3, 4097}, {64, 4096}, {2, 65536}, {4, 2048},
                          {16, 300},  {9, 2049}, {1, 7},    {33, 256},  {19, 1024}, {40, 129}};
  bool ok = true;
  uint32_t seed = 100;
  for (Norm norm :
       {Norm::RmsNorm, Norm::RmsNormResidual, Norm::LayerNorm, Norm::LayerNormResidual,
        Norm::RmsNormRings, Norm::LayerNormRings, Norm::LayerNormConfig0, Norm::LayerNormConfig1,
        Norm::LayerNormConfig2, Norm::RmsNormConfig0, Norm::RmsNormConfig1}) {
    for (Shape shape : shapes)
      ok &= runCase(gpu, norm, shape, seed += 10, 0.0f, false);
    // Rows far from zero mean: LayerNorm's variance must not cancel.
    ok &= runCase(gpu, norm, {8, 5000}, seed += 10, 4.0f, false);
    ok &= runCase(gpu, norm, {21, 200}, seed += 10, 4.0f, false);
    ok &= runCase(gpu, norm, {37, 1000}, seed += 10, 0.0f, true);
  }
  // layernorm's configuration 0 (chosen for 2048 < N <= 4096) with many rows per block (the
  // shipped build's R = 8 once there are 4096 row tiles), ragged.
  ok &= runCase(gpu, Norm::LayerNorm, {4101, 3000}, seed += 10, 1.0f, false);
  // rmsnorm's configuration 0: rows of 1 (4097..8192 columns), 2, 3 and 4 parts, one to a block
  // and several (M > 264: 3 rows to a block, the last block ragged), forced; and as the
  // launcher chooses (configuration 0 at 6 x 32768, 2 x 30000 and 530 x 30000; 1 for bf16
  // rows of fewer than 3.5 x 8192 columns).
  const Shape longRows[] = {{3, 5000},  {5, 16384}, {4, 9001},    {3, 20001},
                            {6, 32768}, {2, 30000}, {600, 12000}, {530, 30000}};
  for (Shape shape : longRows) {
    ok &= runCase(gpu, Norm::RmsNormConfig0, shape, seed += 10, 0.0f, false);
    ok &= runCase(gpu, Norm::RmsNorm, shape, seed += 10, 0.0f, false);
  }
  ok &= runCase(gpu, Norm::RmsNormConfig0, {530, 30000}, seed += 10, 0.0f, true);
  // The same for layernorm's configuration 2, rows also far from zero mean.
  for (Shape shape : longRows) {
    ok &= runCase(gpu, Norm::LayerNormConfig2, shape, seed += 10, 0.0f, false);
    ok &= runCase(gpu, Norm::LayerNorm, shape, seed += 10, 4.0f, false);
  }
  ok &= runCase(gpu, Norm::LayerNormConfig2, {530, 30000}, seed += 10, 4.0f, true);
  ok &= runCase(gpu, Norm::RmsNorm, {5, 20001}, seed += 10, 1.0f, false);
  std::printf("norms_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
