#include "store/import.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/backend_names.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"

namespace hone {
namespace {

using json = nlohmann::json;

// The candidate's source: the recorded path, else the same file name under
// DIR/candidates (the folder may have moved since).
std::optional<std::string> ReadCandidate(const std::filesystem::path& dir, const json& line) {
  if (!line.contains("candidate") || !line["candidate"].is_string()) return std::nullopt;
  std::filesystem::path recorded = line["candidate"].get<std::string>();
  for (const auto& p : {recorded, dir / "candidates" / recorded.filename()}) {
    auto text = ReadFile(p);
    if (text.ok()) return *text;
  }
  return std::nullopt;
}

}  // namespace

Result<ImportResult> ImportRunFolder(Store& store, const std::filesystem::path& dir,
                                     const BackendOfFile& backend_of) {
  const auto attempts_path = dir / "attempts.jsonl";
  std::ifstream in(attempts_path);
  if (!in) return Status::NotFound(attempts_path.string() + ": cannot open (not a run folder?)");

  json summary = json::object();
  if (auto text = ReadFile(dir / "summary.json"); text.ok()) {
    summary = json::parse(*text, nullptr, false);
    if (!summary.is_object())
      return Status::Invalid((dir / "summary.json").string() + ": not a JSON object");
  }
  const std::string task_name = summary.value("task", "");
  const std::string model = summary.value("model", "");

  json config = {{"imported_from", std::filesystem::absolute(dir).string()},
                 {"model", model},
                 {"strategy", summary.value("strategy", "")}};
  HONE_ASSIGN_OR_RETURN(int64_t run_id,
                        store.CreateRun("optimize", JsonText(config), dir.filename().string()));
  ImportResult result;
  result.run_id = run_id;
  auto fail = [&](Status s) -> Status {
    (void)store.SetRunStatus(run_id, "failed");
    return s;
  };

  // The task is known by name only; its hash is made from the name (and
  // taken from the first verdict when the summary lacks one).
  std::string task_hash;
  auto ensure_task = [&](const std::string& name) -> Status {
    if (!task_hash.empty()) return Status::Ok();
    task_hash = "imported:" + ContentHash({name});
    return store.PutTask(TaskRow{task_hash, name, "", ""});
  };

  std::string line_text;
  int line_no = 0;
  while (std::getline(in, line_text)) {
    ++line_no;
    if (line_text.empty()) continue;
    const std::string where = attempts_path.string() + ":" + std::to_string(line_no) + ": ";
    json a = json::parse(line_text, nullptr, false);
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer())
      return fail(Status::Invalid(where + "not an attempt record"));
    std::string name = task_name;
    if (name.empty() && a.contains("verdict")) name = a["verdict"].value("task", "");
    if (auto st = ensure_task(name.empty() ? "unknown" : name); !st.ok()) return fail(st);

    CandidateRow c;
    c.run_id = run_id;
    c.task_hash = task_hash;
    c.seq = a["id"].get<int>();
    c.kind = a.value("kind", "");
    c.label = a.value("label", "");  // the tree strategy's idea
    c.lineage = a.value("lineage", 0);
    c.turn = a.value("turn", 0);
    if (a.contains("parents") && a["parents"].is_array())
      for (const auto& p : a["parents"])
        if (p.is_number_integer()) c.parents.push_back(p.get<int>());
    if (a.contains("prompt")) c.prompt = JsonText(a["prompt"]);
    if (a.contains("extraction")) c.extraction = JsonText(a["extraction"]);
    c.source = ReadCandidate(dir, a);
    if (a.contains("verdict") && a["verdict"].is_object())
      c.backend = a["verdict"].value("backend", kHostBackend);
    else if (a.contains("candidate") && a["candidate"].is_string() && backend_of) {
      std::string b = backend_of(a["candidate"].get<std::string>());
      if (!b.empty()) c.backend = std::move(b);
    }

    LlmCallRow call;
    call.run_id = run_id;
    call.model = model;
    if (a.contains("reply") && a["reply"].is_object()) {
      const json& r = a["reply"];
      c.reply = r.value("text", "");
      call.ok = r.value("ok", false);
      call.error = r.value("error", "");
      call.finish_reason = r.value("finish_reason", "");
      call.truncated = r.value("truncated", false);
      call.input_tokens = r.value("input_tokens", int64_t{0});
      call.output_tokens = r.value("output_tokens", int64_t{0});
      call.cost_usd = r.value("cost_usd", 0.0);
      call.seconds = r.value("seconds", 0.0);
      call.http_attempts = r.value("attempts", 0);
      if (r.contains("exchanges")) call.exchanges = JsonText(r["exchanges"]);
    }
    auto cid = store.AddCandidate(c, &call);
    if (!cid.ok()) return fail(cid.status().With(where));
    ++result.attempts;

    if (a.contains("verdict") && a["verdict"].is_object()) {
      // One evaluation per attempt, as the old loop did (even for a source
      // seen before): the attempt's seq makes the key unique.
      std::string key = WorkKey(task_hash, c.source ? SourceHash(*c.source) : "",
                                "imported:" + std::to_string(c.seq));
      bool done = false;
      auto eid = store.BeginEvaluation(run_id, key, task_hash, *cid, &done);
      if (!eid.ok()) return fail(eid.status().With(where));
      if (!done) {
        if (auto st = store.FinishEvaluationJson(*eid, JsonText(a["verdict"])); !st.ok())
          return fail(st.With(where));
      }
      ++result.evaluations;
    }
  }
  HONE_RETURN_IF_ERROR(store.SetRunStatus(run_id, "finished", JsonText(summary)));
  return result;
}

}  // namespace hone
