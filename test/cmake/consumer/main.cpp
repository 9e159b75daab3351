// Calls every launcher the consumer's add_tile_kernel targets generate (compile and link check;
// run-consumer.sh does not run it). With no device the launches fail with a Status, which is
// printed: the program exits 77 then.
#include "axpy.h"
#include "copy.h"
#include "matrix_ops.h"

#include <cstdio>

int main() {
  if (cuInit(0) != CUDA_SUCCESS) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  CUstream stream = nullptr;
  CUdeviceptr x = 0, y = 0;
  tlc::rt::Status statuses[] = {
      consumer::axpy::launch(stream, x, y, 2.0f, 0),
      consumer::axpy::axpy::launch(stream, x, y, 2.0f, 0),
      consumer::matrix_ops::fill_rows::launch(stream, x, 1.0f, 0, 0),
      consumer::matrix_ops::transpose_copy::launch(stream, x, y, 0, 0),
      tlc::copy::launch(stream, x, y, 0),
  };
  int failed = 0;
  for (const tlc::rt::Status &s : statuses)
    if (!s.ok()) {
      std::printf("error: %s\n", s.message().c_str());
      ++failed;
    }
  consumer::axpy::unload();
  consumer::matrix_ops::unload();
  tlc::copy::unload();
  std::printf("%s\n", failed ? "FAIL" : "PASS");
  return failed ? 1 : 0;
}
