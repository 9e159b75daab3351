// Benchmark of kernels/attention.tile configurations (B=4, H=32, S=4096, D=128, full): the
// shipped one (BM=64, BN=64, 4 warps: 16 rows per warp, both gemms on wgmma on sm_90a) and
// variants compiled with -D (BM=128 BN=32: 32 rows per warp, mma.sync; 16 rows
// per warp put both gemms on wgmma; one of them again with --codegen=mma-sync), each
// checked against the shipped one's output before it is timed. Prints BENCH lines; peers.py
// from the same run gives cuDNN and flash attention.

#include "GpuTest.h"
#include "attention.h"
#include "attention_bm128_bn32.h"
#include "attention_bn32.h"
#include "attention_bn48.h"
#include "attention_causal_inorder.h"
#include "attention_causal_sm90.h"
#include "attention_fa3_false.h"
#include "attention_fa3_true.h"
#include "attention_s3.h"
#include "attention_w2_bm64.h"
#include "attention_w4_bm64_bn128.h"
#include "attention_w8_bm256.h"
#include "attention_w8_bn64.h"
#include "attention_w8_bn64_mma.h"

#include <cstring>

using namespace tlc::gputest;

using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   float, int64_t, int64_t, int64_t);

int main() {
  GpuContext gpu;
  const int64_t B = 4, H = 32, S = 4096, D = 128;
  size_t count = size_t(B * H * S * D);
  DeviceBuffer q(count * 2), k(count * 2), v(count * 2), ref(count * 2), o(count * 2);
  randomBf16(q, count, 3);
  randomBf16(k, count, 4);
  randomBf16(v, count, 5);
  float scale = float(1.4426950408889634 / std::sqrt(double(D)));
  CHECK_TLC(
      tlc::attention::launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(), scale, B, H, S));
  gpu.synchronize();
  std::vector<uint16_t> want(count), got(count);
  CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
  struct Variant {
    const char *name;
    Launch launch;
  };
  bool ok = true;
  // Checks one variant's output against `want`, then times it (median of 5 after warm-up).
  auto run = [&](const Variant &variant, double flops) {
    poison(o, gpu.stream());
    CHECK_TLC(variant.launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), count * 2));
    double worst = 0;
    for (size_t i = 0; i < count; ++i)
      worst = std::max(worst, double(std::fabs(fromBf16(got[i]) - fromBf16(want[i]))));
    // Different block orders round differently in bf16; a wrong kernel is off by O(1).
    bool same = worst < 2e-2;
    ok &= same;
    double ms = medianMs(gpu, 1, 5, [&] {
      CHECK_TLC(variant.launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
    });
    std::printf("BENCH attention %s B=4 H=32 S=4096 D=128 ms=%.3f TFLOPs=%.2f (max diff %.1e %s)\n",
                variant.name, ms, flops / (ms * 1e-3) / 1e12, worst, same ? "ok" : "WRONG");
  };
  const double full = 4.0 * B * H * S * S * D;
  for (Variant variant : std::initializer_list<Variant>{
           Variant{"BM=64 BN=64 4 warps (shipped, wgmma)", tlc::attention::launch},
           Variant{"BM=64 BN=64 4 warps, FlashAttention-3 order (experiment)",
                   tlc::attention_fa3_false::launch},
           Variant{"BM=128 BN=64 8 warps (wgmma)", tlc::attention_w8_bn64::launch},
           Variant{"BM=128 BN=64 8 warps, --codegen=mma-sync", tlc::attention_w8_bn64_mma::launch},
           Variant{"BM=128 BN=32 4 warps (mma.sync, shipped before)",
                   tlc::attention_bm128_bn32::launch},
           Variant{"BM=64 BN=128 4 warps (wgmma)", tlc::attention_w4_bm64_bn128::launch},
           Variant{"BM=64 BN=32 4 warps (wgmma)", tlc::attention_bn32::launch},
           Variant{"BM=64 BN=48 4 warps (wgmma)", tlc::attention_bn48::launch},
           Variant{"BM=64 BN=64 4 warps, 3 stages", tlc::attention_s3::launch},
           Variant{"BM=256 BN=32 8 warps", tlc::attention_w8_bm256::launch},
           Variant{"BM=64 BN=32 2 warps", tlc::attention_w2_bm64::launch}})
    run(variant, full);
  // The shipped loop order against FlashAttention-3's (bench/experiments: P V of the previous
  // block runs while this block's softmax is computed), alternately, full and causal.
  for (int round = 0; round < 3; ++round) {
    run(Variant{"BM=64 BN=64 4 warps (shipped, wgmma)", tlc::attention::launch}, full);
    run(Variant{"BM=64 BN=64 4 warps, FlashAttention-3 order (experiment)",
                tlc::attention_fa3_false::launch},
        full);
  }
  CHECK_TLC(tlc::attention_causal_sm90::launch(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(),
                                               scale, B, H, S));
  gpu.synchronize();
  CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
  for (int round = 0; round < 3; ++round) {
    run(Variant{"causal BM=64 BN=64 4 warps (shipped, wgmma)", tlc::attention_causal_sm90::launch},
        full / 2);
    run(Variant{"causal BM=64 BN=64 4 warps, FlashAttention-3 order (experiment)",
                tlc::attention_fa3_true::launch},
        full / 2);
    run(Variant{"causal BM=64 BN=64 4 warps, query blocks in order (before)",
                tlc::attention_causal_inorder::launch},
        full / 2);
  }
  return ok ? 0 : 1;
}
