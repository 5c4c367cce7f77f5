"""Build hook for the Cython kernels; all metadata lives in setup.cfg.

Every ``.pyx`` file under ``ggp/`` and ``players/`` becomes an extension module of
the same dotted name, compiled with numpy's headers, on every core (Cython's
translation and the C compiler alike: the install is most of CI's first minutes).
"""

import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup


def _extensions():
    here = Path(__file__).parent
    sources = sorted(
        p.relative_to(here) for pkg in ("ggp", "players") for p in (here / pkg).rglob("*.pyx")
    )
    return [
        Extension(
            ".".join(src.with_suffix("").parts),
            [str(src)],
            include_dirs=[numpy.get_include()],
            extra_compile_args=["-O3"],
        )
        for src in sources
    ]


CORES = os.cpu_count() or 1

setup(
    ext_modules=cythonize(_extensions(), language_level=3, quiet=True, nthreads=CORES),
    options={"build_ext": {"parallel": CORES}},
)
