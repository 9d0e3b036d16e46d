"""Bundled data of fabricviz (not code): part catalog, demo fabrics, lessons, icons.

This folder is the top-level ``assets/`` of the repository; setuptools installs
it as the package ``fabricviz.assets`` (see pyproject.toml). Find files in it
with ``fabricviz.resources.asset_path``.
"""
