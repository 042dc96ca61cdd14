"""Packages for setuptools (the metadata is in pyproject.toml): the five packages with their
data folders (templates, static, recordings: namespace packages to setuptools), and the
benchmarks of bench/ as `icetable.bench`, so that `icetable bench` finds them in an install."""
from setuptools import find_namespace_packages, setup

PACKAGES = find_namespace_packages(include=["icetable*", "referee*", "vision*", "calibration*", "webapp*"])

setup(packages=PACKAGES + ["icetable.bench"], package_dir={"icetable.bench": "bench"})
