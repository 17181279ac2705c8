// hone worker --redis HOST:PORT --problems DIR: a long-lived worker of the
// service. It takes jobs from the Redis Streams queue (serve/
// redis_job_queue.h), evaluates them one at a time on its device and stores
// their results (serve/worker.h). With --devices (GPUs) or --lanes (CPU) it
// starts one such worker process per device instead and supervises them
// (serve/worker_fleet.h). docs/SERVE.md, "Workers and the queue".
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/device_list.h"
#include "cli/eval_flags.h"
#include "cli/number_flags.h"
#include "cli/redis_wait.h"
#include "core/backend_names.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "core/trace.h"
#include "format/builtin_formats.h"
#include "lang/builtin.h"
#include "serve/job_evaluator.h"
#include "serve/redis_credentials.h"
#include "serve/redis_job_queue.h"
#include "serve/worker_fleet.h"

namespace hone::cli {
namespace {

using json = nlohmann::json;

struct WorkerArgs {
  std::string redis = "127.0.0.1:6379";
  std::string redis_auth;  // a file with the ACL credentials (serve/redis_credentials.h)
  std::string prefix = "hone:";
  std::string problems;
  std::string backend;  // empty: cuda where a GPU is present, else cpu
  std::string consumer;
  std::string store;
  int max_attempts = 3;
  double lease_seconds = 30;
  double block_seconds = 2;
  double connect_timeout = 60;
  long long max_jobs = 0;
  bool once = false;
  std::string devices;  // one worker process per GPU (cli/device_list.h)
  int lanes = 0;        // one worker process per CPU lane; 0: not given
  EvalFlags flags;
  Output out;
};

// SIGTERM and SIGINT finish the job in hand, then stop; a second SIGINT
// ends the process at once.
std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int sig) {
  if (g_stop.exchange(true) && sig == SIGINT) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || !host[0]) return "localhost";
  return host;
}

Result<std::string> WorkerBackend(const WorkerArgs& a) {
  if (!a.backend.empty()) {
    HONE_RETURN_IF_ERROR(CheckBackendName(a.backend, "--backend"));
    return a.backend;
  }
  // Numbered devices (GPUs) asked for, or here: their backend.
  const std::string numbered = NumberedBackend();
  if (!numbered.empty() && (!a.devices.empty() || DeviceCount(numbered) > 0)) return numbered;
  return std::string(kHostBackend);
}

// Checks the flags; times past a week are a week.
Status CheckArgs(WorkerArgs& a) {
  if (a.max_attempts < 1) return Status::Invalid("--max-attempts: must be at least 1");
  HONE_ASSIGN_OR_RETURN(a.lease_seconds, CheckedSeconds("--lease-seconds", a.lease_seconds, false));
  if (a.lease_seconds < 1) return Status::Invalid("--lease-seconds: must be at least 1");
  HONE_ASSIGN_OR_RETURN(a.block_seconds, CheckedSeconds("--block-seconds", a.block_seconds, false));
  if (a.block_seconds > a.lease_seconds)
    return Status::Invalid("--block-seconds: must be at most --lease-seconds");
  HONE_ASSIGN_OR_RETURN(a.connect_timeout,
                        CheckedSeconds("--connect-timeout", a.connect_timeout, true));
  if (a.max_jobs < 0) return Status::Invalid("--max-jobs: must not be negative");
  if (a.prefix.empty()) return Status::Invalid("--key-prefix: must not be empty");
  // A worker without a folder would fail every job that names a problem.
  if (a.problems.empty())
    return Status::Invalid(
        "--problems: required: the folder where the jobs' named problems resolve "
        "(DIR/<name>.py or DIR/<name>/task.toml)");
  if (!fs::is_directory(a.problems))
    return Status::Invalid("--problems " + a.problems + ": not a directory");
  return Status::Ok();
}

RedisQueueOptions QueueOptions(const WorkerArgs& a) {
  RedisQueueOptions q;
  q.prefix = a.prefix;
  q.max_attempts = a.max_attempts;
  q.lease = std::chrono::milliseconds(static_cast<int64_t>(a.lease_seconds * 1000));
  return q;
}

// Redis may come up after its workers (a Slurm allocation): wait for it
// (cli/redis_wait.h). A stop signal while waiting is Status::Unavailable.
Result<std::unique_ptr<RedisJobQueue>> OpenQueue(const RedisClientOptions& redis,
                                                 const WorkerArgs& a) {
  std::unique_ptr<RedisJobQueue> queue;
  bool stopped = false;
  HONE_RETURN_IF_ERROR(WaitForRedis(
      {"hone worker " + a.consumer, a.redis, a.connect_timeout, a.out.quiet || a.out.json},
      [&]() -> Status {
        HONE_ASSIGN_OR_RETURN(queue, RedisJobQueue::Open(redis, QueueOptions(a)));
        return Status::Ok();
      },
      [](std::chrono::milliseconds d) {
        SleepUnlessStopped(d, g_stop);
        return static_cast<bool>(g_stop);
      },
      &stopped));
  if (stopped) return Status::Unavailable("stopped while waiting for Redis at " + a.redis);
  return queue;
}

void PrintOutcome(const WorkerArgs& a, const JobOutcome& o) {
  const EvalResult& r = o.result;
  if (a.out.json) {
    std::cout << JsonText(json({{"event", "job"},
                                {"id", r.id},
                                {"attempt", o.lease.attempt},
                                {"status", r.status},
                                {"error_class", r.error_class},
                                {"stored", o.stored},
                                {"dropped", o.dropped},
                                {"handed_back", o.handed_back},
                                {"eval_ms", r.eval_ms},
                                {"renewals", o.renewals},
                                {"renew_failures", o.renew_failures}}))
              << std::endl;
    return;
  }
  if (a.out.quiet) return;
  std::string note = o.handed_back ? " (not stored: handed back for another worker)"
                     : o.dropped   ? " (stopped mid-job: not stored, left for a retry)"
                     : o.stored    ? ""
                                   : " (a result was stored first; this one dropped)";
  std::string why = r.error_class.empty() ? "" : ": " + r.error_msg.substr(0, 160);
  std::fprintf(stderr, "hone worker %s: %s attempt %d: %s%s (%.0f ms)%s\n", a.consumer.c_str(),
               r.id.c_str(), o.lease.attempt, r.status.c_str(), why.c_str(), r.eval_ms,
               note.c_str());
}

// The queue's own errors, each new one said once (an outage repeats itself).
Worker::ErrorFn ErrorPrinter(const std::string& consumer) {
  auto last = std::make_shared<std::string>();
  return [consumer, last](const std::string& message) {
    if (message == *last) return;
    *last = message;
    std::fprintf(stderr, "hone worker %s: queue: %s (retrying)\n", consumer.c_str(),
                 message.c_str());
  };
}

Result<std::unique_ptr<ContextJobEvaluator>> MakeJobEvaluator(const WorkerArgs& a,
                                                              const std::string& backend,
                                                              ServedRun* record) {
  WorkerEvalSetup setup;
  setup.backend = backend;
  HONE_ASSIGN_OR_RETURN(setup.options, ToEvalOptions(a.flags));
  HONE_ASSIGN_OR_RETURN(setup.sizes, ToSizePolicy(a.flags));
  setup.record = record;
  setup.formats = &BuiltInFormats();
  // The oracle is launched with the worker: its first PyTorch job (most of a
  // KernelBench service's) then finds torch imported, not a start of seconds.
  HONE_ASSIGN_OR_RETURN(auto ctx, MakeEvalContext(BuiltInLanguages(), backend, a.flags.device,
                                                  /*start_oracle=*/true));
  return std::make_unique<ContextJobEvaluator>(std::move(ctx), std::move(setup));
}

int Serve(WorkerArgs& a, const std::string& backend, JobQueue& queue, JobQueue& renewals,
          JobEvaluator& evaluator) {
  std::string device =
      HostName() +
      (NumberedDevices(backend) ? fmt::format("/{}:{}", backend, a.flags.device) : "/" + backend);
  WorkerOptions w;
  w.consumer = a.consumer;
  w.device = device;
  w.problems = a.problems;
  w.formats = &BuiltInFormats();
  w.languages = &BuiltInLanguages();
  w.max_attempts = a.max_attempts;
  auto cache = CacheDir();
  w.scratch = (cache.ok() ? *cache : fs::temp_directory_path()) / "serve";
  w.block = std::chrono::milliseconds(static_cast<int64_t>(a.block_seconds * 1000));
  w.renew_every = std::chrono::milliseconds(static_cast<int64_t>(a.lease_seconds * 1000 / 3));
  w.max_jobs = a.once ? 1 : a.max_jobs;
  // Test only (serve/worker.h): a worker that dies on a given candidate.
  if (const char* crash = std::getenv("HONE_WORKER_TEST_CRASH_ON")) w.crash_on = crash;
  if (!a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone worker %s: serving %s (keys %s*) on %s\n", a.consumer.c_str(),
                 a.redis.c_str(), a.prefix.c_str(), device.c_str());
  Worker worker(queue, renewals, evaluator, w);
  Trace("worker: serving");
  WorkerTally t = worker.Run(
      g_stop, [&](const JobOutcome& o) { PrintOutcome(a, o); }, ErrorPrinter(a.consumer));
  if (a.out.json)
    std::cout << JsonText(json({{"event", "exit"},
                                {"consumer", a.consumer},
                                {"jobs", t.jobs},
                                {"stored", t.stored},
                                {"already_done", t.already_done},
                                {"dropped", t.dropped},
                                {"handed_back", t.handed_back},
                                {"infra_errors", t.infra}}))
              << std::endl;
  else if (!a.out.quiet)
    std::fprintf(stderr, "hone worker %s: stopped after %lld jobs (%lld stored)\n",
                 a.consumer.c_str(), t.jobs, t.stored);
  return kExitOk;
}

// This process's command line, as it was started.
Result<std::vector<std::string>> OwnCommandLine() {
  HONE_ASSIGN_OR_RETURN(std::string raw, ReadFile("/proc/self/cmdline"));
  std::vector<std::string> argv;
  for (size_t start = 0; start < raw.size();) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    argv.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (argv.empty() || ec) return Status::Io("cannot read this process's command line");
  argv[0] = self.string();
  return argv;
}

// One child per device: this command line without the flags that spread
// it, plus its own backend, device and (with --consumer) name.
Result<std::vector<FleetMember>> FleetMembers(const WorkerArgs& a, const std::string& backend,
                                              const std::vector<int>& devices) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> argv, OwnCommandLine());
  argv = WithoutOptions(argv, {"--devices", "--lanes", "--device", "--consumer", "--backend"});
  std::vector<FleetMember> members;
  for (size_t i = 0; i < devices.size(); ++i) {
    FleetMember m{LaneName(backend, devices[i], i, devices.size()), argv};
    m.argv.insert(m.argv.end(), {"--backend", backend});
    if (NumberedDevices(backend))
      m.argv.insert(m.argv.end(), {"--device", std::to_string(devices[i])});
    std::string suffix =
        fmt::format("{}{}", backend, NumberedDevices(backend) ? devices[i] : static_cast<int>(i));
    if (!a.consumer.empty()) m.argv.insert(m.argv.end(), {"--consumer", a.consumer + "-" + suffix});
    members.push_back(std::move(m));
  }
  return members;
}

// --devices / --lanes: one worker process per device, supervised until
// they have all stopped (serve/worker_fleet.h).
int RunFleet(const WorkerArgs& a, const std::string& backend) {
  auto devices = LaneDevices(backend, a.flags.device, a.devices, a.lanes,
                             a.devices.empty() ? 0 : DeviceCount(backend));
  if (!devices.ok()) return ReportError(devices.status());
  auto members = FleetMembers(a, backend, *devices);
  if (!members.ok()) return ReportError(members.status());
  bool say = !a.out.quiet;
  WorkerFleet fleet(std::move(*members), FleetOptions{}, [say](const std::string& line) {
    if (say) std::fprintf(stderr, "hone worker: %s\n", line.c_str());
  });
  g_stop = false;
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
  FleetResult r = fleet.Run(g_stop);
  if (say)
    std::fprintf(stderr, "hone worker: all %zu workers stopped (%d restarts)\n", devices->size(),
                 r.restarts);
  return r.exit_code;
}

int RunWorker(WorkerArgs& a) {
  if (Status st = CheckArgs(a); !st.ok()) return ReportError(st);
  auto backend = WorkerBackend(a);
  if (!backend.ok()) return ReportError(backend.status());
  auto redis = RedisOptionsFromFlags(a.redis, a.redis_auth);
  if (!redis.ok()) return ReportError(redis.status());
  if (auto o = ToEvalOptions(a.flags); !o.ok()) return ReportError(o.status());
  if (!a.devices.empty() || a.lanes != 0) return RunFleet(a, *backend);
  if (a.consumer.empty())
    a.consumer = fmt::format(
        "{}-{}-{}", HostName(),
        NumberedDevices(*backend) ? fmt::format("{}{}", *backend, a.flags.device) : *backend,
        getpid());
  std::unique_ptr<ServedRun> record;
  if (!a.store.empty()) {
    auto r = ServedRun::Begin(a.store, a.consumer,
                              {{"redis", a.redis},
                               {"problems", AbsolutePath(a.problems)},
                               {"backend", *backend},
                               {"flags", EvalFlagsToJson(a.flags)}});
    if (!r.ok()) return ReportError(r.status().With("--store: "));
    record = std::move(*r);
  }
  auto evaluator = MakeJobEvaluator(a, *backend, record.get());
  if (!evaluator.ok()) return ReportError(evaluator.status());
  g_stop = false;
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
  auto queue = OpenQueue(*redis, a);
  if (!queue.ok()) return ReportError(queue.status());
  auto renewals = OpenQueue(*redis, a);
  if (!renewals.ok()) return ReportError(renewals.status());
  return Serve(a, *backend, **queue, **renewals, **evaluator);
}

}  // namespace

Command RegisterWorker(CLI::App& app) {
  auto a = std::make_shared<WorkerArgs>();
  CLI::App* sub = app.add_subcommand(
      "worker", "Serve evaluations: take jobs from the Redis queue, evaluate, store results");
  sub->add_option("--redis", a->redis, "The queue's Redis, HOST:PORT")->capture_default_str();
  sub->add_option("--redis-auth", a->redis_auth,
                  "A file (chmod 600) with the Redis ACL credentials: 'USER PASSWORD' or "
                  "'PASSWORD'; else HONE_REDIS_USER and HONE_REDIS_PASSWORD");
  sub->add_option("--key-prefix", a->prefix, "Prefix of every Redis key of the queue")
      ->capture_default_str();
  sub->add_option("--problems", a->problems,
                  "Where named problems resolve: DIR/<name>.py or the task folder DIR/<name>/ "
                  "(required)");
  sub->add_option("--backend", a->backend,
                  "cpu, or cuda on --device (default: cuda where a GPU is present)");
  sub->add_option("--devices", a->devices,
                  "CUDA: one worker process per GPU, all, or indices and ranges (0,2 or 0-3), "
                  "supervised by this one");
  sub->add_option("--lanes", a->lanes,
                  "CPU: this many worker processes, supervised by this one (their timings "
                  "interfere)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--consumer", a->consumer,
                  "This worker's name in the consumer group (default: HOST-DEVICE-PID)");
  sub->add_option("--max-attempts", a->max_attempts,
                  "Takes of one job before it is dead-lettered as an infra error")
      ->capture_default_str();
  sub->add_option("--lease-seconds", a->lease_seconds,
                  "A job whose lease is not renewed for this long goes to another worker")
      ->capture_default_str();
  sub->add_option("--block-seconds", a->block_seconds, "How long one read waits for a job")
      ->capture_default_str();
  sub->add_option("--connect-timeout", a->connect_timeout, "Seconds to wait for Redis at start-up")
      ->capture_default_str();
  sub->add_option("--store", a->store,
                  "Record every evaluation in this run store (SQLite), as hone bench does");
  sub->add_flag("--once", a->once, "Evaluate one job, then exit");
  sub->add_option("--max-jobs", a->max_jobs, "Exit after this many jobs (0: no limit)");
  AddEvalFlags(sub, a->flags);
  AddOutputFlags(sub, a->out);
  return [a] { return RunWorker(*a); };
}

}  // namespace hone::cli
