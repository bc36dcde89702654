"""Load the controls crosswalk (``controls/``) and map questions and finding ids to controls."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from assess.controls.models import (
    FRAMEWORK_KEYS,
    ControlRef,
    CrosswalkFile,
    Framework,
    FrameworkKey,
    Mapping,
)
from assess.kernel.errors import CatalogueError
from assess.kernel.resources import data_dir


class Crosswalk:
    """The frameworks' id lists and the mapping, checked against each other at load."""

    def __init__(self, frameworks: dict[FrameworkKey, Framework], mapping: CrosswalkFile) -> None:
        self.frameworks = frameworks
        self.mapping = mapping
        self._titles = {key: {c.id: c.title for c in fw.controls} for key, fw in frameworks.items()}

    def for_question(self, question_id: str) -> list[ControlRef]:
        """Return the controls question ``question_id`` maps to ([] when none)."""
        return self._refs(self.mapping.questions.get(question_id, {}))

    def for_finding(self, finding_id: str) -> list[ControlRef]:
        """Return the controls finding ``finding_id`` maps to ([] when none).

        An id of its own in ``findings`` first; else ``<family>.<suffix>``: the family's
        controls, and for a family in ``from_question`` those of the question ``suffix``.
        """
        return self._refs(*self._mappings(finding_id))

    def covers(self, finding_id: str) -> bool:
        """Return whether ``finding_id`` is mapped, or deliberately unmapped with a reason
        (``unmapped`` names it, or its family as ``<family>.*``)."""
        unmapped = self.mapping.unmapped
        family = finding_id.split(".", 1)[0] + ".*"
        return finding_id in unmapped or family in unmapped or bool(self._mappings(finding_id))

    def family(self, finding_id: str) -> str | None:
        """Return the family ``finding_id`` belongs to (None: an id of its own, or unknown)."""
        if finding_id in self.mapping.findings:
            return None
        for family in sorted(self.mapping.families, key=len, reverse=True):
            if finding_id.startswith(family + "."):
                return family
        return None

    def _mappings(self, finding_id: str) -> list[Mapping]:
        base, _, count = finding_id.rpartition(".")
        if count.isdigit() and base and self._mappings(base):
            return self._mappings(base)  # score numbers a repeated id: 'rule.2'
        own = self.mapping.findings.get(finding_id)
        if own is not None:
            return [own]
        family = self.family(finding_id)
        if family is None:
            return []
        found = [self.mapping.families[family]]
        if family in self.mapping.from_question:
            found.append(self.mapping.questions.get(finding_id[len(family) + 1 :], {}))
        return [m for m in found if any(m.values())]

    def _refs(self, *mappings: Mapping) -> list[ControlRef]:
        refs: dict[tuple[str, str], ControlRef] = {}
        for key in FRAMEWORK_KEYS:
            for mapping in mappings:
                for control_id in mapping.get(key, []):
                    refs.setdefault(
                        (key, control_id),
                        ControlRef(
                            framework=key,
                            version=self.frameworks[key].version,
                            id=control_id,
                            title=self._titles[key][control_id],
                        ),
                    )
        return list(refs.values())


def load_crosswalk(folder: Path | None = None) -> Crosswalk:
    """Return the crosswalk of ``folder`` (default: the shipped ``controls/``), validated.

    Raises:
        InputError: when a file is invalid (names file, line and field).
        CatalogueError: when a framework is missing or listed twice, a mapping names a control
            id its framework's list does not hold, or an id is both mapped and unmapped.
    """
    if folder is None:
        return _shipped()
    root = Path(folder)
    frameworks: dict[FrameworkKey, Framework] = {}
    for path in sorted((root / "frameworks").glob("*.y*ml")):
        fw = Framework.from_path(path)
        if fw.id in frameworks:
            raise CatalogueError(
                f"{path}: framework '{fw.id}' is already listed", "Keep one list per framework."
            )
        frameworks[fw.id] = fw
    missing = [k for k in FRAMEWORK_KEYS if k not in frameworks]
    if missing:
        raise CatalogueError(
            f"{root / 'frameworks'}: no id list for {', '.join(missing)}",
            "Restore the framework files shipped with assess.",
        )
    path = root / "crosswalk.yaml"
    mapping = CrosswalkFile.from_path(path)
    _check(path, mapping, frameworks)
    return Crosswalk(frameworks, mapping)


@cache
def _shipped() -> Crosswalk:
    return load_crosswalk(data_dir("controls"))


def _check(path: Path, mapping: CrosswalkFile, frameworks: dict[FrameworkKey, Framework]) -> None:
    known = {key: {c.id for c in fw.controls} for key, fw in frameworks.items()}
    problems: list[str] = []
    for section, entries in _sections(mapping):
        for entry_id, entry in entries:
            for key, ids in entry.items():
                problems += [
                    f"{section}.{entry_id}: {key} has no control '{i}' "
                    f"(see {frameworks[key].list_from})"
                    for i in ids
                    if i not in known[key]
                ]
            if section != "families" and not any(entry.values()):
                problems.append(f"{section}.{entry_id}: maps to no control; list it in unmapped")
    mapped = set(mapping.questions) | set(mapping.findings)
    problems += [f"unmapped.{i}: also mapped" for i in mapping.unmapped if i in mapped]
    problems += [
        f"from_question: '{f}' is not a family"
        for f in mapping.from_question
        if f not in mapping.families
    ]
    if problems:
        raise CatalogueError(
            f"{path}: " + "; ".join(problems),
            "Use control ids from controls/frameworks/*.yaml (check a new one against the "
            "framework's published list first).",
        )


def _sections(mapping: CrosswalkFile) -> Iterable[tuple[str, Iterable[tuple[str, Mapping]]]]:
    yield "questions", mapping.questions.items()
    yield "findings", mapping.findings.items()
    yield "families", mapping.families.items()
