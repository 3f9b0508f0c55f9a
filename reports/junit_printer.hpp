// `fuzz --junit FILE`, `merge --junit FILE`: the JUnit XML that Jenkins and
// GitLab read: <testsuites> holding one <testsuite name="atomstress.fuzz">,
// one <testcase> per entry; a failure's message is what failed, its class
// and cause (FuzzCollector::headline: never empty), and its body the shrunk
// case and repro line; a HANG is a failure of type HANG, an
// entry that cannot run here is <skipped>.  Written whole at finish(),
// through a temporary file and a rename.
#pragma once

#include <string>

#include "reports/fuzz_collector.hpp"
#include "reports/markup.hpp"

namespace atomstress::reports {

class JunitPrinter final : public FuzzCollector {
 public:
  using FuzzCollector::FuzzCollector;
  std::string render() const override;
};

}  // namespace atomstress::reports
