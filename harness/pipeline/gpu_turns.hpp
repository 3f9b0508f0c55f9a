// Whose turn the GPU is when several threads run trials on it (fuzz's two
// slices at once, nightly.hpp): trials in flight beside others hold a
// share; a run whose verdict must be its own (a trial that did not pass
// beside others, a shrink, a rate: ordered_trials.hpp's attribution rule)
// holds the GPU alone.  A run alone waits for every share to end and holds
// new ones back until it is done, so every reported failure still comes
// from a run with nothing else on the GPU.  A thread that already holds the
// GPU alone may ask again (nested holds are one).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace atomstress {

class GpuTurns {
 public:
  // A share: waits while a run alone holds the GPU or waits for it.
  void share_begin();
  void share_end();
  // The GPU alone: waits for every share to end.
  void alone_begin();
  void alone_end();
  // Shares held now (the tests).
  size_t shares() const;

  // Scoped holds; a null GpuTurns holds nothing (nothing else shares the GPU).
  template <void (GpuTurns::*Begin)(), void (GpuTurns::*End)()>
  class Hold {
   public:
    explicit Hold(GpuTurns* t) : t_(t) {
      if (t_) (t_->*Begin)();
    }
    ~Hold() {
      if (t_) (t_->*End)();
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    GpuTurns* t_;
  };
  using Share = Hold<&GpuTurns::share_begin, &GpuTurns::share_end>;
  using Alone = Hold<&GpuTurns::alone_begin, &GpuTurns::alone_end>;

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  size_t shares_ = 0, alone_waiting_ = 0, alone_depth_ = 0;
  std::thread::id alone_owner_;
};

}  // namespace atomstress
