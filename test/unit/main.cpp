//===- main.cpp - Catch2 entry point of the tlc unit tests ----------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
