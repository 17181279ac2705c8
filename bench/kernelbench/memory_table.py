#!/usr/bin/env python3
"""docs/PERFORMANCE.md's memory table from `hone task memory --json` (issue 51):
  hone task memory KB/level1 KB/level2 KB/level3 --json > need.json
  bench/kernelbench/memory_table.py need.json
Prints a Markdown table, one row per problem (its level, inputs, outputs,
KernelBench's evaluator's need, hone's least need, their ratio, and per card
size which of the two fits), then one row per card size."""
import json
import os
import sys

WORD = {(True, True): "both", (True, False): "KB only", (False, True): "hone only"}


def gb(n):
    return f"{n / 1e9:.2f}" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def main(path):
    need = json.load(open(path))
    cards = [c["card_gb"] for c in need["cards"]]
    head = ["problem", "inputs GB", "outputs GB", "KernelBench GB", "hone least GB", "ratio"]
    head += [f"{c:g} GB" for c in cards]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for p in need["problems"]:
        level = os.path.basename(os.path.dirname(p["file"]))
        name = f"{level}/{os.path.basename(p['file'])}"
        if "error" in p:
            print(f"| {name} | not estimated: {p['error'][:120]} |" + " |" * (len(head) - 2))
            continue
        row = [
            name,
            gb(p["inputs_bytes"]),
            gb(p["outputs_bytes"]),
            gb(p["kernelbench_bytes"]),
            gb(p["hone_least_bytes"]),
            f"{p['ratio']:.2f}",
        ]
        row += [WORD.get((c["kernelbench"], c["hone"]), "neither") for c in p["cards"]]
        print("| " + " | ".join(row) + " |")
    print()
    print("| card | KernelBench's evaluator fits | hone fits | KernelBench's only |")
    print("|---|---|---|---|")
    for c in need["cards"]:
        print(
            f"| {c['card_gb']:g} GB | {c['kernelbench_fits']} | {c['hone_fits']} | "
            f"{len(c['kernelbench_only'])} |"
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
