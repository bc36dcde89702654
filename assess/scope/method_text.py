"""The method statement as a committee reads it: one sentence per part, from the keys of
``pack.json``'s ``method`` (a contract: the keys stay as they are). Unknowns say which option
gives them; booleans are words; no Python or JSON literal reaches the reader. Used by the
pack's ``method.md`` and the review's HTML appendix."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

NOT_GIVEN_N = "not given (pass --platform-requests)"
NOT_GIVEN_V = (
    "not given (pass --platform-tokens, or --platform-mean-tokens with --platform-requests)"
)


def _words(value: Any) -> str:
    """Any value in words: yes/no, not given, numbers with separators, lists and counts."""
    if value is None:
        return "not given"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Mapping):
        parts = [f"{str(k).replace('_', ' ')} {_words(v)}" for k, v in value.items()]
        return ", ".join(parts) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(_words(v) for v in value) or "none"
    return str(value)


def _reasons(value: Any) -> str:
    if not isinstance(value, Mapping) or not value:
        return "none"
    return "; ".join(f"{k}: {_words(v)}" for k, v in value.items())


def _advisory(m: Mapping[str, Any]) -> str:
    if not m.get("advisory"):
        return "none (an ad hoc filter)"
    published = m.get("advisory_published")
    return f"{m['advisory']}" + (f", published {published}" if published else "")


def _filter(m: Mapping[str, Any]) -> str:
    if m.get("filter_is_the_advisorys"):
        return "the advisory's own models, window and trigger"
    return (
        "not the advisory's: --model, --since, --until or --min-prompt-tokens replaced part of "
        "it, so the advisory's own figures are not applied"
    )


def _window(m: Mapping[str, Any]) -> str:
    window = m.get("window") or []
    return f"{window[0]} to {window[1]}, inclusive" if len(window) == 2 else "not given"


def _trigger_given(m: Mapping[str, Any]) -> bool:
    return bool(m.get("trigger_prompt_tokens_gt"))


def _trigger(m: Mapping[str, Any]) -> str:
    value = m.get("trigger_prompt_tokens_gt")
    if not _trigger_given(m):
        return "none: every prompt length counts"
    return f"prompt tokens strictly over {_words(value)}"


def _platforms(m: Mapping[str, Any]) -> str:
    if m.get("platforms"):
        return _words(m["platforms"])
    if m.get("models_given") is False and m.get("advisory"):  # older packs lack the key
        return f"not checked: {m['advisory']} binds no platform, so rows on any platform count"
    return (
        "not checked: no platform binding (--model replaces the advisory's models and with "
        "them its platform), so rows on any platform count"
    )


def _n(m: Mapping[str, Any]) -> str:
    value = m.get("platform_requests_N")
    return NOT_GIVEN_N if value is None else f"{value:,} (given with --platform-requests)"


def _v(m: Mapping[str, Any]) -> str:
    value = m.get("platform_tokens_V")
    if value is None:
        return NOT_GIVEN_V
    source = m.get("V_from")
    return f"{value:,}" + (f" (from {source})" if source else "")


def _own(m: Mapping[str, Any]) -> str:
    value = m.get("own_prompts_in_over_length_responses")
    if not value:
        return "not checked" if _trigger_given(m) else "not checked: no prompt-length trigger"
    status, _, why = str(value).partition(": ")
    return f"{status.replace('_', ' ')}: {why}" if why else status.replace("_", " ")


#: key -> (label, how its value reads); keys not listed read through :func:`_words`
_PARTS: dict[str, tuple[str, Callable[[Mapping[str, Any]], str]]] = {
    "advisory": ("Advisory", _advisory),
    "filter_is_the_advisorys": ("Filter", _filter),
    "models": ("Models", lambda m: _words(m.get("models"))),
    "window": ("Window", _window),
    "trigger_prompt_tokens_gt": ("Trigger", _trigger),
    "platforms": ("Platform", _platforms),
    "serving_platform": (
        "Serving platform stated",
        lambda m: (
            m.get("serving_platform")
            or "none (a row whose log names no provider is not identified; --served-by states it)"
        ),
    ),
    "verdicts": ("Requests in the window, by verdict", lambda m: _words(m.get("verdicts"))),
    "possibly_affected_reasons": (
        "Why requests are possibly affected",
        lambda m: _reasons(m.get("possibly_affected_reasons")),
    ),
    "not_sources": ("Left out of the source set", lambda m: _reasons(m.get("not_sources"))),
    "served_elsewhere_by_provider": (
        "Served elsewhere, by provider",
        lambda m: _reasons(m.get("served_elsewhere_by_provider")),
    ),
    "platform_requests_N": ("Platform requests N", _n),
    "platform_tokens_V": ("Platform tokens V", _v),
    "range": ("Range (chance a leak carried our data)", lambda m: _words(m.get("range"))),
    "foreign_data_not_detected": (
        "The foreign-data check does not detect",
        lambda m: _words(m.get("foreign_data_not_detected")),
    ),
    "own_prompts_in_over_length_responses": ("Our prompts in over-length responses", _own),
}
#: read as part of another key's sentence
_FOLDED = ("advisory_published", "V_from", "models_given")


def method_lines(method: Mapping[str, Any]) -> list[tuple[str, str | list[str]]]:
    """Return the statement as (label, sentence) in the keys' order; the assumptions as a list
    of sentences, each with the way it biases the figure."""
    lines: list[tuple[str, str | list[str]]] = []
    for key, value in method.items():
        if key in _FOLDED:
            continue
        if key == "assumptions":
            items = [f"{a['assumption']} (biases {a['bias']})" for a in value or []]
            lines.append(("Assumptions", items or ["none: no range was computed"]))
        elif key in _PARTS:
            label, read = _PARTS[key]
            if key == "own_prompts_in_over_length_responses" and not _trigger_given(method):
                label = "Our prompts in other responses"  # no trigger: no over-length response
            lines.append((label, read(method)))
        else:  # a key added later: its name and value in words
            lines.append((key.replace("_", " ").capitalize(), _words(value)))
    return lines


def method_markdown(method: Mapping[str, Any]) -> str:
    """Return ``method.md``: a heading and one bullet per part."""
    out = ["# Method", ""]
    for label, text in method_lines(method):
        if isinstance(text, list):
            out.append(f"- **{label}**:")
            out.extend(f"  - {item}" for item in text)
        else:
            out.append(f"- **{label}**: {text}")
    return "\n".join(out) + "\n"
