//===- ExpandFloat8.cpp - 8-bit floats as i8 bit patterns -----------------===//
//
// LLVM has no 8-bit float types: every f8E4M3FN / f8E5M2 value becomes its i8 bit pattern (a
// type conversion over whatever ops carry them: loads, stores, selects, loop-carried values,
// memrefs), and conversions to and from f32 become integer code or, on sm_89 and later, PTX's
// cvt instructions. The frontend routes every other conversion through f32 and rejects
// arithmetic on 8-bit floats, so arith.truncf and arith.extf are the only arithmetic left.
//
//===----------------------------------------------------------------------===//

#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "tlc/Dialect/Tile/IR/TileAttrs.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tlc {
#define GEN_PASS_DEF_EXPANDFLOAT8
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

bool isFloat8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

/// The encoding of an 8-bit float type: bias, mantissa bits and the largest finite pattern.
struct Float8Format {
  int bias;
  int mantissaBits;
  int64_t maxFinite; ///< 0x7E for e4m3 (448), 0x7B for e5m2 (57344)
  static Float8Format of(Type type) {
    if (isa<Float8E4M3FNType>(type))
      return {7, 3, 0x7E};
    return {15, 2, 0x7B};
  }
  /// Bits of the smallest normal number as an f32: (127 - bias + 1) << 23.
  int64_t minNormalF32Bits() const { return int64_t(127 - bias + 1) << 23; }
};

/// f8 -> i8 and memrefs/vectors of f8 -> of i8; everything else unchanged.
class Float8TypeConverter : public TypeConverter {
public:
  explicit Float8TypeConverter(MLIRContext *ctx) {
    addConversion([](Type type) { return type; });
    addConversion([ctx](FloatType type) -> Type {
      return isFloat8(type) ? Type(IntegerType::get(ctx, 8)) : Type(type);
    });
    addConversion([this](MemRefType type) -> Type {
      return type.cloneWith(std::nullopt, convertType(type.getElementType()));
    });
    addConversion([this](VectorType type) -> Type {
      return type.cloneWith(std::nullopt, convertType(type.getElementType()));
    });
    auto cast = [](OpBuilder &b, Type to, ValueRange inputs, Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, to, inputs).getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

/// Helpers building i32 arithmetic at one location.
struct Ints {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) const { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value f(float v) const {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(v));
  }
  Value bits(Value f32) const { return arith::BitcastOp::create(b, loc, b.getI32Type(), f32); }
  Value fromBits(Value i32) const { return arith::BitcastOp::create(b, loc, b.getF32Type(), i32); }
  Value andi(Value x, int64_t m) const { return arith::AndIOp::create(b, loc, x, c(m)); }
  Value ori(Value x, Value y) const { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, int64_t y) const { return arith::SubIOp::create(b, loc, x, c(y)); }
  Value shl(Value x, int64_t s) const { return arith::ShLIOp::create(b, loc, x, c(s)); }
  Value shr(Value x, int64_t s) const { return arith::ShRUIOp::create(b, loc, x, c(s)); }
  Value ult(Value x, int64_t y) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(y));
  }
  Value ugt(Value x, int64_t y) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, x, c(y));
  }
  Value eq(Value x, int64_t y) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c(y));
  }
  Value select(Value cond, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
};

/// f32 -> the i8 pattern of `type`: round to nearest even, saturate finite overflow and
/// infinity to the largest finite value, NaN to 0x7F (with the sign).
Value truncateToFloat8(OpBuilder &b, Location loc, Value x, Type type, bool hardware) {
  if (hardware) {
    // cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 converts a pair; give it x twice.
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, b.getI16Type(), x, x, NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
        /*relu=*/false, type);
    return arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
  }
  Float8Format format = Float8Format::of(type);
  Ints i{b, loc};
  Value u = i.bits(x);
  Value sign = i.andi(i.shr(u, 24), 0x80);
  Value a = i.andi(u, 0x7FFFFFFF);
  // Normal results: round the mantissa to nearest even at bit `drop`, then rebias.
  int64_t drop = 23 - format.mantissaBits;
  Value lsb = i.andi(i.shr(a, drop), 1);
  Value rounded = i.add(i.add(a, i.c((int64_t(1) << (drop - 1)) - 1)), lsb);
  Value normal = i.sub(i.shr(rounded, drop), int64_t(127 - format.bias) << format.mantissaBits);
  // Subnormal results: |x| plus 2^(23 - subnormal exponent) rounds |x| to a multiple of the
  // smallest subnormal in the FPU; the low bits of the sum are the pattern.
  int subnormalShift = format.bias - 1 + format.mantissaBits; // 9 for e4m3, 16 for e5m2
  float magic = std::ldexp(1.0f, 23 - subnormalShift);
  Value sum = arith::AddFOp::create(b, loc, i.fromBits(a), i.f(magic));
  Value subnormal = arith::SubIOp::create(b, loc, i.bits(sum), i.bits(i.f(magic)));
  Value r = i.select(i.ult(a, format.minNormalF32Bits()), subnormal, normal);
  r = arith::MinSIOp::create(b, loc, r, i.c(format.maxFinite));
  r = i.select(i.ugt(a, 0x7F800000), i.c(0x7F), r);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), i.ori(r, sign));
}

/// The i8 pattern `bits` of `type` -> f32 (exact).
Value extendFromFloat8(OpBuilder &b, Location loc, Value bits, Type type, bool hardware) {
  Ints i{b, loc};
  if (isa<Float8E5M2Type>(type)) {
    // e5m2 is the high byte of an f16.
    Value half = arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI16Type(), bits),
                                       arith::ConstantIntOp::create(b, loc, b.getI16Type(), 8));
    Value f16 = arith::BitcastOp::create(b, loc, b.getF16Type(), half);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), f16);
  }
  if (hardware) {
    // cvt.rn.f16x2.e4m3x2 converts a pair; give it the byte twice and take one half.
    Value wide = arith::ExtUIOp::create(b, loc, b.getI16Type(), bits);
    Value twice = arith::OrIOp::create(
        b, loc, wide,
        arith::ShLIOp::create(b, loc, wide,
                              arith::ConstantIntOp::create(b, loc, b.getI16Type(), 8)));
    auto pairType = VectorType::get({2}, b.getI8Type());
    Value pair = LLVM::BitcastOp::create(b, loc, pairType, twice);
    Value halves = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, VectorType::get({2}, b.getF16Type()),
                                                      pair, /*relu=*/false, type);
    Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
    Value half = LLVM::ExtractElementOp::create(b, loc, halves, zero);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), half);
  }
  // e4m3: the exponent and mantissa move to the top of an f32 and the bias grows by 120;
  // subnormals (exponent 0) are the mantissa times 2^-9; 0x7F is NaN.
  Value v = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
  Value magnitude = i.andi(v, 0x7F);
  Value sign = i.shl(i.andi(v, 0x80), 24);
  Value normal = i.add(i.shl(magnitude, 20), i.c(int64_t(120) << 23));
  Value mantissa = arith::UIToFPOp::create(b, loc, b.getF32Type(), i.andi(v, 7));
  Value subnormal = i.bits(arith::MulFOp::create(b, loc, mantissa, i.f(std::ldexp(1.0f, -9))));
  Value r = i.select(i.ult(magnitude, 8), subnormal, normal);
  r = i.select(i.eq(magnitude, 0x7F), i.c(0x7FC00000), r);
  return i.fromBits(i.ori(r, sign));
}

/// A float of another width from/to f32 around the conversions above.
Value convertFloat(OpBuilder &b, Location loc, Value x, Type to) {
  unsigned from = x.getType().getIntOrFloatBitWidth(), width = to.getIntOrFloatBitWidth();
  if (x.getType() == to)
    return x;
  if (from < width)
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

struct TruncToFloat8 : OpConversionPattern<arith::TruncFOp> {
  TruncToFloat8(const TypeConverter &converter, MLIRContext *ctx, bool hardware)
      : OpConversionPattern(converter, ctx, /*benefit=*/1), hardware(hardware) {}
  LogicalResult matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType();
    if (!isFloat8(to))
      return failure();
    Value x = convertFloat(rewriter, op.getLoc(), adaptor.getIn(), rewriter.getF32Type());
    rewriter.replaceOp(op, truncateToFloat8(rewriter, op.getLoc(), x, to, hardware));
    return success();
  }
  bool hardware;
};

struct ExtendFromFloat8 : OpConversionPattern<arith::ExtFOp> {
  ExtendFromFloat8(const TypeConverter &converter, MLIRContext *ctx, bool hardware)
      : OpConversionPattern(converter, ctx, /*benefit=*/1), hardware(hardware) {}
  LogicalResult matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!isFloat8(from))
      return failure();
    Value x = extendFromFloat8(rewriter, op.getLoc(), adaptor.getIn(), from, hardware);
    rewriter.replaceOp(op, convertFloat(rewriter, op.getLoc(), x, op.getType()));
    return success();
  }
  bool hardware;
};

/// An 8-bit float constant: its bit pattern.
struct Float8Constant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !isFloat8(value.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(
        op, rewriter.getI8Type(), value.getValue().bitcastToAPInt().getZExtValue());
    return success();
  }
};

/// bitcast between an 8-bit float and i8: the same bits.
struct Float8Bitcast : OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isFloat8(op.getType()) && !isFloat8(op.getIn().getType()))
      return failure();
    rewriter.replaceOp(op, adaptor.getIn());
    return success();
  }
};

/// Any other op carrying 8-bit floats: the same op on i8 (regions and block arguments too).
struct ConvertTypesOfAnyOp : ConversionPattern {
  ConvertTypesOfAnyOp(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes, op->getAttrs(),
                         op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *converted = state.addRegion();
      rewriter.inlineRegionBefore(region, *converted, converted->begin());
      if (failed(rewriter.convertRegionTypes(converted, *getTypeConverter())))
        return failure();
    }
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct ExpandFloat8Pass : public tlc::impl::ExpandFloat8Base<ExpandFloat8Pass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // Tile ops tie their result types to their buffers' and tensors' element types: converting
    // those alone would break them. The pass runs on what convert-tile-to-nvvm produced.
    WalkResult tileOps = root->walk([&](Operation *op) {
      if (!isa<tile::TileDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "tlc-expand-float8 runs after convert-tile-to-nvvm, on IR without tile "
                         "operations";
      return WalkResult::interrupt();
    });
    if (tileOps.wasInterrupted())
      return signalPassFailure();
    bool any = false;
    root->walk([&](Operation *op) {
      auto hasFloat8 = [](Type type) {
        return type
            .walk([](Type t) {
              return isFloat8(t) ? WalkResult::interrupt() : WalkResult::advance();
            })
            .wasInterrupted();
      };
      for (Type t : op->getResultTypes())
        any |= hasFloat8(t);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type t : block.getArgumentTypes())
            any |= hasFloat8(t);
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    tile::TargetAttr target = tile::getTarget(root);
    bool hardware = target && target.getSm() >= 89;
    Float8TypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<TruncToFloat8, ExtendFromFloat8>(converter, ctx, hardware);
    patterns.add<Float8Constant, Float8Bitcast, ConvertTypesOfAnyOp>(converter, ctx);
    ConversionTarget legal(*ctx);
    legal.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (!converter.isLegal(op))
        return false;
      for (Region &region : op->getRegions())
        if (!converter.isLegal(&region))
          return false;
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        return !isFloat8(constant.getType());
      return true;
    });
    if (failed(applyPartialConversion(root, legal, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
