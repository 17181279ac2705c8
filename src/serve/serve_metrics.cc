#include "serve/serve_metrics.h"

#include <fmt/format.h>

namespace hone {

const std::vector<double>& ServeMetrics::Bounds() {
  static const std::vector<double> b = {0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                        0.5,   1,     2.5,   5,    10,    30,   60,  180};
  return b;
}

void ServeMetrics::Request(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
  size_t i = 0;
  while (i < Bounds().size() && seconds > Bounds()[i]) ++i;
  ++latency_buckets_[i];
  latency_sum_ += seconds;
  ++latency_count_;
}

void ServeMetrics::Submitted(SubmitOutcome o) {
  std::lock_guard<std::mutex> lock(mu_);
  ++jobs_[o == SubmitOutcome::kCreated    ? "created"
          : o == SubmitOutcome::kAttached ? "attached"
                                          : "conflict"];
}

void ServeMetrics::Served(const EvalResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  ++results_[r.error_class.empty() ? "passed" : r.error_class];
}

double ServeMetrics::LatencyQuantile(double q) const {
  std::lock_guard<std::mutex> lock(mu_);
  long long want = static_cast<long long>(q * latency_count_), seen = 0;
  for (size_t i = 0; i < latency_buckets_.size(); ++i) {
    seen += latency_buckets_[i];
    if (seen > want) return i < Bounds().size() ? Bounds()[i] : Bounds().back();
  }
  return 0;
}

std::string ServeMetrics::Prometheus(const QueueStats* queue) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = "# TYPE hone_http_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out += fmt::format("hone_http_requests_total{{route=\"{}\",code=\"{}\"}} {}\n", key.first,
                       key.second, n);
  out += "# TYPE hone_http_request_seconds histogram\n";
  long long cumulative = 0;
  for (size_t i = 0; i < Bounds().size(); ++i) {
    cumulative += latency_buckets_[i];
    out +=
        fmt::format("hone_http_request_seconds_bucket{{le=\"{}\"}} {}\n", Bounds()[i], cumulative);
  }
  out += fmt::format("hone_http_request_seconds_bucket{{le=\"+Inf\"}} {}\n", latency_count_);
  out += fmt::format("hone_http_request_seconds_sum {}\nhone_http_request_seconds_count {}\n",
                     latency_sum_, latency_count_);
  out += "# TYPE hone_jobs_submitted_total counter\n";
  for (const auto& [k, n] : jobs_)
    out += fmt::format("hone_jobs_submitted_total{{outcome=\"{}\"}} {}\n", k, n);
  out += "# TYPE hone_results_served_total counter\n";
  for (const auto& [k, n] : results_)
    out += fmt::format("hone_results_served_total{{class=\"{}\"}} {}\n", k, n);
  if (queue) {
    out += "# TYPE hone_queue_jobs gauge\n";
    out += fmt::format(
        "hone_queue_jobs{{state=\"queued\"}} {}\nhone_queue_jobs{{state=\"running\"}} {}\n",
        queue->queued, queue->running);
    out +=
        fmt::format("hone_queue_jobs{{state=\"done\"}} {}\nhone_queue_jobs{{state=\"dead\"}} {}\n",
                    queue->done, queue->dead);
  }
  return out;
}

}  // namespace hone
