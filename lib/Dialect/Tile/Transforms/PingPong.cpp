//===- PingPong.cpp - Consumer warpgroups take turns on the tensor cores ---===//
//
// FlashAttention-3's ping-pong schedule as a rewrite of tile-warp-specialize's consumers. The W
// consumer warpgroups of a `tile.warp_specialize` run the same code, each on its own rows; in a
// ring loop whose body issues two or more register-strategy wgmma gemms with other work between
// the first (F) and the last (L) — attention: F = Q K^T, the softmax, L = P V — warpgroup w
// holds a token from the sync before L (of one iteration) to the issue of F (of the next):
//
//   consumers start:  if w == 0: tile.named_barrier arrive 2, threads = 256   (w 0 starts)
//   before the loop:  tile.named_barrier 2 + w, threads = 256                  (take the token)
//   the body:         ... F; tile.named_barrier arrive 2 + (w + 1) % W ...     (pass it on)
//                     ... tile.named_barrier 2 + w; L ...                      (take it again)
//   after the loop:   tile.named_barrier arrive 2 + (w + 1) % W                (pass it on)
//
// so one warpgroup's gemms run while the others compute their softmax. Barrier 2 + w completes
// on 256 threads: w's 128 waiting and 128 arriving (its predecessor's, or w 0's own at the
// start). Per loop each warpgroup waits 1 + N times on its barrier and its predecessor arrives
// N + 1 times on it: the loops (and tiles) of a block stay balanced, and only the start's token
// is left over at the block's end.
//
// Deadlock freedom: every consumer warpgroup runs the loop the same number of times (a ring's
// bounds are the block's: its producer walks them too), and nothing in the token's section (L
// to the body's end, the body's start to F) waits for another warpgroup except the token
// itself (planPingPong: no block barriers in the body; that section holds gemms, wgmma and
// mbarrier waits, mbarrier arrivals and pure ops only). A loop that does not qualify is left
// as it is.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

/// The first named barrier of the token ring: 0 is the block's (`bar.sync 0`), 1 the consumers'
/// (a `tile.barrier` inside `consumers`).
static constexpr int64_t kFirstTurnBarrier = 2;

namespace {
/// Inserts the token ring into the consumers of one `tile.warp_specialize`.
class TurnTaker {
public:
  TurnTaker(WarpSpecializeOp split, int64_t warpgroups)
      : split(split), warpgroups(warpgroups), b(split.getContext()), loc(split.getLoc()) {}

  /// Rewrites each qualifying ring loop of the consumers.
  void run() {
    SmallVector<std::pair<scf::ForOp, PingPongPlan>> loops;
    split.getConsumers().walk([&](scf::ForOp loop) {
      if (std::optional<PingPongPlan> plan = planPingPong(*loop.getBody()))
        loops.emplace_back(loop, *plan);
    });
    if (loops.empty())
      return;
    Block &consumers = split.getConsumers().front();
    b.setInsertionPointToStart(&consumers);
    Value tid = ThreadIdOp::create(b, loc, 0);
    Value warpgroup = arith::DivUIOp::create(b, loc, tid, cst(128));
    own = arith::AddIOp::create(b, loc, warpgroup, cst(kFirstTurnBarrier));
    Value after = arith::AddIOp::create(b, loc, warpgroup, cst(1));
    next = arith::AddIOp::create(b, loc, arith::RemUIOp::create(b, loc, after, cst(warpgroups)),
                                 cst(kFirstTurnBarrier));
    // Warpgroup 0 holds the token first.
    auto first = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup, cst(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(first.thenBlock());
    turn(cst(kFirstTurnBarrier), /*arrive=*/true);
    for (auto [loop, plan] : loops) {
      b.setInsertionPoint(loop);
      turn(own, /*arrive=*/false);
      b.setInsertionPointAfter(plan.first);
      turn(next, /*arrive=*/true);
      b.setInsertionPoint(plan.last);
      turn(own, /*arrive=*/false);
      b.setInsertionPointAfter(loop);
      turn(next, /*arrive=*/true);
    }
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// Waits for (or, with `arrive`, passes on) the token at barrier `id`: two warpgroups.
  void turn(Value id, bool arrive) { NamedBarrierOp::create(b, loc, id, 2 * 128, arrive); }

  WarpSpecializeOp split;
  int64_t warpgroups;
  OpBuilder b;
  Location loc;
  /// This warpgroup's barrier and its successor's.
  Value own, next;
};

struct PingPongPass : public tlc::tile::impl::TilePingPongBase<PingPongPass> {
  using TilePingPongBase::TilePingPongBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t consumerThreads = kernel.getThreads()[0];
    if (consumerThreads % 128 != 0 || consumerThreads / 128 < 2)
      return;
    // Written already (the pass ran before): the turns are in place.
    WalkResult written = kernel.walk([](NamedBarrierOp) { return WalkResult::interrupt(); });
    if (written.wasInterrupted())
      return;
    kernel.walk([&](WarpSpecializeOp split) { TurnTaker(split, consumerThreads / 128).run(); });
  }
};
} // namespace
