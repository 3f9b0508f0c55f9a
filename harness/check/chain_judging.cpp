#include "harness/check/chain_judging.hpp"

namespace atomstress {

namespace {
thread_local ChainJudging* lent = nullptr;
}  // namespace

LentChainJudge::LentChainJudge(ChainJudging& judging) : previous_(lent) { lent = &judging; }
LentChainJudge::~LentChainJudge() { lent = previous_; }

ChainJudging* lent_chain_judge() { return lent; }

}  // namespace atomstress
