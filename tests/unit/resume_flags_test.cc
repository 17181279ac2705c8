// What may be given beside --resume (cli/resume_flags.h): a flag given on
// the command line is restated over the stored run's options, and refused
// when it would change them, even when what it restates is its default.
#include "cli/resume_flags.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

using json = nlohmann::json;

// A command's arguments, stored as a run's configuration and read back.
struct Args {
  int seed = 0;
  double budget = 2;
  bool no_time = false;
  std::vector<std::string> only;
  std::string name;  // not stored
};

json ConfigOf(const Args& a) {
  return {{"seed", a.seed}, {"budget", a.budget}, {"no_time", a.no_time}, {"only", a.only}};
}

void ApplyConfig(const json& c, Args& a) {
  a.seed = c.value("seed", 0);
  a.budget = c.value("budget", 2.0);
  a.no_time = c.value("no_time", false);
  a.only = c.value("only", std::vector<std::string>{});
}

// `line` beside --resume over a run stored with `stored`: what
// CheckFlagsBesideResume says of it, as the commands ask it.
Status Resume(const std::string& line, const json& stored) {
  CLI::App app;
  Args a;
  std::string resume;
  app.add_option("--resume", resume);
  app.add_option("--seed", a.seed);
  app.add_option("--budget", a.budget);
  app.add_flag("--no-time", a.no_time);
  app.add_option("--only", a.only)->delimiter(',');
  app.add_option("--name", a.name);
  app.parse("--resume 1 " + line, false);
  const std::vector<std::string> given = cli::GivenFlags(app, {});
  Args as_stored;
  ApplyConfig(stored, as_stored);
  ApplyConfig(stored, a);
  cli::RestateGivenFlags(app, given);
  return cli::CheckFlagsBesideResume(given, ConfigOf(a), ConfigOf(as_stored));
}

TEST(ResumeFlagsTest, ADefaultRestatedOverAStoredValueIsAChange) {
  const json stored = {{"seed", 7}, {"budget", 5.0}, {"no_time", true}, {"only", {"fast"}}};
  Status st = Resume("--seed 0", stored);
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
  EXPECT_NE(st.message().find("--seed would change them"), std::string::npos) << st.message();
  EXPECT_FALSE(Resume("--budget 2", stored).ok());  // 2 is --budget's default
  EXPECT_FALSE(Resume("--only fast,naive", stored).ok());
}

TEST(ResumeFlagsTest, RestatingTheStoredOptionsOrNothingIsFine) {
  const json stored = {{"seed", 7}, {"budget", 5.0}, {"no_time", true}, {"only", {"fast"}}};
  EXPECT_TRUE(Resume("", stored).ok());
  EXPECT_TRUE(Resume("--seed 7 --budget 5 --no-time --only fast", stored).ok());
  EXPECT_TRUE(Resume("--name again", stored).ok());  // not stored: changes nothing
  // A stored run from before a flag existed reads back its default.
  EXPECT_TRUE(Resume("--seed 0", json{{"budget", 5.0}}).ok());
}

}  // namespace
}  // namespace hone
