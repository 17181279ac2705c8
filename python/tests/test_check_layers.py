"""Tests for scripts/check-layers' reading of python/ (PYTHON_LAYERS): a
module that imports what its layer may not, a language's package imported
outside its own modules, an import cycle and an undeclared module are each
reported; the tree as it is has none.

Run: python3 -m unittest discover -s python/tests -p 'test_check_layers.py'
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_check_layers():
    path = os.path.join(ROOT, "scripts", "check-layers")
    loader = importlib.machinery.SourceFileLoader("check_layers", path)
    spec = importlib.util.spec_from_loader("check_layers", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class CheckLayersPythonTest(unittest.TestCase):
    def setUp(self):
        self.layers = load_check_layers()
        self.tmp = tempfile.mkdtemp(prefix="hone-check-layers-")
        shutil.copytree(
            os.path.join(ROOT, "python"),
            os.path.join(self.tmp, "python"),
            ignore=shutil.ignore_patterns("tests", "__pycache__"),
        )

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            problems, _ = self.layers.check_python(self.tmp)
        return problems, out.getvalue()

    def append(self, module, text):
        with open(os.path.join(self.tmp, "python", module + ".py"), "a") as f:
            f.write("\n" + text + "\n")

    def test_the_tree_as_it_is_passes(self):
        self.assertEqual(self.check(), (0, ""))

    def test_a_language_part_may_not_import_the_runner(self):
        self.append("hone_lang_triton", "import hone_compat")
        problems, out = self.check()
        self.assertEqual(problems, 1, out)
        self.assertIn("hone_lang_triton.py", out)
        self.assertIn("imports hone_compat", out)

    def test_only_triton_modules_import_triton(self):
        self.append("hone_compat", "import triton.language as tl")
        problems, out = self.check()
        self.assertEqual(problems, 1, out)
        self.assertIn("imports triton", out)

    def test_a_cycle_and_an_undeclared_module_are_reported(self):
        self.append("hone_pylint", "import hone_pyscan")
        with open(os.path.join(self.tmp, "python", "hone_new.py"), "w") as f:
            f.write("")
        problems, out = self.check()
        self.assertIn("import cycle hone_pylint <-> hone_pyscan", out)
        self.assertIn("hone_new.py is not in PYTHON_LAYERS", out)
        self.assertEqual(problems, 3, out)


if __name__ == "__main__":
    unittest.main()
