//===- Layout.h - Shared-memory swizzles and register fragment layouts ----===//
//
// Pure C++ (no MLIR types): the layout math the passes and the lowering share, unit tested in
// test/unit/LayoutTest.cpp. Shared tiles are stored in the form TMA writes and wgmma/ldmatrix
// read; accumulator fragments follow the register order of the wgmma instruction.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LAYOUT_LAYOUT_H
#define TLC_LAYOUT_LAYOUT_H

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tlc::layout {

/// A 2-D tile [rows, cols] (cols contiguous) in shared memory, stored as `cols * elemBytes /
/// swizzleBytes` column blocks of `rows x swizzleBytes` bytes each, one after the other. Inside a
/// block, row r starts at r * swizzleBytes and its 16-byte chunks are permuted by the hardware
/// swizzle of that width: byte offset o becomes o ^ (((o >> 7) & (swizzleBytes / 16 - 1)) << 4).
/// This is the layout a TMA box of [rows, swizzleBytes / elemBytes] writes with
/// CU_TENSOR_MAP_SWIZZLE_<swizzleBytes>B, and the one a wgmma matrix descriptor with the same
/// swizzle mode reads. The tile's base must be 1024-byte aligned.
struct SwizzledTile {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t elemBytes = 2;
  /// 32, 64 or 128; 16 is no swizzle: column blocks of 16 bytes, row r at r * 16 in each
  /// (tile-shared-memory-layout's choice for tiles only cp.async and element reads access, where
  /// the reads are as conflict-free so).
  int64_t swizzleBytes = 128;

  /// Elements per row of one column block.
  int64_t blockCols() const { return swizzleBytes / elemBytes; }
  int64_t numBlocks() const { return cols / blockCols(); }
  int64_t blockBytes() const { return rows * swizzleBytes; }
  int64_t bytes() const { return rows * cols * elemBytes; }
  /// Byte offset of element (row, col) from the tile's base.
  int64_t byteOffset(int64_t row, int64_t col) const;
};

/// Whether `threads` threads can copy `tile` in the staged form (the conversion's
/// buildStagedCopy): a row's 16-byte chunks within one warp, and every thread with the same
/// number of chunks.
bool fitsStagedCopy(const SwizzledTile &tile, int64_t threads);

/// Applies the hardware swizzle of `swizzleBytes` (0 = none) to a byte offset inside an aligned
/// tile.
int64_t swizzleOffset(int64_t offset, int64_t swizzleBytes);

/// The widest swizzle (128, 64 or 32 bytes) whose rows a tile of `cols` elements of `elemBytes`
/// fills exactly (a multiple of the width for 128), with rows a multiple of the swizzle's 8-row
/// period; nullopt when none does.
std::optional<int64_t> chooseSwizzle(int64_t rows, int64_t cols, int64_t elemBytes);

/// The swizzle of a tile that only 16-byte copies write and read (cp.async in, vectors of a
/// blocked register layout out; no ldmatrix, wgmma or TMA): chooseSwizzle's, or for tiles of
/// any number of rows whose rows are whole multiples of 128 bytes, 128 (each row's 16-byte
/// chunks permuted within their 128 bytes: a warp's consecutive chunks stay conflict-free).
std::optional<int64_t> chooseCopySwizzle(int64_t rows, int64_t cols, int64_t elemBytes);

/// The number of shared-memory wavefronts (bank-conflict passes) one warp instruction needs when
/// lane i accesses `accessBytes` (4, 8 or 16) bytes at byte address `addresses[i]`. 32 banks of 4
/// bytes; 16-byte accesses are served a quarter-warp (8 lanes, 128 bytes) at a time, 8-byte ones a
/// half-warp at a time. The conflict-free minimum is max(1, 32 * accessBytes / 128).
unsigned sharedWavefronts(const std::vector<int64_t> &addresses, unsigned accessBytes);

/// The register layout of an f32 accumulator [rows, cols] computed by wgmma m64nNk16 on
/// `warpgroupsM x warpgroupsN` warpgroups: warpgroup (i, j) owns rows [i * rows / warpgroupsM, ...)
/// and columns [j * cols / warpgroupsN, ...), in 64-row instruction tiles. Each thread holds
/// `slots()` values; slot s of thread t is the (s % (N / 2))-th register of the wgmma result of
/// its warpgroup's m-tile s / (N / 2), where N = cols / warpgroupsN:
///   register 4q + e (q < N / 8, e < 4) is row 16 * warp + lane / 4 + 8 * (e / 2),
///   column 8 * q + 2 * (lane % 4) + e % 2 of that tile.
struct WgmmaAccLayout {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t warpgroupsM = 1;
  int64_t warpgroupsN = 1;

  int64_t warpgroups() const { return warpgroupsM * warpgroupsN; }
  int64_t warpgroupRows() const { return rows / warpgroupsM; }
  /// N of the instruction: the warpgroup's columns.
  int64_t instrN() const { return cols / warpgroupsN; }
  int64_t mTiles() const { return warpgroupRows() / 64; }
  int64_t slots() const { return mTiles() * instrN() / 2; }
  /// (row, col) of slot `slot` of thread `thread` (0 <= thread < 128 * warpgroups()).
  std::pair<int64_t, int64_t> coord(int64_t thread, int64_t slot) const;

  /// Maps [rows, cols] onto `warpgroups` warpgroups: as many along M as 64-row tiles allow, the
  /// rest along N, with an instruction N that is a multiple of 8 and at most 256. nullopt when
  /// the shape does not fit.
  static std::optional<WgmmaAccLayout> choose(int64_t rows, int64_t cols, int64_t warpgroups);

  /// wgmma on an mma.sync accumulator whose warps are stacked along M with 16 rows each (warps a
  /// multiple of 4): warpgroup g owns rows [64 g, 64 g + 64) and each warp its 16 rows, so the
  /// two layouts hold every element in the same thread and slot. The columns split into
  /// instructions of N columns (at most 256, a multiple of `nMultiple`, itself a multiple of 8);
  /// the result is the layout of one of them, [rows, N] (cols / N of them: instruction j covers
  /// columns [j N, (j + 1) N) and slots [j N / 2, (j + 1) N / 2)). nullopt when the layout is
  /// not so stacked or no such N divides the columns.
  static std::optional<WgmmaAccLayout> onStackedWarps(int64_t rows, int64_t cols, int64_t warpsM,
                                                      int64_t warpsN, int64_t nMultiple);
};

/// The register layout of an f32 accumulator [rows, cols] computed by mma.sync m16n8k16 on
/// `warpsM x warpsN` warps (warp w is at (w / warpsN, w % warpsN)): each warp owns a
/// [rows / warpsM, cols / warpsN] block of m16n8 fragments. Slot s of a thread is element s % 4 of
/// fragment f = s / 4 = mi * nTiles() + ni, at row 16 mi + lane / 4 + 8 ((s % 4) / 2) and column
/// 8 ni + 2 (lane % 4) + s % 2 of the warp's block (PTX's C/D fragment layout of m16n8k16).
struct MmaSyncAccLayout {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t warpsM = 1;
  int64_t warpsN = 1;

  int64_t warps() const { return warpsM * warpsN; }
  int64_t warpRows() const { return rows / warpsM; }
  int64_t warpCols() const { return cols / warpsN; }
  int64_t mTiles() const { return warpRows() / 16; }
  int64_t nTiles() const { return warpCols() / 8; }
  int64_t slots() const { return mTiles() * nTiles() * 4; }
  std::pair<int64_t, int64_t> coord(int64_t thread, int64_t slot) const;

  /// The rows a thread holds, as a rank-1 fragment beside the accumulator: 2 mTiles() row slots,
  /// row slot r at row 16 (r / 2) + lane / 4 + 8 (r % 2) of the warp's block. The four lanes of
  /// a quad and the warpsN warps of a block row hold the same rows.
  int64_t rowSlots() const { return 2 * mTiles(); }
  int64_t rowOf(int64_t thread, int64_t rowSlot) const;
  /// The row slot that holds the row of accumulator slot `slot`.
  int64_t rowSlotOf(int64_t slot) const { return (slot / (4 * nTiles())) * 2 + (slot % 4) / 2; }

  /// Maps [rows, cols] onto `warps` warps: warp blocks of whole m16 x n16 tiles (ldmatrix.x4
  /// loads B two n8 tiles at a time), as square as the shape allows. nullopt if none fits.
  static std::optional<MmaSyncAccLayout> choose(int64_t rows, int64_t cols, int64_t warps);
};

/// A "blocked" register layout for element-wise and row-wise work (memory-bound kernels): a
/// [rows, cols] fragment on `threads` threads, `threadsPerRow` consecutive threads per row, each
/// holding `vec` consecutive elements of the row per column step (one vector access of global
/// memory). A pass covers rowsPerPass() = threads / threadsPerRow rows and threadsPerRow * vec
/// columns; slot s = (rr * colSteps() + cc) * vec + v of thread t holds element
/// (rr * rowsPerPass() + t / threadsPerRow, (cc * threadsPerRow + t % threadsPerRow) * vec + v).
/// Row values beside it (a rank-1 fragment of `rows`): row slot rr of thread t holds row
/// rr * rowsPerPass() + t / threadsPerRow, replicated over the threadsPerRow threads of the row.
struct BlockedLayout {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t vec = 1;
  int64_t threadsPerRow = 1;
  int64_t threads = 32;

  int64_t rowsPerPass() const { return threads / threadsPerRow; }
  int64_t rowSteps() const { return rows / rowsPerPass(); }
  int64_t colSteps() const { return cols / (threadsPerRow * vec); }
  int64_t slots() const { return rowSteps() * colSteps() * vec; }
  std::pair<int64_t, int64_t> coord(int64_t thread, int64_t slot) const;
  int64_t rowSlots() const { return rowSteps(); }
  int64_t rowOf(int64_t thread, int64_t rowSlot) const {
    return rowSlot * rowsPerPass() + thread / threadsPerRow;
  }
  /// The row slot that holds the row of slot `slot`.
  int64_t rowSlotOf(int64_t slot) const { return slot / (colSteps() * vec); }
  /// Whether the parameters describe a layout: powers of two, threadsPerRow dividing `threads`
  /// (at most 32, or a multiple of 32: whole warps per row), rows a multiple of rowsPerPass()
  /// and cols (when cols != 0: a rank-1 fragment has none) of threadsPerRow * vec.
  bool isValid() const;

  /// The layout for rows of `colsOf` (the column counts of the rank-2 fragments sharing it;
  /// empty: row values only) on `threads` threads, with vectors of at most `maxVec` elements:
  /// the widest vectors, then the most threads per row that keep every thread busy. nullopt if
  /// none fits.
  static std::optional<BlockedLayout> choose(int64_t rows, const std::vector<int64_t> &colsOf,
                                             int64_t threads, int64_t maxVec);
};

/// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
/// leading and stride byte offsets (bytes, multiples of 16) and the swizzle mode of
/// `swizzleBytes` (0 = interleave, 32, 64, 128).
uint64_t wgmmaDescriptor(uint32_t sharedAddress, uint32_t leadingBytes, uint32_t strideBytes,
                         int64_t swizzleBytes);

} // namespace tlc::layout

#endif // TLC_LAYOUT_LAYOUT_H
