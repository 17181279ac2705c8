#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat server on loopback, for `hone optimize
--language triton` on a GPU (scripts/gpu-check-triton-optimize): its replies
are Triton ModelNew files from tests/triton/catalogue/, in the order given,
each in a ```python fence with a line of prose, as a model writes them.

    scripted_llm.py PORT FILE...      (serves until killed; logs requests to stderr)

Standard library only. It answers POST /v1/chat/completions with the next
file (the last one again when they run out) and records each request's last
user message in requests.jsonl beside it, so a test can read what hone asked.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FILES = []
NEXT = [0]
LOCK = threading.Lock()
LOG = os.path.join(os.getcwd(), "requests.jsonl")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        with LOCK:
            i = min(NEXT[0], len(FILES) - 1)
            NEXT[0] += 1
            messages = body.get("messages", [])
            with open(LOG, "a") as f:
                f.write(json.dumps({"reply": os.path.basename(FILES[i]),
                                    "last": messages[-1]["content"] if messages else ""}) + "\n")
        with open(FILES[i]) as f:
            code = f.read()
        text = f"Here is a Triton kernel for the problem.\n\n```python\n{code}```\n"
        reply = {"id": f"scripted-{i}", "object": "chat.completion", "model": body.get("model", ""),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": text}}],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": len(code) // 4,
                           "total_tokens": 1000 + len(code) // 4}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        print("scripted_llm: " + fmt % args, file=sys.stderr)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    FILES.extend(argv[2:])
    server = ThreadingHTTPServer(("127.0.0.1", int(argv[1])), Handler)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
