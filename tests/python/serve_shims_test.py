#!/usr/bin/env python3
"""`hone serve` live, through the bodies real clients send.

Starts a private redis-server on a free loopback port, `hone serve --port 0
--json` on it and one `hone worker --backend cpu`, then speaks to the server
as each client does:

- the native API (POST /v1/evals, its idempotent retry and its 409, GET
  /v1/evals/{id}, /healthz, /metrics);
- OpenRLHF's remote reward model: POST /get_reward with {"query", "prompts",
  "labels"}, the body of openrlhf/utils/remote_rm_utils.py;
- KernelGYM as Dr. Kernel's reward client drives it: POST /evaluate with its
  task body, GET /status/{id} once a second until done, GET /results/{id};
- examples/verl_compute_score.py, imported and called as verl calls it.

The OpenRLHF, KernelGYM and verl cases send KernelBench ModelNew files for a
PyTorch problem (tasks/pytorch/row_sum.py): their verdicts need a Python with
torch for the worker's oracle (Debian: python3-torch); without one those
cases check the protocol only and say that the verdicts were skipped.

Usage: serve_shims_test.py HONE_BINARY SOURCE_DIR (ctest ServeShimsTest).
Exits 77 (skipped) when redis-server or the hone binary is missing.
Standard library only.
"""
import collections
import importlib.util
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HONE = os.environ.get("HONE_BINARY", "")
SOURCE = os.environ.get("HONE_SOURCE_DIR", "")
REDIS_SERVER = shutil.which("redis-server") or ""
# A line of their own: the compile cache is keyed by content and keeps the
# first build's file name in its log (tests/integration/serve_workers_test.cc).
MARK = "served through hone serve (serve_shims_test.py)"
RESULT_KEYS = {"score", "compiled", "correct", "speedup", "kernel_us", "baseline_us",
               "status", "error_class", "error_msg", "attempts", "device", "eval_ms"}
LIVE = {}  # the processes and addresses of this run (setUpModule)


def have_torch():
    """Whether a Python the worker's oracle tries imports torch (src/task/oracle_client.cc)."""
    for python in (os.environ.get("HONE_PYTHON"), "python3", "/usr/bin/python3"):
        if not python:
            continue
        try:
            r = subprocess.run([python, "-c", "import numpy, torch; torch.zeros(1)"],
                               capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            return True
    return False


HAVE_TORCH = False  # set by setUpModule
NO_TORCH = ("no Python here imports torch (install python3-torch): "
            "the verdicts on ModelNew candidates are skipped, only the protocol is checked")


def source(path):
    with open(os.path.join(SOURCE, path)) as f:
        return f.read()


def fenced(code):
    return "Here is the faster version.\n\n```python\n" + code + "```\n\nIt sums each row.\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(folder):
    """A private redis-server on a free loopback port: (process, port)."""
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if redis_ping(port):
                return proc, port
            if proc.poll() is not None:
                break  # the port was taken meanwhile: another one
            time.sleep(0.05)
        stop(proc)
    raise RuntimeError("redis-server did not start")


def stop(proc, timeout=60):
    """SIGTERM, then SIGKILL to its process group (a worker's sandboxes with
    it); the exit code, None when it had to be killed."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.wait()
        return None


def first_line(proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            return proc.stdout.readline()
    return ""


def hone_env():
    env = dict(os.environ)
    env.pop("HONE_SERVE_TOKEN", None)
    env.setdefault("HONE_CACHE", os.path.join(os.path.dirname(HONE), "test-cache"))
    return env


def start_serve(redis, prefix, folder):
    log = os.path.join(folder, "serve.log")
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [HONE, "serve", "--port", "0", "--json", "--redis", redis, "--key-prefix", prefix,
             "--backend", "cpu", "--connect-timeout", "10"],
            stdout=subprocess.PIPE, stderr=err, text=True, env=hone_env())
    line = first_line(proc, 30)
    try:
        listening = json.loads(line)
    except ValueError:
        stop(proc)
        with open(log) as f:
            raise RuntimeError("hone serve said no listening line: %r; log: %s" % (line, f.read()))
    return proc, listening


def start_worker(redis, prefix, folder, problems):
    log = os.path.join(folder, "worker.jsonl")
    with open(log, "w") as out, open(os.path.join(folder, "worker.log"), "w") as err:
        proc = subprocess.Popen(
            [HONE, "worker", "--backend", "cpu", "--redis", redis, "--key-prefix", prefix,
             "--problems", problems, "--consumer", "shims-test", "--block-seconds", "1",
             # One attempt: an infra error (no torch here) is final at once.
             "--max-attempts", "1",
             "--time-budget", "0.3", "--warmup", "0.05", "--json"],
            stdout=out, stderr=err, env=hone_env(), start_new_session=True)
    return proc, log


def setUpModule():
    global HAVE_TORCH
    if not (HONE and os.access(HONE, os.X_OK)):
        raise unittest.SkipTest("no hone binary (give its path as the first argument)")
    if not REDIS_SERVER:
        raise unittest.SkipTest("redis-server is not installed (Debian: redis-server)")
    HAVE_TORCH = have_torch()
    if not HAVE_TORCH:
        print("serve_shims_test: " + NO_TORCH, file=sys.stderr)
    folder = tempfile.mkdtemp(prefix="hone-serve-shims-")
    LIVE["folder"] = folder
    try:
        problems = os.path.join(folder, "problems")
        shutil.copytree(os.path.join(SOURCE, "tests/integration/fixture_add"),
                        os.path.join(problems, "fixture_add"))
        shutil.copy(os.path.join(SOURCE, "tasks/pytorch/row_sum.py"), problems)
        LIVE["redis"], port = start_redis(folder)
        address = "127.0.0.1:%d" % port
        prefix = "shims-%d:" % os.getpid()
        LIVE["serve"], listening = start_serve(address, prefix, folder)
        assert listening["event"] == "listening" and listening["redis"] == address, listening
        LIVE["url"] = "http://127.0.0.1:%d" % listening["port"]
        LIVE["worker"], LIVE["worker_log"] = start_worker(address, prefix, folder, problems)
    except BaseException:
        tearDownModule()  # unittest does not when setUpModule fails
        raise


def tearDownModule():
    serve_code, said = 0, ""
    if "serve" in LIVE:
        serve = LIVE.pop("serve")
        serve_code = stop(serve)
        said = serve.stdout.read()
        serve.stdout.close()
    if "worker" in LIVE:
        stop(LIVE.pop("worker"))
    if "redis" in LIVE:
        stop(LIVE.pop("redis"))
    if os.environ.get("HONE_KEEP_TEST_FILES"):
        print("serve_shims_test: files kept in " + LIVE["folder"], file=sys.stderr)
    elif "folder" in LIVE:
        shutil.rmtree(LIVE.pop("folder"), ignore_errors=True)
    if serve_code != 0 or '"stopped"' not in said:
        raise AssertionError("hone serve did not stop cleanly on SIGTERM: exit %r, said %r"
                             % (serve_code, said))


def call(method, path, body=None, timeout=180):
    """(HTTP status, parsed JSON body or text)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(LIVE["url"] + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def submitted(outcome):
    """hone_jobs_submitted_total{outcome=...} from /metrics."""
    status, text = call("GET", "/metrics")
    assert status == 200, text
    m = re.search(r'^hone_jobs_submitted_total\{outcome="%s"\} (\S+)$' % outcome, text, re.M)
    return float(m.group(1)) if m else 0.0


def evaluations(prefix):
    """How many times the worker evaluated each job whose id starts with prefix."""
    counts = collections.Counter()
    with open(LIVE["worker_log"]) as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "job" and event.get("id", "").startswith(prefix):
                counts[event["id"]] += 1
    return counts


def evaluated(prefix, n, timeout=20):
    """The worker's counts once n jobs of the prefix are logged (a line comes
    just after its result is stored), or as they are at the timeout."""
    deadline = time.monotonic() + timeout
    while len(evaluations(prefix)) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return evaluations(prefix)


class NativeApiTest(unittest.TestCase):
    def items(self, prefix):
        correct = source("tests/adversarial/cpu/correct.cpp") + "// " + MARK + "\n"
        self.assertIn("2.0f * b[i]", correct)
        return [
            {"id": prefix + "correct", "problem": "fixture_add",
             "candidate": {"code": correct, "kind": "cpp"}, "config": {"reward": "binary"}},
            {"id": prefix + "wrong", "problem": "fixture_add",
             "candidate": {"code": correct.replace("2.0f * b[i]", "b[i]"), "kind": "cpp"},
             "config": {"reward": "binary"}},
            {"id": prefix + "compile", "problem": "fixture_add",
             "candidate": {"code": source("tests/adversarial/cpu/compile_error.cpp") + "// " + MARK,
                           "kind": "cpp"}},
        ]

    def test_healthz_and_metrics(self):
        status, body = call("GET", "/healthz")
        self.assertEqual(status, 200, body)
        self.assertIs(body["ok"], True)
        # A request is counted just after its answer is sent: look again briefly.
        for _ in range(20):
            status, text = call("GET", "/metrics")
            self.assertEqual(status, 200)
            if 'hone_http_requests_total{route="/healthz",code="200"}' in text:
                break
            time.sleep(0.1)
        self.assertIn('hone_http_requests_total{route="/healthz",code="200"}', text)
        self.assertIn("hone_http_request_seconds_bucket", text)
        self.assertIn("hone_queue_jobs", text)

    def test_round_trip_and_idempotent_retry(self):
        body = {"items": self.items("native-"), "wait_s": 120}
        status, first = call("POST", "/v1/evals", body)
        self.assertEqual(status, 200, first)
        self.assertEqual((first["done"], first["total"]), (3, 3))
        got = [(r["id"], r["status"], r["error_class"], r["compiled"], r["correct"], r["score"])
               for r in first["items"]]
        self.assertEqual(got, [
            ("native-correct", "passed", "", True, True, 1.0),
            ("native-wrong", "incorrect", "wrong_output", True, False, 0.0),
            ("native-compile", "compile_error", "compile", False, False, 0.0)])
        for r in first["items"]:
            self.assertLessEqual(RESULT_KEYS, set(r), r)
            self.assertEqual(r["attempts"], 1, r)
            self.assertIn("/cpu", r["device"])
        self.assertGreater(first["items"][0]["speedup"], 0)

        attached = submitted("attached")
        status, again = call("POST", "/v1/evals", body)
        self.assertEqual(status, 200, again)
        self.assertEqual(again["items"], first["items"], "a retry gets the stored results")
        self.assertEqual(submitted("attached") - attached, 3)
        self.assertEqual(evaluated("native-", 3), {i["id"]: 1 for i in body["items"]})

        status, job = call("GET", "/v1/evals/native-correct")
        self.assertEqual(status, 200, job)
        self.assertEqual(job["state"], "done")
        self.assertEqual(job["result"]["status"], "passed")
        self.assertEqual(job["job"]["candidate"]["kind"], "cpp")

    def test_same_id_other_content_is_409(self):
        item = self.items("conflict-")[0]
        status, body = call("POST", "/v1/evals", {"items": [item]})
        self.assertIn(status, (200, 202), body)
        item["candidate"]["code"] += "// another candidate\n"
        status, body = call("POST", "/v1/evals", {"items": [item]})
        self.assertEqual(status, 409, body)
        self.assertEqual(body["ids"], ["conflict-correct"])

    def test_bad_item_is_400_naming_the_field_and_unknown_id_404(self):
        item = self.items("bad-")[0]
        item["candidate"]["kind"] = "fortran"
        status, body = call("POST", "/v1/evals", {"items": [self.items("bad-")[1], item]})
        self.assertEqual(status, 400, body)
        self.assertIn("items[1].candidate.kind", body["error"])
        self.assertEqual(call("GET", "/v1/evals/bad-wrong")[0], 404, "nothing was queued")
        self.assertEqual(call("GET", "/v1/evals/no-such-id")[0], 404)


ROW_SUM_OK = "tasks/pytorch/candidates/row_sum/compat_torch.py"
ROW_SUM_WRONG = "tasks/pytorch/candidates/row_sum/compat_torch_wrong.py"


class OpenRlhfTest(unittest.TestCase):
    """POST /get_reward as OpenRLHF's remote_rm_fn sends it: query is prompt +
    response; labels carry the problem (a name, or an object with a config)."""
    answers = {}

    @classmethod
    def body(cls):
        prompt = ("<|im_start|>user\nWrite ModelNew, a faster version of this Model:\n"
                  + source("tasks/pytorch/row_sum.py") + "<|im_end|>\n<|im_start|>assistant\n")
        library = json.dumps({"problem": "row_sum", "config": {"allow": "library"}})
        responses = [fenced(source(ROW_SUM_OK) + "# " + MARK + "\n"),
                     fenced(source(ROW_SUM_WRONG) + "# " + MARK + "\n"),
                     fenced(source(ROW_SUM_OK) + "# " + MARK + "\n"),
                     "I am not able to write this kernel."]
        labels = [library, library, "row_sum", "row_sum"]
        return {"query": [prompt + r for r in responses], "prompts": [prompt] * len(responses),
                "labels": labels}

    @classmethod
    def answer(cls):
        """The first answer and its retry's, asked once for the class."""
        if not cls.answers:
            created = submitted("created")
            cls.answers["first"] = call("POST", "/get_reward", cls.body())
            cls.answers["created"] = submitted("created") - created
            attached = submitted("attached")
            cls.answers["retry"] = call("POST", "/get_reward", cls.body())
            cls.answers["attached"] = submitted("attached") - attached
        return cls.answers

    def test_answer_has_rewards_scores_and_extra_logs_and_a_retry_attaches(self):
        a = self.answer()
        status, first = a["first"]
        self.assertEqual(status, 200, first)
        self.assertEqual(len(first["rewards"]), 4)
        self.assertEqual(first["scores"], first["rewards"])
        for key in ("correct", "speedup", "error_class", "pending"):
            self.assertEqual(len(first["extra_logs"][key]), 4, key)
        self.assertEqual(first["extra_logs"]["pending"], [0, 0, 0, 0])
        self.assertEqual(a["created"], 4)
        status, retry = a["retry"]
        self.assertEqual(status, 200, retry)
        self.assertEqual(retry, first, "a retried request gets the same rewards")
        self.assertEqual(a["attached"], 4, "a retried request attaches to the same jobs")
        counts = evaluated("openrlhf-", 4)
        self.assertEqual(sorted(counts.values()), [1, 1, 1, 1], counts)

    def test_rewards_follow_the_verdicts(self):
        if not HAVE_TORCH:
            self.skipTest(NO_TORCH)
        status, first = self.answer()["first"]
        self.assertEqual(status, 200, first)
        logs = first["extra_logs"]
        self.assertEqual(logs["error_class"][:3], ["", "wrong_output", "rejected"], first)
        self.assertEqual(logs["pending"], [0, 0, 0, 0])
        self.assertEqual(logs["correct"], [1, 0, 0, 0])
        self.assertGreater(first["rewards"][0], 0, "kernelbench: a correct kernel's speedup")
        self.assertEqual(first["rewards"][1:], [0, 0, 0])
        # A response without code is the model's failure, never an infra error.
        self.assertEqual(logs["error_class"][3], "compile", first)


class KernelGymTest(unittest.TestCase):
    """KernelGYM's API as Dr. Kernel's reward client (drkernel/kernel/rewards/
    reward_client.py) drives it."""

    def payload(self, task_id, kernel_code):
        return {"task_id": task_id, "reference_code": source("tasks/pytorch/row_sum.py"),
                "kernel_code": kernel_code, "backend": "triton", "num_correct_trials": 5,
                "num_perf_trials": 100, "timeout": 300, "priority": "normal",
                "entry_point": "Model", "is_valid": None, "verbose_errors": True,
                "enable_profiling": True, "detect_decoy_kernel": True,
                "reference_backend": None}

    def submit_and_poll(self, payload, client_timeout=150):
        """The client's loop: submit, poll /status once a second, fetch /results."""
        status, body = call("POST", "/evaluate", payload)
        self.assertEqual(status, 200, body)
        self.assertEqual(body, {"task_id": payload["task_id"], "status": "submitted"})
        seen = set()
        deadline = time.monotonic() + client_timeout
        while time.monotonic() < deadline:
            status, s = call("GET", "/status/" + payload["task_id"])
            self.assertEqual(status, 200, s)
            seen.add(s["status"])
            if s["status"] in ("completed", "failed", "timeout", "cancelled"):
                break
            time.sleep(0.5)
        self.assertLessEqual(seen, {"pending", "processing", "completed", "failed"})
        status, result = call("GET", "/results/" + payload["task_id"])
        self.assertEqual(status, 200, result)
        return result

    def check_shape(self, result):
        for key in ("compiled", "correctness", "decoy_kernel"):
            self.assertIsInstance(result[key], bool, key)
        self.assertIsInstance(result["speedup"], (int, float))
        self.assertIsInstance(result["error_message"], str)
        self.assertLessEqual(RESULT_KEYS, set(result["metadata"]))

    decoy = {}

    def decoy_result(self):
        """Plain torch calls, no kernel: submitted and polled once for the class."""
        if not self.decoy:
            payload = self.payload("kgym-decoy", source(ROW_SUM_OK) + "# " + MARK + "\n")
            self.decoy.update(payload=payload, result=self.submit_and_poll(payload))
        return self.decoy["payload"], self.decoy["result"]

    def test_protocol_retry_conflict_and_unknown_ids(self):
        payload, result = self.decoy_result()
        self.check_shape(result)
        self.assertEqual(result["status"], "completed" if HAVE_TORCH else "failed", result)
        self.assertEqual(call("POST", "/evaluate", payload)[0], 200, "a retry attaches")
        self.assertEqual(evaluated("kgym-decoy", 1), {"kgym-decoy": 1})
        other = dict(payload, kernel_code=payload["kernel_code"] + "# other\n")
        self.assertEqual(call("POST", "/evaluate", other)[0], 409)
        self.assertEqual(call("GET", "/status/kgym-no-such-task")[0], 404)
        self.assertEqual(call("GET", "/results/kgym-no-such-task")[0], 404)
        other_entry = dict(payload, task_id="kgym-ep", entry_point="Net")
        status, body = call("POST", "/evaluate", other_entry)
        self.assertEqual(status, 400, body)

    def test_verdicts(self):
        if not HAVE_TORCH:
            self.skipTest(NO_TORCH)
        # Plain torch calls are no kernel: hone rejects them, the client sees a decoy.
        decoy = self.decoy_result()[1]
        self.assertEqual((decoy["status"], decoy["decoy_kernel"], decoy["correctness"]),
                         ("completed", True, False), decoy)
        self.assertEqual(decoy["speedup"], 0)
        broken = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x)\n"
        syntax = self.submit_and_poll(self.payload("kgym-syntax", broken + "# " + MARK + "\n"))
        self.check_shape(syntax)
        self.assertEqual((syntax["status"], syntax["compiled"], syntax["correctness"],
                          syntax["decoy_kernel"]), ("completed", False, False, False), syntax)
        self.assertTrue(syntax["error_message"], syntax)


class VerlComputeScoreTest(unittest.TestCase):
    """examples/verl_compute_score.py as verl's custom reward function."""

    def test_compute_score(self):
        spec = importlib.util.spec_from_file_location(
            "verl_compute_score", os.path.join(SOURCE, "examples/verl_compute_score.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        os.environ["HONE_SERVE_URL"] = LIVE["url"]
        os.environ["HONE_WAIT_S"] = "150"
        solution = fenced(source(ROW_SUM_OK) + "# verl " + MARK + "\n")
        first = module.compute_score("kernelbench/level1", solution, "row_sum", {"index": 0})
        self.assertEqual(set(first), {"score", "correct", "speedup", "status", "infra_error"})
        self.assertEqual(first["score"], 0.0)
        again = module.compute_score("kernelbench/level1", solution, "row_sum", {"index": 0})
        self.assertEqual(again, first)
        self.assertEqual(sorted(evaluated("verl-", 1).values()), [1], "verl retried, one job")
        if not HAVE_TORCH:
            self.assertIs(first["infra_error"], True, first)
            self.skipTest(NO_TORCH)
        # Plain torch is no kernel: rejected, which is the model's failure.
        self.assertEqual((first["status"], first["correct"], first["infra_error"]),
                         ("rejected", False, False), first)


def main():
    global HONE, SOURCE
    if len(sys.argv) >= 3 and not sys.argv[1].startswith("-"):
        HONE, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
        del sys.argv[1:3]
    SOURCE = SOURCE or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not (HONE and os.access(HONE, os.X_OK)):
        print("serve_shims_test: skipped: no hone binary (usage: %s HONE SOURCE_DIR)" % sys.argv[0])
        sys.exit(77)
    if not REDIS_SERVER:
        print("serve_shims_test: skipped: redis-server is not installed (Debian: redis-server)")
        sys.exit(77)
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
