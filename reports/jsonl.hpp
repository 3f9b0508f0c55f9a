// JSON-lines report: one object per trial, appended and flushed as each trial
// ends, so a crash or a bad input later loses nothing already recorded.
#pragma once

#include <cstdio>
#include <string>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::reports {

class JsonLines {
 public:
  // Empty path: disabled.  Opens for append.
  explicit JsonLines(const std::string& path);
  ~JsonLines();
  JsonLines(const JsonLines&) = delete;
  JsonLines& operator=(const JsonLines&) = delete;

  bool ok() const { return path_.empty() || f_ != nullptr; }
  void write(const TrialOutcome& t, const std::string& token);

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace atomstress::reports
