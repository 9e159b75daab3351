// Benchmark of the tile kernels that peers.py also measures: gemm (bf16, 4096^3) against
// cuBLAS and attention (B=4, H=32, S=4096, D=128, full and causal) against cuDNN/flash,
// with random inputs. Prints BENCH lines; ratios are taken against peers.py from the same run.

#include "GpuTest.h"
#include "attention.h"
#include "attention_causal.h"
#include "gemm.h"

#include <cstring>

using namespace tlc::gputest;

int main() {
  GpuContext gpu;
  {
    const int64_t n = 4096;
    size_t count = size_t(n * n);
    DeviceBuffer a(count * 2), b(count * 2), c(count * 2);
    randomBf16(a, count, 1);
    randomBf16(b, count, 2);
    double ms = medianMs(gpu, 1, 5, [&] {
      CHECK_TLC(tlc::gemm::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), n, n, n));
    });
    double tflops = 2.0 * n * n * n / (ms * 1e-3) / 1e12;
    std::printf("BENCH gemm bf16 4096x4096x4096 ms=%.3f TFLOPs=%.2f\n", ms, tflops);
  }
  for (bool causal : {false, true}) {
    const int64_t B = 4, H = 32, S = 4096, D = 128;
    size_t count = size_t(B * H * S * D);
    DeviceBuffer q(count * 2), k(count * 2), v(count * 2), o(count * 2);
    randomBf16(q, count, 3);
    randomBf16(k, count, 4);
    randomBf16(v, count, 5);
    float scale = float(1.4426950408889634 / std::sqrt(double(D)));
    double ms = medianMs(gpu, 1, 3, [&] {
      if (causal)
        CHECK_TLC(tlc::attention_causal::launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(),
                                                scale, B, H, S));
      else
        CHECK_TLC(tlc::attention::launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B,
                                         H, S));
    });
    double flops = 4.0 * B * H * S * S * D * (causal ? 0.5 : 1.0);
    std::printf("BENCH attention%s B=4 H=32 S=4096 D=128 ms=%.3f TFLOPs=%.2f\n",
                causal ? " causal" : "", ms, flops / (ms * 1e-3) / 1e12);
  }
  return 0;
}
