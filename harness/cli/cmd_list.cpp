// atomstress list [--impl NAMES] [--verbose]: the catalogue.
#include <cstdio>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/registry/registry.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

int cmd_list(const std::vector<std::string>& args) {
  std::string glob = "everything";
  bool verbose = false;
  po::options_description desc("atomstress list");
  desc.add_options()("help,h", "this help")("impl", non_empty(&glob)->default_value("everything"), "names or globs, comma-separated, as check takes them")(
      "verbose,v", po::bool_switch(&verbose), "print each entry's semantics spec");
  const auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  // The same reading of --impl as check's (a list read by one rule).
  std::vector<const Entry*> impls;
  if (std::string error; !select_entries(glob, "impl", impls, error)) return usage_error(error);
  for (const Entry* i : impls) {
    if (i->algo)
      reports::print("{:<44} algorithm on {}{}{}\n", i->name, i->algo->atomic().name, i->gpu_only ? " (gpu only)" : "",
                 i->buggy() ? "   [buggy]" : "");
    else
      reports::print("{:<44} {:<4} {}{}{}\n", i->name, vk_name(i->kind), i->sem.phi, i->gpu_only ? " (gpu only)" : "",
                 i->buggy() ? "   [buggy]" : "");
    if (verbose) reports::print("{}\n", describe_spec(*i));
  }
  return 0;
}

}  // namespace atomstress::cli
