//===- LaunchInfo.cpp - Host launch descriptions from tile kernels --------===//
#include "LaunchInfo.h"

#include "tlc/Dialect/Tile/IR/TileAttrs.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tlc;

std::string tlc::dtypeName(Type type) {
  if (type.isIndex())
    return "int";
  if (type.isInteger(1))
    return "bool";
  if (type.isUnsignedInteger(8))
    return "u8";
  // The language's names of the 8-bit floats (MLIR prints f8E4M3FN, f8E5M2).
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// C++ expressions, over the size symbols and scalar parameter names of a kernel's launcher, of
/// the integer values its host-computable operations produce (constants, tensor dims, scalar
/// arguments, integer arithmetic, comparisons and selects).
namespace {
class HostExpressions {
public:
  explicit HostExpressions(tile::KernelOp kernel) : kernel(kernel) {}

  /// Names the scalar arguments of `block` (the grid region's or the body's).
  void bindArguments(Block &block) {
    for (BlockArgument arg : block.getArguments())
      if (!isa<tile::TensorType>(arg.getType()))
        exprs[arg] = "static_cast<int64_t>(" +
                     cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()]).str() + ")";
  }
  /// The expression of `value`; empty where it has none.
  std::string get(Value value) const { return exprs.lookup(value); }
  /// Translates `op` (its operands translated before); false where the host cannot compute it.
  bool translate(Operation &op) {
    std::optional<std::string> expr = expression(op);
    if (!expr)
      return false;
    exprs[op.getResult(0)] = *expr;
    return true;
  }
  /// Translates `value` and the operations it is computed from; empty where some cannot be.
  std::string translateTree(Value value) {
    if (std::string known = get(value); !known.empty())
      return known;
    Operation *op = value.getDefiningOp();
    if (!op || op->getNumResults() != 1)
      return "";
    // Tensors are not values on the host: tile.dim names their sizes.
    for (Value operand : op->getOperands())
      if (!isa<tile::TensorType>(operand.getType()) && translateTree(operand).empty())
        return "";
    return translate(*op) ? get(value) : "";
  }

private:
  std::optional<std::string> expression(Operation &op) {
    // The expressions of `o`'s two operands; empty strings where either has none.
    auto operands = [&](Operation *o) {
      std::pair<std::string, std::string> ab{get(o->getOperand(0)), get(o->getOperand(1))};
      return ab.first.empty() || ab.second.empty() ? std::pair<std::string, std::string>{} : ab;
    };
    auto binary = [&](StringRef sign, Operation *o) -> std::optional<std::string> {
      auto [a, b] = operands(o);
      if (a.empty())
        return std::nullopt;
      return "(" + a + " " + sign.str() + " " + b + ")";
    };
    // The operand that compares `sign` to the other (min with "<", max with ">").
    auto pick = [&](StringRef sign, Operation *o) -> std::optional<std::string> {
      auto [a, b] = operands(o);
      if (a.empty())
        return std::nullopt;
      return "(" + a + " " + sign.str() + " " + b + " ? " + a + " : " + b + ")";
    };
    return llvm::TypeSwitch<Operation *, std::optional<std::string>>(&op)
        .Case([&](arith::ConstantOp c) -> std::optional<std::string> {
          if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
            if (i.getType().isInteger(1))
              return std::string(i.getValue().isZero() ? "false" : "true");
            return std::to_string(i.getValue().getSExtValue());
          }
          return std::nullopt;
        })
        .Case([&](tile::DimOp d) -> std::optional<std::string> {
          auto arg = dyn_cast<BlockArgument>(d.getTensor());
          if (!arg || arg.getOwner()->getParentOp() != kernel)
            return std::nullopt;
          auto dims = cast<ArrayAttr>(kernel.getDimNames()[arg.getArgNumber()]);
          return cast<StringAttr>(dims[d.getDim()]).str();
        })
        .Case([&](arith::AddIOp o) { return binary("+", o); })
        .Case([&](arith::SubIOp o) { return binary("-", o); })
        .Case([&](arith::MulIOp o) { return binary("*", o); })
        .Case([&](arith::DivSIOp o) { return binary("/", o); })
        .Case([&](arith::RemSIOp o) { return binary("%", o); })
        // `&&`, `||` and `!` of bools (both sides evaluated, as in kernels) and bitwise
        // operators of integers.
        .Case([&](arith::AndIOp o) { return binary("&", o); })
        .Case([&](arith::OrIOp o) { return binary("|", o); })
        .Case([&](arith::XOrIOp o) { return binary("^", o); })
        .Case([&](arith::CeilDivSIOp o) -> std::optional<std::string> {
          auto [a, b] = operands(o);
          if (a.empty())
            return std::nullopt;
          return "tlc::rt::ceilDiv(" + a + ", " + b + ")";
        })
        .Case([&](arith::MaxSIOp o) { return pick(">", o); })
        .Case([&](arith::MinSIOp o) { return pick("<", o); })
        .Case([&](arith::SelectOp o) -> std::optional<std::string> {
          std::string c = get(o.getCondition()), a = get(o.getTrueValue()),
                      b = get(o.getFalseValue());
          if (c.empty() || a.empty() || b.empty())
            return std::nullopt;
          return "(" + c + " ? " + a + " : " + b + ")";
        })
        .Case([&](arith::CmpIOp o) -> std::optional<std::string> {
          switch (o.getPredicate()) {
          case arith::CmpIPredicate::eq:
            return binary("==", o);
          case arith::CmpIPredicate::ne:
            return binary("!=", o);
          case arith::CmpIPredicate::slt:
            return binary("<", o);
          case arith::CmpIPredicate::sle:
            return binary("<=", o);
          case arith::CmpIPredicate::sgt:
            return binary(">", o);
          case arith::CmpIPredicate::sge:
            return binary(">=", o);
          default:
            return std::nullopt;
          }
        })
        .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(
            [&](Operation *o) -> std::optional<std::string> {
              std::string a = get(o->getOperand(0));
              if (a.empty())
                return std::nullopt;
              return "static_cast<int64_t>(" + a + ")";
            })
        .Default([](Operation *) { return std::nullopt; });
  }

  tile::KernelOp kernel;
  llvm::DenseMap<Value, std::string> exprs;
};
} // namespace

/// Translates the grid region's operations into C++ expressions: the three block counts, then
/// a configuration's `when` condition where it has one.
static FailureOr<SmallVector<std::string, 4>> gridExpressions(tile::KernelOp kernel) {
  Block &grid = kernel.getGrid().front();
  HostExpressions exprs(kernel);
  exprs.bindArguments(grid);
  for (Operation &op : grid.without_terminator())
    if (!exprs.translate(op)) {
      op.emitError("the grid size cannot be computed on the host: '")
          << op.getName() << "' is not supported in 'grid(...)'";
      return failure();
    }
  auto yield = cast<tile::YieldOp>(grid.getTerminator());
  SmallVector<std::string, 4> result;
  for (Value value : yield.getValues())
    result.push_back(exprs.get(value));
  return result;
}

/// The trip count of the kernel's `pipelined` loop as a C++ expression over the launcher's
/// names, where the kernel body has exactly one such loop at its top level and the host can
/// compute its bounds; empty otherwise.
static std::string pipelinedIterations(tile::KernelOp kernel) {
  Block &body = kernel.getBody().front();
  scf::ForOp ring;
  for (auto loop : body.getOps<scf::ForOp>()) {
    if (!loop->hasAttr(tile::kStagesAttr))
      continue;
    if (ring)
      return "";
    ring = loop;
  }
  if (!ring)
    return "";
  HostExpressions exprs(kernel);
  exprs.bindArguments(body);
  std::string lb = exprs.translateTree(ring.getLowerBound());
  std::string ub = exprs.translateTree(ring.getUpperBound());
  std::string step = exprs.translateTree(ring.getStep());
  if (lb.empty() || ub.empty() || step.empty())
    return "";
  return "tlc::rt::tripCount(" + lb + ", " + ub + ", " + step + ")";
}

std::string tlc::constantsText(DictionaryAttr constants) {
  std::string text;
  for (NamedAttribute entry : constants) {
    text += (text.empty() ? "" : ", ") + entry.getName().str() + " = ";
    if (auto b = dyn_cast<BoolAttr>(entry.getValue()))
      text += b.getValue() ? "true" : "false";
    else if (auto i = dyn_cast<IntegerAttr>(entry.getValue()))
      text += std::to_string(i.getValue().getSExtValue());
    else if (auto t = dyn_cast<TypeAttr>(entry.getValue()))
      text += dtypeName(t.getValue());
  }
  return text;
}

FailureOr<std::vector<cuda::KernelLaunchInfo>> tlc::extractLaunchInfo(ModuleOp module) {
  std::vector<cuda::KernelLaunchInfo> infos;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    cuda::KernelLaunchInfo info;
    info.name = kernel.getSymName().str();
    if (StringRef of = tile::getVariantOf(kernel); !of.empty()) {
      info.variantOf = of.str();
      if (auto index = kernel->getAttrOfType<IntegerAttr>("variant"))
        info.variant = static_cast<int>(index.getInt());
      auto configs = kernel->getAttrOfType<ArrayAttr>("configs");
      if (configs && info.variant >= 0 && static_cast<size_t>(info.variant) < configs.size())
        if (auto config = dyn_cast<DictionaryAttr>(configs[info.variant]))
          info.config = constantsText(config);
    }
    for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      cuda::LaunchParam param;
      param.name = cast<StringAttr>(kernel.getArgNames()[index]).str();
      if (auto tensor = dyn_cast<tile::TensorType>(type)) {
        param.kind = cuda::LaunchParam::Kind::Tensor;
        param.dtype = dtypeName(tensor.getElementType());
        auto isSymbol = [](StringRef name) { return !llvm::isDigit(name.front()); };
        for (Attribute dim : cast<ArrayAttr>(kernel.getDimNames()[index])) {
          std::string name = cast<StringAttr>(dim).str();
          param.dims.push_back(name);
          if (isSymbol(name) && !llvm::is_contained(info.sizeSymbols, name))
            info.sizeSymbols.push_back(name);
        }
        if (auto strides = kernel->getAttrOfType<ArrayAttr>("strides")) {
          for (Attribute stride : cast<ArrayAttr>(strides[index])) {
            std::string name = cast<StringAttr>(stride).str();
            param.strides.push_back(name);
            if (isSymbol(name) && !llvm::is_contained(info.sizeSymbols, name))
              info.sizeSymbols.push_back(name);
          }
        }
      } else {
        param.kind = cuda::LaunchParam::Kind::Scalar;
        // `int` scalars travel as 64-bit integers (docs/abi.md).
        param.dtype = type.isIndex() ? "i64" : dtypeName(type);
      }
      info.params.push_back(std::move(param));
    }
    auto grid = gridExpressions(kernel);
    if (failed(grid))
      return failure();
    for (unsigned i = 0; i < 3; ++i) {
      info.grid[i] = (*grid)[i];
      info.threads[i] = static_cast<unsigned>(kernel.getThreads()[i]);
    }
    if (kernel.getWhenCondition())
      info.when = (*grid)[3];
    info.iterations = pipelinedIterations(kernel);
    infos.push_back(std::move(info));
  }
  return infos;
}
