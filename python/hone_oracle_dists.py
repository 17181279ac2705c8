"""The value distributions a problem's inputs are drawn from and what a
problem file says of itself, for the oracle (hone_oracle.py): the built-in
distributions (`BUILTIN_DISTRIBUTIONS`, `DEFAULT_DISTRIBUTIONS`), those a
task declares in `hone_distributions` (`parse_distributions`, each a
`Distribution`), and its `hone_task` (`parse_task_info`, checked against
`TASK_INFO_KEYS`). Bad declarations raise `OracleError`.

Needs no torch; of hone's it imports only `OracleError`
(hone_oracle_tensors.py).
"""

import inspect

from hone_oracle_tensors import OracleError


BUILTIN_DISTRIBUTIONS = {
    "get_inputs": "get_inputs() under the seed (torch.manual_seed(seed) first)",
    "scaled": (
        "get_inputs() under a derived seed, then every floating tensor multiplied "
        "by a positive factor drawn per tensor from [0.5, 4] (log-uniform); keeps "
        "zeros, signs, triangles and masks; integer and bool tensors (indices, "
        "masks) and Python numbers are left as get_inputs() made them"
    ),
    "signed": (
        "get_inputs() under a derived seed, then every floating tensor whose values "
        "are all non-negative (torch.rand's [0, 1)) and not only 0 and 1 given random "
        "signs, s0[i] * s1[j] * ... with one +-1 vector per dimension (the same one "
        "for the last two when they are equal): keeps zeros, triangles, symmetry and "
        "positive definiteness; left out where the reference is not finite on it"
    ),
}
# The distributions a problem has when it declares none.
DEFAULT_DISTRIBUTIONS = ["scaled", "signed"]


class Distribution:
    def __init__(self, index, name, description, source, fn=None):
        self.index, self.name, self.description = index, name, description
        self.source, self.fn = source, fn

    def describe(self):
        return {
            "index": self.index,
            "name": self.name,
            "description": self.description,
            "source": self.source,
        }


TASK_INFO_KEYS = {
    "name": str,
    "category": str,
    "description": str,
    "format": str,
    "tolerance": dict,
    "inputs": list,
    "outputs": list,
    "baselines": str,
    "data_beside": bool,
}
TASK_BASELINES = ("eager", "eager,compile")
TOLERANCE_KEYS = ("atol", "rtol", "required_matched_ratio")


def parse_task_info(mod, path):
    """A problem file may describe itself with `hone_task`, a dict of name,
    category, description, format (who wrote it), tolerance ({atol, rtol,
    required_matched_ratio}), the names of forward's inputs and outputs, and
    baselines ("eager": its speedup is against the reference as written, so
    torch.compile is timed only when the user asks) and data_beside (it reads
    files in its own folder, which the sandbox must read): what hone's generated
    files for other task formats say of their problem."""
    info = getattr(mod, "hone_task", None)
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise OracleError(f"{path}: hone_task must be a dict")
    for key, value in info.items():
        if key not in TASK_INFO_KEYS or not isinstance(value, TASK_INFO_KEYS[key]):
            raise OracleError(
                f"{path}: hone_task['{key}']: expected one of "
                f"{', '.join(TASK_INFO_KEYS)} with a value of its type"
            )
    if info.get("baselines", "eager") not in TASK_BASELINES:
        raise OracleError(
            f"{path}: hone_task['baselines']: expected one of " f"{', '.join(TASK_BASELINES)}"
        )
    for key, value in info.get("tolerance", {}).items():
        if key not in TOLERANCE_KEYS or not isinstance(value, (int, float)) or value < 0:
            raise OracleError(
                f"{path}: hone_task['tolerance']['{key}']: expected one of "
                f"{', '.join(TOLERANCE_KEYS)} with a number >= 0"
            )
    return info


def parse_distributions(mod, path):
    """Index 0 is always get_inputs(). A task may set `hone_distributions` to
    a list of further entries (names of built-ins, callables seed -> inputs,
    or dicts {name, description, inputs}) or to None to have none."""
    dists = [Distribution(0, "get_inputs", BUILTIN_DISTRIBUTIONS["get_inputs"], "builtin")]
    declared = getattr(mod, "hone_distributions", DEFAULT_DISTRIBUTIONS)
    if declared is None:
        return dists
    if not isinstance(declared, (list, tuple)):
        raise OracleError(f"{path}: hone_distributions must be a list or None")
    for entry in declared:
        i = len(dists)
        if isinstance(entry, str):
            if entry == "get_inputs":
                continue
            if entry not in BUILTIN_DISTRIBUTIONS:
                raise OracleError(
                    f"{path}: unknown distribution '{entry}' in hone_distributions "
                    f"(built-ins: {', '.join(BUILTIN_DISTRIBUTIONS)})"
                )
            dists.append(Distribution(i, entry, BUILTIN_DISTRIBUTIONS[entry], "builtin"))
        elif callable(entry):
            doc = inspect.getdoc(entry) or "declared by the task"
            dists.append(
                Distribution(
                    i, getattr(entry, "__name__", f"dist{i}"), doc.splitlines()[0], "task", entry
                )
            )
        elif isinstance(entry, dict) and callable(entry.get("inputs")):
            dists.append(
                Distribution(
                    i,
                    str(entry.get("name", f"dist{i}")),
                    str(entry.get("description", "declared by the task")),
                    "task",
                    entry["inputs"],
                )
            )
        else:
            raise OracleError(
                f"{path}: hone_distributions entry {entry!r} is not a "
                f"built-in name, a callable or a dict with 'inputs'"
            )
    return dists
