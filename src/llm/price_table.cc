// PriceTable (declared in llm/provider.h): built-in prices and TOML files.
#include <toml++/toml.h>

#include <optional>

#include "core/fs.h"
#include "llm/provider.h"

namespace hone {
namespace {

std::string Where(const std::filesystem::path& file, const toml::node& node) {
  return file.string() + ":" + std::to_string(node.source().begin.line);
}

// A non-negative number (an integer counts) named `field` of the entry.
Result<double> PriceField(const toml::table& entry, const char* field, const std::string& where) {
  const toml::node* n = entry.get(field);
  if (!n)
    return Status::Invalid(where + ": missing '" + field + "' (US dollars per million tokens)");
  std::optional<double> v = n->value<double>();
  if (!v || !n->is_number()) return Status::Invalid(where + ": '" + field + "' must be a number");
  if (*v < 0) return Status::Invalid(where + ": '" + field + "' must not be negative");
  return *v;
}

Status CheckEntryFields(const toml::table& entry, const std::string& where) {
  for (const auto& [key, value] : entry) {
    std::string k(key.str());
    if (k != "input" && k != "output") {
      return Status::Invalid(where + ": unknown field '" + k + "' (expected input, output)");
    }
  }
  return Status::Ok();
}

Status AddEntry(const std::filesystem::path& file, const std::string& model, const toml::node& node,
                PriceTable& table) {
  std::string where = Where(file, node) + ": prices.\"" + model + "\"";
  const toml::table* entry = node.as_table();
  if (!entry) return Status::Invalid(where + ": expected a table { input = ..., output = ... }");
  HONE_RETURN_IF_ERROR(CheckEntryFields(*entry, where));
  HONE_ASSIGN_OR_RETURN(double input, PriceField(*entry, "input", where));
  HONE_ASSIGN_OR_RETURN(double output, PriceField(*entry, "output", where));
  table.Set(model, input, output);
  return Status::Ok();
}

Result<PriceTable> FromToml(const std::filesystem::path& file, const toml::table& root) {
  PriceTable table;
  for (const auto& [key, value] : root) {
    if (key.str() != "prices") {
      return Status::Invalid(Where(file, value) + ": unknown top-level key '" +
                             std::string(key.str()) + "' (expected [prices.\"MODEL\"])");
    }
  }
  const toml::node* prices = root.get("prices");
  if (!prices) return table;
  const toml::table* models = prices->as_table();
  if (!models) return Status::Invalid(Where(file, *prices) + ": 'prices' must be a table");
  for (const auto& [model, node] : *models) {
    HONE_RETURN_IF_ERROR(AddEntry(file, std::string(model.str()), node, table));
  }
  return table;
}

}  // namespace

PriceTable PriceTable::Defaults() {
  PriceTable t;
  t.Set("openai:gpt-4.1", 2.0, 8.0);
  t.Set("openai:gpt-4.1-mini", 0.4, 1.6);
  t.Set("openai:o3", 2.0, 8.0);
  t.Set("openai:gpt-5", 1.25, 10.0);
  t.Set("openai:gpt-5-mini", 0.25, 2.0);
  t.Set("anthropic:claude-sonnet-4-5", 3.0, 15.0);
  t.Set("anthropic:claude-opus-4-1", 15.0, 75.0);
  t.Set("anthropic:claude-haiku-4-5", 1.0, 5.0);
  t.Set("deepseek:deepseek-chat", 0.27, 1.1);
  return t;
}

Result<PriceTable> PriceTable::Load(const std::filesystem::path& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Invalid("price table: " + text.status().message());
  toml::table root;
  try {
    root = toml::parse(*text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return Status::Invalid(file.string() + ":" + std::to_string(at.line) + ":" +
                           std::to_string(at.column) + ": " + std::string(e.description()));
  }
  return FromToml(file, root);
}

void PriceTable::Set(const std::string& model, double input_per_mtok, double output_per_mtok) {
  prices_[model] = Price{input_per_mtok, output_per_mtok};
}

void PriceTable::Merge(const PriceTable& other) {
  for (const auto& [model, price] : other.prices_) prices_[model] = price;
}

bool PriceTable::Has(const ModelSpec& model) const {
  return prices_.count(model.text()) || prices_.count(model.model);
}

double PriceTable::Cost(const ModelSpec& model, int64_t input_tokens, int64_t output_tokens) const {
  auto it = prices_.find(model.text());
  if (it == prices_.end()) it = prices_.find(model.model);
  if (it == prices_.end()) return 0;
  return (static_cast<double>(input_tokens) * it->second.input +
          static_cast<double>(output_tokens) * it->second.output) /
         1e6;
}

}  // namespace hone
