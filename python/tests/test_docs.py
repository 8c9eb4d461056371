# SPDX-License-Identifier: MIT
"""The package documents itself: a docstring on every public name, stubs that cover them, and
help(arbor) that reads like a manual."""
import ast
import inspect
import os
import pydoc

import arbor

STUB = os.path.join(os.path.dirname(arbor.__file__), "__init__.pyi")


def test_every_public_name_has_a_docstring():
    missing = []
    for name in arbor.__all__:
        obj = getattr(arbor, name)
        if isinstance(obj, (type, type(arbor.load))) and not inspect.getdoc(obj):
            missing.append(name)
        if isinstance(obj, type) and obj.__module__ == "arbor":
            for member, value in vars(obj).items():
                if not member.startswith("_") and callable(getattr(value, "fget", value)) and not inspect.getdoc(value):
                    missing.append(f"{name}.{member}")
    assert not missing


def test_the_stubs_cover_the_public_api():
    tree = ast.parse(open(STUB).read())
    stubbed = {node.name: node for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    stubbed_vars = {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    for name in arbor.__all__:
        assert name in stubbed or name in stubbed_vars, name
        obj = getattr(arbor, name)
        if isinstance(obj, type) and not issubclass(obj, Exception):
            in_stub = {n.name for n in stubbed[name].body if isinstance(n, ast.FunctionDef)} | \
                      {n.target.id for n in stubbed[name].body if isinstance(n, ast.AnnAssign)}
            for member in vars(obj):
                if not member.startswith("_") and member not in ("code", "reason"):
                    assert member in in_stub, f"{name}.{member} is not in the stubs"


def test_help_reads_like_a_manual():
    text = pydoc.render_doc(arbor, renderer=pydoc.plaintext)
    for heading in ("Building a scene", "Many nodes at once", "Files", "Errors", "Lifetime and threads"):
        assert heading in text
    assert "class Scene" in text and "world_matrices(self, nodes=None)" in text


def test_help_lists_no_build_helper():
    """The cffi build script is not part of the installed package, so help(arbor) does not list
    it among the package's contents (nor the compiled module's lib as a submodule)."""
    import pkgutil
    text = pydoc.render_doc(arbor, renderer=pydoc.plaintext)
    assert "_build" not in {m.name for m in pkgutil.iter_modules(arbor.__path__)}
    assert "_build" not in text and "SUBMODULES" not in text


def test_the_c_api_is_named_in_one_file():
    """Only _build.py (beside the package, not installed) names arbor's C functions (its shims);
    only _lowlevel.py loads the compiled module; the other modules call the shims (lib.ap_*) and
    constants (lib.ARBOR_*)."""
    import re
    folder = os.path.dirname(arbor.__file__)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        text = open(os.path.join(folder, name)).read()
        assert not re.search(r"\barbor_[a-z0-9_]+\s*\(", text), name
        assert ("_arbor_cffi" in text) == (name == "_lowlevel.py"), name
        assert all(use.startswith(("ap_", "ARBOR_")) for use in re.findall(r"\blib\.(\w+)", text)), name
