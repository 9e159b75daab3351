// GPU test of issue 14's reductions and scans (test/gpu/kernels/arg_reduce_scan.tile) through
// the generated launchers: running argmax / argmin over column tiles (ties included), an argmax
// of a bf16 product in registers, and prefix sums and products along dim 1 and dim 0, on ragged
// sizes, against double-precision host references.

#include "GpuTest.h"
#include "arg_reduce_scan.h"

using namespace tlc::gputest;
namespace k = tlc::arg_reduce_scan;

template <typename T> static std::vector<T> downloadAs(CUdeviceptr src, size_t count) {
  std::vector<T> out(count);
  if (count)
    CHECK_CU(cuMemcpyDtoH(out.data(), src, count * sizeof(T)));
  return out;
}

template <typename T> static void uploadAs(CUdeviceptr dst, const std::vector<T> &src) {
  if (!src.empty())
    CHECK_CU(cuMemcpyHtoD(dst, src.data(), src.size() * sizeof(T)));
}

/// Prints the verdict of an index check and returns whether it passed.
static bool reportIndices(const char *name, size_t wrong, size_t first, int64_t got, int64_t want,
                          size_t guardBytes) {
  bool pass = wrong == 0 && guardBytes == 0;
  std::printf("%-40s indices %s", name, pass ? "PASS" : "FAIL");
  if (wrong)
    std::printf("  (%zu wrong; first at %zu: got %lld, want %lld)", wrong, first,
                static_cast<long long>(got), static_cast<long long>(want));
  if (guardBytes)
    std::printf("  (%zu bytes written past the end of the output)", guardBytes);
  std::printf("\n");
  return pass;
}

/// row_argmax_argmin on an m x n matrix. With \p ties the values are multiples of 1/4 in
/// [-1, 1], so every row has many equal maxima and minima: the first column must win. With
/// \p nans every third row has two NaNs: both results are NaN at the first of them.
static bool argmaxCase(const GpuContext &gpu, int64_t m, int64_t n, bool ties, bool nans,
                       uint32_t seed) {
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n);
  std::vector<float> x(rows * cols);
  randomFill(x, seed);
  if (ties)
    for (float &v : x)
      v = std::round(v * 4.0f) / 4.0f;
  if (nans)
    for (size_t r = 0; r < rows; r += 3) {
      x[r * cols + (r * 7919 + 5) % cols] = NAN;
      x[r * cols + (r * 104729 + 11) % cols] = NAN;
    }
  DeviceBuffer dx(x.size() * sizeof(float));
  DeviceBuffer dvmax((rows + GuardElements) * sizeof(float));
  DeviceBuffer dimax((rows + GuardElements) * sizeof(int32_t));
  DeviceBuffer dvmin((rows + GuardElements) * sizeof(float));
  DeviceBuffer dimin((rows + GuardElements) * sizeof(int64_t));
  upload(dx.ptr(), x);
  for (const DeviceBuffer *b : {&dvmax, &dimax, &dvmin, &dimin})
    poison(*b, gpu.stream());

  CHECK_TLC(k::row_argmax_argmin::launch(gpu.stream(), dx.ptr(), dvmax.ptr(), dimax.ptr(),
                                         dvmin.ptr(), dimin.ptr(), m, n));
  gpu.synchronize();

  std::vector<double> refMax(rows), refMin(rows), magnitude(rows, 1.0);
  std::vector<int64_t> refImax(rows), refImin(rows);
  std::vector<float> vmax = download(dvmax.ptr(), rows), vmin = download(dvmin.ptr(), rows);
  std::vector<int32_t> imax = downloadAs<int32_t>(dimax.ptr(), rows);
  std::vector<int64_t> imin = downloadAs<int64_t>(dimin.ptr(), rows);
  size_t nanMisses = 0;
  for (size_t r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    size_t bestMax = 0, bestMin = 0, firstNan = cols;
    for (size_t c = 0; c < cols; ++c) {
      if (std::isnan(row[c]) && firstNan == cols)
        firstNan = c;
      if (row[c] > row[bestMax])
        bestMax = c;
      if (row[c] < row[bestMin])
        bestMin = c;
    }
    if (firstNan < cols) {
      // A NaN wins both; its value is checked here (compare() rejects NaNs), then zeroed.
      bestMax = bestMin = firstNan;
      nanMisses += !std::isnan(vmax[r]) + !std::isnan(vmin[r]);
      vmax[r] = vmin[r] = 0.0f;
    }
    refMax[r] = std::isnan(row[bestMax]) ? 0.0 : row[bestMax];
    refMin[r] = std::isnan(row[bestMin]) ? 0.0 : row[bestMin];
    refImax[r] = static_cast<int64_t>(bestMax), refImin[r] = static_cast<int64_t>(bestMin);
  }
  if (nanMisses)
    std::printf("%zu argmax / argmin values of rows with NaNs are not NaN\n", nanMisses);
  char name[96];
  std::snprintf(name, sizeof(name), "argmax %lldx%lld%s%s", static_cast<long long>(m),
                static_cast<long long>(n), ties ? " ties" : "", nans ? " NaNs" : "");
  bool ok = nanMisses == 0;
  ok &= report(name, compare(vmax, refMax, magnitude, 0.0), vmax, refMax,
               clobberedGuardBytes(dvmax, rows * sizeof(float)));
  size_t wrong = 0, first = 0;
  for (size_t r = 0; r < rows; ++r)
    if (imax[r] != refImax[r] && wrong++ == 0)
      first = r;
  ok &= reportIndices(name, wrong, first, wrong ? imax[first] : 0, wrong ? refImax[first] : 0,
                      clobberedGuardBytes(dimax, rows * sizeof(int32_t)));
  std::snprintf(name, sizeof(name), "argmin %lldx%lld%s%s", static_cast<long long>(m),
                static_cast<long long>(n), ties ? " ties" : "", nans ? " NaNs" : "");
  ok &= report(name, compare(vmin, refMin, magnitude, 0.0), vmin, refMin,
               clobberedGuardBytes(dvmin, rows * sizeof(float)));
  wrong = 0;
  for (size_t r = 0; r < rows; ++r)
    if (imin[r] != refImin[r] && wrong++ == 0)
      first = r;
  ok &= reportIndices(name, wrong, first, wrong ? imin[first] : 0, wrong ? refImin[first] : 0,
                      clobberedGuardBytes(dimin, rows * sizeof(int64_t)));
  return ok;
}

/// scores_argmax on s random bf16 rows of 32: the key of each query's largest score. Scores
/// within rounding of the maximum may win instead of it: the chosen key's exact score must be
/// within the tolerance of the maximum, and the value the kernel gives close to both.
static bool scoresCase(const GpuContext &gpu, int64_t s, uint32_t seed) {
  size_t n = static_cast<size_t>(s);
  std::vector<float> qf(n * 32), kf(n * 32);
  randomFill(qf, seed);
  randomFill(kf, seed + 1);
  std::vector<uint16_t> q(qf.size()), kk(kf.size());
  for (size_t i = 0; i < qf.size(); ++i) {
    q[i] = toBf16(qf[i]), qf[i] = fromBf16(q[i]);
    kk[i] = toBf16(kf[i]), kf[i] = fromBf16(kk[i]);
  }
  DeviceBuffer dq(q.size() * 2), dk(kk.size() * 2);
  DeviceBuffer dv((n + GuardElements) * sizeof(float)), di((n + GuardElements) * sizeof(int32_t));
  uploadAs(dq.ptr(), q);
  uploadAs(dk.ptr(), kk);
  poison(dv, gpu.stream());
  poison(di, gpu.stream());

  CHECK_TLC(k::scores_argmax::launch(gpu.stream(), dq.ptr(), dk.ptr(), dv.ptr(), di.ptr(), s));
  gpu.synchronize();

  std::vector<float> v = download(dv.ptr(), n);
  std::vector<int32_t> idx = downloadAs<int32_t>(di.ptr(), n);
  auto score = [&](size_t r, size_t c) {
    double acc = 0.0;
    for (size_t d = 0; d < 32; ++d)
      acc += static_cast<double>(qf[r * 32 + d]) * kf[c * 32 + d];
    return acc;
  };
  std::vector<double> ref(n), magnitude(n, 32.0);
  size_t wrong = 0, first = 0;
  for (size_t r = 0; r < n; ++r) {
    double best = -INFINITY;
    for (size_t c = 0; c < n; ++c)
      best = std::max(best, score(r, c));
    ref[r] = best;
    bool valid = idx[r] >= 0 && static_cast<size_t>(idx[r]) < n &&
                 best - score(r, static_cast<size_t>(idx[r])) <= 1e-5 * 32.0;
    if (!valid && wrong++ == 0)
      first = r;
  }
  char name[96];
  std::snprintf(name, sizeof(name), "scores_argmax S=%lld", static_cast<long long>(s));
  bool ok = report(name, compare(v, ref, magnitude, 1e-5), v, ref,
                   clobberedGuardBytes(dv, n * sizeof(float)));
  return ok & reportIndices(name, wrong, first, wrong ? idx[first] : 0, -1,
                            clobberedGuardBytes(di, n * sizeof(int32_t)));
}

/// cumsum_rows and cumprod_cols on an m x n matrix.
static bool scanCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n), count = rows * cols;
  std::vector<float> x(count);
  randomFill(x, seed);
  DeviceBuffer dx(count * sizeof(float)), dy((count + GuardElements) * sizeof(float));
  char name[96];

  // Prefix sums along rows; errors relative to the running sum of |x|.
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());
  CHECK_TLC(k::cumsum_rows::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<double> ref(count), magnitude(count);
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0.0, abs = 0.0;
    for (size_t c = 0; c < cols; ++c) {
      sum += x[r * cols + c], abs += std::fabs(x[r * cols + c]);
      ref[r * cols + c] = sum, magnitude[r * cols + c] = abs;
    }
  }
  std::vector<float> y = download(dy.ptr(), count);
  std::snprintf(name, sizeof(name), "cumsum dim 1 %lldx%lld", static_cast<long long>(m),
                static_cast<long long>(n));
  bool ok = report(name, compare(y, ref, magnitude, 1e-5), y, ref,
                   clobberedGuardBytes(dy, count * sizeof(float)));

  // Prefix products down columns of factors in [0.99, 1.01] (no under- or overflow).
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i)
    f[i] = 1.0f + 0.01f * x[i];
  upload(dx.ptr(), f);
  poison(dy, gpu.stream());
  CHECK_TLC(k::cumprod_cols::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  for (size_t c = 0; c < cols; ++c) {
    double prod = 1.0;
    for (size_t r = 0; r < rows; ++r) {
      prod *= f[r * cols + c];
      ref[r * cols + c] = prod, magnitude[r * cols + c] = std::fabs(prod);
    }
  }
  y = download(dy.ptr(), count);
  std::snprintf(name, sizeof(name), "cumprod dim 0 %lldx%lld", static_cast<long long>(m),
                static_cast<long long>(n));
  // Each product rounds once per factor: m ulps of f32 at most.
  ok &= report(name, compare(y, ref, magnitude, 1e-7 * static_cast<double>(m + 8)), y, ref,
               clobberedGuardBytes(dy, count * sizeof(float)));
  return ok;
}

/// exclusive_cumsum_cols on an m x n matrix of small integers: exact, restarting every 16 rows.
static bool exclusiveCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n), count = rows * cols;
  std::vector<float> r(count);
  randomFill(r, seed);
  std::vector<int32_t> x(count);
  for (size_t i = 0; i < count; ++i)
    x[i] = static_cast<int32_t>(std::lround(r[i] * 1000.0f));
  DeviceBuffer dx(count * sizeof(int32_t)), dy((count + GuardElements) * sizeof(int32_t));
  uploadAs(dx.ptr(), x);
  poison(dy, gpu.stream());
  CHECK_TLC(k::exclusive_cumsum_cols::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<int32_t> y = downloadAs<int32_t>(dy.ptr(), count);
  size_t wrong = 0, first = 0;
  std::vector<int64_t> want(count);
  for (size_t c = 0; c < cols; ++c) {
    int64_t sum = 0;
    for (size_t i = 0; i < rows; ++i) {
      if (i % 16 == 0)
        sum = 0;
      want[i * cols + c] = sum;
      sum += x[i * cols + c];
    }
  }
  for (size_t i = 0; i < count; ++i)
    if (y[i] != want[i] && wrong++ == 0)
      first = i;
  char name[96];
  std::snprintf(name, sizeof(name), "exclusive cumsum dim 0 %lldx%lld", static_cast<long long>(m),
                static_cast<long long>(n));
  return reportIndices(name, wrong, first, wrong ? y[first] : 0, wrong ? want[first] : 0,
                       clobberedGuardBytes(dy, count * sizeof(int32_t)));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= argmaxCase(gpu, 1000, 1111, /*ties=*/false, /*nans=*/false, 31);
  ok &= argmaxCase(gpu, 77, 300, /*ties=*/true, /*nans=*/false, 33);
  ok &= argmaxCase(gpu, 1, 1, /*ties=*/false, /*nans=*/false, 35);
  ok &= argmaxCase(gpu, 3, 64, /*ties=*/true, /*nans=*/false, 37);
  ok &= argmaxCase(gpu, 50, 200, /*ties=*/true, /*nans=*/true, 39);
  ok &= scoresCase(gpu, 200, 41);
  ok &= scoresCase(gpu, 64, 43);
  ok &= scanCase(gpu, 300, 1111, 51);
  ok &= scanCase(gpu, 1, 1, 53);
  ok &= scanCase(gpu, 33, 64, 55);
  ok &= exclusiveCase(gpu, 100, 70, 61);
  ok &= exclusiveCase(gpu, 16, 32, 63);
  std::printf("arg_reduce_scan_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
