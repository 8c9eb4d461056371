# SPDX-License-Identifier: MIT
"""Builds the arbor Python package: arbor's static library from the source tree this folder
sits in (CMake, Release, into python/build/libarbor[-HASH of ARBOR_CMAKE_ARGS]), then the cffi extension module
arbor._arbor_cffi with that library linked in, so the installed package carries what it needs
(only Debian's libjansson, libmeshoptimizer and libxml2 are loaded beside it).

Install (README.md): /usr/bin/python3 -m venv --system-site-packages .venv &&
.venv/bin/pip install --no-build-isolation --no-index ./python

Environment: ARBOR_SOURCE_DIR (arbor's source tree; default: this folder's parent),
ARBOR_CMAKE_ARGS (more CMake arguments, e.g. -DARBOR_DOUBLE=ON), ARBOR_JOBS (build jobs).
"""
import glob
import hashlib
import os
import re
import shlex
import subprocess

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.environ.get("ARBOR_SOURCE_DIR", os.path.join(HERE, "..")))
EXTRA_CMAKE_ARGS = shlex.split(os.environ.get("ARBOR_CMAKE_ARGS", ""))
# One build folder per set of extra arguments, so that a double build never lingers in a float one.
LIBRARY_BUILD = os.path.join(HERE, "build", "libarbor" + ("-" + hashlib.sha1(" ".join(EXTRA_CMAKE_ARGS).encode())
                                                          .hexdigest()[:8] if EXTRA_CMAKE_ARGS else ""))

# _build.py reads the include folders when setup() imports it (cffi_modules).
os.environ["ARBOR_INCLUDE_DIRS"] = os.pathsep.join(
    [os.path.join(SOURCE, "include"), os.path.join(LIBRARY_BUILD, "include")])


def arbor_version():
    text = open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8").read()
    return re.search(r"project\(arbor\s+VERSION\s+([0-9.]+)", text).group(1)


class BuildWithLibrary(build_ext):
    """Builds libarbor's static archives with CMake first, then links them into the extension."""

    def run(self):
        jobs = os.environ.get("ARBOR_JOBS", str(os.cpu_count() or 2))
        # The flags of bench/run, so that bench/python compares like with like.
        subprocess.check_call(["cmake", "-S", SOURCE, "-B", LIBRARY_BUILD, "-DCMAKE_BUILD_TYPE=Release",
                               "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG", "-DARBOR_BUILD_TESTS=OFF",
                               "-DARBOR_BUILD_TOOLS=OFF"] + EXTRA_CMAKE_ARGS)
        subprocess.check_call(["cmake", "--build", LIBRARY_BUILD, "-j", jobs])
        # Every libarbor*.a (libarbor-gltf.a and libarbor-urdf.a beside libarbor.a; 64 in their
        # names in a double build): the core last, since the others call into it.
        archives = sorted(glob.glob(os.path.join(LIBRARY_BUILD, "libarbor*.a")),
                          key=lambda p: os.path.basename(p) in ("libarbor.a", "libarbor64.a"))
        if not archives:
            raise RuntimeError("arbor: the CMake build made no libarbor*.a in " + LIBRARY_BUILD)
        packages = subprocess.check_output(["pkg-config", "--libs", "jansson", "libxml-2.0"], text=True).split()
        # The headers see arbor_real as the library does through ARBOR_REAL_IS_DOUBLE (a double
        # build writes arbor64.pc); the other precision's library would not link.
        double = os.path.exists(os.path.join(LIBRARY_BUILD, "arbor64.pc"))
        for ext in self.extensions:
            ext.extra_objects = archives
            ext.extra_link_args = packages + ["-lmeshoptimizer", "-lm", "-lpthread"]
            ext.define_macros = [("ARBOR_REAL_IS_DOUBLE", "1" if double else "0")]
        # Always compiled and linked again (seconds): the build folder setuptools keeps is the
        # same for every library build, and its timestamps cannot tell a float one from a double.
        self.force = True
        super().run()


setup(
    name="arbor",
    version=arbor_version(),
    description="Scene graphs (transform hierarchies) with numpy arrays, on arbor's C library",
    license="MIT",
    packages=["arbor"],
    package_data={"arbor": ["*.pyi", "py.typed"]},
    python_requires=">=3.9",
    install_requires=["numpy", "cffi>=1.15"],
    cffi_modules=["_build.py:ffibuilder"],
    cmdclass={"build_ext": BuildWithLibrary},
    zip_safe=False,
)
