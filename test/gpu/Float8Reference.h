//===- Float8Reference.h - Host reference of the 8-bit float formats ------===//
//
// Decoding from the formats' definitions and encoding by brute force: the nearest finite code
// (ties to the even code), saturating at the largest finite value, NaN to 0x7F. Shared by the
// GPU tests of 8-bit floats.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TEST_GPU_FLOAT8REFERENCE_H
#define TLC_TEST_GPU_FLOAT8REFERENCE_H

#include <cmath>
#include <cstdint>
#include <limits>

namespace tlc::gputest {

/// The value of code `c` of e4m3 (`e4m3`) or e5m2.
inline double decodeFloat8(bool e4m3, uint8_t c) {
  int sign = c & 0x80 ? -1 : 1;
  int mantissaBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, expMax = e4m3 ? 15 : 31;
  int e = (c & 0x7F) >> mantissaBits, m = c & ((1 << mantissaBits) - 1);
  if (e4m3 && (c & 0x7F) == 0x7F)
    return std::numeric_limits<double>::quiet_NaN();
  if (!e4m3 && e == expMax)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : sign * std::numeric_limits<double>::infinity();
  double frac = double(m) / (1 << mantissaBits);
  return sign * (e ? std::ldexp(1.0 + frac, e - bias) : std::ldexp(frac, 1 - bias));
}

/// The code of `x`: NaN -> 0x7F; else the nearest finite code of the same sign (ties to the
/// even code), saturating at the largest finite value.
inline uint8_t encodeFloat8(bool e4m3, float x) {
  if (std::isnan(x))
    return 0x7F;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(double(x));
  uint8_t maxFinite = e4m3 ? 0x7E : 0x7B;
  if (a >= decodeFloat8(e4m3, maxFinite))
    return maxFinite | sign;
  uint8_t best = 0;
  double bestDist = std::numeric_limits<double>::infinity();
  for (int c = 0; c < 0x80; ++c) {
    double v = decodeFloat8(e4m3, uint8_t(c));
    if (!std::isfinite(v))
      continue;
    double d = std::fabs(v - a);
    if (d < bestDist || (d == bestDist && (c & 1) == 0)) {
      best = uint8_t(c);
      bestDist = d;
    }
  }
  return best | sign;
}

} // namespace tlc::gputest

#endif // TLC_TEST_GPU_FLOAT8REFERENCE_H
