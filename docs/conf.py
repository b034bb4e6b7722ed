"""Sphinx configuration: the docs/ pages (Markdown, via MyST) and the API reference from the docstrings.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (the package must be installed: autodoc
imports it, and ``release`` is its ``__version__``).
"""

import sequence_game

project = "sequence-game"
author = "The sequence-game authors"
copyright = "2026, " + author
release = sequence_game.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Markdown: anchors for headings down to ###, so links such as rules.md#digital-conventions resolve.
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"sequence-game {release}"
