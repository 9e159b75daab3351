// Which part of the pairs hangs: g1 (one 128x128 GEMM configuration) built six ways, each
// launched with clusters off and on; a launch that does not finish in 3 s is a hang (exit).
#include "GpuTest.h"
#include "base.h"
#include "nomc.h"
#include "none.h"
#include "nopairs.h"
#include "noremote.h"
#include "notail.h"
#include <chrono>
#include <cstring>
#include <thread>
using namespace tlc::gputest;
using F = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t, int64_t,
                              int64_t);
int main(int argc, char **argv) {
  GpuContext gpu;
  std::pair<const char *, F> fs[] = {
      {"nopairs", tlc::nopairs::g1::launch}, {"none", tlc::none::g1::launch},
      {"nomc", tlc::nomc::g1::launch},       {"noremote", tlc::noremote::g1::launch},
      {"notail", tlc::notail::g1::launch},   {"base", tlc::base::g1::launch}};
  int which = std::atoi(argv[1]);
  bool on = std::strcmp(argv[2], "on") == 0;
  tlc::rt::setClusters(on);
  int64_t m = 256, n = 256, k = 256;
  DeviceBuffer a(m * k * 2), b(k * n * 2), c(m * n * 2);
  randomBf16(a, m * k, 1);
  randomBf16(b, k * n, 2);
  tlc::rt::Status st = fs[which].second(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), m, k, n);
  if (!st.ok()) {
    std::printf("ERR %s %s: %s\n", fs[which].first, argv[2], st.message().c_str());
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  CUresult r;
  while ((r = cuStreamQuery(gpu.stream())) == CUDA_ERROR_NOT_READY) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(3)) {
      std::printf("HANG %s %s\n", fs[which].first, argv[2]);
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("%s %s %s\n", r == CUDA_SUCCESS ? "OK" : "CUERR", fs[which].first, argv[2]);
  return 0;
}
