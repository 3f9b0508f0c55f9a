// atomstress fuzz end to end on the CPU backend (the program beside this
// one): caught bugs become JUnit failures and corpus cases, the corpus is
// replayed, a killed run resumes without losing a line, shards cover the
// selection exactly and merge back into one JUnit file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/corpus.hpp"
#include "fuzz/duration.hpp"
#include "fuzz/records_json.hpp"
#include "fuzz/shard.hpp"
#include "harness/trial/token.hpp"
#include "reports/junit_printer.hpp"
#include "run_program.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;

namespace {

using atomstress::testing::bin_dir;
using atomstress::testing::binary;
using atomstress::testing::Result;
using atomstress::testing::run_shell;

Result run(const std::string& args, const std::string& env = "") {
  return run_shell(env + " " + binary() + " " + args + " 2>&1");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// A fresh scratch folder per test (removed when the tests end).
atomstress::testing::Scratch* const scratch_env = atomstress::testing::add_scratch("atomstress_fuzz_test");
fs::path scratch(const std::string& name) { return scratch_env->dir(name); }

// The testcase element of `name` in a JUnit file ("" when absent).
std::string testcase(const std::string& xml, const std::string& name) {
  const auto at = xml.find("<testcase name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  const auto self_closed = xml.find("/>", at), open_end = xml.find(">", at);
  if (self_closed != std::string::npos && self_closed + 1 == open_end) return xml.substr(at, open_end + 1 - at);
  return xml.substr(at, xml.find("</testcase>", at) + 11 - at);
}

// Well-formed XML by python3's parser, when python3 is there.
void expect_parses_as_xml(const fs::path& p) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) return;
  const std::string cmd = "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' '" +
                          p.string() + "' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(p);
}

// The entries named by a log's "entry" records.
std::set<std::string> entries_in_log(const fs::path& log) {
  std::set<std::string> names;
  std::istringstream in(slurp(log));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"record\":\"entry\"") == std::string::npos) continue;
    const auto at = line.find("\"impl\":\"") + 8;
    names.insert(line.substr(at, line.find('"', at) - at));
  }
  return names;
}

// Starts `atomstress ARGS...` (stdout to /dev/null), lets it run `seconds`,
// then kills it with SIGKILL; true when it was killed (not finished).
bool run_and_kill(std::vector<std::string> args, unsigned seconds) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    std::vector<char*> argv;
    static char name[] = "atomstress";
    argv.push_back(name);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary().c_str(), argv.data());
    _exit(127);
  }
  sleep(seconds);
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st);
}

const std::vector<std::string> kBugs = {"buggy.plain_rmw.add.i32", "buggy.returns_new.add.f32", "buggy.inc_gt.u32"};
const std::vector<std::string> kCorrect = {"native.add.i32", "cas.add.f32"};

}  // namespace

TEST(Fuzz, CatchesBugsIntoJunitAndCorpusThenReplaysTheCorpus) {
  const fs::path d = scratch("catch");
  std::string impls;
  for (const auto& n : kBugs) impls += n + ",";
  for (const auto& n : kCorrect) impls += n + ",";
  impls.pop_back();
  const std::string common = "fuzz --backend cpu --impl '" + impls + "' --corpus " + (d / "corpus").string();
  const auto r = run(common + " --time 10s --progress-s 1 --junit " + (d / "junit.xml").string() + " --report " +
                     (d / "report").string() + " --json " + (d / "log.jsonl").string());
  ASSERT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("s/10s  trials "), std::string::npos) << "a progress line: " << r.out;

  const std::string xml = slurp(d / "junit.xml");
  EXPECT_NE(xml.find("<testsuite name=\"atomstress.fuzz\" tests=\"5\" failures=\"3\" errors=\"0\" skipped=\"0\""),
            std::string::npos) << xml;
  for (const auto& n : kBugs) {
    const std::string tc = testcase(xml, n);
    EXPECT_NE(tc.find("<failure message=\""), std::string::npos) << n << "\n" << xml;
    EXPECT_NE(tc.find("repro: atomstress repro as2."), std::string::npos) << tc;
    EXPECT_NE(tc.find("." + n + "."), std::string::npos) << tc;
  }
  for (const auto& n : kCorrect) {
    const std::string tc = testcase(xml, n);
    ASSERT_FALSE(tc.empty()) << n << "\n" << xml;
    EXPECT_EQ(tc.find("failure"), std::string::npos) << tc;
  }
  expect_parses_as_xml(d / "junit.xml");
  EXPECT_NE(slurp(d / "report" / "summary.md").find("3 of 5 entries failing"), std::string::npos);
  // Where the time went: the code under test's share of the fuzzed time,
  // in the closing line, the summary, and each slice's log record.
  EXPECT_NE(r.out.find(" s fuzzed; the code under test ran "), std::string::npos) << r.out;
  EXPECT_NE(slurp(d / "report" / "summary.md").find("- time: "), std::string::npos);
  double ran_s = 0;
  std::istringstream log(slurp(d / "log.jsonl"));
  for (std::string line; std::getline(log, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("run_s")) ran_s += j["run_s"].get<double>();
  }
  EXPECT_GT(ran_s, 0.0) << "no slice recorded the code under test's time";
  const std::string html = slurp(d / "report" / "index.html");
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);

  std::vector<fs::path> cases;
  for (const auto& de : fs::directory_iterator(d / "corpus"))
    if (de.path().extension() == ".case") cases.push_back(de.path());
  ASSERT_EQ(cases.size(), kBugs.size());

  // The corpus first: each old failure still fails (the bugs are still there).
  const auto again = run(common + " --time 2s");
  EXPECT_EQ(again.status, 1) << again.out;
  EXPECT_EQ(count(again.out, "corpus still failing: "), kBugs.size()) << again.out;

  // repro takes a corpus file as well as a token.
  const auto repro = run("repro " + cases[0].string() + " --backend cpu --runs 5");
  EXPECT_EQ(repro.status, 1) << repro.out;
}

TEST(Fuzz, RefusesBadInputWithOneLine) {
  for (const char* t : {"10", "5x", "-5s", "0s", "1.5h", "s", "169h"}) {
    const auto r = run(std::string("fuzz --backend cpu --impl native.add.i32 --time '") + t + "'");
    EXPECT_EQ(r.status, 2) << t << "\n" << r.out;
    EXPECT_EQ(count(r.out, "\n"), 1u) << t << "\n" << r.out;
  }
  const auto shard = run("fuzz --backend cpu --shard 2/2 --time 1s");
  EXPECT_EQ(shard.status, 2) << shard.out;

  // A malformed corpus file: one line naming it, nothing run, nothing lost.
  const fs::path d = scratch("malformed");
  std::ofstream(d / "bad.case") << "token: as1.not-a-token\n";
  const auto r = run("fuzz --backend cpu --impl native.add.i32 --time 1s --corpus " + d.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(count(r.out, "\n"), 1u) << r.out;
  EXPECT_NE(r.out.find((d / "bad.case").string()), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "bad.case"), "token: as1.not-a-token\n");
}

TEST(Fuzz, KilledRunResumesWithoutLosingRecords) {
  const fs::path d = scratch("resume");
  const std::string log = (d / "log.jsonl").string(), corpus = (d / "corpus").string();
  ASSERT_TRUE(run_and_kill({"fuzz", "--backend", "cpu", "--time", "8s", "--impl",
                            "native.add.i32,cas.add.f32,native.add.u32", "--corpus", corpus, "--json", log},
                           3));
  const std::string before = slurp(log);
  ASSERT_GT(count(before, "\"record\":\"slice\""), 0u) << before;
  EXPECT_EQ(count(before, "\"record\":\"entry\""), 0u) << "killed before it finished";

  const auto r = run("fuzz --resume --corpus " + corpus);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("resumed at"), std::string::npos) << r.out;
  const std::string after = slurp(log);
  EXPECT_EQ(after.substr(0, before.size()), before) << "every line written before the kill is kept";
  EXPECT_EQ(entries_in_log(log), (std::set<std::string>{"native.add.i32", "cas.add.f32", "native.add.u32"}));

  // Options other than where the state is are refused on --resume.
  EXPECT_EQ(run("fuzz --resume --corpus " + corpus + " --time 5s").status, 2);
}

TEST(Fuzz, ShardsCoverTheSelectionAndMergeIntoOneJunit) {
  const fs::path d = scratch("shards");
  const std::string sel = "fuzz --backend cpu --time 1s --impl 'native.add.*,cas.add.*' --json ";
  ASSERT_EQ(run(sel + (d / "all.jsonl").string()).status, 0);
  ASSERT_EQ(run(sel + (d / "s0.jsonl").string() + " --shard 0/2").status, 0);
  ASSERT_EQ(run(sel + (d / "s1.jsonl").string(), "JOB_COMPLETION_INDEX=1 ATOMSTRESS_SHARD_COUNT=2").status, 0);
  const auto all = entries_in_log(d / "all.jsonl"), s0 = entries_in_log(d / "s0.jsonl"),
             s1 = entries_in_log(d / "s1.jsonl");
  ASSERT_GT(all.size(), 2u);
  std::set<std::string> both = s0;
  both.insert(s1.begin(), s1.end());
  EXPECT_EQ(both, all);
  EXPECT_EQ(both.size(), s0.size() + s1.size()) << "no entry in both shards";
  EXPECT_FALSE(s0.empty());
  EXPECT_FALSE(s1.empty());

  const auto m = run("merge --junit " + (d / "merged.xml").string() + " " + (d / "s0.jsonl").string() + " " +
                     (d / "s1.jsonl").string());
  EXPECT_EQ(m.status, 0) << m.out;
  const std::string xml = slurp(d / "merged.xml");
  EXPECT_NE(xml.find("tests=\"" + std::to_string(all.size()) + "\""), std::string::npos) << xml;
  for (const auto& n : all) EXPECT_FALSE(testcase(xml, n).empty()) << n;
  expect_parses_as_xml(d / "merged.xml");
}

TEST(Fuzz, DevicesRunOneLanePerDeviceAndCombineThem) {
  // On the cpu backend a --devices lane is a process of its own: the same
  // coordination a host of GPUs gets, without one.
  const fs::path d = scratch("lanes");
  const std::string corpus = (d / "corpus").string(), xml = (d / "j.xml").string(), log = (d / "all.jsonl").string();
  const std::string impls = "buggy.plain_rmw.add.i32,buggy.inc_gt.u32,native.add.i32,cas.add.f32";
  const auto r = run("fuzz --backend cpu --devices 0,1 --time 4s --impl '" + impls + "' --corpus " + corpus +
                     " --junit " + xml + " --json " + log);
  EXPECT_EQ(r.status, 1) << r.out;
  // Each lane ran its share, and says how much.
  for (const char* dev : {"device 0: 2 entries, ", "device 1: 2 entries, "}) {
    const auto at = r.out.find(dev);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.substr(at, r.out.find('\n', at) - at).find(", 0 trials"), std::string::npos) << r.out;
  }
  // The lanes' shares partition the selection, and the combined JUnit has them all.
  const auto lane0 = entries_in_log(d / "corpus" / "fuzz-state-lanes" / "lane-0.jsonl"),
             lane1 = entries_in_log(d / "corpus" / "fuzz-state-lanes" / "lane-1.jsonl");
  EXPECT_EQ(lane0.size() + lane1.size(), 4u);
  std::set<std::string> both = lane0;
  both.insert(lane1.begin(), lane1.end());
  EXPECT_EQ(both, (std::set<std::string>{"buggy.plain_rmw.add.i32", "buggy.inc_gt.u32", "native.add.i32",
                                         "cas.add.f32"}));
  EXPECT_EQ(entries_in_log(log), both) << "the run's --json has both lanes' records";
  const std::string junit = slurp(xml);
  EXPECT_NE(junit.find("tests=\"4\" failures=\"2\""), std::string::npos) << junit;
  expect_parses_as_xml(xml);
  // Repro lines name the program, not the lane's /proc/self/exe.
  EXPECT_EQ(r.out.find("repro: exe "), std::string::npos) << r.out;
  // Both failures reached the shared corpus.
  size_t cases = 0;
  for (const auto& f : fs::directory_iterator(corpus)) cases += f.path().extension() == ".case";
  EXPECT_EQ(cases, 2u);
  // Bad device lists are refused with one line.
  EXPECT_EQ(run("fuzz --backend cpu --devices 0,0 --time 1s").status, 2);
  EXPECT_EQ(run("fuzz --backend cpu --devices 0,x --time 1s").status, 2);
}

TEST(Fuzz, AKilledDevicesRunTakesItsLanesDownAndResumes) {
  const fs::path d = scratch("lanes_resume");
  const std::string corpus = (d / "c").string(), log = (d / "all.jsonl").string();
  ASSERT_TRUE(run_and_kill({"fuzz", "--backend", "cpu", "--devices", "0,1", "--time", "6s", "--impl",
                            "native.add.i32,cas.add.f32,native.add.u32", "--corpus", corpus, "--json", log},
                           3));
  sleep(1);  // the lanes die with their coordinator (their parent-death signal)
  const fs::path lane0 = d / "c" / "fuzz-state-lanes" / "lane-0.jsonl";
  const std::string before = slurp(lane0);
  ASSERT_GT(count(before, "\"record\":\"slice\""), 0u) << before;
  EXPECT_EQ(slurp(lane0), before) << "no lane still running after its coordinator was killed";

  const auto r = run("fuzz --resume --corpus " + corpus);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(lane0).substr(0, before.size()), before) << "every line a lane wrote before the kill is kept";
  EXPECT_EQ(entries_in_log(log), (std::set<std::string>{"native.add.i32", "cas.add.f32", "native.add.u32"}));
}

// ------------------------------------------------------- the parts, directly

TEST(FuzzParts, DurationsAreStrict) {
  std::string why;
  EXPECT_EQ(atomstress::fuzz::parse_duration("90s", why), 90.0);
  EXPECT_EQ(atomstress::fuzz::parse_duration("45m", why), 2700.0);
  EXPECT_EQ(atomstress::fuzz::parse_duration("8h", why), 28800.0);
  for (const char* bad : {"", "s", "90", "9 0s", "+5s", "5.0s", "0h", "5sec", "169h", "99999999999999999999s"})
    EXPECT_FALSE(atomstress::fuzz::parse_duration(bad, why)) << bad;
}

TEST(FuzzParts, ShardsPartitionTheSelection) {
  const auto all = atomstress::match_impls("everything");
  for (uint32_t n = 1; n <= 5; ++n) {
    std::multiset<std::string> seen;
    for (uint32_t i = 0; i < n; ++i)
      for (const auto* e : atomstress::fuzz::shard_entries(all, {i, n})) seen.insert(e->name);
    EXPECT_EQ(seen.size(), all.size()) << n;
    for (const auto* e : all) EXPECT_EQ(seen.count(e->name), 1u) << e->name;
  }
  std::string why;
  EXPECT_FALSE(atomstress::fuzz::parse_shard("2/2", why));
  EXPECT_FALSE(atomstress::fuzz::parse_shard("1", why));
  EXPECT_FALSE(atomstress::fuzz::parse_shard("0/0", why));
  const auto s = atomstress::fuzz::parse_shard("1/3", why);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 1u);
  EXPECT_EQ(s->count, 3u);
}

TEST(FuzzParts, JunitEscapesWhatItQuotes) {
  using namespace atomstress::reports;
  EXPECT_EQ(escape_markup("a<b>&\"c'\x01"), "a&lt;b&gt;&amp;&quot;c&apos;?");
  const fs::path d = scratch("escape");
  JunitPrinter j((d / "j.xml").string());
  FuzzHeader h;
  h.device = "GPU <\"x\"> & co";
  h.options = {{"impl", "a&b,'c'"}};
  j.fuzz_started(h);
  FuzzEntryResult e;
  e.impl = "odd<name>";
  e.verdict = atomstress::Verdict::Fail;
  e.why = "value \"x\" < 'y' & z\x02";
  e.spec = "]]> <!-- -->";
  e.token = "as1.t";
  j.fuzz_entry(e);
  ASSERT_TRUE(j.finish()) << j.error();
  const std::string xml = slurp(d / "j.xml");
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("odd<name>"), std::string::npos) << xml;
  expect_parses_as_xml(d / "j.xml");
}

TEST(FuzzParts, AFixedCorpusCaseIsReportedFixed) {
  // A case recorded against a correct entry: replayed, it passes.
  const fs::path d = scratch("fixed");
  atomstress::TrialSpec spec;
  spec.impl = "native.add.i32";
  spec.grid = 2;
  spec.block = 32;
  atomstress::fuzz::CorpusCase c;
  c.impl = spec.impl;
  c.token = atomstress::encode_token(spec, atomstress::TrialKnobs{});
  bool added = false;
  std::string error;
  ASSERT_TRUE(atomstress::fuzz::add_case(d.string(), c, added, error)) << error;
  ASSERT_TRUE(added);
  const auto r = run("fuzz --backend cpu --impl native.add.i32 --time 1s --corpus " + d.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("corpus fixed:         native.add.i32 (0 of 10 runs failed)"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(c.file)) << "a fixed case stays in the corpus";
}

// A stressed shrunk case's rate without its stress travels through the JSON
// log (and a log written before it reads as none), and every report says it.
TEST(FuzzParts, TheRateWithoutStressIsRecordedAndSaid) {
  using namespace atomstress;
  reports::FuzzSliceRecord s;
  s.impl = "buggy.lock.textbook@native.cas.u32";
  s.verdict = Verdict::Fail;
  s.rate_failures = 9;
  s.rate_runs = 10;
  s.bare_failures = 1;
  s.bare_runs = 10;
  reports::FuzzSliceRecord back;
  std::string error;
  ASSERT_TRUE(fuzz::from_json(fuzz::to_json(s), back, error)) << error;
  EXPECT_EQ(back.bare_failures, 1u);
  EXPECT_EQ(back.bare_runs, 10u);
  auto old = fuzz::to_json(s);
  old.erase("bare_failures");
  old.erase("bare_runs");
  reports::FuzzSliceRecord older;
  ASSERT_TRUE(fuzz::from_json(old, older, error)) << error;
  EXPECT_EQ(older.bare_runs, 0u);
  EXPECT_EQ(older.rate_runs, 10u);
  reports::FuzzEntryResult e;
  e.rate_failures = 9;
  e.rate_runs = 10;
  EXPECT_EQ(reports::FuzzCollector::shrunk_rate(e), "failed 9 of 10 reruns");
  e.bare_failures = 1;
  e.bare_runs = 10;
  EXPECT_EQ(reports::FuzzCollector::shrunk_rate(e),
            "failed 9 of 10 reruns (score 1.000); without its stress, 1 of 10 (score 0.632)");
}
