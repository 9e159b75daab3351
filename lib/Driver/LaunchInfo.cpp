//===- LaunchInfo.cpp - Host launch descriptions from tile kernels --------===//
#include "LaunchInfo.h"

#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

static std::string binary(StringRef op, const std::string &a, const std::string &b) {
  return "(" + a + " " + op.str() + " " + b + ")";
}

/// Translates the grid region's operations into C++ expressions: the three block counts, then
/// a configuration's `when` condition where it has one.
static FailureOr<SmallVector<std::string, 4>> gridExpressions(tile::KernelOp kernel) {
  Block &grid = kernel.getGrid().front();
  llvm::DenseMap<Value, std::string> exprs;
  for (BlockArgument arg : grid.getArguments()) {
    if (isa<tile::TensorType>(arg.getType()))
      continue;
    std::string name = cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()]).str();
    exprs[arg] = "static_cast<int64_t>(" + name + ")";
  }
  auto get = [&](Value v) { return exprs.lookup(v); };
  for (Operation &op : grid.without_terminator()) {
    std::optional<std::string> expr =
        llvm::TypeSwitch<Operation *, std::optional<std::string>>(&op)
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
              if (!arg)
                return std::nullopt;
              auto dims = cast<ArrayAttr>(kernel.getDimNames()[arg.getArgNumber()]);
              return cast<StringAttr>(dims[d.getDim()]).str();
            })
            .Case([&](arith::AddIOp o) { return binary("+", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::SubIOp o) { return binary("-", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::MulIOp o) { return binary("*", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::DivSIOp o) { return binary("/", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::RemSIOp o) { return binary("%", get(o.getLhs()), get(o.getRhs())); })
            // `&&`, `||` and `!` of bools (both sides evaluated, as in kernels) and bitwise
            // operators of integers.
            .Case([&](arith::AndIOp o) { return binary("&", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::OrIOp o) { return binary("|", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::XOrIOp o) { return binary("^", get(o.getLhs()), get(o.getRhs())); })
            .Case([&](arith::CeilDivSIOp o) {
              return "tlc::rt::ceilDiv(" + get(o.getLhs()) + ", " + get(o.getRhs()) + ")";
            })
            .Case([&](arith::MaxSIOp o) {
              std::string a = get(o.getLhs()), b = get(o.getRhs());
              return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
            })
            .Case([&](arith::MinSIOp o) {
              std::string a = get(o.getLhs()), b = get(o.getRhs());
              return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
            })
            .Case([&](arith::SelectOp o) {
              return "(" + get(o.getCondition()) + " ? " + get(o.getTrueValue()) + " : " +
                     get(o.getFalseValue()) + ")";
            })
            .Case([&](arith::CmpIOp o) -> std::optional<std::string> {
              StringRef op;
              switch (o.getPredicate()) {
              case arith::CmpIPredicate::eq:
                op = "==";
                break;
              case arith::CmpIPredicate::ne:
                op = "!=";
                break;
              case arith::CmpIPredicate::slt:
                op = "<";
                break;
              case arith::CmpIPredicate::sle:
                op = "<=";
                break;
              case arith::CmpIPredicate::sgt:
                op = ">";
                break;
              case arith::CmpIPredicate::sge:
                op = ">=";
                break;
              default:
                return std::nullopt;
              }
              return binary(op, get(o.getLhs()), get(o.getRhs()));
            })
            .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(
                [&](Operation *o) { return "static_cast<int64_t>(" + get(o->getOperand(0)) + ")"; })
            .Default([](Operation *) { return std::nullopt; });
    if (!expr) {
      op.emitError("the grid size cannot be computed on the host: '")
          << op.getName() << "' is not supported in 'grid(...)'";
      return failure();
    }
    exprs[op.getResult(0)] = *expr;
  }
  auto yield = cast<tile::YieldOp>(grid.getTerminator());
  SmallVector<std::string, 4> result;
  for (Value value : yield.getValues())
    result.push_back(get(value));
  return result;
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
    if (grid->size() == 4)
      info.when = (*grid)[3];
    infos.push_back(std::move(info));
  }
  return infos;
}
