#include "mcp/mcp_tools.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/backend_names.h"
#include "core/fs.h"
#include "mcp/eval_tool.h"
#include "mcp/json_rpc.h"
#include "mcp/tool_arguments.h"
#include "report/lesson_text.h"
#include "search/lesson_recall.h"
#include "search/task_signature.h"

namespace hone::mcp {
namespace {

constexpr size_t kReferenceTextCap = 24 << 10;  // a reference worth reading whole, not a dataset

ToolResult Ok(std::string text, nlohmann::json structured) {
  ToolResult r;
  r.text = std::move(text);
  r.structured = std::move(structured);
  return r;
}

nlohmann::json Output(nlohmann::json properties, std::vector<std::string> required) {
  nlohmann::json schema = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

nlohmann::json AnyObject(const std::string& description) {
  return {{"type", "object"}, {"description", description}};
}
nlohmann::json AnyArray(const std::string& description) {
  return {{"type", "array"}, {"description", description}};
}

// What a waiting tool answers while its job is still at work (job_board.h).
nlohmann::json StillRunningProperties() {
  return {{"status", StringArg("running: see job")},
          {"reason", StringArg("Why it is still running")},
          {"job", StringArg("The job to ask the result tool for")}};
}

nlohmann::json CandidateProperties() {
  return {
      {"candidate", StringArg("The candidate's file (under the server's roots)")},
      {"source", StringArg("Or the candidate's source text (give 'language' with it)")},
      {"language", StringArg("The language of 'source': cpp (CPU, C++20), cuda (CUDA C++), or "
                             "another hone knows (triton, load_inline, ...)")},
  };
}

nlohmann::json Merged(nlohmann::json a, const nlohmann::json& b) {
  a.update(b);
  return a;
}

// --- lint -----------------------------------------------------------------

ToolResult RunLint(ToolEnv& env, const ToolCall& call) {
  auto c = env.Candidate(call);
  if (!c.ok()) return ToolResult::Error(c.status().message());
  std::vector<std::string> argv = {"lint", c->path.string(), "--json"};
  for (const auto& rule : call.args.value("allow", nlohmann::json::array()))
    argv.insert(argv.end(), {"--allow", rule.get<std::string>()});
  auto doc = env.RunHone(call, argv, std::nullopt, false);
  if (!doc.ok()) return ToolResult::Error(doc.status().message());
  nlohmann::json file = doc->is_array() && !doc->empty() ? (*doc)[0] : nlohmann::json::object();
  nlohmann::json findings = file.value("findings", nlohmann::json::array());
  bool rejected = std::any_of(findings.begin(), findings.end(), [](const nlohmann::json& f) {
    return f.value("severity", "") == "reject";
  });
  std::string text = findings.empty() ? "clean: no rule finds anything\n"
                                      : (rejected ? "rejected:\n" : "warnings only:\n");
  for (const auto& f : findings)
    text += fmt::format("  line {}: {} ({}): {}\n", f.value("line", 0), f.value("rule", ""),
                        f.value("severity", ""), f.value("why", ""));
  return Ok(text, {{"language", c->language},
                   {"rejected", rejected},
                   {"findings", findings},
                   {"file", c->path.string()}});
}

// --- task_show ------------------------------------------------------------

std::string TensorsText(const nlohmann::json& tensors) {
  std::string out;
  for (const auto& t : tensors)
    out += fmt::format("{}{} {} {}", out.empty() ? "" : ", ", t.value("name", ""),
                       t.value("dtype", ""), t.value("shape", nlohmann::json()).dump());
  return out;
}

std::string TaskText(const nlohmann::json& t) {
  std::string out = fmt::format("{} ({}): {}\n", t.value("name", ""), t.value("category", ""),
                                t.value("description", ""));
  // The contract lists every case's tensors; without it, say them here.
  out += t.value("contract", "");
  if (!t.contains("contract"))
    for (const auto& c : t.value("cases", nlohmann::json::array()))
      out += fmt::format("case {}: inputs {} -> outputs {}\n", c.value("case", ""),
                         TensorsText(c.value("inputs", nlohmann::json::array())),
                         TensorsText(c.value("outputs", nlohmann::json::array())));
  out += t.value("tolerance", "");
  const nlohmann::json signature = t.value("signature", nlohmann::json::object());
  if (!signature.value("cost_bytes", "").empty() || !signature.value("cost_flops", "").empty())
    out += fmt::format(
        "cost: bytes = {}, flops = {} (speed of light: the larger of bytes over "
        "memory bandwidth and flops over peak rate)\n",
        signature.value("cost_bytes", "-"), signature.value("cost_flops", "-"));
  if (t.contains("reference_source"))
    out += "reference (" + t.value("reference", "") + "):\n" +
           t["reference_source"].get<std::string>() + "\n";
  if (t.contains("reference_note"))
    out += "reference (" + t.value("reference", "") +
           "): " + t["reference_note"].get<std::string>() + "\n";
  return out;
}

// The reference's source as t["reference_source"] (its first 24 KiB). The
// path comes from task.toml, which may name any file ("/etc/passwd",
// "../../x"): one outside the roots is left out, with a note saying why.
void AddReferenceSource(const PathGuard& guard, nlohmann::json& t) {
  const std::string path = StringField(t, "reference");
  if (path.empty()) return;
  auto allowed = guard.Existing("reference", path);
  if (!allowed.ok()) {
    t["reference_note"] = "source left out: " + allowed.status().message();
    return;
  }
  if (auto source = ReadFile(allowed->string()); source.ok())
    t["reference_source"] = source->size() <= kReferenceTextCap
                                ? *source
                                : source->substr(0, kReferenceTextCap) + "\n[... cut]";
}

ToolResult RunTaskShow(ToolEnv& env, const ToolCall& call) {
  auto problem = env.GuardOf(call).Existing("problem", call.args["problem"]);
  if (!problem.ok()) return ToolResult::Error(problem.status().message());
  auto doc = env.TaskJson(call, problem->string(), SizeFlags(call.args));
  if (!doc.ok()) return ToolResult::Error(doc.status().message());
  nlohmann::json tasks = doc->is_array() ? *doc : nlohmann::json::array({*doc});
  std::string text;
  for (auto& t : tasks) {
    AddReferenceSource(env.GuardOf(call), t);
    text += (text.empty() ? "" : "\n") + TaskText(t);
  }
  return Ok(text, {{"tasks", tasks}});
}

// --- bench, prepare ---------------------------------------------------------

// A bench's outcome in a few lines: the run, and KernelBench's headline
// metrics; the whole of it is in the structured content.
std::string BenchText(const nlohmann::json& doc) {
  const nlohmann::json summary = doc.value("summary", nlohmann::json::object());
  const nlohmann::json metrics = summary.value("metrics", nlohmann::json::object());
  auto number = [](const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? fmt::format("{:.3g}", j[key].get<double>())
                                                 : std::string("-");
  };
  std::string text = fmt::format("bench run {}: {} task(s), {} attempt(s), {} passed\n",
                                 doc.value("run_id", 0), number(metrics, "tasks"),
                                 number(metrics, "attempts"), number(metrics, "attempts_passed"));
  text += fmt::format("correct {}, geomean speedup {}, SOL% {}; {} s\n",
                      number(metrics, "correctness_rate"), number(metrics, "geomean_speedup"),
                      number(metrics, "sol_percent"), number(summary, "wall_seconds"));
  return text;
}

ToolResult RunBench(ToolEnv& env, const ToolCall& call) {
  auto suite = env.GuardOf(call).Existing("suite", call.args["suite"]);
  if (!suite.ok()) return ToolResult::Error(suite.status().message());
  std::vector<std::string> argv = {"bench", suite->string(), "--json", "--store", env.store()};
  std::string backend = call.args.value("backend", kHostBackend);
  argv.insert(argv.end(), {"--backend", backend});
  if (call.args.contains("only"))
    for (const auto& name : call.args["only"])
      argv.insert(argv.end(), {"--only", name.get<std::string>()});
  for (auto& f : EvalOptionFlags(call.args)) argv.push_back(std::move(f));
  auto doc = env.RunHone(call, argv, DeviceTurn(backend, call.args), true);
  if (!doc.ok()) return ToolResult::Error(doc.status().message());
  return Ok(BenchText(*doc), {{"result", *doc}});
}

ToolResult RunPrepare(ToolEnv& env, const ToolCall& call) {
  std::vector<std::string> argv = {"prepare"};
  for (const auto& p : call.args["problems"]) {
    auto path = env.GuardOf(call).Existing("problems", p.get<std::string>());
    if (!path.ok()) return ToolResult::Error(path.status().message());
    argv.push_back(path->string());
  }
  argv.push_back("--json");
  if (call.args.contains("backend"))
    argv.insert(argv.end(), {"--backend", call.args["backend"].get<std::string>()});
  for (auto& f : EvalOptionFlags(call.args)) argv.push_back(std::move(f));
  int exit_code = 0;
  // Baselines are timed: an evaluation timed on the same device meanwhile
  // would disturb them (and they it). Without a backend, prepare times on
  // the GPU when there is one: that backend's turn.
  const std::string backend = call.args.value("backend", env.backends().timing);
  auto doc = env.RunHone(call, argv, DeviceTurn(backend, call.args), true, &exit_code);
  if (!doc.ok()) return ToolResult::Error(doc.status().message());
  const nlohmann::json prepared = doc->value("prepared", nlohmann::json::array());
  std::string text = prepared.empty() ? "nothing to prepare: no problem has baselines to time\n"
                     : exit_code == 0 ? "prepared:\n"
                                      : "prepared, with failures:\n";
  for (const auto& p : prepared) text += "  " + p.dump() + "\n";
  return Ok(text, *doc);
}

// --- report, lessons --------------------------------------------------------

// Where report may write: a path under the roots ending in .html that is
// new or an .html file already (never another file the client names).
Result<std::filesystem::path> ReportOutput(const PathGuard& guard, const std::string& output) {
  HONE_ASSIGN_OR_RETURN(std::filesystem::path html, guard.Writable("output", output));
  std::string extension = html.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension != ".html")
    return Status::Invalid("output: " + output + ": the report is written to an .html file");
  std::error_code ec;
  if (std::filesystem::exists(html, ec) && !std::filesystem::is_regular_file(html, ec))
    return Status::Invalid("output: " + output + " exists and is not a file");
  return html;
}

ToolResult RunReport(ToolEnv& env, const ToolCall& call) {
  std::string run = call.args.value("run", "");
  if (!run.empty() && run != "last" && run.find_first_not_of("0123456789") != std::string::npos)
    return ToolResult::Error("report: argument 'run': " + run + " is neither a run id nor 'last'");
  if (run.empty()) {
    auto own = call.run ? call.run->run_id() : std::nullopt;
    run = own ? std::to_string(*own) : "last";
  }
  std::filesystem::path html;
  if (call.args.contains("output")) {
    auto out = ReportOutput(env.GuardOf(call), call.args["output"]);
    if (!out.ok()) return ToolResult::Error(out.status().message());
    html = *out;
  } else {
    html = std::filesystem::path(env.store()).parent_path() / ("report-run-" + run + ".html");
  }
  auto doc =
      env.RunHone(call, {"report", run, "--store", env.store(), "-o", html.string(), "--json"},
                  std::nullopt, false);
  if (!doc.ok()) return ToolResult::Error(doc.status().message());
  std::string text = "HTML report: " + AbsolutePath(html) + "\n";
  return Ok(text, {{"html", AbsolutePath(html)}, {"run", run}, {"summary", *doc}});
}

ToolResult RunLessons(ToolEnv& env, const ToolCall& call) {
  auto problem = env.GuardOf(call).Existing("problem", call.args["problem"]);
  if (!problem.ok()) return ToolResult::Error(problem.status().message());
  auto shown = env.TaskJson(call, problem->string(), SizeFlags(call.args));
  if (!shown.ok()) return ToolResult::Error(shown.status().message());
  nlohmann::json task = shown->is_array() ? (*shown)[0] : *shown;
  TaskSignature signature = SignatureFromJson(task.value("signature", nlohmann::json::object()));
  signature.backend = call.args.value("backend", kHostBackend);
  std::error_code ec;
  if (!std::filesystem::exists(env.store(), ec))
    return Ok("no lessons yet: no run store at " + env.store() + "\n",
              {{"lessons", nlohmann::json::array()}});
  auto store = Store::Open(env.store());
  if (!store.ok()) return ToolResult::Error(store.status().message());
  RecallOptions options;
  options.limit = call.args.value("limit", 5);
  auto recalled = RecallLessons(**store, signature, options);
  if (!recalled.ok()) return ToolResult::Error(recalled.status().message());
  nlohmann::json list = nlohmann::json::array();
  std::string text = recalled->empty() ? "no lessons from similar tasks on " + signature.backend +
                                             " yet (optimize runs distil them)\n"
                                       : "";
  for (const RecalledLesson& r : *recalled) {
    text += "- " + LessonPromptLine(r) + "\n";
    list.push_back({{"similarity", r.similarity},
                    {"line", LessonPromptLine(r)},
                    {"lesson", LessonJson(r.lesson)}});
  }
  return Ok(text, {{"lessons", list}});
}

// --- the table --------------------------------------------------------------

Tool MakeTool(std::string name, std::string title, std::string description, nlohmann::json input,
              nlohmann::json output, bool read_only,
              std::function<ToolResult(ToolEnv&, const ToolCall&)> run) {
  Tool t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.description = std::move(description);
  t.input_schema = std::move(input);
  t.output_schema = std::move(output);
  t.read_only = read_only;
  t.run = std::move(run);
  return t;
}

nlohmann::json ProblemArg() {
  return StringArg(
      "The problem: a native task folder (task.toml), a KernelBench problem file (.py), a "
      "FlashInfer-Trace definition (.json) or a robust-kbench task folder");
}

std::vector<Tool> MakeHoneTools(const ToolBackends& backends) {
  const nlohmann::json eval_input = ObjectSchema(
      Merged(
          Merged({{"problem", ProblemArg()},
                  {"workloads", StringArg("A FlashInfer-Trace definition's workloads (.jsonl)")}},
                 CandidateProperties()),
          EvalOptionProperties(backends)),
      {"problem"});
  std::vector<Tool> tools;
  tools.push_back(MakeTool(
      "eval", "Evaluate a kernel",
      "Build, verify and time one candidate kernel on a problem, in hone's sandbox: every shape "
      "case, several seeds and value distributions, then timing against the reference. Give the "
      "candidate as a file ('candidate') or as text ('source' with 'language'). The text leads "
      "with status, reason, speedup, % of speed of light and what limits the kernel; a compile "
      "error shows the compiler's lines, a wrong result the first failed check. Recorded in the "
      "run store.",
      eval_input, VerdictOutputSchema(), false, RunEvalTool));
  tools.push_back(MakeTool(
      "lint", "Check a kernel's source statically",
      "The static rules alone (what hone rejects before building: timing calls, threads, "
      "syscalls, ...), in milliseconds. Nothing is built or run.",
      ObjectSchema(Merged(CandidateProperties(), {{"allow", StringListArg("Rules to allow")}})),
      Output({{"language", StringArg("The candidate's language")},
              {"rejected", BoolArg("Whether a finding rejects it")},
              {"findings", AnyArray("rule, line, token, why, severity")},
              {"file", StringArg("The file checked")}},
             {"rejected", "findings"}),
      true, RunLint));
  tools.push_back(MakeTool(
      "task_show", "Show what a kernel receives",
      "What a candidate for this problem receives and must write: the hone_forward contract with "
      "every input and output by name, dtype and shape, each shape case, the tolerance, the cost "
      "formulas its speed of light comes from, and the reference's source. Read this before "
      "writing a first candidate.",
      ObjectSchema({{"problem", ProblemArg()},
                    {"shape_scale", EvalOptionProperties(backends)["shape_scale"]},
                    {"size_policy", EvalOptionProperties(backends)["size_policy"]}},
                   {"problem"}),
      Output({{"tasks", AnyArray("One per problem part: hone task show --json, with "
                                 "reference_source (or reference_note when the "
                                 "reference lies outside the roots)")}},
             {"tasks"}),
      true, RunTaskShow));
  tools.push_back(MakeTool(
      "profile", "Profile a kernel",
      "Evaluate as eval does, then profile the passing candidate (Nsight Compute on a GPU, "
      "hardware counters on a CPU) and say what limits it and the likely fix. An error when the "
      "candidate does not pass or no profiler can run here.",
      eval_input,
      Merged(VerdictOutputSchema(),
             {{"properties",
               Merged(VerdictOutputSchema()["properties"],
                      {{"profile", AnyObject("The profiler's metrics and diagnosis")}})}}),
      false, RunProfileTool));
  tools.push_back(MakeTool(
      "bench", "Score a suite",
      "Evaluate every solution of every task in a suite folder (hone bench), resumably, into the "
      "run store.",
      ObjectSchema(Merged({{"suite", StringArg("A folder of tasks, or one task folder")},
                           {"only", StringListArg("Solution names to evaluate (e.g. fast)")}},
                          EvalOptionProperties(backends)),
                   {"suite"}),
      Output(Merged({{"result", AnyObject("hone bench --json")}}, StillRunningProperties()), {}),
      false, RunBench));
  tools.push_back(MakeTool(
      "prepare", "Prepare problems' baselines",
      "Time and cache PyTorch problems' baselines (eager, torch.compile) on this machine, so "
      "that their first evaluation does not wait for them.",
      ObjectSchema(Merged({{"problems", StringListArg("Problem paths of any format")}},
                          EvalOptionProperties(backends)),
                   {"problems"}),
      Output(Merged({{"prepared", AnyArray("One entry per problem")},
                     {"warm_up_builds", AnyArray("Builds warmed")}},
                    StillRunningProperties()),
             {}),
      false, RunPrepare));
  tools.push_back(MakeTool(
      "report", "Write a run's HTML report",
      "Write the HTML report of a stored run (default: this session's evaluations, else the "
      "newest run) and return its path and summary.",
      ObjectSchema({{"run", Matching(StringArg("A run id, or 'last' (default: this session's run)"),
                                     "^(\\d+|last)$")},
                    {"output", StringArg("The .html file to write, new or an earlier report "
                                         "(default: beside the store)")}}),
      Output({{"html", StringArg("The report's path")},
              {"run", StringArg("The run reported")},
              {"summary", AnyObject("hone report --json")}},
             {"html", "summary"}),
      false, RunReport));
  tools.push_back(MakeTool(
      "lessons", "Recall lessons from similar tasks",
      "What earlier optimize runs learnt on tasks similar to this problem (same backend): which "
      "change gave which speedup.",
      ObjectSchema({{"problem", ProblemArg()},
                    {"backend", EvalOptionProperties(backends)["backend"]},
                    {"limit", Bounded(IntegerArg("At most this many (default 5)"), 1, 100)}},
                   {"problem"}),
      Output({{"lessons", AnyArray("similarity, line, lesson")}}, {"lessons"}), true, RunLessons));
  tools.push_back(MakeTool(
      kResultToolName, "Wait for a running job",
      "The verdict of an eval, profile, bench or prepare whose call answered status 'running' "
      "(the work went on after the call returned). Waits up to wait_seconds again; cancel: true "
      "stops the job instead.",
      ObjectSchema({{"job", StringArg("The job id the call gave")},
                    {"wait_seconds", NumberArg("How long to wait (default 50, at most 300)")},
                    {"cancel", BoolArg("Stop the job instead of waiting for it")}},
                   {"job"}),
      {{"type", "object"}, {"description", "The job's own tool's structured content"}}, true,
      [](ToolEnv&, const ToolCall&) {
        return ToolResult::Error("result is answered by the session");  // mcp_server.cc
      }));
  for (Tool& t : tools)
    t.waits = t.name == "eval" || t.name == "profile" || t.name == "bench" || t.name == "prepare";
  return tools;
}

}  // namespace

ToolResult ToolResult::Error(const std::string& message) {
  ToolResult r;
  r.text = message;
  r.is_error = true;
  return r;
}

nlohmann::json ToolResult::ToJson() const {
  nlohmann::json j = {{"content", nlohmann::json::array({{{"type", "text"}, {"text", text}}})},
                      {"isError", is_error}};
  if (!structured.is_null()) j["structuredContent"] = structured;
  return j;
}

std::vector<Tool> HoneTools(const ToolBackends& backends) { return MakeHoneTools(backends); }

nlohmann::json ToolListEntry(const Tool& tool) {
  return {{"name", tool.name},
          {"title", tool.title},
          {"description", tool.description},
          {"inputSchema", tool.input_schema},
          {"outputSchema", tool.output_schema},
          {"annotations",
           {{"title", tool.title},
            {"readOnlyHint", tool.read_only},
            {"destructiveHint", false},
            {"openWorldHint", false}}}};
}

const Tool* FindTool(const std::vector<Tool>& tools, std::string_view name) {
  for (const Tool& t : tools)
    if (t.name == name) return &t;
  return nullptr;
}

ToolResult CallTool(const Tool& tool, ToolEnv& env, const ToolCall& call) {
  if (Status st = CheckArguments(tool.input_schema, call.args); !st.ok())
    return ToolResult::Error(tool.name + ": " + st.message());
  return tool.run(env, call);
}

}  // namespace hone::mcp
