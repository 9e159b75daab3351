/* GPU test of the C interface of the launchers (docs/launchers.md): a C program launches
   kernels/vector_add.tile through tlc_vector_add_vector_add_launch and checks Z = X + Y. */

#include "vector_add.h"

#include <stdio.h>
#include <stdlib.h>

#define N 1000003

static int check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return 1;
  const char *name = NULL;
  cuGetErrorName(result, &name);
  printf("FAIL: %s: %s\n", call, name ? name : "unknown CUresult");
  return 0;
}

int main(void) {
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    puts("SKIP: no CUDA device");
    return 77;
  }
  CUdevice device;
  CUcontext context;
  if (!check(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(context), "cuCtxSetCurrent"))
    return 1;

  float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
  float *z = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    x[i] = (float)(i % 1000) * 0.5f;
    y[i] = (float)(i % 7) - 3.0f;
    z[i] = -1.0f;
  }
  CUdeviceptr dx, dy, dz;
  size_t bytes = N * sizeof(float);
  int ok = check(cuMemAlloc(&dx, bytes), "cuMemAlloc") &&
           check(cuMemAlloc(&dy, bytes), "cuMemAlloc") &&
           check(cuMemAlloc(&dz, bytes), "cuMemAlloc") &&
           check(cuMemcpyHtoD(dx, x, bytes), "cuMemcpyHtoD") &&
           check(cuMemcpyHtoD(dy, y, bytes), "cuMemcpyHtoD") &&
           check(cuMemsetD32(dz, 0x7fc00000u, N), "cuMemsetD32") &&
           check(tlc_vector_add_vector_add_launch(NULL, dx, dy, dz, N), "launch") &&
           check(cuCtxSynchronize(), "cuCtxSynchronize") &&
           check(cuMemcpyDtoH(z, dz, bytes), "cuMemcpyDtoH");
  int wrong = 0;
  for (int i = 0; ok && i < N; ++i)
    wrong += z[i] != x[i] + y[i];
  /* A negative size is an error, not a launch. */
  int refused = tlc_vector_add_vector_add_launch(NULL, dx, dy, dz, -1) ==
                CUDA_ERROR_INVALID_VALUE;
  tlc_vector_add_unload();
  printf("%-40s %s (%d wrong)\n", "C interface vector_add", ok && !wrong ? "PASS" : "FAIL",
         wrong);
  printf("%-40s %s\n", "C interface negative size", refused ? "PASS" : "FAIL");
  cuMemFree(dx);
  cuMemFree(dy);
  cuMemFree(dz);
  free(x);
  free(y);
  free(z);
  cuDevicePrimaryCtxRelease(device);
  return ok && !wrong && refused ? 0 : 1;
}
