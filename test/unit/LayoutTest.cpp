//===- LayoutTest.cpp - Swizzle, bank-conflict and fragment layout math ---===//
#include "tlc/Layout/Layout.h"

#include <catch2/catch.hpp>

#include <set>
#include <tuple>

using namespace tlc::layout;

TEST_CASE("swizzled tiles are a permutation of their bytes", "[layout]") {
  for (int64_t swizzle : {16, 32, 64, 128}) {
    SwizzledTile tile{64, 256, 2, swizzle};
    std::set<int64_t> seen;
    for (int64_t r = 0; r < tile.rows; ++r)
      for (int64_t c = 0; c < tile.cols; ++c) {
        int64_t off = tile.byteOffset(r, c);
        REQUIRE(off >= 0);
        REQUIRE(off < tile.bytes());
        REQUIRE(off % 2 == 0);
        seen.insert(off);
      }
    REQUIRE(static_cast<int64_t>(seen.size()) == tile.rows * tile.cols);
  }
}

TEST_CASE("the 128-byte swizzle matches the TMA pattern", "[layout]") {
  SwizzledTile tile{8, 64, 2, 128};
  // Row r's 16-byte chunk j lands at chunk j ^ r.
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t j = 0; j < 8; ++j)
      REQUIRE(tile.byteOffset(r, j * 8) == r * 128 + ((j ^ r) * 16));
  // Column blocks follow each other.
  SwizzledTile wide{64, 128, 2, 128};
  REQUIRE(wide.numBlocks() == 2);
  REQUIRE(wide.byteOffset(0, 64) == 64 * 128);
}

TEST_CASE("swizzle choice", "[layout]") {
  REQUIRE(chooseSwizzle(128, 64, 2) == 128);
  REQUIRE(chooseSwizzle(64, 256, 2) == 128);
  REQUIRE(chooseSwizzle(64, 32, 2) == 64);
  REQUIRE(chooseSwizzle(64, 16, 2) == 32);
  REQUIRE_FALSE(chooseSwizzle(64, 8, 2).has_value());
  REQUIRE_FALSE(chooseSwizzle(12, 64, 2).has_value());
}

// Tiles only copies read (cp.async in, a blocked layout's vectors out) take 128 B for any number
// of rows when their rows are whole multiples of 128 bytes; the copies' chunks of one row stay
// in that row's 128-byte blocks, and a warp's consecutive chunks are conflict-free.
TEST_CASE("copy swizzle for tiles of few rows", "[layout]") {
  REQUIRE(chooseCopySwizzle(1, 4096, 2) == 128);
  REQUIRE(chooseCopySwizzle(4, 1024, 4) == 128);
  REQUIRE(chooseCopySwizzle(64, 32, 2) == 64); // chooseSwizzle's where it has one
  REQUIRE_FALSE(chooseCopySwizzle(1, 40, 2).has_value());
  SwizzledTile row{4, 1024, 2, 128};
  for (int64_t r = 0; r < 4; ++r) {
    std::vector<int64_t> lanes;
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t offset = row.byteOffset(r, lane * 8);
      REQUIRE(offset / row.blockBytes() == lane / 8); // the chunk's 128-byte block
      lanes.push_back(offset);
    }
    REQUIRE(sharedWavefronts(lanes, 16) == 4);
  }
}

// Eight lanes read one 16-byte chunk each from eight consecutive rows at the same logical
// column, as ldmatrix and the wgmma core-matrix reads do: conflict-free only when swizzled.
TEST_CASE("swizzling makes column reads of 16-byte chunks conflict-free", "[layout]") {
  for (int64_t column = 0; column < 64; column += 8) {
    std::vector<int64_t> swizzled, plain;
    SwizzledTile tile{64, 64, 2, 128};
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t row = lane % 8 + 8 * (lane / 8);
      swizzled.push_back(tile.byteOffset(row, column));
      plain.push_back(row * 128 + column * 2);
    }
    REQUIRE(sharedWavefronts(swizzled, 16) == 4);
    REQUIRE(sharedWavefronts(plain, 16) == 32);
  }
}

TEST_CASE("16-byte column blocks: rows 16 bytes apart, no swizzle", "[layout]") {
  SwizzledTile tile{64, 64, 1, 16};
  REQUIRE(tile.byteOffset(0, 0) == 0);
  REQUIRE(tile.byteOffset(0, 15) == 15);
  REQUIRE(tile.byteOffset(1, 0) == 16);
  REQUIRE(tile.byteOffset(0, 16) == 64 * 16);
  REQUIRE(tile.byteOffset(5, 37) == 2 * 64 * 16 + 5 * 16 + 5);
  // A warp reading bytes (lane % 4 + 4 t, lane / 4) (w4a16_decode's packed weights): one
  // wavefront per read for every t, as with the 64-byte swizzle.
  SwizzledTile swizzled{64, 64, 1, 64};
  for (int64_t t = 0; t < 16; ++t) {
    std::vector<int64_t> blocks, swz;
    for (int64_t lane = 0; lane < 32; ++lane) {
      blocks.push_back(tile.byteOffset(lane % 4 + 4 * t, lane / 4));
      swz.push_back(swizzled.byteOffset(lane % 4 + 4 * t, lane / 4));
    }
    REQUIRE(sharedWavefronts(blocks, 1) == 1);
    REQUIRE(sharedWavefronts(swz, 1) == 1);
  }
}

TEST_CASE("staged copies: a row's chunks in one warp, the same chunks per thread", "[layout]") {
  // 128 x 64 bf16: 8 chunks a row (a quarter warp), 1024 chunks over 128 threads.
  REQUIRE(fitsStagedCopy({128, 64, 2, 128}, 128));
  // 64 x 128 bf16: 16 chunks a row.
  REQUIRE(fitsStagedCopy({64, 128, 2, 128}, 128));
  // 48 chunks a row do not divide a warp's 32 lanes.
  REQUIRE_FALSE(fitsStagedCopy({16, 384, 2, 128}, 128));
  // 8 x 64 bf16 is 64 chunks: not one per thread of 128.
  REQUIRE_FALSE(fitsStagedCopy({8, 64, 2, 128}, 128));
  // A row shorter than a chunk.
  REQUIRE_FALSE(fitsStagedCopy({128, 4, 2, 128}, 128));
  // Threads not whole warps.
  REQUIRE_FALSE(fitsStagedCopy({128, 64, 2, 128}, 100));
}

TEST_CASE("wavefront counting", "[layout]") {
  std::vector<int64_t> linear;
  for (int64_t lane = 0; lane < 32; ++lane)
    linear.push_back(4 * lane);
  REQUIRE(sharedWavefronts(linear, 4) == 1);
  std::vector<int64_t> sameBank;
  for (int64_t lane = 0; lane < 32; ++lane)
    sameBank.push_back(128 * lane);
  REQUIRE(sharedWavefronts(sameBank, 4) == 32);
  std::vector<int64_t> broadcast(32, 0);
  REQUIRE(sharedWavefronts(broadcast, 4) == 1);
}

/// Every (row, col) of the [rows, cols] tile is some thread's slot, and nothing outside it is.
template <typename Layout>
static void requireCoversOnce(const Layout &layout, int64_t threads, int64_t rows, int64_t cols) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t s = 0; s < layout.slots(); ++s) {
      auto [r, col] = layout.coord(t, s);
      REQUIRE(r >= 0);
      REQUIRE(r < rows);
      REQUIRE(col >= 0);
      REQUIRE(col < cols);
      seen.insert({r, col});
    }
  REQUIRE(static_cast<int64_t>(seen.size()) == rows * cols);
}

TEST_CASE("wgmma accumulator layouts cover the tile once", "[layout]") {
  struct Case {
    int64_t rows, cols, warpgroups, wm, wn;
  };
  for (Case c : {Case{128, 256, 2, 2, 1}, Case{128, 128, 2, 2, 1}, Case{64, 128, 2, 1, 2},
                 Case{64, 64, 1, 1, 1}, Case{256, 128, 2, 2, 1}, Case{128, 64, 1, 1, 1}}) {
    auto layout = WgmmaAccLayout::choose(c.rows, c.cols, c.warpgroups);
    REQUIRE(layout.has_value());
    REQUIRE(layout->warpgroupsM == c.wm);
    REQUIRE(layout->warpgroupsN == c.wn);
    requireCoversOnce(*layout, 128 * c.warpgroups, c.rows, c.cols);
  }
  REQUIRE_FALSE(WgmmaAccLayout::choose(32, 64, 1).has_value());
  REQUIRE_FALSE(WgmmaAccLayout::choose(64, 512, 1).has_value());
}

TEST_CASE("wgmma registers follow the PTX fragment order", "[layout]") {
  WgmmaAccLayout layout{64, 16, 1, 1};
  // Thread 0: d0, d1 at row 0, columns 0, 1; d2, d3 at row 8; d4.. at columns 8, 9.
  REQUIRE(layout.coord(0, 0) == std::make_pair<int64_t, int64_t>(0, 0));
  REQUIRE(layout.coord(0, 1) == std::make_pair<int64_t, int64_t>(0, 1));
  REQUIRE(layout.coord(0, 2) == std::make_pair<int64_t, int64_t>(8, 0));
  REQUIRE(layout.coord(0, 4) == std::make_pair<int64_t, int64_t>(0, 8));
  // Lane 5 of warp 1: row 16 + 1, columns 2, 3.
  REQUIRE(layout.coord(37, 0) == std::make_pair<int64_t, int64_t>(17, 2));
}

TEST_CASE("wgmma descriptors", "[layout]") {
  uint64_t d = wgmmaDescriptor(0x400, 16, 1024, 128);
  REQUIRE((d & 0x3FFF) == 0x40);
  REQUIRE(((d >> 16) & 0x3FFF) == 1);
  REQUIRE(((d >> 32) & 0x3FFF) == 64);
  REQUIRE((d >> 62) == 1);
  REQUIRE((wgmmaDescriptor(0, 0, 0, 64) >> 62) == 2);
  REQUIRE((wgmmaDescriptor(0, 0, 0, 32) >> 62) == 3);
}

TEST_CASE("mma.sync accumulator layouts cover the tile once", "[layout]") {
  struct Case {
    int64_t rows, cols, warps, wm, wn;
  };
  for (Case c : {Case{128, 128, 8, 2, 4}, Case{128, 256, 8, 2, 4}, Case{64, 128, 4, 1, 4},
                 Case{64, 64, 4, 2, 2}, Case{256, 128, 8, 4, 2}}) {
    auto layout = MmaSyncAccLayout::choose(c.rows, c.cols, c.warps);
    REQUIRE(layout.has_value());
    CHECK(layout->warpsM == c.wm);
    CHECK(layout->warpsN == c.wn);
    requireCoversOnce(*layout, 32 * c.warps, c.rows, c.cols);
  }
  REQUIRE_FALSE(MmaSyncAccLayout::choose(8, 64, 1).has_value());
  // PTX's m16n8 C fragment: lane 5 holds (1, 2), (1, 3), (9, 2), (9, 3) of its first tile.
  MmaSyncAccLayout one{16, 16, 1, 1};
  REQUIRE(one.coord(5, 0) == std::make_pair<int64_t, int64_t>(1, 2));
  REQUIRE(one.coord(5, 3) == std::make_pair<int64_t, int64_t>(9, 3));
  REQUIRE(one.coord(5, 4) == std::make_pair<int64_t, int64_t>(1, 10));
}

// Attention's row statistics: the row slots of a thread hold exactly the rows of its
// accumulator slots, and together the threads hold every row (each by the four lanes of a quad,
// times the warps of a block row where warps also split the columns: replicas).
TEST_CASE("mma.sync row slots hold the rows of the accumulator slots", "[layout]") {
  for (auto [rows, cols, warpsM, warpsN] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{128, 64, 8, 1},
        {128, 128, 8, 1},
        {64, 64, 4, 1},
        {128, 128, 4, 1},
        {64, 128, 2, 4},
        {64, 128, 4, 2},
        {32, 64, 1, 4}}) {
    MmaSyncAccLayout layout{rows, cols, warpsM, warpsN};
    int64_t warps = warpsM * warpsN;
    std::vector<int64_t> holders(rows, 0);
    for (int64_t t = 0; t < 32 * warps; ++t) {
      for (int64_t s = 0; s < layout.slots(); ++s) {
        int64_t r = layout.rowSlotOf(s);
        REQUIRE(r < layout.rowSlots());
        REQUIRE(layout.rowOf(t, r) == layout.coord(t, s).first);
      }
      for (int64_t r = 0; r < layout.rowSlots(); ++r)
        ++holders[layout.rowOf(t, r)];
    }
    for (int64_t row = 0; row < rows; ++row)
      REQUIRE(holders[row] == 4 * warpsN);
  }
}

// The sm_80 strategy's shared tiles: cp.async writes 16-byte chunks (a quarter-warp writes one
// 128-byte row: 8 consecutive chunks), ldmatrix reads 8 rows of one 16-byte column per matrix
// (a quarter-warp's 8 addresses). Both must be conflict-free in the swizzled layouts tlc uses:
// A [BM, BK] and B^T [BN, BK] K-major, B [BK, BN] row-major (ldmatrix.trans), BK = 32 or 64.
TEST_CASE("cp.async writes and ldmatrix reads of swizzled tiles are conflict-free", "[layout]") {
  struct Tile {
    int64_t rows, cols;
  };
  // The GEMM tiles, and attention's Q [128, 128], K and V [32, 128] (D = 128) or [32, 64].
  for (Tile t : {Tile{128, 64}, Tile{128, 32}, Tile{64, 128}, Tile{32, 256}, Tile{64, 256},
                 Tile{128, 128}, Tile{32, 128}, Tile{32, 64}}) {
    int64_t swizzle = *chooseSwizzle(t.rows, t.cols, 2);
    SwizzledTile tile{t.rows, t.cols, 2, swizzle};
    int64_t chunksPerRow = t.cols / 8;
    // cp.async: thread i of a warp copies chunk (c0 + i) of the tile in row-major chunk order.
    for (int64_t c0 = 0; c0 < t.rows * chunksPerRow; c0 += 32) {
      std::vector<int64_t> addresses;
      for (int64_t lane = 0; lane < 32; ++lane) {
        int64_t chunk = c0 + lane;
        addresses.push_back(tile.byteOffset(chunk / chunksPerRow, (chunk % chunksPerRow) * 8));
      }
      INFO("tile " << t.rows << "x" << t.cols << " swizzle " << swizzle << " chunk " << c0);
      REQUIRE(sharedWavefronts(addresses, 16) == 4);
    }
    // ldmatrix.x4: lane i gives the address of row r0 + i % 16 at column chunk k0 / 8 + i / 16.
    for (int64_t r0 = 0; r0 + 16 <= t.rows; r0 += 8)
      for (int64_t k0 = 0; k0 + 16 <= t.cols; k0 += 8) {
        std::vector<int64_t> addresses;
        for (int64_t lane = 0; lane < 32; ++lane)
          addresses.push_back(tile.byteOffset(r0 + lane % 16, k0 + (lane / 16) * 8));
        INFO("tile " << t.rows << "x" << t.cols << " ldmatrix at " << r0 << ", " << k0);
        REQUIRE(sharedWavefronts(addresses, 16) == 4);
      }
  }
}

// Memory-bound kernels' register layout: every element once; consecutive threads of a row read
// consecutive vectors; row slots hold exactly the rows of the slots, each row by threadsPerRow
// threads.
TEST_CASE("blocked layouts cover the tile once and hold their rows", "[layout]") {
  struct Case {
    int64_t rows, cols, threads, maxVec, vec, perRow;
  };
  for (Case c :
       {Case{8, 256, 256, 4, 4, 32}, Case{1, 4096, 256, 8, 8, 256}, Case{4, 256, 256, 4, 4, 64},
        Case{16, 64, 128, 8, 8, 8}, Case{256, 2, 256, 4, 2, 1}}) {
    auto chosen = BlockedLayout::choose(c.rows, {c.cols}, c.threads, c.maxVec);
    REQUIRE(chosen.has_value());
    CHECK(chosen->vec == c.vec);
    CHECK(chosen->threadsPerRow == c.perRow);
    BlockedLayout layout = *chosen;
    layout.cols = c.cols;
    REQUIRE(layout.isValid());
    std::vector<int64_t> hits(c.rows * c.cols, 0), holders(c.rows, 0);
    for (int64_t t = 0; t < c.threads; ++t) {
      for (int64_t s = 0; s < layout.slots(); ++s) {
        auto [row, col] = layout.coord(t, s);
        REQUIRE(row < c.rows);
        REQUIRE(col < c.cols);
        ++hits[row * c.cols + col];
        REQUIRE(layout.rowOf(t, layout.rowSlotOf(s)) == row);
        if (s % layout.vec != 0)
          REQUIRE(layout.coord(t, s - 1) == std::make_pair(row, col - 1));
      }
      for (int64_t r = 0; r < layout.rowSlots(); ++r)
        ++holders[layout.rowOf(t, r)];
    }
    for (int64_t h : hits)
      REQUIRE(h == 1);
    for (int64_t h : holders)
      REQUIRE(h == layout.threadsPerRow);
  }
  // Three rows need a row per pass: all 256 threads on a row, in single elements.
  auto three = BlockedLayout::choose(3, {256}, 256, 4);
  REQUIRE(three.has_value());
  CHECK(three->vec == 1);
  CHECK(three->threadsPerRow == 256);
  // Rows that leave threads idle, and columns no vector divides, have no blocked layout.
  REQUIRE_FALSE(BlockedLayout::choose(3, {128}, 256, 4).has_value());
  REQUIRE_FALSE(BlockedLayout::choose(1, {100}, 256, 4).has_value());
  // Row values alone: one row per thread where the rows allow.
  auto rowsOnly = BlockedLayout::choose(256, {}, 256, 4);
  REQUIRE(rowsOnly.has_value());
  CHECK(rowsOnly->threadsPerRow == 1);
}
