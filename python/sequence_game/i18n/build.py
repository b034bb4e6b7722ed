"""The catalogs' tools (needs Babel): extract the messages, update the catalogs, compile them.

Run as a script, it needs nothing of the package itself (the build runs it before the package
exists)::

    python python/sequence_game/i18n/build.py extract   # messages.pot from the sources, merged into every .po
    python python/sequence_game/i18n/build.py compile SRC OUT   # each SRC/<lang>/.../*.po -> OUT/<lang>/: .mo, pages.json

Messages come from the Python (``_()``, ``ngettext()``), from the pages' scripts
(``static/*.js``: ``_()``, ``ngettext()``) and from the pages themselves (``static/*.html``: the
text between ``{{`` and ``}}``). ``pages.json`` holds the messages the scripts use.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import IO, Any, Collection, Dict, Iterator, List, Mapping, Optional, Tuple

PACKAGE = Path(__file__).resolve().parent.parent  # python/sequence_game
LOCALE = PACKAGE / "locale"
DOMAIN = "sequence_game"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
#: The Python modules a player reads from (the terminal game, the review's words) and the pages.
SOURCES = [
    ("i18n/**.py", "python"),
    ("cli/play.py", "python"),
    ("cli/common.py", "python"),
    ("cli/review.py", "python"),
    ("terminal.py", "python"),
    ("review/**.py", "python"),
    ("web/**.py", "python"),
    ("web/static/*.js", "javascript"),
    ("web/static/*.html", "html"),
]
TEMPLATE_FIELD = re.compile(r"\{\{(?!@)(.+?)\}\}", re.S)


def extract_html(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
                 options: Mapping[str, Any]) -> Iterator[Tuple[int, str, str, List[str]]]:
    """Babel extractor for the pages: each ``{{message}}`` (white space folded to one space)."""
    text = fileobj.read().decode("utf-8")
    for m in TEMPLATE_FIELD.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, "_", " ".join(m.group(1).split()), []


def extract(pot: Path = LOCALE / "messages.pot") -> None:
    """Extract every message into ``pot`` and merge it into each language's catalog."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po, write_po

    template = Catalog(project="sequence-game", charset="utf-8")
    method_map: List[Tuple[str, Any]] = [(pattern, extract_html if method == "html" else method) for pattern, method in SOURCES]
    for filename, lineno, message, comments, context in extract_from_dir(
            str(PACKAGE), method_map=method_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            options_map={}, strip_comment_tags=True):
        if message in ("", ("", "")):
            continue
        template.add(message, None, [(f"{filename}", lineno)], auto_comments=comments, context=context,
                     flags=("python-brace-format",) if "{" in (message if isinstance(message, str) else message[0]) else ())
    with pot.open("wb") as f:
        write_po(f, template, width=120, omit_header=False, sort_output=True)
    for po_path in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po_path.open("rb") as f:
            catalog = read_po(f)
        catalog.update(template, no_fuzzy_matching=True)
        with po_path.open("wb") as f:
            write_po(f, catalog, width=120, sort_output=True, ignore_obsolete=True)


def plural_tags(lang: str) -> List[str]:
    """The CLDR plural categories of ``lang`` in the order of its gettext forms (Babel writes the
    ``Plural-Forms`` header from the same rules): the pages pick a form with ``Intl.PluralRules``."""
    from babel import Locale

    tags = Locale.parse(lang).plural_form.tags | {"other"}
    return [t for t in ("zero", "one", "two", "few", "many", "other") if t in tags]


def compile_catalogs(src: Path, out: Path) -> List[str]:
    """Compile each ``src/<lang>/LC_MESSAGES/sequence_game.po`` into ``out/<lang>/``: the ``.mo``
    and ``pages.json``; returns the languages compiled."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    done = []
    for po_path in sorted(src.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        lang = po_path.parent.parent.name
        with po_path.open("rb") as f:
            catalog = read_po(f, locale=lang)
        target = out / lang / "LC_MESSAGES"
        target.mkdir(parents=True, exist_ok=True)
        with (target / f"{DOMAIN}.mo").open("wb") as f:
            write_mo(f, catalog, use_fuzzy=False)
        messages: Dict[str, Any] = {}
        for m in catalog:
            if not m.id or m.fuzzy or not any(loc.endswith(".js") for loc, _ in m.locations):
                continue
            if isinstance(m.id, (tuple, list)) and isinstance(m.string, (tuple, list)):
                if all(m.string):
                    messages[m.id[0]] = list(m.string)
            elif isinstance(m.id, str) and isinstance(m.string, str) and m.string:
                messages[m.id] = m.string
        page = {"lang": lang, "plural": plural_tags(lang), "messages": messages}
        (out / lang / "pages.json").write_text(json.dumps(page, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        done.append(lang)
    return done


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["extract"]:
        extract()
        return 0
    if args[:1] == ["compile"] and len(args) == 3:
        langs = compile_catalogs(Path(args[1]), Path(args[2]))
        print("compiled catalogs:", " ".join(langs))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
