"""The languages (docs/i18n.md): every message translated in every catalog with the same fields,
the glossary's words used, no words a player reads outside the catalogs (the pages, their scripts,
the terminal game), how a language is chosen, and the catalogs as the build compiles them."""

from __future__ import annotations

import gettext
import io
import json
import re
from pathlib import Path

import pytest

babel = pytest.importorskip("babel")

from babel.messages.pofile import read_po  # noqa: E402
from sequence_game import i18n  # noqa: E402
from sequence_game.i18n import build  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "python" / "sequence_game" / "locale"
STATIC = ROOT / "python" / "sequence_game" / "web" / "static"
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
FIELD = re.compile(r"\{(\w*)\}")


def _catalog(lang):
    with (LOCALE / lang / "LC_MESSAGES" / "sequence_game.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """Every message of the sources, extracted now (as ``build.py extract`` does)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    cat = Catalog()
    method_map = [(p, build.extract_html if m == "html" else m) for p, m in build.SOURCES]
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(build.PACKAGE), method_map=method_map, keywords=build.KEYWORDS, options_map={}):
        cat.add(message, None, [(filename, lineno)])
    return cat


def _key(message_id):
    return message_id[0] if isinstance(message_id, tuple) else message_id


def test_every_language_has_a_catalog_and_a_menu_entry():
    on_disk = sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/sequence_game.po"))
    assert on_disk == sorted(TRANSLATED)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang, template):
    cat = _catalog(lang)
    ids = {_key(m.id) for m in template if m.id}
    assert len(ids) > 300  # the extraction found the pages, the scripts and the terminal
    have = {_key(m.id): m for m in cat if m.id}
    missing = sorted(ids - set(have))
    assert not missing, f"{lang}: {len(missing)} messages not in the catalog (build.py extract), e.g. {missing[:5]}"
    stale = sorted(set(have) - ids)
    assert not stale, f"{lang}: messages no source uses any more: {stale[:5]}"
    for key, m in have.items():
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strings) and not m.fuzzy, f"{lang}: {key!r} is not translated"
        assert len(strings) == (cat.num_plurals if m.pluralizable else 1), f"{lang}: {key!r} has the wrong number of forms"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_match(lang):
    for m in _catalog(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        wanted = set().union(*(FIELD.findall(i) for i in ids))
        for s in (m.string if isinstance(m.string, tuple) else (m.string,)):
            got = set(FIELD.findall(s))
            # a singular form may leave out {n} ("Winner: {winners}."): no field that is not the message's
            assert got <= wanted and wanted - got <= {"n"} and (got == wanted or m.pluralizable), (lang, m.id, s)
        assert s.count("{") == s.count("}"), (lang, m.id)


def _glossary(lang):
    rows = []
    for line in (ROOT / "docs" / "i18n" / f"glossary-{lang}.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].startswith("`") and cells[1].endswith("`"):
            rows.append((re.compile(cells[1].strip("`")), [w.strip() for w in cells[2].split(" / ")]))
    return sorted(rows, key=lambda r: -len(r[0].pattern))  # the longer terms first


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_glossary_terms_are_used(lang):
    rows = _glossary(lang)
    assert len(rows) >= 15
    misses = []
    for m in _catalog(lang):
        if not m.id:
            continue
        english = FIELD.sub("", " ".join(m.id if isinstance(m.id, tuple) else (m.id,)))
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for pattern, words in rows:
            if pattern.search(english):
                for s in strings:
                    if not any(w.lower() in s.lower() for w in words):
                        misses.append((m.id, pattern.pattern, s))
                english = pattern.sub(" ", english)  # a longer term's words are not checked again
    assert not misses, f"{lang}: {len(misses)} translations without the glossary's word, e.g. {misses[:3]}"


def test_the_glossary_terms_come_from_the_rule_documents_words():
    """Each language's glossary names the rule documents' words for the jacks (the terms that differ
    most between translations)."""
    assert {p.pattern: w for p, w in _glossary("ja")}[r"\btwo-eyed jacks?\b"] == ["両目のジャック"]
    assert {p.pattern: w for p, w in _glossary("ko")}[r"\bone-eyed jacks?\b"] == ["옆을 보는 잭"]
    assert {p.pattern: w for p, w in _glossary("es")}[r"\bcards?\b"] == ["naipe"]


# ---------------------------------------------------------------- nothing outside the catalogs

def test_pages_have_no_words_outside_the_catalogs():
    """Every word a page shows is a ``{{message}}``: text between the tags, and the attributes a
    person reads (title, placeholder, alt, aria-label). Key caps (``<span class="kbd">``) are keys."""
    for page in sorted(STATIC.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert '<html lang="{{@lang}}">' in text, page.name
        assert "{{@catalog}}" in text and "/static/i18n.js" in text, page.name
        body = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
        body = re.sub(r"\{\{.*?\}\}", " ", body, flags=re.S)
        for attr in re.findall(r'\b(?:title|placeholder|alt|aria-label)="([^"]*)"', body):
            assert not re.search(r"[A-Za-z]", attr), (page.name, attr)
        body = re.sub(r'<span class="kbd">[^<]*</span>', " ", body)
        body = re.sub(r"<title>.*?</title>", " ", body, flags=re.S)
        words = re.findall(r"[A-Za-z]{2,}", re.sub(r"<[^>]*>", " ", body).replace("&larr;", "").replace("&rarr;", "")
                           .replace("&uarr;", "").replace("&darr;", "").replace("&lt;", "").replace("&gt;", "")
                           .replace("&middot;", ""))
        assert not words, (page.name, words[:10])


def _js_literals(source):
    """The string and template literals of a script, comments left out: (text, the code before it),
    the code before an ngettext's plural being its singular's."""
    out, i, n, singular_before, singular_end = [], 0, len(source), None, 0
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'`":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            before = source[max(0, i - 40):i]
            if singular_before is not None and re.fullmatch(r"\s*,\s*", source[singular_end:i]):
                before = singular_before  # the plural of ngettext("...", "...")
            out.append((source[i + 1:j], before))
            singular_before, singular_end = (before, j + 1) if re.search(r"\bngettext\(\s*$", before) else (None, 0)
            i = j + 1
        elif c == "/" and re.search(r"[(=,:!&|?;{}]\s*$", source[max(0, i - 20):i]):  # a regular expression
            j = i + 1
            while source[j] != "/":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


#: Where a script puts text on the page: a literal right after one of these is text a person reads.
SINK = re.compile(r"(textContent\s*=|innerHTML\s*=|placeholder\s*=|title\s*=|\bsay\(|\bconfirm\(|\bprompt\(|\balert\("
                  r"|new Option\(|new Error\(|\.append\(|aria-label\",\s*)\s*$")


def test_scripts_have_no_words_outside_the_catalogs():
    """No literal of a page's script that a person reads is outside ``_()`` / ``ngettext()``: no
    literal of two or more words, and no literal with a word that goes straight onto the page."""
    found = []
    for script in sorted(STATIC.glob("*.js")):
        for text, before in _js_literals(script.read_text(encoding="utf-8")):
            if re.search(r"\b(_|ngettext)\(\s*$", before) or text == "use strict":
                continue
            if re.search(r"(\bclass(Name)?\s*[:=][^;]*|classList\.\w+\()\s*$", before):  # CSS classes
                continue
            plain = re.sub(r"\$\{[^}]*\}", " ", text)
            if re.match(r"^[#.\[]", plain) or "/" in plain:  # a CSS selector, a path or a URL
                continue
            words = re.findall(r"[A-Za-z]{2,}", plain)
            two = re.search(r"[A-Za-z]{2,}[,:;!?]?\s+[A-Za-z]{2,}", plain)
            if two or (words and SINK.search(before)):
                found.append((script.name, text))
    assert not found, "\n".join(map(repr, found))


def test_the_terminal_game_speaks_the_language(monkeypatch, capsys):
    """The terminal game in Japanese: its intro, the board's status lines, the legal moves, a hint,
    the help and the messages: no English word a player reads (the commands stay as typed)."""
    from sequence_game.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("?\nhint\nhelp\nboard\n9X\nzz\nundo\nquit\n"))
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    try:
        assert main(["play", "--seed", "5", "--ai", "level:1", "--no-color"]) == 0
    finally:
        i18n.activate(None)
    out = capsys.readouterr().out
    assert "シークエンス" in out and "ヒント" in out and "山札" in out and "手札" in out
    commands = {"help", "hint", "board", "undo", "quit", "pass", "trade", "zz"}
    # cards and moves are written in the notation the commands take (7H, JSxe5, trade 7H)
    words = re.sub(r"\b[2-9TJQKA][SHDC](?:[@x][a-j]\d+(?: =[a-j]\d+-[a-j]\d+)*)?\b", " ", out)
    english = [w for w in re.findall(r"[A-Za-z]{2,}", words) if w not in commands]
    assert not english, english[:20]


def test_the_lang_option_overrides_the_environment(monkeypatch, capsys):
    from sequence_game.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    try:
        assert main(["play", "--seed", "5", "--ai", "level:1", "--no-color", "--lang", "es"]) == 0
    finally:
        i18n.activate(None)
    out = capsys.readouterr().out
    assert "se deja la partida" in out and "シークエンス" not in out


# ---------------------------------------------------------------- choosing a language

@pytest.mark.parametrize(("header", "lang"), [
    ("ja,en;q=0.8", "ja"), ("en-US,en;q=0.9,ko;q=0.8", "en"), ("fr-FR,es;q=0.5", "es"), ("ko-KR", "ko"),
    ("", "en"), (None, "en"), ("de", "en"), ("es;q=0, ja;q=0.1", "ja"), ("*", "en"), ("ja;q=abc,ko", "ko"),
    ("x" * 5000, "en"),
])
def test_accept_language(header, lang):
    assert i18n.negotiate(header) == lang


@pytest.mark.parametrize(("env", "lang"), [
    ({"LANG": "ja_JP.UTF-8"}, "ja"), ({"LANG": "ko_KR.UTF-8"}, "ko"), ({"LC_ALL": "es_MX.UTF-8", "LANG": "ja_JP"}, "es"),
    ({"LANG": "C.UTF-8"}, "en"), ({"LANG": "fr_FR.UTF-8"}, "en"), ({}, "en"),
    ({"LANGUAGE": "de:ko", "LANG": "ja_JP"}, "ko"), ({"LC_ALL": "POSIX", "LANG": "ja_JP"}, "en"),
])
def test_the_terminal_follows_the_locale(env, lang):
    assert i18n.from_environment(env) == lang


def test_an_unknown_language_is_english():
    assert i18n.normalize("zz") is None
    assert i18n.translation("zz").gettext("Hint") == "Hint"
    assert json.loads(i18n.page_catalog("zz"))["messages"] == {}


# ---------------------------------------------------------------- the compiled catalogs

def test_the_build_compiles_every_catalog(tmp_path):
    """``build.py compile`` (the build's step) writes the .mo gettext reads and the pages' JSON;
    plural forms come from CLDR (Spanish has a form for millions)."""
    langs = build.compile_catalogs(LOCALE, tmp_path)
    assert sorted(langs) == sorted(TRANSLATED)
    for lang in TRANSLATED:
        with (tmp_path / lang / "LC_MESSAGES" / "sequence_game.mo").open("rb") as f:
            t = gettext.GNUTranslations(f)
        assert t.gettext("How to play") != "How to play"
        page = json.loads((tmp_path / lang / "pages.json").read_text(encoding="utf-8"))
        assert page["lang"] == lang and page["plural"][-1] == "other"
        assert "Hint: {move}" in page["messages"] and "How to play" not in page["messages"]  # only the scripts'
    with (tmp_path / "es" / "LC_MESSAGES" / "sequence_game.mo").open("rb") as f:
        es = gettext.GNUTranslations(f)
    assert [es.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (1, 2, 1_000_000)] == \
        ["1 naipe", "2 naipes", "1000000 naipes"]
    assert json.loads((tmp_path / "es" / "pages.json").read_text(encoding="utf-8"))["plural"] == ["one", "many", "other"]
    with (tmp_path / "ja" / "LC_MESSAGES" / "sequence_game.mo").open("rb") as f:
        ja = gettext.GNUTranslations(f)
    assert ja.ngettext("{n} card", "{n} cards", 1) == ja.ngettext("{n} card", "{n} cards", 5) == "カード{n}枚"


def test_the_installed_catalogs_are_the_built_ones():
    """The package found its compiled catalogs (the build installed them): the player reads the
    language, not the English fallback."""
    assert i18n.translation("ko").gettext("How to play") == "게임 방법"
    assert json.loads(i18n.page_catalog("ja"))["messages"]["Hint: {move}"] == "ヒント\uff1a{move}"
