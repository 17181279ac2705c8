#include "mcp/eval_tool.h"

#include <fmt/format.h>

#include "core/backend_names.h"
#include "mcp/tool_arguments.h"
#include "mcp/verdict_digest.h"
#include "report/verdict_text.h"
#include "verify/verdict_json.h"

namespace hone::mcp {
namespace {

// A problem of several parts (a FlashInfer-Trace definition's workloads)
// comes back as {"parts": [{"verdict": ...} or {"error": ...}]}; any other
// as one verdict.
struct EvaluatedPart {
  nlohmann::json doc;  // the part's verdict JSON; null when it failed
  std::string error;   // why it has none
  std::optional<Verdict> verdict;
};

std::vector<EvaluatedPart> PartsOf(const nlohmann::json& doc) {
  std::vector<EvaluatedPart> parts;
  auto add = [&](const nlohmann::json& verdict_doc, const std::string& error) {
    EvaluatedPart p{verdict_doc, error, std::nullopt};
    if (!verdict_doc.is_null()) {
      auto v = VerdictFromJson(verdict_doc);
      if (v.ok())
        p.verdict = *v;
      else
        p.error = v.status().message();
    }
    parts.push_back(std::move(p));
  };
  if (!doc.contains("parts")) {
    add(doc, "");
    return parts;
  }
  for (const auto& part : doc["parts"])
    add(part.value("verdict", nlohmann::json()), part.value("error", std::string()));
  return parts;
}

// The device whose turn the call waits for: the backend it runs on and the
// GPU it names.
std::string DeviceKey(const nlohmann::json& args, const CandidateFile& c) {
  return DeviceTurn(args.value("backend", c.device), args);
}

// The task as the store knows it, for the part at `index`.
Result<nlohmann::json> TaskOfPart(ToolEnv& env, const ToolCall& call, const std::string& problem,
                                  size_t index) {
  HONE_ASSIGN_OR_RETURN(nlohmann::json shown, env.TaskJson(call, problem, SizeFlags(call.args)));
  if (!shown.is_array()) return shown;
  if (index >= shown.size()) return Status::Internal("task show listed fewer parts than eval");
  return shown[index];
}

// Records the part's verdict; the line to add to the text, or why not.
std::string Record(ToolEnv& env, const ToolCall& call, const std::string& tool,
                   const std::string& problem, const CandidateFile& c, size_t index,
                   const EvaluatedPart& part, nlohmann::json& structured) {
  if (!call.run || !part.verdict) return "";
  auto task = TaskOfPart(env, call, problem, index);
  if (!task.ok()) return "not recorded in the run store: " + task.status().message() + "\n";
  AgentAttempt a;
  a.task_hash = task->value("hash", "");
  a.task_name = task->value("name", "");
  a.category = task->value("category", "");
  a.problem = problem;
  a.backend = part.verdict->backend;
  a.language = c.language;
  a.source = c.source;
  a.tool = tool;
  a.verdict = part.doc;
  auto recorded = call.run->Record(a);
  if (!recorded.ok()) return "not recorded in the run store: " + recorded.status().message() + "\n";
  structured["run"] = recorded->run_id;
  structured["attempt"] = recorded->seq;
  return "";
}

struct Evaluated {
  std::vector<EvaluatedPart> parts;
  nlohmann::json doc;
  CandidateFile candidate;
  std::string problem;
};

Result<Evaluated> Evaluate(ToolEnv& env, const ToolCall& call, bool metrics) {
  Evaluated e;
  HONE_ASSIGN_OR_RETURN(auto problem, env.GuardOf(call).Existing("problem", call.args["problem"]));
  e.problem = problem.string();
  HONE_ASSIGN_OR_RETURN(e.candidate, env.Candidate(call));
  std::vector<std::string> argv = {"eval", e.problem, e.candidate.path.string(), "--json"};
  if (call.args.contains("workloads")) {
    HONE_ASSIGN_OR_RETURN(auto w, env.GuardOf(call).Existing("workloads", call.args["workloads"]));
    argv.insert(argv.end(), {"--workloads", w.string()});
  }
  if (call.args.contains("backend"))
    argv.insert(argv.end(), {"--backend", call.args["backend"].get<std::string>()});
  if (metrics) argv.push_back("--metrics");
  for (auto& f : EvalOptionFlags(call.args)) argv.push_back(std::move(f));
  HONE_ASSIGN_OR_RETURN(e.doc, env.RunHone(call, argv, DeviceKey(call.args, e.candidate), true));
  e.parts = PartsOf(e.doc);
  return e;
}

// The text and structured content of an evaluation of one or more parts.
ToolResult Present(ToolEnv& env, const ToolCall& call, const std::string& tool,
                   const Evaluated& e) {
  if (e.parts.empty()) return ToolResult::Error(tool + ": the evaluation gave no verdict");
  ToolResult r;
  r.structured = nlohmann::json::object();
  std::string recording;
  int passed = 0;
  std::string first_failure;
  for (size_t i = 0; i < e.parts.size(); ++i) {
    const EvaluatedPart& part = e.parts[i];
    if (e.parts.size() > 1) r.text += fmt::format("== part {}/{}\n", i + 1, e.parts.size());
    if (!part.verdict) {
      r.text += "error: " + part.error + "\n";
      if (first_failure.empty()) first_failure = part.error;
      continue;
    }
    r.text += VerdictDigest(*part.verdict);
    if (part.verdict->status == VerdictStatus::kPassed) ++passed;
    if (e.parts.size() == 1) r.structured = VerdictSummaryJson(*part.verdict);
    recording += Record(env, call, tool, e.problem, e.candidate, i, part, r.structured);
  }
  if (e.parts.size() > 1) {
    r.structured["status"] = passed == static_cast<int>(e.parts.size()) ? "passed" : "failed";
    r.structured["reason"] = fmt::format("{} of {} parts passed", passed, e.parts.size());
  }
  if (!r.structured.contains("status")) {  // the one part has no verdict
    r.structured["status"] = "error";
    r.structured["reason"] =
        first_failure.empty() ? "the evaluation gave no verdict" : first_failure;
  }
  r.structured["candidate"] = e.candidate.path.string();
  r.structured["verdict"] = e.doc;
  r.text += recording;
  if (r.structured.contains("run"))
    r.text += fmt::format("recorded: run {}, attempt {} (the report tool shows the trajectory)\n",
                          r.structured["run"].get<int64_t>(), r.structured["attempt"].get<int>());
  return r;
}

}  // namespace

nlohmann::json EvalOptionProperties(const ToolBackends& backends) {
  return {
      {"backend",
       EnumArg("The backend to run on (default: the candidate's language's)", backends.names)},
      {"device",
       Bounded(IntegerArg("The GPU to run on (CUDA); calls on one GPU take turns"), 0, 1023)},
      {"no_time", BoolArg("Verify only; skip timing (a verdict in seconds)")},
      {"time_budget", NumberArg("Seconds of timing per measurement (default 2)")},
      {"seed", IntegerArg("The first input seed (default 0)")},
      {"timeout", NumberArg("Seconds the whole evaluation may take (default 600)")},
      {"shape_scale",
       NumberArg("PyTorch problems: multiply module-level integer sizes by this factor in (0, 1]")},
      {"size_policy", EnumArg("PyTorch problems: pick the scale by memory budget",
                              {"full", "cpu24g", "small", "tiny"})},
      {"allow", StringListArg("Lint rules to allow (the lint tool names them)")},
      {"wait_seconds",
       NumberArg("How long this call waits for the work (default 50, under a client's usual 60 s "
                 "timeout; at most 300); work still going on then is answered status 'running' "
                 "with a job "
                 "id, and goes on: the result tool gives its verdict")},
  };
}

std::string DeviceTurn(const std::string& backend, const nlohmann::json& args) {
  if (backend == kHostBackend) return backend;
  return backend + ":" + std::to_string(args.value("device", 0));
}

std::vector<std::string> EvalOptionFlags(const nlohmann::json& args) {
  std::vector<std::string> flags = SizeFlags(args);
  auto number = [&](const char* key, const char* flag) {
    if (args.contains(key)) flags.insert(flags.end(), {flag, args[key].dump()});
  };
  number("device", "--device");
  number("time_budget", "--time-budget");
  number("seed", "--seed");
  number("timeout", "--timeout");
  if (args.value("no_time", false)) flags.push_back("--no-time");
  for (const auto& rule : args.value("allow", nlohmann::json::array()))
    flags.insert(flags.end(), {"--allow", rule.get<std::string>()});
  return flags;
}

nlohmann::json VerdictOutputSchema() {
  nlohmann::json properties = {
      {"status", StringArg("passed, incorrect, compile_error, runtime_error, timeout or rejected; "
                           "failed when a part of several did not pass; error when hone gave "
                           "no verdict (the reason says why); running while a job is still at "
                           "work")},
      {"reason", StringArg("Why, in a sentence")},
      {"speedup", NumberArg("Over the reference (or eager PyTorch), when timed")},
      {"sol_percent", NumberArg("Percentage of the speed of light, when the task has a cost")},
      {"limits", StringArg("What limits the kernel")},
      {"candidate", StringArg("The file evaluated")},
      {"run", IntegerArg("The run store's run this evaluation was recorded in")},
      {"attempt", IntegerArg("Its attempt number in that run")},
      {"verdict", {{"type", "object"}, {"description", "hone's whole verdict (hone eval --json)"}}},
      {"job", StringArg("Status 'running': the job to ask the result tool for")},
  };
  nlohmann::json schema = {{"type", "object"}, {"properties", properties}};
  schema["required"] = {"status", "reason"};
  return schema;
}

ToolResult RunEvalTool(ToolEnv& env, const ToolCall& call) {
  auto e = Evaluate(env, call, false);
  if (!e.ok()) return ToolResult::Error(e.status().message());
  return Present(env, call, "eval", *e);
}

ToolResult RunProfileTool(ToolEnv& env, const ToolCall& call) {
  auto e = Evaluate(env, call, true);
  if (!e.ok()) return ToolResult::Error(e.status().message());
  for (const EvaluatedPart& part : e->parts) {
    if (!part.verdict) return ToolResult::Error(part.error);
    const Verdict& v = *part.verdict;
    if (v.status != VerdictStatus::kPassed)
      return ToolResult::Error("profile: only a passing candidate is profiled, and this one is " +
                               std::string(StatusName(v.status)) + ":\n" + VerdictDigest(v));
    if (!v.profile) return ToolResult::Error("profile: the evaluation returned no profile");
    if (!v.profile->ran())
      return ToolResult::Error("profile: the profiler did not run: " + v.profile->not_run);
  }
  ToolResult r = Present(env, call, "profile", *e);
  for (const EvaluatedPart& part : e->parts) r.text += ProfileText(*part.verdict->profile);
  if (e->parts.size() == 1)
    r.structured["profile"] = e->doc.value("profile", nlohmann::json::object());
  return r;
}

}  // namespace hone::mcp
