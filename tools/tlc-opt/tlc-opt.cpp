//===- tlc-opt.cpp - MlirOptMain driver for tlc's dialects and passes -----===//
#include "tlc/Pipeline/Pipeline.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tlc::registerTlcDialects(registry);
  tlc::registerTlcPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  // Upstream's scf-to-cf, which test/Conversion/scf-to-cf-linear.mlir compares tlc-scf-to-cf with.
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tlc optimizer driver\n", registry));
}
