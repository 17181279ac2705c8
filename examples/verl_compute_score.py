"""A verl custom reward function that scores with a running `hone serve`.

In verl's config:

    custom_reward_function:
      path: examples/verl_compute_score.py
      name: compute_score

Environment: HONE_SERVE_URL (default http://127.0.0.1:8470), HONE_SERVE_TOKEN
(when the server binds off loopback), HONE_REWARD (a preset, default
kernelbench), HONE_WAIT_S (default 600).

`ground_truth` names the KernelBench problem ("level1/19_ReLU") or holds its
source (a string containing "class Model"); `solution_str` is the model's
response, whose last fenced block defining ModelNew is the candidate. The
job id is a hash of both, so verl retrying a batch never evaluates twice.
An infra_error (the evaluation could not be made) returns score 0 with
"infra_error": True, so a trainer can mask the sample instead of punishing
the model. Only the standard library is used.
"""
import hashlib
import json
import os
import re
import urllib.request

_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)


def _model_new(response):
    blocks = _FENCE.findall(response or "")
    for block in reversed(blocks):
        if "class ModelNew" in block or "ModelNew =" in block:
            return block
    if blocks:
        return blocks[-1]
    return response if "class ModelNew" in (response or "") else ""


def _problem(ground_truth):
    if isinstance(ground_truth, str) and "class Model" in ground_truth:
        return {"code": ground_truth}
    return str(ground_truth)


def _post(path, body, wait_s):
    url = os.environ.get("HONE_SERVE_URL", "http://127.0.0.1:8470") + path
    headers = {"Content-Type": "application/json"}
    token = os.environ.get("HONE_SERVE_TOKEN")
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(req, timeout=wait_s + 30) as resp:
        return json.load(resp)


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    code = _model_new(solution_str)
    problem = _problem(ground_truth)
    key = hashlib.sha256(json.dumps([problem, code]).encode()).hexdigest()[:32]
    wait_s = float(os.environ.get("HONE_WAIT_S", "600"))
    item = {"id": "verl-" + key, "problem": problem,
            "candidate": {"code": code, "kind": "modelnew"},
            "config": {"reward": os.environ.get("HONE_REWARD", "kernelbench")}}
    result = _post("/v1/evals", {"items": [item], "wait_s": wait_s}, wait_s)["items"][0]
    return {"score": float(result["score"]), "correct": bool(result["correct"]),
            "speedup": float(result["speedup"]), "status": result["status"],
            "infra_error": result["error_class"] == "infra_error"}
