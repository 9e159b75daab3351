//===- DiffPlanTest.cpp - Tests of tlc-difftest's GPU-free part (DiffPlan.h) ------------===//
//
// A self-contained test program (no GPU, no CUDA, no test framework): the JSON reader, the
// manifest model, grid expressions, target selection, case sizes and strides, layouts, inputs
// and the comparison. Prints each failed check and exits 1 if any failed.
//
//===----------------------------------------------------------------------===//

#include "DiffPlan.h"

#include <cstdio>
#include <functional>

using namespace tlc::difftest;

static int Failures = 0;
static int Checks = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    ++Checks;                                                                                      \
    if (!(cond)) {                                                                                 \
      ++Failures;                                                                                  \
      std::printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                         \
    }                                                                                              \
  } while (0)

#define CHECK_EQ(a, b)                                                                             \
  do {                                                                                             \
    ++Checks;                                                                                      \
    auto checkA = (a);                                                                             \
    auto checkB = (b);                                                                             \
    if (!(checkA == checkB)) {                                                                     \
      ++Failures;                                                                                  \
      std::printf("%s:%d: CHECK_EQ failed: %s == %s\n", __FILE__, __LINE__, #a, #b);               \
    }                                                                                              \
  } while (0)

/// The manifest of a gemm with two variants (a tma entry on sm_90a), a transposed strided
/// output, a scalar and a grid with a conditional, as tlc writes it (new fields included).
static const char *const SampleManifest = R"json({
  "tlc_version": "0.1.0", "source": "k.tile", "archs": ["sm_90a", "sm_80"],
  "kernels": [
    { "name": "gemm__0", "variant_of": "gemm", "variant": 0,
      "threads": [256, 1, 1],
      "grid": ["tlc::rt::ceilDiv(N, 256)", "tlc::rt::ceilDiv(M, 128)", "1"],
      "size_symbols": ["M", "K", "N", "ldc"],
      "exact": false, "rounds_to": "bf16", "f8_gemm": true,
      "params": [
        {"name": "A", "kind": "tensor", "dtype": "bf16", "dims": ["M", "K"], "access": "read"},
        {"name": "B", "kind": "tensor", "dtype": "bf16", "dims": ["K", "N"], "access": "read"},
        {"name": "CT", "kind": "tensor", "dtype": "f16", "dims": ["N", "M"],
         "strides": ["1", "ldc"], "access": "write"},
        {"name": "scale", "kind": "scalar", "dtype": "f32", "dims": []} ],
      "constants": {"BM": 128, "BN": 256, "T": "bf16", "CAUSAL": false},
      "targets": [
        {"arch": "sm_90a", "cubin": true, "registers": 168,
         "entries": [
           {"name": "gemm__0", "kind": "plain", "threads": 256, "dynamic_shared_bytes": 98304},
           {"name": "gemm__0__tma", "kind": "tma", "threads": 384,
            "dynamic_shared_bytes": 197632,
            "maps": [ {"param": 0, "box_rows": 128, "box_cols": 64, "swizzle": 128,
                       "read_only": true},
                      {"param": 1, "box_rows": 64, "box_cols": 64, "swizzle": 128} ],
            "repack": {"entry": "tlc_repack_b16", "threads": 256, "tile_rows": 8,
                       "tile_cols": 256, "dynamic_shared_bytes": 0},
            "stream_k": {"slot_bytes": 131072} } ] },
        {"arch": "sm_80", "cubin": true,
         "entries": [ {"name": "gemm__0", "kind": "plain", "threads": 256,
                       "dynamic_shared_bytes": 65536} ] } ] },
    { "name": "rows", "threads": [128, 1, 1],
      "grid": ["((M > 0) ? tlc::rt::ceilDiv(M, 64) : 1)", "static_cast<int64_t>(nb)", ""],
      "size_symbols": ["M"], "exact": true,
      "params": [
        {"name": "X", "kind": "tensor", "dtype": "f32", "dims": ["M", "16"], "access": "readwrite"},
        {"name": "nb", "kind": "scalar", "dtype": "i64"},
        {"name": "on", "kind": "scalar", "dtype": "bool"} ],
      "constants": {},
      "targets": [ {"arch": "sm_80", "cubin": false,
                    "entries": [ {"name": "rows", "kind": "plain", "threads": 128,
                                  "dynamic_shared_bytes": 0} ] } ] },
    { "name": "fp8", "threads": [128, 1, 1], "grid": ["1", "1", "1"], "size_symbols": ["N"],
      "params": [ {"name": "X", "kind": "tensor", "dtype": "f4e2m1", "dims": ["N"],
                   "access": "read"} ],
      "targets": [] } ] })json";

static Manifest sampleManifest() {
  Manifest m;
  std::string error;
  bool ok = parseManifest(SampleManifest, m, error);
  if (!ok)
    std::printf("sample manifest: %s\n", error.c_str());
  CHECK(ok);
  return m;
}

static void testJson() {
  Json j;
  std::string error;
  CHECK(parseJson(R"( {"a": [1, -2.5e1, true, false, null], "s": "x\"\\\n\u00e9\ud83d\ude00",
                     "big": 9007199254740993, "o": {}} )",
                  j, error));
  CHECK(j.isObject());
  const Json *a = j.get("a");
  CHECK(a && a->isArray() && a->items.size() == 5);
  CHECK_EQ(a->items[0].asInt().value_or(0), 1);
  CHECK(a->items[1].number == -25.0);
  CHECK_EQ(a->items[1].asInt().value_or(0), -25); // an integral number in exponent form
  CHECK(a->items[2].kind == Json::Kind::Bool && a->items[2].boolean);
  CHECK(a->items[4].isNull());
  CHECK_EQ(j.get("s")->text, std::string("x\"\\\n\xc3\xa9\xf0\x9f\x98\x80"));
  CHECK_EQ(j.get("big")->asInt().value_or(0), int64_t(9007199254740993)); // exact, not a double
  CHECK(j.get("o")->isObject() && j.get("o")->members.empty());
  CHECK(j.get("missing") == nullptr);
  CHECK(!Json().asInt());

  CHECK(!parseJson("{\"a\": 1,\n \"b\" 2}", j, error));
  CHECK(error.find("line 2") != std::string::npos);
  CHECK(!parseJson("[1, 2] x", j, error));
  CHECK(!parseJson("\"abc", j, error));
  CHECK(!parseJson("[01x]", j, error));
  CHECK(!parseJson("", j, error));
  CHECK(!parseJson("{\"a\": tru}", j, error));
}

static void testManifest() {
  Manifest m = sampleManifest();
  CHECK_EQ(m.kernels.size(), size_t(3));
  CHECK_EQ(m.source, std::string("k.tile"));
  CHECK_EQ(m.archs.size(), size_t(2));
  const KernelInfo &g = m.kernels[0];
  CHECK_EQ(g.family(), std::string("gemm"));
  CHECK_EQ(g.variant, int64_t(0));
  CHECK(!g.exact);
  CHECK_EQ(g.roundsTo, std::string("bf16"));
  CHECK(m.kernels[1].roundsTo.empty());
  CHECK(g.f8Gemm && !m.kernels[1].f8Gemm);
  CHECK_EQ(g.threads[0], int64_t(256));
  CHECK_EQ(g.params.size(), size_t(4));
  CHECK_EQ(g.params[2].strides.size(), size_t(2));
  CHECK_EQ(g.params[2].access, std::string("write"));
  CHECK(g.params[2].isWritten() && !g.params[0].isWritten());
  CHECK(!g.params[3].isTensor);
  CHECK_EQ(g.intConstants.size(), size_t(2)); // BM, BN; not T, not CAUSAL
  CHECK_EQ(g.targets.size(), size_t(2));
  CHECK_EQ(g.targets[0].entries.size(), size_t(2));
  const EntryInfo &tma = g.targets[0].entries[1];
  CHECK_EQ(tma.kind, std::string("tma"));
  CHECK_EQ(tma.threads, int64_t(384));
  CHECK_EQ(tma.dynamicSharedBytes, int64_t(197632));
  CHECK_EQ(tma.maps.size(), size_t(2));
  CHECK_EQ(tma.maps[1].param, 1);
  CHECK_EQ(tma.maps[0].boxRows, int64_t(128));
  CHECK(tma.maps[0].readOnly);
  CHECK(!tma.maps[1].readOnly);
  CHECK_EQ(tma.repack.entry, std::string("tlc_repack_b16"));
  CHECK_EQ(tma.streamKSlotBytes, int64_t(131072));
  CHECK_EQ(g.targets[0].entries[0].streamKSlotBytes, int64_t(0));
  CHECK_EQ(tma.repack.threads, int64_t(256));
  CHECK_EQ(tma.repack.tileRows, int64_t(8));
  CHECK_EQ(tma.repack.tileCols, int64_t(256));
  CHECK(g.targets[0].entries[0].repack.entry.empty());
  CHECK_EQ(g.targets[0].plainEntry()->name, std::string("gemm__0"));
  CHECK(unsupportedReason(g).empty());
  CHECK(unsupportedReason(m.kernels[2]).find("f4e2m1") != std::string::npos);
  CHECK(m.find("rows") == &m.kernels[1]);
  CHECK(m.find("nope") == nullptr);
  CHECK(abiMismatch(g, g).empty());
  KernelInfo other = g;
  other.params[1].dims[0] = "K2";
  CHECK(!abiMismatch(g, other).empty());
  // A family reference (other tiles: another grid) launches its own grid; parameters must match.
  KernelInfo tiles = g;
  std::string why;
  tiles.grid[0] = "tlc::rt::ceilDiv(N, 64)";
  CHECK(tiles.gridExprs[0].parse(tiles.grid[0], why));
  CHECK(!abiMismatch(g, tiles).empty());
  CHECK(abiMismatch(g, tiles, /*familyReference=*/true).empty());
  CHECK(!abiMismatch(g, other, /*familyReference=*/true).empty());
  CasePlan plan;
  CHECK(planCase(g, 1, 3, Symbols{{"N", 300}}, 1 << 20, plan, why));
  int64_t grid[3] = {0, 0, 0};
  CHECK(planGrid(tiles, plan, grid, why));
  CHECK_EQ(grid[0], int64_t(5));
  CHECK_EQ(plan.grid[0], int64_t(2));

  // A kernel's size_symbols lacking a symbol a tensor uses: it is added.
  const KernelInfo &rows = m.kernels[1];
  CHECK_EQ(rows.sizeSymbols.size(), size_t(1));
  CHECK_EQ(rows.params[0].access, std::string("readwrite"));

  // Errors name the place.
  auto fails = [](const std::string &text, const char *expect) {
    Manifest bad;
    std::string error;
    bool ok = parseManifest(text, bad, error);
    if (ok || error.find(expect) == std::string::npos)
      std::printf("  manifest error was '%s', expected '%s'\n", error.c_str(), expect);
    return !ok && error.find(expect) != std::string::npos;
  };
  auto withKernel = [](const std::string &kernel) { return "{\"kernels\": [" + kernel + "]}"; };
  CHECK(fails("[]", "not a JSON object"));
  CHECK(fails("{}", "missing 'kernels'"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [], "targets": [{"arch": "sm_90a"}]})j"),
              "missing 'entries'"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [
      {"name": "A", "kind": "tensor", "dtype": "f32", "dims": ["M"], "strides": ["1", "2"]}]})j"),
              "1 dims but 2 strides"));
  CHECK(fails(withKernel(R"j({"name": "k", "grid": ["tlc::rt::floorDiv(N, 2)"], "params": []})j"),
              "unsupported function 'tlc::rt::floorDiv'"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [
      {"name": "A", "kind": "tensor", "dtype": "f32", "dims": ["M"]}],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "plain"},
        {"name": "k__tma", "kind": "tma", "threads": 384,
         "maps": [{"param": 0, "box_rows": 64, "box_cols": 64}]}]}]})j"),
              "is not a tensor parameter of rank 2 to 5"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [
      {"name": "A", "kind": "tensor", "dtype": "f32", "dims": ["M"], "access": "rw"}]})j"),
              "unknown access"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "plain"},
        {"name": "k__tma", "kind": "tma", "threads": 384, "maps": [],
         "repack": {"entry": "r", "threads": 0, "tile_rows": 8, "tile_cols": 256}}]}]})j"),
              "repack: bad threads"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "plain"},
        {"name": "k__tma", "kind": "tma", "threads": 384, "maps": [],
         "stream_k": {"slot_bytes": 40}}]}]})j"),
              "stream_k: 'slot_bytes' must be a positive multiple of 16"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "tma"}]}]})j"),
              "needs 'threads'"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k__loads", "kind": "loads"}]}]})j"),
              "a loads entry needs 'threads'"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k__tma", "kind": "tma",
        "threads": 384, "maps": []}]}]})j"),
              "has neither a plain nor a loads entry, nor a plain_server"));
  // Another configuration's launch may serve the launches TMA cannot (docs/abi.md).
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "plain"},
        {"name": "k__tma", "kind": "tma", "threads": 384, "maps": []}],
        "plain_server": "k2"}]})j"),
              "has a plain entry and another configuration serving it"));
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k__tma", "kind": "tma",
        "threads": 384, "maps": []}], "plain_server": 3}]})j"),
              "'plain_server' must be a string"));
  {
    Manifest served;
    std::string servedError;
    CHECK(parseManifest(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k__tma", "kind": "tma",
        "threads": 384, "maps": []}], "plain_server": "k2"}]})j"),
                        served, servedError));
    CHECK_EQ(servedError, std::string());
  }
  CHECK(fails(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [{"name": "k", "kind": "fast"}]}]})j"),
              "unknown entry kind"));
  // An sm_90a image of only warp-specialized entries: the loads entry stands in for the plain.
  Manifest onlyLoads;
  std::string loadsError;
  bool parsed = parseManifest(withKernel(R"j({"name": "k", "params": [],
      "targets": [{"arch": "sm_90a", "entries": [
        {"name": "k__loads", "kind": "loads", "threads": 384, "dynamic_shared_bytes": 98352}]}]})j"),
                              onlyLoads, loadsError);
  CHECK(parsed);
  if (!parsed)
    return;
  const EntryInfo &loads = onlyLoads.kernels[0].targets[0].entries[0];
  CHECK(loads.persistent());
  CHECK_EQ(loads.threads, 384);
  CHECK(onlyLoads.kernels[0].targets[0].plainEntry() == nullptr);
}

static int64_t evalGrid(const std::string &text, const Env &env, bool *ok = nullptr,
                        std::string *why = nullptr) {
  GridExpr e;
  std::string error;
  int64_t v = -999;
  bool good = e.parse(text, error) && e.eval(env, v, error);
  if (ok)
    *ok = good;
  if (why)
    *why = error;
  return good ? v : -999;
}

static void testGrid() {
  Env env{{"M", 1000}, {"N", 1111}, {"K", 0}, {"nb", 7}};
  CHECK_EQ(evalGrid("tlc::rt::ceilDiv(N, 128)", env), int64_t(9));
  CHECK_EQ(evalGrid("((M > 0) ? tlc::rt::ceilDiv(M, 64) : 1)", env), int64_t(16));
  CHECK_EQ(evalGrid("((K > 0) ? tlc::rt::ceilDiv(M, K) : 1)", env), int64_t(1)); // lazy arm
  CHECK_EQ(evalGrid("static_cast<int64_t>(nb)", env), int64_t(7));
  CHECK_EQ(evalGrid("", env), int64_t(1));
  CHECK_EQ(evalGrid("  ", env), int64_t(1));
  CHECK_EQ(evalGrid("1", env), int64_t(1));
  CHECK_EQ(evalGrid("(M * 2)", env), int64_t(2000));
  // Bools and bitwise operators (`&&` and `||` of kernels are `&` and `|` of bools), with C++
  // precedence: & above ^ above |, all below comparisons.
  CHECK_EQ(evalGrid("((true & (M <= 1000)) ? 4 : 1)", env), int64_t(4));
  CHECK_EQ(evalGrid("((false | (M > 1000)) ? 4 : 1)", env), int64_t(1));
  CHECK_EQ(evalGrid("6 & 3 | 8 ^ 1", env), int64_t(11));
  CHECK_EQ(evalGrid("M == 1000 & 5", env), int64_t(1));
  CHECK_EQ(evalGrid("(((M + N) - 11) / 100)", env), int64_t(21));
  CHECK_EQ(evalGrid("(N % 100)", env), int64_t(11));
  CHECK_EQ(evalGrid("M + N * 2", env), int64_t(3222)); // precedence without parentheses
  CHECK_EQ(evalGrid("(M < N ? M : N)", env), int64_t(1000));
  CHECK_EQ(evalGrid("(M > N ? M : N)", env), int64_t(1111));
  CHECK_EQ(evalGrid("((M == 1000) + (M != 1000) + (M <= 1000) + (M >= 1001))", env), int64_t(2));
  CHECK_EQ(evalGrid("tlc::rt::ceilDiv(-5, 2)", env), int64_t(-2));
  CHECK_EQ(evalGrid("tlc::rt::ceilDiv((0 - 5), 2)", env), int64_t(-2));
  CHECK_EQ(evalGrid("(-7 / 2)", env), int64_t(-3)); // truncation, as in C++
  CHECK_EQ(evalGrid("(-7 % 2)", env), int64_t(-1));
  CHECK_EQ(evalGrid("static_cast<int64_t>(tlc::rt::ceilDiv(static_cast<int64_t>(M), 128))", env),
           int64_t(8));
  CHECK_EQ(evalGrid("((M > 0) ? ((N > 0) ? 1 : 2) : 3)", env), int64_t(1));
  CHECK_EQ(evalGrid("M > 0 ? N > 5000 ? 1 : 2 : 3", env), int64_t(2));

  bool ok = true;
  std::string why;
  evalGrid("(M / K)", env, &ok, &why);
  CHECK(!ok && why.find("division by zero") != std::string::npos &&
        why.find("'(M / K)'") != std::string::npos);
  evalGrid("tlc::rt::ceilDiv(Q, 2)", env, &ok, &why);
  CHECK(!ok && why.find("unknown name 'Q'") != std::string::npos);
  evalGrid("std::max(M, N)", env, &ok, &why);
  CHECK(!ok && why.find("unsupported function 'std::max'") != std::string::npos);
  evalGrid("static_cast<int32_t>(M)", env, &ok, &why);
  CHECK(!ok && why.find("int32_t") != std::string::npos);
  evalGrid("(M + )", env, &ok, &why);
  CHECK(!ok && why.find("grid expression '(M + )'") != std::string::npos);
  evalGrid("(M + 1", env, &ok, &why);
  CHECK(!ok);
  evalGrid("M N", env, &ok, &why);
  CHECK(!ok);
  evalGrid("M && N", env, &ok, &why); // the launchers write `&` of bools, never `&&`
  CHECK(!ok && why.find("'&'") != std::string::npos);
  evalGrid("1.5", env, &ok, &why);
  CHECK(!ok);
  evalGrid("(9223372036854775807 + 1)", env, &ok, &why);
  CHECK(!ok && why.find("overflow") != std::string::npos);
  evalGrid("99999999999999999999", env, &ok, &why);
  CHECK(!ok);

  GridExpr e;
  std::string error;
  CHECK(e.parse("tlc::rt::ceilDiv(N, BM) * H", error));
  CHECK((e.names() == std::set<std::string>{"N", "BM", "H"}));
}

static void testTargets() {
  Manifest m = sampleManifest();
  const KernelInfo &g = m.kernels[0];
  std::string why;
  CHECK_EQ(selectTarget(g, 9, 0, why)->arch, std::string("sm_90a"));
  CHECK_EQ(selectTarget(g, 8, 0, why)->arch, std::string("sm_80"));
  CHECK_EQ(selectTarget(g, 8, 6, why)->arch, std::string("sm_80")); // same major, older minor
  // sm_100: no cubin runs; sm_90a has no PTX fallback ('a'), sm_80 is taken as PTX.
  CHECK_EQ(selectTarget(g, 10, 0, why)->arch, std::string("sm_80"));
  CHECK(selectTarget(g, 7, 5, why) == nullptr);
  CHECK(why.find("sm_75") != std::string::npos);
  // A PTX-only target is JIT-compiled on newer devices.
  CHECK_EQ(selectTarget(m.kernels[1], 9, 0, why)->arch, std::string("sm_80"));
  // PTX of an 'a' target (tlc --ptx-only --arch sm_90a) is JIT-compiled for exactly its device.
  KernelInfo ptxOnly = g;
  ptxOnly.targets.resize(1);
  ptxOnly.targets[0].arch = "sm_90a";
  ptxOnly.targets[0].cubin = false;
  CHECK(selectTarget(ptxOnly, 9, 0, why) == &ptxOnly.targets[0]);
  CHECK(selectTarget(ptxOnly, 10, 0, why) == nullptr);
  CHECK(selectTarget(ptxOnly, 8, 9, why) == nullptr);
  std::optional<ArchId> id = parseArch("sm_100a");
  CHECK(id && id->major == 10 && id->minor == 0 && id->suffix == 'a');
  id = parseArch("sm_120f");
  CHECK(id && id->major == 12 && id->suffix == 'f');
  CHECK(!parseArch("gfx90a"));
  CHECK(!parseArch("sm_9"));
}

static void testSizes() {
  Manifest m = sampleManifest();
  const KernelInfo &g = m.kernels[0];
  CHECK((dimSymbols(g) == std::vector<std::string>{"M", "K", "N"}));
  CHECK((strideSymbols(g) == std::vector<std::string>{"ldc"}));

  Rng rng(1);
  Symbols s = chooseSizes(g, 0, rng, 1 << 24);
  CHECK(s["M"] == 1 && s["K"] == 1 && s["N"] == 1);
  s = chooseSizes(g, 1, rng, 1 << 24);
  CHECK(s["M"] == 3 && s["K"] == 3 && s["N"] == 3);
  s = chooseSizes(g, 2, rng, 1 << 24);
  CHECK(s["M"] == 256 && s["K"] == 256 && s["N"] == 256);
  s = chooseSizes(g, 3, rng, 1 << 24);
  CHECK(s["M"] == 1000 && s["K"] == 1111 && s["N"] == 778);
  // Shrunk to the element limit, given sizes kept.
  s = chooseSizes(g, 3, rng, 100000);
  for (const ParamInfo &p : g.params)
    if (p.isTensor)
      CHECK(elementCount(p, s) <= 100000);
  s = chooseSizes(g, 3, rng, 100000, Symbols{{"K", 5000}});
  CHECK_EQ(s["K"], int64_t(5000));
  CHECK(elementCount(g.params[0], s) <= 100000 && elementCount(g.params[1], s) <= 100000);
  // A limit that only given sizes break: kept as given.
  s = chooseSizes(g, 3, rng, 10, Symbols{{"M", 100}, {"K", 100}, {"N", 100}});
  CHECK(s["M"] == 100 && s["K"] == 100 && s["N"] == 100);

  // Random cases: deterministic per seed, about half ragged, all within the limit.
  int ragged = 0, total = 0;
  for (int index = 4; index < 404; ++index) {
    Rng a(mixSeed(7, index)), b(mixSeed(7, index));
    Symbols x = chooseSizes(g, index, a, 1 << 20), y = chooseSizes(g, index, b, 1 << 20);
    CHECK(x == y);
    bool anyRagged = false;
    for (const auto &[name, v] : x) {
      anyRagged |= v % 64 != 0;
      CHECK(v >= 1);
    }
    for (const ParamInfo &p : g.params)
      if (p.isTensor)
        CHECK(elementCount(p, x) <= (1 << 20));
    ragged += anyRagged;
    ++total;
  }
  CHECK(ragged > total / 3 && ragged < total * 5 / 6);

  std::vector<int> indices = chooseCaseIndices(g, 3, 40, 1 << 24);
  CHECK_EQ(indices.size(), size_t(40));
  CHECK(indices[0] == 0 && indices[1] == 1 && indices[2] == 2 && indices[3] == 3);
  std::set<Symbols> distinct;
  for (size_t i = 4; i < indices.size(); ++i) {
    Rng r(mixSeed(mixSeed(3, hashName("gemm")), indices[i]));
    Symbols x = chooseSizes(g, indices[i], r, 1 << 24);
    chooseStrides(g, x, r);
    distinct.insert(x);
  }
  CHECK_EQ(distinct.size(), size_t(36));

  std::vector<std::pair<std::string, int64_t>> items;
  std::string error;
  CHECK(parseCaseSpec("M=1000,N=1111, K=778 ,ldc=-3", items, error));
  CHECK_EQ(items.size(), size_t(4));
  CHECK(items[2].first == "K" && items[2].second == 778);
  CHECK_EQ(items[3].second, int64_t(-3));
  CHECK(!parseCaseSpec("M=", items, error));
  CHECK(!parseCaseSpec("M=1x", items, error));
  CHECK(!parseCaseSpec("=5", items, error));
  CHECK(!parseCaseSpec("", items, error));
  CHECK(parseCaseSpec("M=1,", items, error) && items.size() == 1);
}

/// Whether every element of \p layout has its own offset.
static bool noOverlap(const TensorLayout &layout) {
  std::vector<int> hits(static_cast<size_t>(layout.span()), 0);
  bool ok = true;
  forEachElement(layout, [&](const std::vector<int64_t> &, int64_t k) {
    ok &= k >= 0 && k < layout.span() && hits[static_cast<size_t>(k)]++ == 0;
  });
  return ok;
}

static void testStrides() {
  Manifest m = sampleManifest();
  const KernelInfo &g = m.kernels[0];
  // CT[N, M] strides [1, ldc]: dim 0 is innermost, so ldc >= N.
  for (int i = 0; i < 200; ++i) {
    Rng rng(mixSeed(11, i));
    Symbols s = chooseSizes(g, 4 + i, rng, 1 << 22);
    chooseStrides(g, s, rng);
    CHECK(s["ldc"] >= s["N"] && s["ldc"] <= s["N"] + 7);
    TensorLayout layout;
    std::string error;
    CHECK(makeLayout(g.params[2], s, layout, error));
    CHECK(layout.count() == s["N"] * s["M"]);
    if (s["N"] * s["M"] <= 300000)
      CHECK(noOverlap(layout));
  }
  // Padding varies: sometimes none, sometimes 1-3 elements (unaligned), sometimes to 16 bytes.
  std::set<int64_t> pads;
  for (int i = 0; i < 200; ++i) {
    Rng rng(mixSeed(12, i));
    Symbols s{{"M", 10}, {"K", 10}, {"N", 100}};
    chooseStrides(g, s, rng);
    pads.insert(s["ldc"] - 100);
  }
  CHECK(pads.count(0) && pads.count(4) && (pads.count(1) || pads.count(2) || pads.count(3)));
  // Given strides are kept.
  {
    Rng rng(1);
    Symbols s{{"M", 10}, {"K", 10}, {"N", 100}, {"ldc", 5}};
    chooseStrides(g, s, rng);
    CHECK_EQ(s["ldc"], int64_t(5));
  }

  // Rank 3 with two stride symbols, one shared with another tensor whose rows are longer: the
  // shared symbol takes the larger need, and neither tensor overlaps.
  Manifest m3;
  std::string error;
  CHECK(parseManifest(R"j({"kernels": [{"name": "k", "params": [
      {"name": "X", "kind": "tensor", "dtype": "bf16", "dims": ["B", "M", "N"],
       "strides": ["sb", "sm", "1"], "access": "read"},
      {"name": "Y", "kind": "tensor", "dtype": "f32", "dims": ["M", "W"],
       "strides": ["sm", "1"], "access": "write"},
      {"name": "Z", "kind": "tensor", "dtype": "f32", "dims": ["M", "N"],
       "strides": ["2", "4"], "access": "read"}]}]})j",
                      m3, error));
  const KernelInfo &k3 = m3.kernels[0];
  CHECK((strideSymbols(k3) == std::vector<std::string>{"sb", "sm"}));
  for (int i = 0; i < 100; ++i) {
    Rng rng(mixSeed(13, i));
    Symbols s{{"B", 1 + i % 5}, {"M", 1 + i % 7}, {"N", 1 + i % 13}, {"W", 1 + i % 17}};
    chooseStrides(k3, s, rng);
    CHECK(s["sm"] >= std::max(s["N"], s["W"]));
    CHECK(s["sb"] >= s["sm"] * (s["M"] - 1) + s["N"]);
    for (int p = 0; p < 2; ++p) {
      TensorLayout layout;
      CHECK(makeLayout(k3.params[p], s, layout, error));
      CHECK(noOverlap(layout));
    }
  }
  // A constant stride outside a chosen one ([H, T, D] strides [D, S, 1]: heads of packed rows,
  // kernels/attention_varlen.tile's O): S covers every head, so written rows never overlap.
  Manifest m5;
  CHECK(parseManifest(R"j({"kernels": [{"name": "k", "params": [
      {"name": "O", "kind": "tensor", "dtype": "bf16", "dims": ["H", "T", "128"],
       "strides": ["128", "SO", "1"], "access": "write"}]}]})j",
                      m5, error));
  for (int i = 0; i < 50; ++i) {
    Rng rng(mixSeed(15, i));
    Symbols s{{"H", 1 + i % 9}, {"T", 1 + i % 5}};
    chooseStrides(m5.kernels[0], s, rng);
    CHECK(s["SO"] >= 128 * s["H"]);
    TensorLayout layout;
    CHECK(makeLayout(m5.kernels[0].params[0], s, layout, error));
    CHECK(noOverlap(layout));
  }
  // No stride "1": the last dim is innermost and gets a stride of 1 to 4.
  Manifest m4;
  CHECK(parseManifest(R"j({"kernels": [{"name": "k", "params": [
      {"name": "X", "kind": "tensor", "dtype": "f32", "dims": ["M", "N"],
       "strides": ["ld", "inc"], "access": "read"}]}]})j",
                      m4, error));
  for (int i = 0; i < 50; ++i) {
    Rng rng(mixSeed(14, i));
    Symbols s{{"M", 3 + i % 4}, {"N", 2 + i % 9}};
    chooseStrides(m4.kernels[0], s, rng);
    CHECK(s["inc"] >= 1 && s["inc"] <= 4);
    CHECK(s["ld"] >= s["inc"] * (s["N"] - 1) + 1);
    TensorLayout layout;
    CHECK(makeLayout(m4.kernels[0].params[0], s, layout, error));
    CHECK(noOverlap(layout));
  }
}

static void testLayout() {
  ParamInfo dense;
  dense.name = "X";
  dense.isTensor = true;
  dense.dims = {"B", "M", "16"};
  TensorLayout l;
  std::string error;
  CHECK(makeLayout(dense, Symbols{{"B", 3}, {"M", 5}}, l, error));
  CHECK((l.strides == std::vector<int64_t>{80, 16, 1}));
  CHECK(l.minOffset == 0 && l.maxOffset == 239 && l.span() == 240 && l.count() == 240);
  CHECK(!makeLayout(dense, Symbols{{"B", 3}}, l, error));
  CHECK(error.find("'M'") != std::string::npos);
  CHECK(!makeLayout(dense, Symbols{{"B", -1}, {"M", 5}}, l, error));
  CHECK(makeLayout(dense, Symbols{{"B", 0}, {"M", 5}}, l, error));
  CHECK(l.empty() && l.span() == 0 && l.count() == 0);
  int visits = 0;
  forEachElement(l, [&](const std::vector<int64_t> &, int64_t) { ++visits; });
  CHECK_EQ(visits, 0);

  // Negative strides: offsets below the base.
  ParamInfo rev = dense;
  rev.dims = {"M", "N"};
  rev.strides = {"-1", "ld"};
  CHECK(makeLayout(rev, Symbols{{"M", 4}, {"N", 3}, {"ld", 10}}, l, error));
  CHECK(l.minOffset == -3 && l.maxOffset == 20 && l.span() == 24);
  std::vector<int64_t> offsets;
  forEachElement(l, [&](const std::vector<int64_t> &index, int64_t k) {
    CHECK_EQ(k + l.minOffset, -index[0] + 10 * index[1]);
    offsets.push_back(k);
  });
  CHECK_EQ(offsets.size(), size_t(12));
  CHECK_EQ(formatIndex({12, 1003}), std::string("[12, 1003]"));

  // Rank 0: one element.
  ParamInfo scalarTensor = dense;
  scalarTensor.dims.clear();
  CHECK(makeLayout(scalarTensor, Symbols{}, l, error));
  CHECK(l.span() == 1 && l.count() == 1);
  visits = 0;
  forEachElement(l, [&](const std::vector<int64_t> &, int64_t) { ++visits; });
  CHECK_EQ(visits, 1);
}

static void testElements() {
  CHECK_EQ(floatToBf16(1.0f), uint16_t(0x3F80));
  CHECK_EQ(bf16ToFloat(0xC000), -2.0f);
  CHECK_EQ(floatToF16(1.0f), uint16_t(0x3C00));
  CHECK_EQ(f16ToFloat(0xC000), -2.0f);
  CHECK_EQ(floatToF16(65504.0f), uint16_t(0x7BFF));
  CHECK(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  DType bf16 = *lookupDType("bf16"), f16 = *lookupDType("f16"), f32 = *lookupDType("f32");
  DType i8 = *lookupDType("i8"), u8 = *lookupDType("u8"), i64 = *lookupDType("i64");
  DType b = *lookupDType("bool"), f64 = *lookupDType("f64");
  DType e4m3 = *lookupDType("f8e4m3"), e5m2 = *lookupDType("f8e5m2");
  CHECK(!lookupDType("f4e2m1"));
  CHECK_EQ(lookupDType("int")->bytes, 8u);
  CHECK_EQ(e4m3.bytes, 1u);
  // 8-bit floats: their codes, rounded to nearest and saturated.
  uint8_t code = 0;
  storeFloat(e4m3, &code, 1.0);
  CHECK_EQ(code, uint8_t(0x38));
  storeFloat(e4m3, &code, -1000.0);
  CHECK_EQ(floatValue(e4m3, &code), -448.0);
  storeFloat(e5m2, &code, 0.3);
  CHECK_EQ(floatValue(e5m2, &code), 0.3125);

  Rng rng(5);
  for (const DType &t : {bf16, f16, f32, f64, e4m3, e5m2}) {
    std::vector<uint8_t> buf(1000 * t.bytes);
    fillRandom(t, buf.data(), 1000, rng);
    double lo = 1, hi = -1;
    for (int i = 0; i < 1000; ++i) {
      double v = floatValue(t, buf.data() + i * t.bytes);
      CHECK(v != 0 && v >= -1 && v <= 1);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    CHECK(lo < -0.9 && hi > 0.9);
    fillPoison(t, buf.data(), 1000);
    CHECK(std::isnan(floatValue(t, buf.data() + 999 * t.bytes)));
  }
  std::vector<uint8_t> buf(8000);
  fillRandom(i8, buf.data(), 1000, rng);
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i)
    seen.insert(intValue(i8, buf.data() + i));
  CHECK(!seen.count(0) && *seen.begin() == -8 && *seen.rbegin() == 8 && seen.size() == 16);
  fillRandom(u8, buf.data(), 2000, rng);
  seen.clear();
  for (int i = 0; i < 2000; ++i)
    seen.insert(intValue(u8, buf.data() + i));
  CHECK(*seen.begin() >= 0 && *seen.rbegin() <= 255 && seen.size() > 200);
  fillRandom(i64, buf.data(), 1000, rng);
  CHECK(intValue(i64, buf.data()) >= -8 && intValue(i64, buf.data()) <= 8);
  fillRandom(b, buf.data(), 100, rng);
  for (int i = 0; i < 100; ++i)
    CHECK(buf[i] <= 1);
  fillPoison(i64, buf.data(), 1);
  CHECK_EQ(intValue(i64, buf.data()), int64_t(0x5A5A5A5A5A5A5A5A));

  // Scalars: ranges and ABI bytes.
  for (int i = 0; i < 100; ++i) {
    ScalarValue f = randomScalar(f32, rng);
    CHECK(f.f >= 0.25 && f.f <= 1.25 && f.bytes().size() == 4);
    ScalarValue n = randomScalar(i64, rng);
    CHECK(n.i >= 1 && n.i <= 4 && n.bytes().size() == 8 && n.asInt() == n.i);
    ScalarValue flag = randomScalar(b, rng);
    CHECK(flag.bytes().size() == 1 && flag.bytes()[0] == flag.i && flag.i <= 1);
  }
  ScalarValue half{f32, 0.5, 0};
  std::vector<uint8_t> bytes = half.bytes();
  float back;
  std::memcpy(&back, bytes.data(), 4);
  CHECK_EQ(back, 0.5f);
  CHECK_EQ(ScalarValue({*lookupDType("i32"), 0, -3}).bytes().size(), size_t(4));

  uint16_t negZero = 0x8000;
  CHECK_EQ(formatElement(bf16, reinterpret_cast<const uint8_t *>(&negZero), true),
           std::string("-0 [0x8000]"));
}

/// A [rows, cols] f32 or bf16 tensor with row stride ld (>= cols), and its three images.
struct Tensor2D {
  DType type;
  TensorLayout layout;
  std::vector<uint8_t> initial, fast, ref;

  Tensor2D(const char *dtype, int64_t rows, int64_t cols, int64_t ld) : type(*lookupDType(dtype)) {
    layout.sizes = {rows, cols};
    layout.strides = {ld, 1};
    layout.minOffset = 0;
    layout.maxOffset = (rows - 1) * ld + cols - 1;
    initial.assign(static_cast<size_t>(layout.span()) * type.bytes, 0);
    fillPoison(type, initial.data(), layout.span());
    ref = initial;
    Rng rng(3);
    forEachElement(layout, [&](const std::vector<int64_t> &, int64_t k) {
      if (type.isFloat())
        storeFloat(type, ref.data() + k * type.bytes, rng.uniform(-4, 4));
      else
        storeInt(type, ref.data() + k * type.bytes, rng.range(-100, 100));
    });
    fast = ref;
  }
  uint8_t *at(std::vector<uint8_t> &img, int64_t r, int64_t c) {
    return img.data() + (r * layout.strides[0] + c) * type.bytes;
  }
  TensorComparison compare(bool exact, const std::string &roundsTo = "", bool f8Gemm = false) {
    return compareTensor(type, layout, toleranceFor(type, exact, roundsTo, f8Gemm), fast.data(),
                         ref.data(), initial.data());
  }
};

static void testComparison() {
  {
    Tensor2D t("f32", 5, 7, 9);
    TensorComparison c = t.compare(false);
    CHECK(c.pass() && c.elements == 35 && c.mismatches == 0 && c.maxAbs == 0);
    // Within rtol 1e-4 (plus atol = 1e-3 max|ref|): passes; far off: fails at that element.
    float v = static_cast<float>(floatValue(t.type, t.at(t.ref, 2, 3)));
    storeFloat(t.type, t.at(t.fast, 2, 3), v + 1e-5);
    c = t.compare(false);
    CHECK(c.pass() && c.maxAbs > 0);
    CHECK(c.haveWorst && c.worst.index == (std::vector<int64_t>{2, 3}));
    storeFloat(t.type, t.at(t.fast, 4, 6), 100.0);
    c = t.compare(false);
    CHECK(!c.pass() && c.mismatches == 1 && c.first.size() == 1);
    CHECK(c.first[0].index == (std::vector<int64_t>{4, 6}) && c.first[0].fast == "100");
    CHECK(c.worst.index == (std::vector<int64_t>{4, 6}));
    // Exact: any bit difference fails, including the small one.
    c = t.compare(true);
    CHECK(c.mismatches == 2);
    // An f32 result of a kernel that rounds to bf16 on the way (rounds_to): an ulp of bf16.
    storeFloat(t.type, t.at(t.fast, 4, 6),
               static_cast<float>(floatValue(t.type, t.at(t.ref, 4, 6))));
    v = static_cast<float>(floatValue(t.type, t.at(t.ref, 1, 1)));
    storeFloat(t.type, t.at(t.fast, 1, 1), v + 0.02f); // max |ref| near 4: atol near 4 / 128
    CHECK(!t.compare(false).pass());
    CHECK(t.compare(false, "bf16").pass());
    CHECK(!t.compare(false, "f16").pass());
    CHECK(!t.compare(true, "bf16").pass());
    CHECK(toleranceFor(t.type, false, "f8e4m3").rtol == 1.0 / 8);
    // A kernel multiplying 8-bit floats (f8_gemm): at least 2^-6 (wgmma's accumulation), the
    // wider of that and its other roundings, and still exact when the kernel is.
    CHECK(toleranceFor(t.type, false, "", true).rtol == 1.0 / 64);
    CHECK(toleranceFor(t.type, false, "f8e4m3", true).rtol == 1.0 / 8);
    CHECK(toleranceFor(t.type, true, "", true).exact);
    storeFloat(t.type, t.at(t.fast, 1, 1), v + 0.05f); // max |ref| near 4: atol near 4 / 64
    CHECK(!t.compare(false, "bf16").pass());
    CHECK(t.compare(false, "", true).pass());
  }
  {
    // NaN in both agrees; in one only is "written by one path only".
    Tensor2D t("f32", 3, 3, 3);
    fillPoison(t.type, t.at(t.fast, 1, 1), 1);
    TensorComparison c = t.compare(false);
    CHECK(!c.pass() && c.mismatches == 1 && c.oneSided == 1);
    fillPoison(t.type, t.at(t.ref, 1, 1), 1);
    c = t.compare(true);
    CHECK(c.pass());
    // Infinities: equal ones agree, +inf vs a finite value does not.
    storeFloat(t.type, t.at(t.fast, 0, 0), INFINITY);
    storeFloat(t.type, t.at(t.ref, 0, 0), INFINITY);
    CHECK(t.compare(false).pass());
    storeFloat(t.type, t.at(t.ref, 0, 0), 1.0);
    CHECK(!t.compare(false).pass());
  }
  {
    // bf16: rtol 2^-7, atol 2^-7 max |ref|. One ulp at 1.0 (2^-7) passes; four do not.
    Tensor2D t("bf16", 2, 2, 2);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c)
        storeFloat(t.type, t.at(t.ref, r, c), 0.5);
    t.fast = t.ref;
    storeFloat(t.type, t.at(t.ref, 0, 0), 1.0);
    storeFloat(t.type, t.at(t.fast, 1, 0), 0.5 + 1.0 / 128); // 2 ulps at 0.5: within atol
    storeFloat(t.type, t.at(t.fast, 0, 0), 1.0078125);
    TensorComparison c = t.compare(false);
    CHECK(c.pass() && c.atol > 1.0 / 128 && c.atol < 1.0 / 127);
    CHECK(!t.compare(true).pass());
    storeFloat(t.type, t.at(t.fast, 0, 0), 1.03125);
    CHECK(!t.compare(false).pass());
    storeFloat(t.type, t.at(t.fast, 1, 0), 0.5 + 3.0 / 128); // 6 ulps at 0.5: over
    c = t.compare(false);
    CHECK(c.mismatches == 2);
    storeFloat(t.type, t.at(t.fast, 1, 0), 0.5);
    // -0 vs +0: equal values, different bits.
    storeFloat(t.type, t.at(t.fast, 0, 0), 1.0);
    storeFloat(t.type, t.at(t.fast, 1, 1), -0.0);
    storeFloat(t.type, t.at(t.ref, 1, 1), 0.0);
    CHECK(t.compare(false).pass());
    c = t.compare(true);
    CHECK(!c.pass() && c.mismatches == 1 && c.first[0].fast == "-0 [0x8000]");
  }
  {
    // Integers are exact even when the kernel is not.
    Tensor2D t("i32", 4, 4, 4);
    CHECK(t.compare(false).pass());
    storeInt(t.type, t.at(t.fast, 3, 0), intValue(t.type, t.at(t.ref, 3, 0)) + 1);
    TensorComparison c = t.compare(false);
    CHECK(!c.pass() && c.mismatches == 1 && c.maxAbs == 1);
  }
  {
    // Writes between rows (the padding of a strided tensor) are caught for each run.
    Tensor2D t("f32", 4, 5, 8);
    storeFloat(t.type, t.at(t.fast, 1, 6), 0.0); // column 6 of row 1 is padding
    TensorComparison c = t.compare(false);
    CHECK(!c.pass() && c.mismatches == 0 && c.fastOutside == 4 && c.refOutside == 0);
    t.fast = t.ref;
    t.ref[t.ref.size() - 1 - 4 * 5] ^= 1; // inside row 2's padding
    c = t.compare(false);
    CHECK(c.refOutside == 1);
  }
  {
    // Many mismatches: counted all, listed the first four in index order.
    Tensor2D t("f16", 10, 10, 10);
    for (int r = 0; r < 10; ++r)
      storeFloat(t.type, t.at(t.fast, r, 9 - r), 3.0);
    TensorComparison c = t.compare(false);
    CHECK(c.mismatches == 10 && c.first.size() == 4);
    CHECK(c.first[0].index == (std::vector<int64_t>{0, 9}));
    CHECK(c.first[3].index == (std::vector<int64_t>{3, 6}));
  }
  std::vector<uint8_t> a{1, 2, 3}, b{1, 0, 0};
  CHECK_EQ(countChanged(a.data(), b.data(), 3), int64_t(2));
}

static void testPlan() {
  Manifest m = sampleManifest();
  const KernelInfo &g = m.kernels[0];
  CasePlan p, q;
  std::string error;
  CHECK(planCase(g, 1, 3, Symbols{}, 1 << 24, p, error));
  CHECK(p.grid[0] == 4 && p.grid[1] == 8 && p.grid[2] == 1); // N = 778, M = 1000
  CHECK(p.text.rfind("M=1000,K=1111,N=778,ldc=", 0) == 0);
  CHECK(p.layouts[2].strides[1] == p.symbols["ldc"]);
  CHECK(p.scalars[3].f >= 0.25);
  // The printed case, given back, reproduces sizes, strides, scalars and contents.
  std::vector<std::pair<std::string, int64_t>> items;
  CHECK(parseCaseSpec(p.text, items, error));
  CHECK(planCase(g, 1, 4, Symbols(items.begin(), items.end()), 1 << 24, q, error));
  CHECK(q.symbols == p.symbols && q.contentSeed == p.contentSeed &&
        q.scalars[3].f == p.scalars[3].f);
  // Variants of one kernel share their cases.
  KernelInfo g1 = g;
  g1.name = "gemm__1";
  CHECK(planCase(g1, 1, 7, Symbols{}, 1 << 24, q, error));
  CHECK(planCase(g, 1, 7, Symbols{}, 1 << 24, p, error));
  CHECK(p.symbols == q.symbols);
  // Another seed, other random cases.
  CHECK(planCase(g, 2, 7, Symbols{}, 1 << 24, q, error));
  bool differs = p.symbols != q.symbols;
  for (int i = 8; i < 12 && !differs; ++i) {
    planCase(g, 1, i, Symbols{}, 1 << 24, p, error);
    planCase(g, 2, i, Symbols{}, 1 << 24, q, error);
    differs = p.symbols != q.symbols;
  }
  CHECK(differs);

  // The grid sees scalars (static_cast<int64_t>(nb)) and evaluates conditionals.
  const KernelInfo &rows = m.kernels[1];
  CHECK(planCase(rows, 1, 3, Symbols{}, 1 << 24, p, error));
  CHECK_EQ(p.grid[0], int64_t(16)); // M = 1000
  CHECK(p.grid[1] >= 1 && p.grid[1] <= 4 && p.grid[1] == p.scalars[1].i);
  CHECK_EQ(p.grid[2], int64_t(1));
  CHECK(p.layouts[0].sizes == (std::vector<int64_t>{1000, 16}));
  CHECK(planCase(rows, 1, 4, Symbols{{"M", 0}}, 1 << 24, p, error));
  CHECK(p.grid[0] == 1 && p.layouts[0].empty());
  CHECK(!planCase(rows, 1, 4, Symbols{{"M", -2}}, 1 << 24, p, error));
  CHECK(error.find("negative") != std::string::npos);
  CHECK(!planCase(m.kernels[2], 1, 0, Symbols{}, 1 << 24, p, error)); // f8
}

int main() {
  testJson();
  testManifest();
  testGrid();
  testTargets();
  testSizes();
  testStrides();
  testLayout();
  testElements();
  testComparison();
  testPlan();
  std::printf("DiffPlanTest: %d checks, %d failed\n", Checks, Failures);
  return Failures ? 1 : 0;
}
