"""The writing system of a language: ``yor`` -> Latin, ``ru`` -> Cyrillic, ``amh`` -> Ge'ez.

Per-language figures are read by script: a tokenizer trained on Latin text splits Hangul, Bengali or
Ge'ez words into unknown or byte pieces, whatever the language. :func:`language_script` names the
script a language code (ISO 639-1 or 639-3, as the registry's corpora use them) is written in;
:func:`unicode_script` names the script of a Unicode character-name prefix (``"HANGUL"`` ->
``"Hangul"``), for a language this table does not know, whose script is read from its text instead
(:func:`tokstudy.analysis.stats.per_language.dataset_scripts`).

>>> language_script("yor"), language_script("ko"), language_script("amh"), language_script("xx")
('Latin', 'Hangul', "Ge'ez", None)
>>> unicode_script("CJK"), unicode_script("BENGALI"), unicode_script("GLAGOLITIC")
('Han', 'Bengali', 'Glagolitic')
"""

from __future__ import annotations

#: the script of each language a shipped corpus holds, plus the common ones, by ISO 639-1 and 639-3 code.
LANGUAGE_SCRIPTS: dict[str, str] = {
    # Latin: European languages, MasakhaNER 2.0's 20 African languages, Turkish, Basque, Swahili ...
    **dict.fromkeys(
        "en de fr es it pt nl ca eu gl pl cs sk sl hr bs sq ro hu fi et lv lt da sv no nb nn is ga cy mt tr az uz "
        "id ms vi tl sw so ha yo ig zu xh sn rw lg ny tn wo af eo la".split(),
        "Latin",
    ),
    **dict.fromkeys(
        "eng deu fra spa ita por nld tur eus swa bam bbj ewe fon hau ibo kin lug luo mos nya pcm sna tsn twi wol "
        "xho yor zul som".split(),
        "Latin",
    ),
    **dict.fromkeys("ru uk be bg mk sr kk ky tg mn rus ukr bul kaz".split(), "Cyrillic"),
    **dict.fromkeys("ar fa ur ps ug ckb ara fas pes urd".split(), "Arabic"),
    **dict.fromkeys("hi mr ne sa hin mar nep".split(), "Devanagari"),
    **dict.fromkeys("bn as ben asm".split(), "Bengali"),
    **dict.fromkeys("ko kor".split(), "Hangul"),
    **dict.fromkeys("zh zho cmn yue".split(), "Han"),
    **dict.fromkeys("ja jpn".split(), "Japanese (Han + Kana)"),
    **dict.fromkeys("am ti amh tir gez".split(), "Ge'ez"),
    **dict.fromkeys("el ell".split(), "Greek"),
    **dict.fromkeys("he yi heb".split(), "Hebrew"),
    **dict.fromkeys("th tha".split(), "Thai"),
    **dict.fromkeys("ka kat".split(), "Georgian"),
    **dict.fromkeys("hy hye".split(), "Armenian"),
    **dict.fromkeys("ta tam".split(), "Tamil"),
    **dict.fromkeys("te tel".split(), "Telugu"),
    **dict.fromkeys("kn kan".split(), "Kannada"),
    **dict.fromkeys("ml mal".split(), "Malayalam"),
    **dict.fromkeys("gu guj".split(), "Gujarati"),
    **dict.fromkeys("pa pan".split(), "Gurmukhi"),
    **dict.fromkeys("or ori".split(), "Odia"),
    **dict.fromkeys("si sin".split(), "Sinhala"),
    **dict.fromkeys("my mya".split(), "Myanmar"),
    **dict.fromkeys("km khm".split(), "Khmer"),
    **dict.fromkeys("lo lao".split(), "Lao"),
    **dict.fromkeys("bo bod".split(), "Tibetan"),
}

#: Unicode character-name prefixes whose script is named otherwise (the rest are title-cased).
_UNICODE_NAMES = {
    "CJK": "Han",
    "HIRAGANA": "Japanese (Han + Kana)",
    "KATAKANA": "Japanese (Han + Kana)",
    "ETHIOPIC": "Ge'ez",
    "ORIYA": "Odia",
}


def language_script(language: str) -> str | None:
    """The script ``language`` (an ISO 639-1 or 639-3 code, any case, or a locale such as ``en-US``) is written
    in, or ``None`` if unknown.

    >>> language_script("FA"), language_script("en-US"), language_script("und")
    ('Arabic', 'Latin', None)
    """
    code = language.lower()
    return LANGUAGE_SCRIPTS.get(code) or LANGUAGE_SCRIPTS.get(code.replace("_", "-").split("-")[0])


def unicode_script(prefix: str) -> str:
    """The script named by the first word of Unicode character names (``"DEVANAGARI"`` -> ``"Devanagari"``)."""
    return _UNICODE_NAMES.get(prefix, prefix.title())
