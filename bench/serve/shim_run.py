#!/usr/bin/env python3
"""A recorded run of `hone serve` as RL trainers drive it (scripts/gpu-check-serve).

Usage: shim_run.py BASE_URL KB_DIR OUT_DIR JOBS

1. OpenRLHF's remote reward model: POST /get_reward {"query", "prompts",
   "labels"} with three responses to KernelBench level1/19_ReLU: a real
   load_inline ModelNew (bench/kernelbench/relu_modelnew.py), the same file
   computing the wrong thing, and plain PyTorch (no kernel of its own).
2. KernelGYM as Dr. Kernel's reward client drives it: POST /evaluate with the
   problem's source as reference_code, GET /status/{id} once a second, GET
   /results/{id}.
3. A burst of JOBS native requests (POST /v1/evals, one item each, from
   JOBS threads at once) of the real ModelNew, each with its own id: jobs
   per second through the server, request latency p50/p99, and what the
   server and queue add beyond the evaluation (latency - queue wait -
   eval_ms is not observable from outside, so the burst reports latency
   against eval_ms and the jobs' wall time against the sum of eval_ms per
   device).

Every answer is written to OUT_DIR as JSON. Standard library only.
"""
import concurrent.futures
import json
import os
import statistics
import sys
import time
import urllib.request

BASE, KB, OUT, JOBS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
HERE = os.path.dirname(os.path.abspath(__file__))
RELU = open(os.path.join(HERE, "..", "kernelbench", "relu_modelnew.py")).read()
PROBLEM = "level1/19_ReLU"
NONCE = str(int(time.time()))


def call(method, path, body=None, timeout=900):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data, {"Content-Type": "application/json"},
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def save(name, answer):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(answer, f, indent=1)


def fenced(code):
    return "Here is the optimized model.\n```python\n" + code + "```\n"


def openrlhf():
    model = open(os.path.join(KB, PROBLEM + ".py")).read()
    prompt = ("<|im_start|>user\nWrite ModelNew, a faster version of this Model:\n" + model
              + "<|im_end|>\n<|im_start|>assistant\n")
    # 19_ReLU draws x from torch.rand (all >= 0): wrong on its own inputs.
    wrong = RELU.replace("v > 0.0f ? v : 0.0f", "v > 0.5f ? v : 0.0f")
    plain = ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
             "    def forward(self, x):\n        return torch.relu(x)\n")
    responses = [fenced(RELU + f"# {NONCE}\n"), fenced(wrong + f"# {NONCE}\n"),
                 fenced(plain + f"# {NONCE}\n")]
    body = {"query": [prompt + r for r in responses], "prompts": [prompt] * 3,
            "labels": [PROBLEM] * 3}
    start = time.time()
    status, answer = call("POST", "/get_reward", body)
    save("openrlhf", {"status": status, "seconds": time.time() - start, "answer": answer})
    logs = answer.get("extra_logs", {})
    print(f"OpenRLHF /get_reward: HTTP {status} in {time.time() - start:.1f} s, "
          f"rewards {answer.get('rewards')}, error_class {logs.get('error_class')}")
    return status == 200 and len(answer.get("rewards", [])) == 3


def kernelgym():
    task_id = f"kgym-relu-{NONCE}"
    payload = {"task_id": task_id, "reference_code": open(os.path.join(KB, PROBLEM + ".py")).read(),
               "kernel_code": RELU, "backend": "cuda", "num_correct_trials": 5,
               "num_perf_trials": 100, "timeout": 300, "priority": "normal",
               "entry_point": "Model", "is_valid": None, "verbose_errors": True,
               "enable_profiling": True, "detect_decoy_kernel": True, "reference_backend": None}
    start = time.time()
    status, body = call("POST", "/evaluate", payload)
    state = body.get("status")
    while status == 200 and state in ("submitted", "pending", "processing"):
        time.sleep(1)
        status, s = call("GET", "/status/" + task_id)
        state = s.get("status")
    status, result = call("GET", "/results/" + task_id)
    save("kernelgym", {"status": status, "seconds": time.time() - start, "result": result})
    print(f"KernelGYM /evaluate: {state} in {time.time() - start:.1f} s: compiled "
          f"{result.get('compiled')}, correctness {result.get('correctness')}, speedup "
          f"{result.get('speedup')}, decoy_kernel {result.get('decoy_kernel')}")
    return state == "completed" and result.get("correctness") is True


def one(i):
    item = {"id": f"burst-{NONCE}-{i}", "problem": PROBLEM,
            "candidate": {"code": RELU + f"# burst {i}\n", "kind": "modelnew"},
            "config": {"baselines": "eager"}}
    start = time.time()
    status, answer = call("POST", "/v1/evals", {"items": [item], "wait_s": 600})
    return time.time() - start, status, answer


def burst():
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        runs = list(pool.map(one, range(JOBS)))
    wall = time.time() - start
    save("burst", [{"seconds": s, "status": st, "answer": a} for s, st, a in runs])
    results = [a["items"][0] for _, st, a in runs if st == 200 and a.get("items")]
    done = [r for r in results if r.get("status") == "passed"]
    lat = sorted(s for s, st, _ in runs)
    evals = [r.get("eval_ms", 0) / 1e3 for r in results]
    devices = sorted({r.get("device", "") for r in results})
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print(f"burst: {JOBS} requests at once, {len(done)} passed on {len(devices)} device(s) "
          f"{devices}; {JOBS / wall:.2f} jobs/s ({wall:.1f} s wall); latency p50 "
          f"{statistics.median(lat):.1f} s, p99 {p99:.1f} s; eval_ms p50 "
          f"{1e3 * statistics.median(evals):.0f}; sum of eval_ms per device {sum(evals) / max(1, len(devices)):.1f} s "
          f"against {wall:.1f} s wall")
    return len(done) == JOBS


ok = openrlhf()
ok = kernelgym() and ok
ok = burst() and ok
status, metrics = 0, ""
with urllib.request.urlopen(BASE + "/metrics", timeout=30) as r:
    metrics = r.read().decode()
open(os.path.join(OUT, "metrics.txt"), "w").write(metrics)
sys.exit(0 if ok else 1)
