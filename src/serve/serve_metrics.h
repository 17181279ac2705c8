// Counters of the HTTP service, read as Prometheus text by GET /metrics:
// requests by route and status code, request latency (a histogram), jobs
// submitted, attached (idempotent retries) and refused, results served by
// error class. Thread-safe (one mutex; a request touches it twice).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "serve/job_queue.h"

namespace hone {

class ServeMetrics {
 public:
  void Request(const std::string& route, int status, double seconds);
  void Submitted(SubmitOutcome o);
  void Served(const EvalResult& r);
  // The text; `queue` (may be null) adds the queue's gauges.
  std::string Prometheus(const QueueStats* queue) const;
  // The median and the 99th percentile of request latency, from the histogram.
  double LatencyQuantile(double q) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, long long> requests_;
  std::vector<long long> latency_buckets_ = std::vector<long long>(Bounds().size() + 1, 0);
  double latency_sum_ = 0;
  long long latency_count_ = 0;
  std::map<std::string, long long> jobs_;
  std::map<std::string, long long> results_;
  static const std::vector<double>& Bounds();
};

}  // namespace hone
