"""The measurement suites: a module each, named as the suite, whose ``SUITE``
is a :class:`benchmarks.harness.Suite`."""
