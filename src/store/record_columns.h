// Each stored type's one mapping between its members and the columns of its
// table (store/columns.h), for the run store's queries (store/store.cc), and
// the JSON text a candidate's parents are stored as.
//
// Constant values and pure functions: any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/columns.h"
#include "store/records.h"
#include "store/row_reader.h"

namespace hone {

// A candidate's parents as stored: a JSON list of seqs.
std::string ParentsJson(const std::vector<int>& parents);

// Reads them back: kCandidateColumns' reader of "parents".
void ReadParents(const RowReader& row, std::string_view name, CandidateRow& out);

// Each stored type's one mapping between its members and its columns
// (store/columns.h).
inline constexpr auto kRunColumns =
    Columns(Col<&RunRow::id>("id"), Col<&RunRow::kind>("kind"), Col<&RunRow::name>("name"),
            Col<&RunRow::created>("created"), Col<&RunRow::updated>("updated"),
            Col<&RunRow::status>("status"), Col<&RunRow::hone_version>("hone_version"),
            Col<&RunRow::config>("config"), Col<&RunRow::summary>("summary"));

inline constexpr auto kCandidateColumns =
    Columns(Col<&CandidateRow::id>("id"), Col<&CandidateRow::run_id>("run_id"),
            Col<&CandidateRow::task_hash>("task_hash"), Col<&CandidateRow::seq>("seq"),
            Col<&CandidateRow::kind>("kind"), Col<&CandidateRow::label>("label"),
            Col<&CandidateRow::lineage>("lineage"), Col<&CandidateRow::turn>("turn"),
            Column<CandidateRow>{"parents", &ReadParents}, Col<&CandidateRow::backend>("backend"),
            Col<&CandidateRow::language>("language"), Col<&CandidateRow::source>("source"),
            Col<&CandidateRow::source_hash>("source_hash"), Col<&CandidateRow::prompt>("prompt"),
            Col<&CandidateRow::reply>("reply"), Col<&CandidateRow::extraction>("extraction"),
            Col<&CandidateRow::created>("created"));

inline constexpr auto kEvaluationColumns = Columns(
    Col<&EvaluationRow::id>("id"), Col<&EvaluationRow::run_id>("run_id"),
    Col<&EvaluationRow::work_key>("work_key"), Col<&EvaluationRow::task_hash>("task_hash"),
    Col<&EvaluationRow::candidate_id>("candidate_id"), Col<&EvaluationRow::state>("state"),
    Col<&EvaluationRow::tries>("tries"), Col<&EvaluationRow::status>("status"),
    Col<&EvaluationRow::reason>("reason"), Col<&EvaluationRow::speedup>("speedup"),
    Col<&EvaluationRow::sol_percent>("sol_percent"),
    Col<&EvaluationRow::speedup_compile>("speedup_compile"),
    Col<&EvaluationRow::checks_failed>("checks_failed"),
    Col<&EvaluationRow::cand_median_us>("cand_median_us"),
    Col<&EvaluationRow::cand_ci_low_us>("cand_ci_low_us"),
    Col<&EvaluationRow::cand_ci_high_us>("cand_ci_high_us"),
    Col<&EvaluationRow::ref_median_us>("ref_median_us"), Col<&EvaluationRow::reps>("reps"),
    Col<&EvaluationRow::samples>("samples"), Col<&EvaluationRow::checks>("checks"),
    Col<&EvaluationRow::device_state>("device_state"), Col<&EvaluationRow::verdict>("verdict"),
    Col<&EvaluationRow::started>("started"), Col<&EvaluationRow::finished>("finished"));

inline constexpr auto kLessonColumns = Columns(
    Col<&LessonRow::id>("id"), Col<&LessonRow::run_id>("run_id"),
    Col<&LessonRow::task_hash>("task_hash"), Col<&LessonRow::task_name>("task_name"),
    Col<&LessonRow::category>("category"), Col<&LessonRow::backend>("backend"),
    Col<&LessonRow::signature>("signature"), Col<&LessonRow::candidate_id>("candidate_id"),
    Col<&LessonRow::basis>("basis"), Col<&LessonRow::basis_candidate_id>("basis_candidate_id"),
    Col<&LessonRow::change>("change"), Col<&LessonRow::speedup_before>("speedup_before"),
    Col<&LessonRow::speedup_after>("speedup_after"), Col<&LessonRow::sol_before>("sol_before"),
    Col<&LessonRow::sol_after>("sol_after"), Col<&LessonRow::evidence>("evidence"),
    Col<&LessonRow::created>("created"));

inline constexpr auto kTaskColumns =
    Columns(Col<&TaskRow::hash>("hash"), Col<&TaskRow::name>("name"), Col<&TaskRow::path>("path"),
            Col<&TaskRow::definition>("definition"));

inline constexpr auto kRunTaskColumns =
    Columns(Col<&RunTaskRow::task_hash>("task_hash"), Col<&RunTaskRow::name>("name"),
            Col<&RunTaskRow::path>("path"), Col<&RunTaskRow::category>("category"),
            Col<&RunTaskRow::position>("position"));

inline constexpr auto kBaselineColumns = Columns(
    Col<&BaselineRow::id>("id"), Col<&BaselineRow::task_hash>("task_hash"),
    Col<&BaselineRow::device>("device"), Col<&BaselineRow::torch_version>("torch_version"),
    Col<&BaselineRow::case_name>("case_name"), Col<&BaselineRow::eager_seconds>("eager_seconds"),
    Col<&BaselineRow::compile_seconds>("compile_seconds"), Col<&BaselineRow::samples>("samples"),
    Col<&BaselineRow::created>("created"));

inline constexpr auto kBuildColumns =
    Columns(Col<&BuildRow::id>("id"), Col<&BuildRow::candidate_id>("candidate_id"),
            Col<&BuildRow::ok>("ok"), Col<&BuildRow::cached>("cached"),
            Col<&BuildRow::seconds>("seconds"), Col<&BuildRow::log>("log"),
            Col<&BuildRow::resources>("resources"), Col<&BuildRow::created>("created"));

inline constexpr auto kLlmCallColumns = Columns(
    Col<&LlmCallRow::id>("id"), Col<&LlmCallRow::run_id>("run_id"),
    Col<&LlmCallRow::candidate_id>("candidate_id"), Col<&LlmCallRow::attempt_seq>("attempt_seq"),
    Col<&LlmCallRow::provider>("provider"), Col<&LlmCallRow::model>("model"),
    Col<&LlmCallRow::ok>("ok"), Col<&LlmCallRow::error>("error"),
    Col<&LlmCallRow::finish_reason>("finish_reason"), Col<&LlmCallRow::truncated>("truncated"),
    Col<&LlmCallRow::input_tokens>("input_tokens"),
    Col<&LlmCallRow::output_tokens>("output_tokens"), Col<&LlmCallRow::cost_usd>("cost_usd"),
    Col<&LlmCallRow::seconds>("seconds"), Col<&LlmCallRow::http_attempts>("http_attempts"),
    Col<&LlmCallRow::exchanges>("exchanges"), Col<&LlmCallRow::created>("created"),
    Col<&LlmCallRow::sampling>("sampling"), Col<&LlmCallRow::prompt_version>("prompt_version"));

inline constexpr auto kBestColumns =
    Columns(Col<&BestCandidate::task_hash>("task_hash"), Col<&BestCandidate::task_name>("name"),
            Col<&BestCandidate::run_id>("run_id"),
            Col<&BestCandidate::candidate_id>("candidate_id"), Col<&BestCandidate::seq>("seq"),
            Col<&BestCandidate::evaluation_id>("eid"), Col<&BestCandidate::speedup>("speedup"));

}  // namespace hone
