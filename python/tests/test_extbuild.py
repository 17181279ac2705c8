"""Tests for python/hone_extbuild.py: extension keys, build plans from the
installed torch, and the in-sandbox hook on load_inline / load.

Run: python3 -m unittest discover -s python/tests -p 'test_extbuild.py'

The key and ninja-parsing tests need only the standard library. The plan
and hook tests need torch in this interpreter (scripts/test-oracle runs the
suite with one) and skip without it; they build one small C++ extension
(about 20 s on 2 cores) once for the whole file.
"""

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import hone_extbuild  # noqa: E402

try:
    import torch  # noqa: F401
    import torch.utils.cpp_extension as cpp_extension

    HAVE_TORCH = True
except Exception:  # no torch, or a broken one: the torch tests skip
    HAVE_TORCH = False
NO_TORCH = "this Python has no torch (run under scripts/test-oracle, or set HONE_PYTHON)"
HAVE_CXX = shutil.which(os.environ.get("CXX", "c++")) is not None

CPP = "torch::Tensor add_one(torch::Tensor x) { return x + 1; }"
ARGS = {"name": "hone_test_add_one", "cpp_sources": CPP, "functions": ["add_one"]}


class KeyTest(unittest.TestCase):
    key = staticmethod(hone_extbuild.extension_key)

    def test_stable(self):
        a = {"name": "e", "cpp_sources": "int f();", "functions": ["f"]}
        self.assertEqual(self.key("load_inline", a), self.key("load_inline", dict(a)))
        self.assertEqual(len(self.key("load_inline", a)), 64)
        # Pinned: a change to the canonical form invalidates every cached build.
        self.assertEqual(
            self.key("load_inline", {"name": "e", "cpp_sources": ""}),
            "5ca041122e11f2fd28d179a2dcfa6fbc5f9dd28a431edd0fbe5dec3a932c83a6",
        )

    def test_normalisation_like_load_inline(self):
        base = {"name": "e", "cpp_sources": ["int f();"]}
        same = [
            {"name": "e", "cpp_sources": "int f();"},
            {"name": "e", "cpp_sources": ("int f();",)},
            {"name": "e", "cpp_sources": "int f();", "cuda_sources": None},
            {"name": "e", "cpp_sources": "int f();", "cuda_sources": []},
            {"name": "e", "cpp_sources": "int f();", "extra_cflags": None},
            {
                "name": "e",
                "cpp_sources": "int f();",
                "verbose": True,
                "build_directory": "/tmp/x",
                "keep_intermediates": False,
                "use_pch": True,
            },
            {
                "name": "e",
                "cpp_sources": "int f();",
                "with_pytorch_error_handling": True,
                "is_python_module": True,
                "no_implicit_headers": False,
                "with_cuda": None,
            },
            {
                "name": "e",
                "cpp_sources": "int f();",
                "sycl_sources": None,
                "with_sycl": None,
                "extra_sycl_cflags": [],
            },
        ]
        for args in same:
            self.assertEqual(self.key("load_inline", args), self.key("load_inline", base), args)
        self.assertEqual(
            self.key("load_inline", dict(base, functions="f")),
            self.key("load_inline", dict(base, functions=["f"])),
        )

    def test_what_changes_the_build_changes_the_key(self):
        base = {"name": "e", "cpp_sources": ["int f();"], "functions": ["f"]}
        different = [
            dict(base, name="e2"),
            dict(base, cpp_sources=["int g();"]),
            dict(base, functions={"f": "f"}),
            dict(base, extra_cflags=["-O3"]),
            dict(base, with_cuda=True),
            dict(base, is_python_module=False),
            dict(base, with_pytorch_error_handling=False),
            dict(base, no_implicit_headers=True),
            dict(base, sycl_sources=["x"]),
        ]
        keys = {self.key("load_inline", a) for a in different}
        self.assertEqual(len(keys), len(different))
        self.assertNotIn(self.key("load_inline", base), keys)
        self.assertNotEqual(
            self.key("load", {"name": "e", "sources": ["a.cpp"]}),
            self.key("load_inline", {"name": "e", "sources": ["a.cpp"]}),
        )

    def test_canonical_form(self):
        c = hone_extbuild.canonical_args("load", {"name": "e", "sources": "a.cu", "verbose": True})
        self.assertEqual(
            c,
            {
                "name": "e",
                "sources": ["a.cu"],
                "extra_cflags": [],
                "extra_cuda_cflags": [],
                "extra_ldflags": [],
                "extra_include_paths": [],
                "with_cuda": None,
                "is_python_module": True,
                "is_standalone": False,
            },
        )

    def test_odd_runtime_values_do_not_raise(self):
        k = self.key("load_inline", {"name": "e", "cpp_sources": [object()], "x": {1: 2}})
        self.assertEqual(len(k), 64)


TORCH2_NINJA = r"""ninja_required_version = 1.3
cxx = c++
nvcc = /usr/local/cuda/bin/nvcc

cflags = -DTORCH_EXTENSION_NAME=fused -DTORCH_API_INCLUDE_EXTENSION_H -isystem /t/include -D_GLIBCXX_USE_CXX11_ABI=1 -fPIC -std=c++17 -DCOST=$$5
post_cflags =
cuda_cflags = -DTORCH_EXTENSION_NAME=fused -isystem /t/include -D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a --compiler-options '-fPIC' -O3 -std=c++17
cuda_post_cflags =
cuda_dlink_post_cflags =
sycl_dlink_post_cflags =
ldflags = -shared -L/t/lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L/usr/local/cuda/lib64 -lcudart

rule compile
  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags
  depfile = $out.d
  deps = gcc

rule cuda_compile
  depfile = $out.d
  deps = gcc
  command = $nvcc --generate-dependencies-with-compile --dependency-output $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags

rule link
  command = $cxx $in $ldflags -o $out

build main.o: compile /b/my$ dir/main.cpp
build cuda.cuda.o: cuda_compile /b/my$ dir/cuda.cu

build fused.so: link main.o cuda.cuda.o

default fused.so
"""


class NinjaTest(unittest.TestCase):
    """The plan parser on a torch 2.x ninja file (CUDA, sm_90a)."""

    def test_steps(self):
        variables, steps = hone_extbuild.steps_from_ninja(TORCH2_NINJA, "/b/my dir")
        self.assertEqual(variables["nvcc"], "/usr/local/cuda/bin/nvcc")
        self.assertEqual(
            [(s["id"], s["kind"]) for s in steps],
            [("main.o", "cxx"), ("cuda.cuda.o", "nvcc"), ("fused.so", "link")],
        )
        cxx, nvcc, link = steps
        self.assertEqual(cxx["argv"][:4], ["c++", "-MMD", "-MF", "main.o.d"])
        self.assertIn("-DCOST=$5", cxx["argv"])
        self.assertEqual(cxx["argv"][cxx["argv"].index("-isystem") + 1], "/t/include")
        self.assertEqual(cxx["argv"][-4:], ["-c", "/b/my dir/main.cpp", "-o", "main.o"])
        self.assertEqual(cxx["inputs"], ["/b/my dir/main.cpp"])
        self.assertEqual(cxx["outputs"], ["/b/my dir/main.o"])
        self.assertEqual(
            nvcc["argv"][:4],
            [
                "/usr/local/cuda/bin/nvcc",
                "--generate-dependencies-with-compile",
                "--dependency-output",
                "cuda.cuda.o.d",
            ],
        )
        self.assertIn("-gencode=arch=compute_90a,code=sm_90a", nvcc["argv"])
        i = nvcc["argv"].index("--compiler-options")
        self.assertEqual(nvcc["argv"][i + 1], "-fPIC")  # the shell removes the quotes
        self.assertEqual(link["argv"][:3], ["c++", "main.o", "cuda.cuda.o"])
        self.assertEqual(link["argv"][-2:], ["-o", "fused.so"])
        self.assertEqual(link["inputs"], ["/b/my dir/main.o", "/b/my dir/cuda.cuda.o"])


_built = {}


def built_extension():
    """Prepares ARGS and runs its steps once per process: (plan, error)."""
    if "plan" not in _built:
        d = tempfile.mkdtemp(prefix="hone-extbuild-test-")
        plan = hone_extbuild.prepare("load_inline", ARGS, d)
        error = None if plan.get("ok") else plan.get("error")
        for step in plan.get("steps", []) if error is None else []:
            p = subprocess.run(
                step["argv"], cwd=plan["build_dir"], capture_output=True, text=True, timeout=600
            )
            if p.returncode != 0:
                error = "%s failed: %s" % (step["id"], p.stdout + p.stderr)
                break
        _built.update(plan=plan, error=error, dir=d)
    return _built["plan"], _built["error"]


def import_library(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
@unittest.skipUnless(HAVE_CXX, "no C++ compiler")
class PrepareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plan, cls.error = built_extension()

    def test_plan(self):
        self.assertIsNone(self.error)
        p = self.plan
        self.assertTrue(p["ok"])
        self.assertEqual(p["key"], hone_extbuild.extension_key("load_inline", ARGS))
        self.assertEqual(p["name"], ARGS["name"])
        self.assertEqual(p["library"], os.path.join(p["build_dir"], ARGS["name"] + ".so"))
        self.assertFalse(p["with_cuda"])
        self.assertEqual(p["toolchain"]["torch"], torch.__version__)
        self.assertTrue(p["toolchain"]["cxx"])
        self.assertIsNone(p["toolchain"]["nvcc"])
        self.assertEqual([s["kind"] for s in p["steps"]], ["cxx", "link"])
        cxx = p["steps"][0]["argv"]
        self.assertIn("-DTORCH_EXTENSION_NAME=" + ARGS["name"], cxx)
        self.assertIn(os.path.join(p["build_dir"], "main.cpp"), cxx)
        self.assertIn("-ltorch_python", p["steps"][1]["argv"])

    def test_sources_written_as_load_inline_writes_them(self):
        with open(os.path.join(self.plan["build_dir"], "main.cpp")) as f:
            main = f.read()
        self.assertEqual(main.splitlines()[:2], ["#include <torch/extension.h>", CPP])
        self.assertIn('m.def("add_one", torch::wrap_pybind_function(add_one), "add_one");', main)

    def test_the_steps_build_a_working_module(self):
        self.assertIsNone(self.error)
        mod = import_library(ARGS["name"], self.plan["library"])
        self.assertEqual(mod.add_one(torch.ones(3)).tolist(), [2.0, 2.0, 2.0])

    def test_arguments_as_the_scanner_sends_them(self):
        with tempfile.TemporaryDirectory() as d:
            canonical = hone_extbuild.canonical_args("load_inline", ARGS)
            p = hone_extbuild.prepare("load_inline", canonical, d)
            self.assertTrue(p["ok"], p.get("error"))
            self.assertEqual(p["key"], self.plan["key"])

    def test_errors_are_replies(self):
        with tempfile.TemporaryDirectory() as d:
            r = hone_extbuild.prepare("load_inline", dict(ARGS, functions=3), d)
            self.assertFalse(r["ok"])
            self.assertIn("functions", r["error"])
            r = hone_extbuild.prepare("load_inline", {"cpp_sources": ""}, d)
            self.assertFalse(r["ok"])
            r = hone_extbuild.prepare("compile", ARGS, d)
            self.assertIn("unknown extension kind", r["error"])
            r = hone_extbuild.oracle_request({"op": "prepare_extension", "args": ARGS})
            self.assertIn("build_dir", r["error"])
            r = hone_extbuild.oracle_request("garbage")
            self.assertFalse(r["ok"])
            r = hone_extbuild.oracle_request(
                {"op": "prepare_extension", "kind": "load_inline", "args": ARGS, "build_dir": d}
            )
            self.assertTrue(r["ok"], r.get("error"))

    @unittest.skipIf(HAVE_TORCH and torch.version.cuda is not None, "this torch has CUDA")
    def test_cuda_sources_without_cuda_in_torch(self):
        with tempfile.TemporaryDirectory() as d:
            r = hone_extbuild.prepare(
                "load_inline", dict(ARGS, cuda_sources="__global__ void k(){}"), d
            )
            self.assertFalse(r["ok"])
            self.assertIn("CUDA", r["error"])

    def test_load_of_a_source_file(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "ext.cpp")
            with open(src, "w") as f:
                f.write("#include <torch/extension.h>\n")
            r = hone_extbuild.prepare(
                "load", {"name": "from_file", "sources": [src]}, os.path.join(d, "build")
            )
            self.assertTrue(r["ok"], r.get("error"))
            self.assertEqual(r["steps"][0]["inputs"], [src])


class FakeBuild:
    """Stands in for torch's own load_inline: records calls, or raises."""

    def __init__(self, error=None):
        self.calls = []
        self.error = error

    def __call__(
        self,
        name,
        cpp_sources,
        cuda_sources=None,
        functions=None,
        extra_cflags=None,
        extra_cuda_cflags=None,
        extra_ldflags=None,
        extra_include_paths=None,
        build_directory=None,
        verbose=False,
        with_cuda=None,
        is_python_module=True,
        with_pytorch_error_handling=True,
        keep_intermediates=True,
    ):
        self.calls.append(name)
        if self.error:
            raise self.error
        return "built:" + name


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
@unittest.skipUnless(HAVE_CXX, "no C++ compiler")
class HookTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plan, cls.error = built_extension()

    def setUp(self):
        self.real = cpp_extension.load_inline
        self.events = []

    def tearDown(self):
        hone_extbuild.uninstall_hook()
        cpp_extension.load_inline = self.real

    def test_prebuilt_import(self):
        self.assertIsNone(self.error)
        hone_extbuild.install_hook({self.plan["key"]: self.plan["library"]}, self.events)
        from torch.utils.cpp_extension import load_inline  # after install: the wrapper

        mod = load_inline(name=ARGS["name"], cpp_sources=CPP, functions="add_one", verbose=True)
        self.assertEqual(mod.add_one(torch.zeros(2)).tolist(), [1.0, 1.0])
        self.assertEqual(
            self.events, [{"name": ARGS["name"], "key": self.plan["key"], "source": "prebuilt"}]
        )
        self.assertIs(hone_extbuild.events(), self.events)

    def test_prebuilt_positional_and_non_python_module(self):
        self.assertIsNone(self.error)
        key = hone_extbuild.extension_key("load_inline", dict(ARGS, is_python_module=False))
        hone_extbuild.install_hook({key: {"library": self.plan["library"]}}, self.events)
        # Positional as far as every torch agrees (torch 2.7 put sycl_sources fourth).
        r = cpp_extension.load_inline(
            ARGS["name"], CPP, None, functions=["add_one"], is_python_module=False
        )
        self.assertIsNone(r)
        self.assertEqual(self.events[0]["source"], "prebuilt")

    def test_fallback_builds_in_the_sandbox(self):
        fake = FakeBuild()
        cpp_extension.load_inline = fake
        hone_extbuild.install_hook({"0" * 64: "/nonexistent.so"}, self.events)
        self.assertEqual(cpp_extension.load_inline("other", "int f();"), "built:other")
        self.assertEqual(fake.calls, ["other"])
        key = hone_extbuild.extension_key(
            "load_inline", {"name": "other", "cpp_sources": "int f();"}
        )
        self.assertEqual(
            self.events, [{"name": "other", "key": key, "source": "built in the sandbox"}]
        )

    def test_a_failed_build_is_recorded_and_raised(self):
        log = "\n".join("log line %d" % i for i in range(100))
        cpp_extension.load_inline = FakeBuild(
            RuntimeError("Error building extension 'bad': " + log)
        )
        hone_extbuild.install_hook({}, self.events)
        try:
            cpp_extension.load_inline(name="bad", cpp_sources="oops")
        except RuntimeError:  # a KernelBench file would swallow it here
            pass
        else:
            self.fail("the build error was not re-raised")
        error = self.events[0]["error"]
        self.assertTrue(
            error.startswith("RuntimeError: Error building extension 'bad': log " "line 0\n...\n"),
            error,
        )
        self.assertIn("log line 99", error)
        self.assertNotIn("log line 50\n", error)
        self.assertEqual(len(error.splitlines()), 32)

    def test_a_failure_hone_saw_raises_without_building(self):
        fake = FakeBuild()
        cpp_extension.load_inline = fake
        key = hone_extbuild.extension_key("load_inline", {"name": "bad", "cpp_sources": "oops"})
        hone_extbuild.install_hook(
            {key: {"error": "main.cpp:1: error: 'oops' does not name"}}, self.events
        )
        with self.assertRaises(RuntimeError) as cm:
            cpp_extension.load_inline(name="bad", cpp_sources="oops")
        self.assertIn("Error building extension 'bad'", str(cm.exception))
        self.assertIn("'oops' does not name", str(cm.exception))
        self.assertEqual(fake.calls, [])  # no compiler ran in the sandbox
        self.assertIn("'oops' does not name", self.events[0]["error"])

    def test_a_bad_call_is_recorded(self):
        cpp_extension.load_inline = FakeBuild()
        hone_extbuild.install_hook({}, self.events)
        with self.assertRaises(TypeError):
            cpp_extension.load_inline(nme="typo")
        self.assertIn("TypeError", self.events[0]["error"])

    def test_seal(self):
        self.assertIsNone(self.error)
        fake = FakeBuild()
        cpp_extension.load_inline = fake
        hone_extbuild.install_hook({self.plan["key"]: self.plan["library"]}, self.events)
        hone_extbuild.seal("the sandbox's filter is in force")
        with self.assertRaises(RuntimeError) as cm:
            cpp_extension.load_inline(name="late", cpp_sources="")
        self.assertEqual(
            str(cm.exception),
            "hone: ModelNew called load_inline('late') after its module had loaded "
            "(the sandbox's filter is in force); build extensions at import time "
            "or in __init__",
        )
        self.assertEqual(fake.calls, [])
        self.assertIn("after its module had loaded", self.events[0]["error"])
        mod = cpp_extension.load_inline(**ARGS)  # prebuilt still loads
        self.assertEqual(self.events[1]["source"], "prebuilt")
        self.assertEqual(mod.add_one(torch.zeros(1)).tolist(), [1.0])

    def test_install_twice_does_not_wrap_the_wrapper(self):
        hone_extbuild.install_hook({}, self.events)
        first = cpp_extension.load_inline.__wrapped__
        hone_extbuild.install_hook({}, self.events)
        self.assertIs(cpp_extension.load_inline.__wrapped__, first)
        self.assertIs(first, self.real)
        hone_extbuild.uninstall_hook()
        self.assertIs(cpp_extension.load_inline, self.real)


def tearDownModule():
    if "dir" in _built:
        shutil.rmtree(_built["dir"], ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
