"""The research build's Python: what goes with the search options that measured no gain
(docs/research/), here the learned evaluation's model file (:mod:`.learned_eval`; its fit is
``sequence-game fit-eval``, :mod:`sequence_game.training.fit_eval`, which imports it).

Like those options, it needs the research build of the compiled core (CMake ``SEQUENCE_RESEARCH``,
``build_info()["research"]``): in a product build importing it raises ``ImportError`` saying how to
get one.
"""

from __future__ import annotations

from .._core import build_info

if not build_info().get("research"):
    raise ImportError("sequence_game.research is part of the research build: build with -DSEQUENCE_RESEARCH=ON "
                      "(pip install . -C cmake.define.SEQUENCE_RESEARCH=ON; docs/research/learned-evaluation.md)",
                      name=__name__)
