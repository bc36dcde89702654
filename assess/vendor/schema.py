"""The JSON Schema of an answers file for one questionnaire (`assess questionnaire schema`)."""

from __future__ import annotations

from typing import Any

from assess.vendor.answers import AnswersFile
from assess.vendor.questionnaire import (
    NOT_APPLICABLE,
    UNKNOWN,
    AnswerType,
    Question,
    Questionnaire,
)

_UNKNOWN: dict[str, Any] = {"const": UNKNOWN}


def value_schema(q: Question) -> dict[str, Any]:
    """Return the JSON Schema of ``q``'s value ('unknown' always allowed, 'not_applicable' where
    the questionnaire allows it)."""
    if not q.not_applicable_allowed:
        return _own_value_schema(q)
    return {"anyOf": [_own_value_schema(q), {"enum": [NOT_APPLICABLE]}]}


def _own_value_schema(q: Question) -> dict[str, Any]:
    number: dict[str, Any] = {"type": "integer"}
    if q.min is not None:
        number["minimum"] = q.min
    match q.type:
        case AnswerType.ENUM:
            return {"enum": list(dict.fromkeys([*q.values, *q.aliases, UNKNOWN]))}
        case AnswerType.BOOL:
            return {"anyOf": [{"type": "boolean"}, {"enum": ["yes", "no", UNKNOWN]}]}
        case AnswerType.INT:
            return {"anyOf": [number, _UNKNOWN]}
        case AnswerType.VERSION:
            return {"type": "string", "description": "PEP 440 version, e.g. 0.5.22, or unknown"}
        case AnswerType.LIST:
            return {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
        case AnswerType.PER_ROLE:
            per_role = {
                "type": "object",
                "properties": dict.fromkeys(q.roles, number),
                "additionalProperties": False,
            }
            return {"anyOf": [per_role, _UNKNOWN]}
        case _:
            return {"type": "string"}


def answers_schema(bank: Questionnaire) -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of an answers file for ``bank``."""
    schema = AnswersFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"Answers to {bank.id} v{bank.version}"
    evidence = {"$ref": "#/$defs/EvidenceLevel"}
    properties: dict[str, Any] = {}
    for q in bank.questions:
        value = value_schema(q)
        answer = {
            "type": "object",
            "properties": {
                "value": value,
                "evidence": evidence,
                "note": {"type": "string"},
                "ref": {"type": "string"},
                "date": {"type": "string", "format": "date"},
                "per": {"type": "object", "additionalProperties": value},
                "conflicts": {"type": "array", "items": {"$ref": "#/$defs/Conflict"}},
            },
            "additionalProperties": False,
        }
        properties[q.id] = {"description": q.text, "anyOf": [answer, value]}
    schema["properties"]["answers"] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    schema["properties"]["questionnaire"]["const"] = bank.id
    schema["$defs"].pop("Answer", None)
    return schema
