//===- MemoryOpsToNVVM.cpp - Lowering of sizes and masked element access --===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tlc;

std::optional<TensorValues> tlc::getTensorValues(Value tensor) {
  auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>();
  auto type = dyn_cast<tile::TensorType>(tensor.getType());
  if (!cast || !type || cast.getInputs().size() != 1 + 2 * type.getRank())
    return std::nullopt;
  TensorValues values;
  values.base = cast.getInputs()[0];
  unsigned rank = type.getRank();
  for (unsigned i = 0; i < rank; ++i) {
    values.sizes.push_back(cast.getInputs()[1 + i]);
    values.strides.push_back(cast.getInputs()[1 + rank + i]);
  }
  return values;
}

namespace {

/// LLVM has no 8-bit float types: their elements are loaded and stored as i8 and bitcast
/// (tlc-expand-float8 then turns every 8-bit float value into its i8 pattern).
static bool isFloat8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

/// Builds the in-bounds predicate and the element pointer of `tensor[indices]`. Unsigned
/// comparison against the size rejects negative indices too.
static std::pair<Value, Value> buildAddress(OpBuilder &b, Location loc, const TensorValues &t,
                                            Type elementType, ValueRange indices) {
  Type i64 = b.getI64Type();
  Value inBounds, offset;
  for (auto [index, size, stride] : llvm::zip(indices, t.sizes, t.strides)) {
    Value i = arith::IndexCastOp::create(b, loc, i64, index);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, size);
    inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, ok).getResult() : ok;
    Value term = arith::MulIOp::create(b, loc, i, stride);
    offset = offset ? arith::AddIOp::create(b, loc, offset, term).getResult() : term;
  }
  if (isFloat8(elementType))
    elementType = b.getI8Type();
  Value ptr = LLVM::GEPOp::create(b, loc, t.base.getType(), elementType, t.base,
                                  ArrayRef<LLVM::GEPArg>{offset});
  return {inBounds, ptr};
}

struct DimOpLowering : LoweredTensorPattern<tile::DimOp> {
  using LoweredTensorPattern::LoweredTensorPattern;
  void lower(tile::DimOp op, const TensorValues &values, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                    values.sizes[op.getDim()]);
  }
};

struct LoadOpLowering : LoweredTensorPattern<tile::LoadOp> {
  using LoweredTensorPattern::LoweredTensorPattern;
  void lower(tile::LoadOp op, const TensorValues &values,
             PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildMaskedLoad(rewriter, op.getLoc(), values, op.getType(), op.getIndices()));
  }
};

/// tile.load_vector: consecutive elements as vector accesses where in bounds, contiguous and
/// aligned, masked element loads otherwise (buildMaskedLoadVector).
struct LoadVectorOpLowering : LoweredTensorPattern<tile::LoadVectorOp> {
  using LoweredTensorPattern::LoweredTensorPattern;
  void lower(tile::LoadVectorOp op, const TensorValues &values,
             PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildMaskedLoadVector(rewriter, op.getLoc(), values,
                                                 op.getResult(0).getType(), op.getIndices(),
                                                 op.getNumResults()));
  }
};

struct StoreOpLowering : LoweredTensorPattern<tile::StoreOp> {
  using LoweredTensorPattern::LoweredTensorPattern;
  void lower(tile::StoreOp op, const TensorValues &values,
             PatternRewriter &rewriter) const override {
    buildMaskedStore(rewriter, op.getLoc(), values, op.getValue(), op.getIndices());
    rewriter.eraseOp(op);
  }
};

struct AtomicAddOpLowering : LoweredTensorPattern<tile::AtomicAddOp> {
  using LoweredTensorPattern::LoweredTensorPattern;
  void lower(tile::AtomicAddOp op, const TensorValues &values,
             PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    auto [inBounds, ptr] = buildAddress(rewriter, loc, values, type, op.getIndices());
    auto ifOp = scf::IfOp::create(rewriter, loc, inBounds, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    LLVM::AtomicRMWOp::create(
        rewriter, loc, isa<FloatType>(type) ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add, ptr,
        op.getValue(), LLVM::AtomicOrdering::monotonic);
    rewriter.eraseOp(op);
  }
};

} // namespace

/// The element of `type` at `ptr` where `ok`, zero elsewhere (8-bit floats load as i8).
static Value buildGuardedLoad(OpBuilder &b, Location loc, Value ok, Value ptr, Type type) {
  auto ifOp = scf::IfOp::create(
      b, loc, ok,
      [&](OpBuilder &bb, Location l) {
        if (!isFloat8(type)) {
          scf::YieldOp::create(bb, l, LLVM::LoadOp::create(bb, l, type, ptr).getResult());
          return;
        }
        Value bits = LLVM::LoadOp::create(bb, l, bb.getI8Type(), ptr);
        scf::YieldOp::create(bb, l, arith::BitcastOp::create(bb, l, type, bits).getResult());
      },
      [&](OpBuilder &bb, Location l) {
        scf::YieldOp::create(bb, l,
                             arith::ConstantOp::create(bb, l, bb.getZeroAttr(type)).getResult());
      });
  return ifOp.getResult(0);
}

Value tlc::buildMaskedLoad(OpBuilder &b, Location loc, const TensorValues &t, Type type,
                           ValueRange indices) {
  auto [inBounds, ptr] = buildAddress(b, loc, t, type, indices);
  return buildGuardedLoad(b, loc, inBounds, ptr, type);
}

void tlc::buildMaskedStore(OpBuilder &b, Location loc, const TensorValues &t, Value value,
                           ValueRange indices) {
  auto [inBounds, ptr] = buildAddress(b, loc, t, value.getType(), indices);
  auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (isFloat8(value.getType()))
    value = arith::BitcastOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, ptr);
}

void tlc::buildMaskedStorePair(OpBuilder &b, Location loc, const TensorValues &t, Value first,
                               Value second, ValueRange indices) {
  // 8-bit floats are stored as their bytes (LLVM has no vector of them).
  if (isFloat8(first.getType())) {
    first = arith::BitcastOp::create(b, loc, b.getI8Type(), first);
    second = arith::BitcastOp::create(b, loc, b.getI8Type(), second);
  }
  Type type = first.getType();
  int64_t bytes = type.getIntOrFloatBitWidth() / 8;
  SmallVector<Value> nextIndices(indices);
  nextIndices.back() =
      arith::AddIOp::create(b, loc, indices.back(), arith::ConstantIndexOp::create(b, loc, 1));
  auto [firstIn, ptr] = buildAddress(b, loc, t, type, indices);
  auto [secondIn, nextPtr] = buildAddress(b, loc, t, type, nextIndices);
  // Both in bounds, contiguous and aligned for one 2-element store: the common case.
  Type i64 = b.getI64Type();
  Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.strides.back(),
                                     arith::ConstantIntOp::create(b, loc, i64, 1));
  Value address = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  Value aligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, address,
                            arith::ConstantIntOp::create(b, loc, i64, 2 * bytes - 1)),
      arith::ConstantIntOp::create(b, loc, i64, 0));
  Value vectorOk = arith::AndIOp::create(b, loc, arith::AndIOp::create(b, loc, firstIn, secondIn),
                                         arith::AndIOp::create(b, loc, unit, aligned));
  auto ifOp = scf::IfOp::create(b, loc, vectorOk, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto vecType = VectorType::get({2}, type);
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  vec = LLVM::InsertElementOp::create(b, loc, vec, first,
                                      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  vec = LLVM::InsertElementOp::create(b, loc, vec, second,
                                      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  LLVM::StoreOp::create(b, loc, vec, ptr, /*alignment=*/2 * bytes);
  b.setInsertionPointToStart(ifOp.elseBlock());
  auto firstIf = scf::IfOp::create(b, loc, firstIn, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(firstIf.thenBlock());
    LLVM::StoreOp::create(b, loc, first, ptr);
  }
  auto secondIf = scf::IfOp::create(b, loc, secondIn, /*withElseRegion=*/false);
  b.setInsertionPointToStart(secondIf.thenBlock());
  LLVM::StoreOp::create(b, loc, second, nextPtr);
}

/// `address % (elements * bytes)` of tensor[indices] (its element size `bytes`), as an i64, and
/// whether the last stride is 1.
static std::pair<Value, Value> pairPhase(OpBuilder &b, Location loc, const TensorValues &t,
                                         Type type, ValueRange indices, int64_t elements = 2) {
  Type i64 = b.getI64Type();
  int64_t bytes = type.getIntOrFloatBitWidth() / 8;
  Value ptr = buildAddress(b, loc, t, type, indices).second;
  Value address = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  Value phase = arith::AndIOp::create(
      b, loc, address, arith::ConstantIntOp::create(b, loc, i64, elements * bytes - 1));
  Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.strides.back(),
                                     arith::ConstantIntOp::create(b, loc, i64, 1));
  return {phase, unit};
}

Value tlc::buildPairMisaligned(OpBuilder &b, Location loc, const TensorValues &t, Type type,
                               ValueRange indices) {
  auto [phase, unit] = pairPhase(b, loc, t, type, indices);
  int64_t bytes = type.getIntOrFloatBitWidth() / 8;
  Value oneOff = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, phase,
                                       arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes));
  return arith::AndIOp::create(b, loc, unit, oneOff);
}

Value tlc::buildRowPairsAligned(OpBuilder &b, Location loc, const TensorValues &t, Type type,
                                ValueRange origin, unsigned rowDim, int64_t elements) {
  auto [phase, unit] = pairPhase(b, loc, t, type, origin, elements);
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value originOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, phase, zero);
  Value evenRows = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, t.strides[rowDim],
                            arith::ConstantIntOp::create(b, loc, i64, elements - 1)),
      zero);
  return arith::AndIOp::create(b, loc, unit, arith::AndIOp::create(b, loc, originOk, evenRows));
}

/// Whether the `n` elements tensor[indices + (0, .., k)], k < n, are all in bounds, contiguous
/// (last stride 1) and their first address aligned to `align` bytes (both taken as known with
/// `knownAligned`: only the bounds are checked); and that address.
static std::pair<Value, Value> buildVectorCheck(OpBuilder &b, Location loc, const TensorValues &t,
                                                Type type, ValueRange indices, int64_t n,
                                                int64_t align, bool knownAligned = false) {
  Type i64 = b.getI64Type();
  SmallVector<Value> lastIndices(indices);
  lastIndices.back() =
      arith::AddIOp::create(b, loc, indices.back(), arith::ConstantIndexOp::create(b, loc, n - 1));
  auto [firstIn, ptr] = buildAddress(b, loc, t, type, indices);
  Value lastIn = buildAddress(b, loc, t, type, lastIndices).first;
  if (knownAligned)
    return {arith::AndIOp::create(b, loc, firstIn, lastIn), ptr};
  Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.strides.back(),
                                     arith::ConstantIntOp::create(b, loc, i64, 1));
  Value address = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  Value aligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, address, arith::ConstantIntOp::create(b, loc, i64, align - 1)),
      arith::ConstantIntOp::create(b, loc, i64, 0));
  Value ok = arith::AndIOp::create(b, loc, arith::AndIOp::create(b, loc, firstIn, lastIn),
                                   arith::AndIOp::create(b, loc, unit, aligned));
  return {ok, ptr};
}

/// Vectors of at most 16 bytes covering `n` elements of `bytes` bytes: (elements per vector).
static int64_t vectorElements(int64_t n, int64_t bytes) {
  return std::max<int64_t>(1, std::min<int64_t>(n, 16 / bytes));
}

/// The vector of `vecType` holding `elements` in order (8-bit floats as their i8 bits).
static Value buildPackedVector(OpBuilder &b, Location loc, VectorType vecType,
                               ArrayRef<Value> elements) {
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [e, element] : llvm::enumerate(elements)) {
    Value x = element;
    if (x.getType() != vecType.getElementType())
      x = arith::BitcastOp::create(b, loc, vecType.getElementType(), x);
    vec = LLVM::InsertElementOp::create(
        b, loc, vec, x, arith::ConstantIntOp::create(b, loc, b.getI32Type(), int64_t(e)));
  }
  return vec;
}

/// The address of element `k` after `ptr`, of memory type `memType`.
static Value elementPointer(OpBuilder &b, Location loc, Value ptr, Type memType, int64_t k) {
  if (k == 0)
    return ptr;
  return LLVM::GEPOp::create(b, loc, ptr.getType(), memType, ptr,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
}

SmallVector<Value> tlc::buildMaskedLoadVector(OpBuilder &b, Location loc, const TensorValues &t,
                                              Type type, ValueRange indices, int64_t n) {
  Type memType = isFloat8(type) ? b.getI8Type() : type;
  int64_t bytes = memType.getIntOrFloatBitWidth() / 8;
  int64_t per = vectorElements(n, bytes);
  auto [ok, ptr] = buildVectorCheck(b, loc, t, type, indices, n, per * bytes);
  // Both paths yield whole vectors, taken apart after the join: the fast path's vector load
  // then has no user but the join, so LLVM keeps it whole. (Yielding elements let LLVM split it
  // into element loads, sink the last one into the join beside the fallback's load of the same
  // element and re-vectorize only the rest: 8 of 8 bf16 vectors were a 16-byte load plus a
  // 2-byte reload, 29 % more L2 sectors than needed in softmax bf16, by ncu.)
  auto vecType = VectorType::get({per}, memType);
  Type i32 = b.getI32Type();
  SmallVector<Type> types(n / per, vecType);
  auto ifOp = scf::IfOp::create(b, loc, types, ok, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> vectors;
    for (int64_t k = 0; k < n; k += per) {
      vectors.push_back(LLVM::LoadOp::create(b, loc, vecType,
                                             elementPointer(b, loc, ptr, memType, k),
                                             /*alignment=*/per * bytes));
    }
    scf::YieldOp::create(b, loc, vectors);
    b.setInsertionPointToStart(ifOp.elseBlock());
    vectors.clear();
    SmallVector<Value> values;
    if (n > 4 && matchPattern(t.strides.back(), m_One())) {
      // Unit last stride: element k is at ptr + k, in bounds where the other indices are and
      // 0 <= i + k < size, i.e. k in [-i, size - i) (signed; exact for every i64 i: where the
      // bounds wrap, i + k is negative). No per-element index: those would be the same values
      // as a body's column masks (j * BN + c < N), kept live across the loads (softmax bf16:
      // 57 -> 40 registers, 0.55x -> 0.59x of the copy bandwidth on the H200; fp8_cast_blocks
      // 0.77x -> 0.84x). Vectors of 4 (f32) keep the per-element form: there it measured
      // faster (softmax f32 0.97x against 0.84x, at 64 registers against 40).
      Type i64 = b.getI64Type();
      Value inOthers;
      for (auto [index, size] : llvm::zip(indices.drop_back(), ArrayRef(t.sizes).drop_back())) {
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         arith::IndexCastOp::create(b, loc, i64, index), size);
        inOthers = inOthers ? arith::AndIOp::create(b, loc, inOthers, ok).getResult() : ok;
      }
      Value i = arith::IndexCastOp::create(b, loc, i64, indices.back());
      Value lo = arith::SubIOp::create(b, loc, arith::ConstantIntOp::create(b, loc, i64, 0), i);
      Value hi = arith::SubIOp::create(b, loc, t.sizes.back(), i);
      for (int64_t k = 0; k < n; ++k) {
        Value kv = arith::ConstantIntOp::create(b, loc, i64, k);
        Value ok = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, kv, lo),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, kv, hi));
        if (inOthers)
          ok = arith::AndIOp::create(b, loc, inOthers, ok);
        values.push_back(
            buildGuardedLoad(b, loc, ok, elementPointer(b, loc, ptr, memType, k), type));
      }
    } else {
      for (int64_t k = 0; k < n; ++k) {
        SmallVector<Value> at(indices);
        at.back() = arith::AddIOp::create(b, loc, indices.back(),
                                          arith::ConstantIndexOp::create(b, loc, k));
        values.push_back(buildMaskedLoad(b, loc, t, type, at));
      }
    }
    for (int64_t k = 0; k < n; k += per)
      vectors.push_back(buildPackedVector(b, loc, vecType, ArrayRef(values).slice(k, per)));
    scf::YieldOp::create(b, loc, vectors);
  }
  SmallVector<Value> values;
  for (Value vec : ifOp.getResults()) {
    for (int64_t e = 0; e < per; ++e) {
      Value x =
          LLVM::ExtractElementOp::create(b, loc, vec, arith::ConstantIntOp::create(b, loc, i32, e));
      if (memType != type)
        x = arith::BitcastOp::create(b, loc, type, x);
      values.push_back(x);
    }
  }
  return values;
}

/// Stores `values` (of memory type `memType`, `bytes` each) from `ptr` on in pieces of
/// `pieces` elements each (their sum: values.size()), each aligned to its own size.
static void storePieces(OpBuilder &b, Location loc, ArrayRef<Value> values, Type memType,
                        int64_t bytes, Value ptr, ArrayRef<int64_t> pieces) {
  int64_t at = 0;
  for (int64_t piece : pieces) {
    Value value = values[at];
    if (piece > 1)
      value = buildPackedVector(b, loc, VectorType::get({piece}, memType), values.slice(at, piece));
    else if (value.getType() != memType)
      value = arith::BitcastOp::create(b, loc, memType, value);
    LLVM::StoreOp::create(b, loc, value, elementPointer(b, loc, ptr, memType, at),
                          /*alignment=*/piece * bytes);
    at += piece;
  }
}

/// The `n` values at `ptr` (in bounds, contiguous, but not aligned to the whole vector of
/// `vecBytes`): in 8-byte pieces where the address is 8-byte aligned, else 4-byte ones where it
/// is 4-byte aligned, else (2-byte elements) one element, 4-byte pairs and one element; 8-bit
/// elements off every 4-byte boundary one by one.
static void storeRealigned(OpBuilder &b, Location loc, ArrayRef<Value> values, Type memType,
                           int64_t bytes, Value ptr, int64_t vecBytes) {
  Type i64 = b.getI64Type();
  int64_t n = values.size();
  Value address = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  auto alignedTo = [&](int64_t align) {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, address,
                              arith::ConstantIntOp::create(b, loc, i64, align - 1)),
        arith::ConstantIntOp::create(b, loc, i64, 0));
  };
  // The forms, widest first: (alignment, pieces).
  SmallVector<std::pair<int64_t, SmallVector<int64_t>>> forms;
  for (int64_t align : {int64_t(8), int64_t(4)})
    if (align < vecBytes && align > bytes)
      forms.push_back({align, SmallVector<int64_t>(n * bytes / align, align / bytes)});
  if (bytes == 2 && n >= 2) {
    SmallVector<int64_t> pieces{1};
    for (int64_t k = 1; k + 2 <= n; k += 2)
      pieces.push_back(2);
    if ((n - 1) % 2)
      pieces.push_back(1);
    forms.push_back({2, pieces});
  }
  OpBuilder::InsertionGuard guard(b);
  for (auto &[align, pieces] : forms) {
    // Elements of `align` bytes or more are always aligned to it: no test.
    if (align <= bytes) {
      storePieces(b, loc, values, memType, bytes, ptr, pieces);
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, alignedTo(align), /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    storePieces(b, loc, values, memType, bytes, ptr, pieces);
    b.setInsertionPointToStart(ifOp.elseBlock());
  }
  storePieces(b, loc, values, memType, bytes, ptr, SmallVector<int64_t>(n, 1));
}

void tlc::buildMaskedStoreVector(OpBuilder &b, Location loc, const TensorValues &t,
                                 ArrayRef<Value> values, ValueRange indices, bool knownAligned,
                                 bool realign) {
  Type type = values.front().getType();
  Type memType = isFloat8(type) ? b.getI8Type() : type;
  int64_t n = values.size();
  int64_t bytes = memType.getIntOrFloatBitWidth() / 8;
  int64_t per = vectorElements(n, bytes);
  auto [ok, ptr] = buildVectorCheck(b, loc, t, type, indices, n, per * bytes, knownAligned);
  auto ifOp = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto vecType = VectorType::get({per}, memType);
  for (int64_t k = 0; k < n; k += per)
    LLVM::StoreOp::create(b, loc, buildPackedVector(b, loc, vecType, values.slice(k, per)),
                          elementPointer(b, loc, ptr, memType, k), /*alignment=*/per * bytes);
  b.setInsertionPointToStart(ifOp.elseBlock());
  if (realign && !knownAligned && n == per && per * bytes == 16) {
    // In bounds and contiguous but not aligned (rows of an odd width): narrower aligned pieces.
    Value whole = buildVectorCheck(b, loc, t, type, indices, n, /*align=*/1).first;
    auto inside = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    b.setInsertionPointToStart(inside.thenBlock());
    storeRealigned(b, loc, values, memType, bytes, ptr, per * bytes);
    b.setInsertionPointToStart(inside.elseBlock());
  }
  for (int64_t k = 0; k < n; ++k) {
    SmallVector<Value> at(indices);
    at.back() =
        arith::AddIOp::create(b, loc, indices.back(), arith::ConstantIndexOp::create(b, loc, k));
    buildMaskedStore(b, loc, t, values[k], at);
  }
}

void tlc::populateMemoryOpsToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<DimOpLowering, LoadOpLowering, LoadVectorOpLowering, StoreOpLowering,
               AtomicAddOpLowering>(patterns.getContext());
}
