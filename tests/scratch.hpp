// Scratch folders for a test program: <tmp>/<program>_<pid>/<name>, fresh
// for each call, all removed when the program's tests end.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace atomstress::testing {

class Scratch : public ::testing::Environment {
 public:
  explicit Scratch(const std::string& program)
      : root_(std::filesystem::temp_directory_path() / (program + "_" + std::to_string(getpid()))) {}
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path dir(const std::string& name) const {
    const auto d = root_ / name;
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
  }

 private:
  std::filesystem::path root_;
};

// Registers a program's Scratch with GoogleTest (which owns it); call it at
// namespace scope, so it is there before the tests run.
inline Scratch* add_scratch(const std::string& program) {
  auto* s = new Scratch(program);
  ::testing::AddGlobalTestEnvironment(s);
  return s;
}

}  // namespace atomstress::testing
