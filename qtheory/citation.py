"""How to cite the companion, one of its result pages, and the papers it reproduces.

Every record comes from one source and is never typed twice:

- the book (the software): ``CITATION.cff`` at the top of the repository, plus the code's
  exact state: the git commit of the checkout (:func:`software_commit`) and its Software
  Heritage identifier (:func:`swhid`), and the repository's URL when one is configured
  (:func:`qtheory.pagebox.repository_url`);
- a result page: the book's record plus the page's title (as plain text,
  :func:`bibtex_text`), its manifest ID(s) and the commit its results were computed from;
- a paper: its entry in ``book/references.bib`` whose DOI is the link of the paper's
  ``PAPER`` record (``qtheory/<part>/items/__init__.py``), i.e. the published version; when
  the record says the book's numbering follows another version with its own entry (paper R:
  arXiv:2005.14566), that entry too (:func:`numbering_entry`).

:func:`bibtex` returns any of them as BibTeX, :func:`cite_box` the MyST Markdown of a
"Cite this" box for a page, and :func:`zenodo_metadata` the content of ``.zenodo.json``
(written by ``python -m qtheory.citation zenodo``; ``tests/test_citation.py`` checks that
the file agrees with ``CITATION.cff``). Outside a checkout (an installed wheel) the copies
of ``CITATION.cff`` and ``references.bib`` that the wheel ships are read.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

from . import manifest
from .errors import ParameterError
from .results import project_root

__all__ = ["bibtex", "bibtex_text", "cite_box", "citation_record", "numbering_entry", "page_box",
           "paper_entries", "software_commit", "swhid", "zenodo_metadata"]

#: the distribution name on the package index (``qtheory`` there is another project)
DISTRIBUTION = "qtheory-companion"
#: the BibTeX key of the book; a page's key is ``<BOOK_KEY>:<ID>``
BOOK_KEY = "qtheory-companion"

_SHIPPED = Path(__file__).resolve().parent / "_data"
#: the folder above the package: a git checkout when the package runs from one (not in a wheel)
_CHECKOUT = Path(__file__).resolve().parents[1]
_HEX40 = re.compile(r"[0-9a-f]{40}")


def _source(relative: str, shipped: str) -> Path:
    """`relative` under the project folder, else in the package's own checkout, else the copy the
    wheel ships as `shipped`."""
    own = project_root() / relative
    if own.exists():
        return own
    # the package's own checkout (a results project elsewhere, QTHEORY_PROJECT, cites the companion)
    checkout = Path(__file__).resolve().parents[1] / relative
    if checkout.exists():
        return checkout
    copy = _SHIPPED / shipped
    if copy.exists():
        return copy
    raise ParameterError(f"{relative} not found in {project_root()} (nor shipped with the package): run from "
                         f"the repository or set QTHEORY_PROJECT to it")


@lru_cache(maxsize=None)
def _cff(path: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML reads an unquoted date as a date: keep the text, as CFF means it
    if "date-released" in data:
        data["date-released"] = str(data["date-released"])
    return data


def citation_record() -> dict[str, Any]:
    """``CITATION.cff`` as a dict (dates as ``YYYY-MM-DD`` strings)."""
    return dict(_cff(_source("CITATION.cff", "CITATION.cff")))


# --- the code's exact state -----------------------------------------------------------

def software_commit() -> str | None:
    """The commit the package runs from: ``git rev-parse HEAD`` of its checkout (40 hex digits).

    None outside a git checkout (an installed wheel, an unpacked source archive), without a
    ``git`` program, or when git fails: the citations then name the version only. Uncommitted
    changes in the checkout are not detected (the commit is the code's last committed state).
    """
    if not (_CHECKOUT / ".git").exists():  # a folder (a clone) or a file (a worktree)
        return None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=_CHECKOUT, capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and _HEX40.fullmatch(commit) else None


def swhid(commit: str) -> str:
    """The Software Heritage identifier of a git commit: ``swh:1:rev:<commit>``.

    A SWHID of a revision is the commit's own SHA-1 (Software Heritage hashes a revision as git
    does), so it is computed offline and names the exact code whether or not the repository is
    public or archived yet; https://archive.softwareheritage.org/<swhid> resolves it once it is.

    Parameters
    ----------
    commit : str
        The full commit hash, 40 hexadecimal digits (``git rev-parse HEAD``).
    """
    if not isinstance(commit, str) or not _HEX40.fullmatch(commit):
        raise ParameterError(f"`commit` must be a full git commit hash, 40 lowercase hexadecimal digits "
                             f"(got {commit!r})")
    return f"swh:1:rev:{commit}"


def _code_state(version: Any, commit: str | None) -> tuple[str, str | None]:
    """``(words, swhid)``: "version 1.0.0, git commit <hash>" for the ``note`` that classic BibTeX
    styles print, and the SWHID for the ``swhid`` field (None without a full commit hash)."""
    words = ", ".join(x for x in (f"version {version}" if version else "", f"git commit {commit}" if commit else "")
                      if x)
    return words, swhid(commit) if commit and _HEX40.fullmatch(commit) else None


# --- plain text for BibTeX ------------------------------------------------------------

#: TeX commands of the titles written otherwise than by their names (``\\lambda`` is ``lambda``)
_TEX_WORDS = {"varepsilon": "epsilon", "varphi": "phi", "vartheta": "theta", "ell": "l", "infty": "infinity",
              "dots": "...", "ldots": "...", "cdots": "..."}
#: relations and operators, as words between spaces
_TEX_RELATIONS = {"le": "at most", "leq": "at most", "ge": "at least", "geq": "at least", "neq": "not equal to",
                  "ne": "not equal to", "Leftrightarrow": "iff", "iff": "iff", "Rightarrow": "implies",
                  "to": "to", "rightarrow": "to", "times": "x", "cdot": "", "in": "in", "approx": "about",
                  "sim": "distributed as", "mid": "given"}
#: commands whose argument is shown as it is (the font changes)
_TEX_FONTS = {"mathrm", "mathcal", "mathbf", "mathit", "mathsf", "mathbb", "mathscr", "text", "textrm", "textit",
              "textbf", "operatorname", "boldsymbol"}
#: relations written as words (``<`` and ``>`` are ¡ and ¿ in LaTeX's default OT1 text fonts)
_RELATION_WORDS = {"<": "less than", ">": "greater than"}
#: characters special to LaTeX in text, as LaTeX escapes that BibTeX consumers decode (pybtex, latexcodec)
_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$", "^": r"\^{}", "~": r"\~{}",
                  "{": "(", "}": ")", "|": "/", "\\": "/", "`": "'"}
_ATOM = re.compile(r"[A-Za-z0-9.*]+|-?[0-9.]+")


def _tex_argument(tex: str, at: int) -> tuple[str, int]:
    """The argument of a command or a sub/superscript starting at `at`: a braced group's content,
    a command (with its own argument, for a font change), or one character; and where it ends."""
    while at < len(tex) and tex[at] == " ":
        at += 1
    if at >= len(tex):
        return "", at
    if tex[at] == "{":
        depth, k = 0, at
        while k < len(tex):
            if tex[k] == "\\":
                k += 2
                continue
            depth += {"{": 1, "}": -1}.get(tex[k], 0)
            if depth == 0:
                return tex[at + 1:k], k + 1
            k += 1
        return tex[at + 1:], len(tex)  # unbalanced: the rest
    if tex[at] == "\\":
        found = re.match(r"\\([A-Za-z]+|.?)", tex[at:])
        end = at + found.end()
        if found.group(1) in _TEX_FONTS:
            _, end = _tex_argument(tex, end)
        return tex[at:end], end
    return tex[at], at + 1


def _one_group(text: str) -> bool:
    """Whether `text` is one parenthesised group, "(a, b)" (not "(a) / (b)")."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for k, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and k < len(text) - 1:
            return False
    return True


def _tex_words(tex: str) -> str:
    """TeX mathematics (no delimiters) as LaTeX-safe plain text (see :func:`bibtex_text`)."""
    out: list[str] = []

    def word(text: str) -> None:  # a word after a letter or digit is a new word: n\rho -> "n rho"
        if text[:1].isalpha() and out and out[-1][-1:].isalnum():
            out.append(" ")
        out.append(text)

    at = 0
    while at < len(tex):
        char = tex[at]
        if char == "\\":
            found = re.match(r"\\([A-Za-z]+|.?)", tex[at:])
            name, at = found.group(1), at + found.end()
            if name in ("{", "}"):  # set braces
                out.append("(" if name == "{" else ")")
            elif not name.isalpha():  # \, \; \! \  and the like: spacing
                out.append(" ")
            elif name in _TEX_FONTS:
                argument, at = _tex_argument(tex, at)
                word(_tex_words(argument))
            elif name in _TEX_RELATIONS:
                out.append(f" {_TEX_RELATIONS[name]} ")
            else:
                word(_TEX_WORDS.get(name, name))
        elif char in "_^":
            argument, at = _tex_argument(tex, at + 1)
            inner = re.sub(r"\s+", " ", _tex_words(argument)).strip()
            if char == "^" and inner == "*":
                out.append("*")  # T^*: the star as plain text writes it
                continue
            if not (_ATOM.fullmatch(inner) or _one_group(inner)):
                inner = f"({inner})"
            out.append((r"\_" if char == "_" else r"\^{}") + inner)
        elif char == "{":
            argument, at = _tex_argument(tex, at)
            out.append(_tex_words(argument))
        elif char in _RELATION_WORDS:
            out.append(f" {_RELATION_WORDS[char]} ")
            at += 1
        else:
            out.append(_LATEX_ESCAPES.get(char, char))
            at += 1
    return "".join(out)


def _markdown_words(text: str) -> str:
    """Markdown text (no mathematics) as LaTeX-safe plain text: emphasis, code spans and links
    as their words, LaTeX's special characters escaped."""
    text = re.sub(r"`+([^`]*?)`+", r"\1", text)  # a code span: its text
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link or an image: its text
    text = re.sub(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])", r"\2", text)  # *this*, **this**, _this_
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!$&%<>|~^])", lambda m: "\x00" + m.group(1), text)  # Markdown's escapes
    out = []
    for k, char in enumerate(text):
        if char == "\x00":
            continue
        if char in _RELATION_WORDS:
            out.append(f" {_RELATION_WORDS[char]} ")
        else:
            out.append(_LATEX_ESCAPES.get(char, char))
    return "".join(out)


def bibtex_text(text: str) -> str:
    """A page title (Markdown with ``$...$`` or ``\\(...\\)`` mathematics) as plain text for a BibTeX field.

    The text must read the same in every consumer of a ``.bib`` file: BibTeX or biber with
    pdfLaTeX in its default fonts, the book's own pybtex (sphinxcontrib-bibtex), and reference
    managers that read fields as text. Mathematics in ``$...$`` would be the TeX way, but a
    reference manager shows it raw and it does not belong in a title one reads as words; Unicode
    (``λ``) stops pdfLaTeX ("Unicode character not set up for use with LaTeX") unless the
    document loads Greek fonts. So the title is written in ASCII words:

    - Greek letters by their names (``$\\lambda = 0.9$`` -> ``lambda = 0.9``), font changes as
      their letters (``\\mathrm{Exp}(1)`` -> ``Exp(1)``, ``\\mathcal{T}`` -> ``T``);
    - relations in words (``<`` -> ``less than``, ``\\le`` -> ``at most``, ``\\neq`` -> ``not equal
      to``, ``\\Leftrightarrow`` -> ``iff``): ``<`` and ``>`` are ``¡`` and ``¿`` in LaTeX's default
      (OT1) text fonts;
    - subscripts and superscripts as plain-text mathematics writes them, ``_`` and ``^`` escaped for
      LaTeX (``\\_``, ``\\^{}``, which pybtex and latexcodec also decode), a group of several symbols
      in parentheses: ``Q_{\\{1,2\\}}`` -> ``Q\\_(1,2)`` (shown ``Q_(1,2)``), ``10^{-4}`` ->
      ``10\\^{}-4``, ``q_{m,1}^N`` -> ``q\\_(m,1)\\^{}N``; a superscript star stays a star
      (``\\mathcal{T}^*`` -> ``T*``);
    - Markdown emphasis, code spans and links as their words (``how far is *this* graph`` ->
      ``how far is this graph``), and ``& % # _ $`` escaped;
    - braces, of a set (``\\{1,2\\}``) or of the text, as parentheses: ``\\{`` is LaTeX's brace, but
      pybtex, which sets the book's own bibliography, drops its backslash and reads a group.

    The only backslashes of the result are these escapes (``\\_ \\^{} \\& \\% \\# \\$ \\~{}``).
    """
    parts = re.split(r"(\$[^$]+\$|\\\(.*?\\\))", text)
    out = "".join(_tex_words(p[1:-1] if p.startswith("$") else p[2:-2]) if k % 2 else _markdown_words(p)
                  for k, p in enumerate(parts))
    out = re.sub(r"\s+", " ", out)
    return re.sub(r"\(\s+", "(", re.sub(r"\s+([),])", r"\1", out)).strip()


# --- BibTeX ---------------------------------------------------------------------------

def _bib_person(person: dict[str, Any]) -> str:
    if "family-names" in person:
        particle = f"{person['name-particle']} " if person.get("name-particle") else ""
        given = f", {person['given-names']}" if person.get("given-names") else ""
        return f"{particle}{person['family-names']}{given}"
    return "{" + person["name"] + "}"  # an entity: braced, so no style splits it into names


def _entry(kind: str, key: str, fields: Sequence[tuple[str, Any]]) -> str:
    width = max(len(name) for name, value in fields if value not in (None, ""))
    lines = [f"  {name.ljust(width)} = {{{value}}}" for name, value in fields if value not in (None, "")]
    return f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}\n"


def _book_fields(cff: dict[str, Any]) -> dict[str, Any]:
    from .pagebox import repository_url

    return {"author": " and ".join(_bib_person(a) for a in cff["authors"]),
            "year": str(cff.get("date-released", ""))[:4] or None,
            "version": cff.get("version"),
            "doi": cff.get("doi"),
            # the configured repository (qtheory_repository, $QTHEORY_REPOSITORY), else CITATION.cff's
            "url": repository_url() or cff.get("repository-code") or cff.get("url"),
            "howpublished": "In: {" + bibtex_text(cff["title"]) + "}"
                            + (f", version {cff['version']}" if cff.get("version") else "")}


def _book_bibtex(cff: dict[str, Any], commit: str | None = None) -> str:
    """The book's ``@software`` entry at `commit` (default: :func:`software_commit`).

    The version, the commit and its SWHID are in ``note`` (the field classic BibTeX styles
    print) and the SWHID also in ``swhid`` (biblatex-software's field)."""
    f = _book_fields(cff)
    state, identifier = _code_state(f["version"], commit or software_commit())
    return _entry("software", BOOK_KEY, [
        ("title", "{" + bibtex_text(cff["title"]) + "}"), ("author", f["author"]), ("year", f["year"]),
        ("version", f["version"]), ("license", cff.get("license")), ("doi", f["doi"]), ("url", f["url"]),
        ("swhid", identifier), ("note", f"Python package {DISTRIBUTION}, imported as qtheory; {state}")])


def _page_entry(cff: dict[str, Any], key: str, title: str, url: str | None, commit: str | None,
                what: str | None = None) -> str:
    """A page's ``@misc`` entry: its title as plain text, braced so that no style changes its case
    (IDs such as R-F3ab, JSQ(d)), the book's record and the code's state at `commit`."""
    f = _book_fields(cff)
    state, identifier = _code_state(f["version"], commit or software_commit())
    return _entry("misc", f"{BOOK_KEY}:{key}", [
        ("title", "{" + bibtex_text(title) + "}"), ("author", f["author"]), ("year", f["year"]),
        ("howpublished", f["howpublished"]), ("version", f["version"]), ("url", url or f["url"]),
        ("doi", f["doi"]), ("swhid", identifier), ("note", "; ".join(x for x in (what, state) if x))])


def _page_bibtex(cff: dict[str, Any], item_ids: Sequence[str], title: str | None, url: str | None,
                 page: str | None = None, commit: str | None = None) -> str:
    items = [manifest.get(i) for i in item_ids]
    first = items[0]
    what = ("manifest item " if len(items) == 1 else "manifest items ") + ", ".join(i.id for i in items)
    return _page_entry(cff, page or first.id, title or f"{first.id}: {first.title}", url, commit, what)


def _split_entries(text: str) -> list[str]:
    """The raw entries of a BibTeX file (comments and text between entries dropped)."""
    out, pos = [], 0
    while (at := text.find("@", pos)) >= 0:
        open_ = text.find("{", at)
        if open_ < 0 or not re.fullmatch(r"@\w+\s*", text[at:open_]):
            pos = at + 1
            continue
        depth, end = 0, open_
        for end in range(open_, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        if depth:
            raise ParameterError(f"references.bib: unbalanced braces in the entry at offset {at}")
        out.append(text[at:end + 1])
        pos = end + 1
    return out


def _field(entry: str, name: str) -> str | None:
    found = re.search(rf"^\s*{name}\s*=\s*\{{(.*)\}}\s*,?\s*$", entry, re.M | re.I)
    return found.group(1).strip() if found else None


def paper_entries() -> dict[str, str]:
    """The BibTeX entry of each paper by its key (``"L"``): the entry of
    ``book/references.bib`` whose DOI is the link of the paper's record."""
    by_doi = {}
    for entry in _references():
        doi = _field(entry, "doi")
        if doi:
            by_doi[doi.lower()] = entry
    out = {}
    for key, paper in manifest.papers().items():
        doi = re.sub(r"^https?://(dx\.)?doi\.org/", "", paper.link).lower()
        if doi not in by_doi:
            raise ParameterError(f"paper {key}: no entry of references.bib has the DOI {doi} of its record")
        out[key] = _for_readers(by_doi[doi])
    return out


def _references() -> list[str]:
    text = _source("book/references.bib", "references.bib").read_text(encoding="utf-8")
    return [entry.strip() + "\n" for entry in _split_entries(text)]


def numbering_entry(paper: str) -> str | None:
    """The BibTeX entry of the version of `paper` (its key) whose numbering the book follows,
    when that version has an entry of its own in ``book/references.bib``: the entry without a
    DOI whose ``eprint`` is the arXiv number the paper's record names in its ``version`` (paper R:
    arXiv:2005.14566, whose sections, equations and theorems the book quotes, while the published
    version is the one to cite). None when the record names no arXiv version, or when the arXiv
    number belongs to the published entry itself (paper L: one entry, DOI and eprint)."""
    record = manifest.papers()[paper]
    found = re.search(r"arXiv:\s*(\d{4}\.\d{4,5})", record.version)
    if not found:
        return None
    for entry in _references():
        if _field(entry, "eprint") == found.group(1) and not _field(entry, "doi"):
            return _for_readers(entry)
    return None


def _for_readers(entry: str) -> str:
    """The entry as a reader cites it: keyed ``<first author's family name><year>``
    (``zhao2024``) instead of the book's own key, without the book's ``note``."""
    first = (_field(entry, "author") or "").split(" and ")[0].split(",")[0]
    key = re.sub(r"[^a-z]", "", first.lower()) + (_field(entry, "year") or "")
    entry = re.sub(r"^(@\w+\{)[^,]+,", lambda m: m.group(1) + key + ",", entry, count=1)
    lines = [line for line in entry.splitlines() if not re.match(r"\s*note\s*=", line, re.I)]
    if lines[-2].endswith(","):
        lines[-2] = lines[-2][:-1]
    return "\n".join(lines) + "\n"


def bibtex(*, item: str | Sequence[str] | None = None, paper: str | None = None,
           title: str | None = None, url: str | None = None, page: str | None = None,
           commit: str | None = None) -> str:
    """BibTeX for the book, a result page, or a paper.

    The book's and a page's entries name the exact code: its version, git commit and Software
    Heritage identifier (``note``; the identifier also in ``swhid``), and the repository's URL
    when one is configured (``qtheory_repository`` of ``_config.yml``, ``$QTHEORY_REPOSITORY``).
    Outside a git checkout they name the version only.

    Parameters
    ----------
    item : str or sequence of str, optional
        A manifest ID (``"L-F2"``), or the IDs a page shows: the entry of that page
        (``@misc``, key ``qtheory-companion:<first ID>``), the book's record with the
        page's title (as plain text, :func:`bibtex_text`) and its manifest ID(s).
    paper : str, optional
        A paper's key (``"L"``) or any manifest ID of it: the paper's entry from
        ``book/references.bib`` (its published version, as its ``PAPER`` record links).
    title : str, optional
        The page's title for `item` (default: ``"<ID>: <manifest title>"``).
    url : str, optional
        The page's address for `item` (default: the repository's, if one is configured).
    page : str, optional
        The page's name (its notebook, ``"R-T1"``), the key's tail: ``qtheory-companion:R-T1``
        (default: the first manifest ID, for a page of one item).
    commit : str, optional
        The git commit the code was at: for `item`, the commit the page's results were computed
        from (their record's ``git_commit``); for the book, the commit it is built from (default:
        :func:`software_commit`, the checkout's ``HEAD``).

    Returns
    -------
    str
        With neither `item` nor `paper`: the book (``@software``, from CITATION.cff).
    """
    if item is not None and paper is not None:
        raise ParameterError("`item` and `paper` cannot be given together")
    if paper is not None:
        if commit is not None:
            raise ParameterError("`commit` is the code's: give it with `item` or alone, not with `paper`")
        key = paper.split("-", 1)[0]
        entries = paper_entries()
        if key not in entries:
            raise ParameterError(f"`paper` must be one of {', '.join(entries)} or a manifest ID (got {paper!r})")
        if "-" in paper:
            manifest.get(paper)
        return entries[key]
    cff = citation_record()
    if item is None:
        if title is not None or url is not None or page is not None:
            raise ParameterError("`title`, `url` and `page` describe a page: give `item` too")
        return _book_bibtex(cff, commit)
    ids = [item] if isinstance(item, str) else list(item)
    if not ids:
        raise ParameterError("`item` must name at least one manifest ID")
    return _page_bibtex(cff, ids, title, url, page, commit)


def _box(cff: dict[str, Any], commit: str | None, page_lead: str, page_entry: str, papers: Sequence[str],
         verb: str) -> str:
    """The "Cite this" admonition: the book at `commit`, the page, then each paper with the
    version its numbers follow (and that version's entry when it has one of its own)."""
    version = cff.get("version", "")
    code = f"version {version}" + (f", commit `{commit[:12]}`" if commit else "")
    parts = [":::{admonition} Cite this", ":class: dropdown cite-this", "",
             f"The book (the software and its results, {code}):", "",
             "```bibtex", _book_bibtex(cff, commit).rstrip(), "```", "",
             page_lead, "", "```bibtex", page_entry.rstrip(), "```", ""]
    for key in papers:
        parts += [f"The paper it {verb}:" if len(papers) == 1 else f"Paper {key}, which it {verb}:", "",
                  "```bibtex", bibtex(paper=key).rstrip(), "```", ""]
        numbering = manifest.papers()[key].version
        own = numbering_entry(key)
        parts += [f"Numbering{'' if len(papers) == 1 else f' of paper {key}'}: {numbering}"
                  + ("; that version:" if own else "."), ""]
        if own:
            parts += ["```bibtex", own.rstrip(), "```", ""]
    parts.append(":::")
    return "\n".join(parts) + "\n"


def cite_box(item_ids: Iterable[str], *, title: str | None = None, url: str | None = None,
             page: str | None = None, commit: str | None = None) -> str:
    """MyST Markdown of the "Cite this" box of a result page showing `item_ids`.

    A collapsed admonition (``dropdown``) with the BibTeX of the book (at the checkout's
    commit), of this page (at `commit`, the commit its results were computed from; default:
    the checkout's) and of the paper(s) the items reproduce (each paper once, in manifest order),
    each paper followed by the version its numbering follows (paper R: its arXiv version,
    whose entry is given too).
    """
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        raise ParameterError("`item_ids` must name at least one manifest ID")
    keys = list(dict.fromkeys(manifest.get(i).paper for i in ids))
    cff, code = citation_record(), software_commit()
    commit = commit or code
    lead = "This page" + (f" (its results computed at commit `{commit[:12]}`):" if commit else ":")
    return _box(cff, code, lead, _page_bibtex(cff, ids, title, url, page, commit), keys, "reproduces")


def page_box(docname: str, title: str, *, paper: str | None = None, url: str | None = None) -> str:
    """MyST Markdown of the "Cite this" box of a page that shows no result (a Markdown page of
    the book, `docname` such as ``book/locality/L-theorems``): the book and the page at the
    checkout's commit (key ``qtheory-companion:<docname>``) and, on a page of a paper's part,
    that paper."""
    cff, code = citation_record(), software_commit()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", docname.removeprefix("book/")).strip("-")
    return _box(cff, code, "This page:", _page_entry(cff, slug, title, url, code), [paper] if paper else [],
                "accompanies")


# --- Zenodo ---------------------------------------------------------------------------

def _zenodo_creator(person: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    if "family-names" in person:
        particle = f"{person['name-particle']} " if person.get("name-particle") else ""
        given = f", {person['given-names']}" if person.get("given-names") else ""
        out["name"] = f"{particle}{person['family-names']}{given}"
    else:
        out["name"] = person["name"]
    if person.get("affiliation"):
        out["affiliation"] = person["affiliation"]
    if person.get("orcid"):
        out["orcid"] = re.sub(r"^https?://orcid\.org/", "", person["orcid"])
    return out


def zenodo_metadata(cff: dict[str, Any] | None = None) -> dict[str, Any]:
    """``.zenodo.json`` from CITATION.cff.

    The fields and their mapping are those of ``cffconvert --format zenodo`` (2.0.0:
    creators, description from ``abstract``, keywords, license, publication_date, title,
    version), plus ``upload_type: software`` and, for each reference with a DOI (the
    three papers), a related identifier: this deposit ``isSupplementTo`` that paper.
    """
    cff = cff if cff is not None else citation_record()
    out: dict[str, Any] = {"creators": [_zenodo_creator(a) for a in cff["authors"]]}
    if "abstract" in cff:
        out["description"] = cff["abstract"].strip()
    if "keywords" in cff:
        out["keywords"] = list(cff["keywords"])
    if "license" in cff:
        out["license"] = {"id": cff["license"]}
    if "date-released" in cff:
        out["publication_date"] = str(cff["date-released"])
    related = [{"identifier": str(ref["doi"]), "relation": "isSupplementTo", "resource_type": "publication-article",
                "scheme": "doi"} for ref in cff.get("references", []) if ref.get("doi")]
    if related:
        out["related_identifiers"] = related
    out["title"] = cff["title"]
    out["upload_type"] = "software"
    if "version" in cff:
        out["version"] = str(cff["version"])
    return out


def zenodo_json(cff: dict[str, Any] | None = None) -> str:
    """The text of ``.zenodo.json`` (sorted keys, two-space indent, final newline)."""
    return json.dumps(zenodo_metadata(cff), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m qtheory.citation {bibtex [ID|KEY] | zenodo}``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["zenodo"] and len(args) == 1:
        sys.stdout.write(zenodo_json())
        return 0
    if args[:1] == ["bibtex"] and len(args) <= 2:
        if len(args) == 1:
            sys.stdout.write(bibtex())
        elif re.fullmatch(r"[A-Z]", args[1]):
            sys.stdout.write(bibtex(paper=args[1]))
        else:
            sys.stdout.write(bibtex(item=args[1]))
        return 0
    sys.stderr.write("usage: python -m qtheory.citation {bibtex [ID | PAPER] | zenodo}\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
