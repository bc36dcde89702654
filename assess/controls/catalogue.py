"""Load the controls crosswalk (``controls/``) and map questions and finding ids to controls."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from assess.controls.models import (
    FRAMEWORK_KEYS,
    ControlRef,
    CrosswalkFile,
    Framework,
    FrameworkKey,
    Group,
    Mapping,
    Source,
)
from assess.kernel.errors import CatalogueError
from assess.kernel.resources import data_dir

#: The sections of the mapping file that hold groups of mappings.
SECTIONS = ("questions", "findings", "families")

#: A control id as a basis names it (CSA ``I&S-06``, ISO ``A.10.3``, NIST ``MEASURE 2.7``).
_CONTROL_ID = re.compile(
    r"(?<![\w.])(?:[A-Z&]{2,4}-\d{2}|A\.\d{1,2}(?:\.\d{1,2}){1,2}|(?:GOVERN|MAP|MEASURE|MANAGE) "
    r"\d\.\d{1,2})(?![\w]|\.\d)"
)


class Crosswalk:
    """The frameworks' id lists and the mapping, checked against each other at load."""

    def __init__(self, frameworks: dict[FrameworkKey, Framework], mapping: CrosswalkFile) -> None:
        self.frameworks = frameworks
        self.mapping = mapping
        self._titles = {key: {c.id: c.title for c in fw.controls} for key, fw in frameworks.items()}
        self.groups: dict[tuple[str, str], Group] = {
            (section, entry_id): group
            for section in SECTIONS
            for group in getattr(mapping, section)
            for entry_id in group.map
        }
        #: id -> controls, per section (the groups flattened)
        self.questions = _flat(mapping.questions)
        self.findings = _flat(mapping.findings)
        self.families = _flat(mapping.families)

    def sources_of(self, group: Group) -> list[str]:
        """Return where ``group``'s control ids were checked, one line per list:
        ``controls/<list file> (checked against <upstream at a commit>)``."""
        found = [self.mapping.sources[key] for key in group.source]
        return [f"controls/{s.file} (checked against {s.checked_against})" for s in found]

    def for_question(self, question_id: str) -> list[ControlRef]:
        """Return the controls question ``question_id`` maps to ([] when none)."""
        return self._refs(self.questions.get(question_id, {}))

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
        if finding_id in self.findings:
            return None
        for family in sorted(self.families, key=len, reverse=True):
            if finding_id.startswith(family + "."):
                return family
        return None

    def _mappings(self, finding_id: str) -> list[Mapping]:
        base, _, count = finding_id.rpartition(".")
        if count.isdigit() and base and self._mappings(base):
            return self._mappings(base)  # score numbers a repeated id: 'rule.2'
        own = self.findings.get(finding_id)
        if own is not None:
            return [own]
        family = self.family(finding_id)
        if family is None:
            return []
        found = [self.families[family]]
        if family in self.mapping.from_question:
            found.append(self.questions.get(finding_id[len(family) + 1 :], {}))
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
    files: dict[str, Framework] = {}  # list file, relative to the folder -> its framework
    for path in sorted((root / "frameworks").glob("*.y*ml")):
        fw = Framework.from_path(path)
        if fw.id in frameworks:
            raise CatalogueError(
                f"{path}: framework '{fw.id}' is already listed", "Keep one list per framework."
            )
        frameworks[fw.id] = fw
        files[path.relative_to(root).as_posix()] = fw
    missing = [k for k in FRAMEWORK_KEYS if k not in frameworks]
    if missing:
        raise CatalogueError(
            f"{root / 'frameworks'}: no id list for {', '.join(missing)}",
            "Restore the framework files shipped with assess.",
        )
    path = root / "crosswalk.yaml"
    mapping = CrosswalkFile.from_path(path)
    _check(path, mapping, frameworks, files)
    return Crosswalk(frameworks, mapping)


@cache
def _shipped() -> Crosswalk:
    return load_crosswalk(data_dir("controls"))


def _check(
    path: Path,
    mapping: CrosswalkFile,
    frameworks: dict[FrameworkKey, Framework],
    files: dict[str, Framework],
) -> None:
    known = {key: {c.id for c in fw.controls} for key, fw in frameworks.items()}
    problems: list[str] = []
    sourced: dict[str, FrameworkKey] = {}  # source key -> the framework whose list it names
    for key, source in mapping.sources.items():
        fw = files.get(source.file)
        if fw is None:
            problems.append(f"sources.{key}: {source.file} is not a framework list file")
        elif source.checked_against != fw.list_from:
            problems.append(f"sources.{key}: checked_against is not {source.file}'s list_from")
        else:
            sourced[key] = fw.id
    for section in SECTIONS:
        seen: set[str] = set()
        for group in getattr(mapping, section):
            problems += _check_group(section, group, known, frameworks, sourced, mapping.sources)
            problems += [f"{section}.{i}: mapped in two groups" for i in group.map if i in seen]
            seen.update(group.map)
    mapped = {i for section in ("questions", "findings") for i in _flat(getattr(mapping, section))}
    problems += [f"unmapped.{i}: also mapped" for i in mapping.unmapped if i in mapped]
    families = _flat(mapping.families)
    problems += [
        f"from_question: '{f}' is not a family" for f in mapping.from_question if f not in families
    ]
    if problems:
        raise CatalogueError(
            f"{path}: " + "; ".join(problems),
            "Use control ids from controls/frameworks/*.yaml (check a new one against the "
            "framework's published list first), name each in its group's basis, and list the "
            "group's sources.",
        )


def _check_group(
    section: str,
    group: Group,
    known: dict[FrameworkKey, set[str]],
    frameworks: dict[FrameworkKey, Framework],
    sourced: dict[str, FrameworkKey],
    sources: dict[str, Source],
) -> list[str]:
    """The problems of one group: unknown control ids, an entry mapped to nothing, a framework
    used without its source, a control its basis does not name (or one it names, unused)."""
    problems: list[str] = []
    where = f"{section} group '{group.group}'"
    for entry_id, entry in group.map.items():
        for key, ids in entry.items():
            problems += [
                f"{section}.{entry_id}: {key} has no control '{i}' "
                f"(see {frameworks[key].list_from})"
                for i in ids
                if i not in known[key]
            ]
        if section != "families" and not any(entry.values()):
            problems.append(f"{section}.{entry_id}: maps to no control; list it in unmapped")
    problems += [
        f"{where}: source '{k}' is not in sources" for k in group.source if k not in sources
    ]
    covered = {sourced[k] for k in group.source if k in sourced}
    used = {key for entry in group.map.values() for key, ids in entry.items() if ids}
    problems += [
        f"{where}: no source names the {key} list"
        for key in FRAMEWORK_KEYS
        if key in used - covered
    ]
    controls = {i for entry in group.map.values() for ids in entry.values() for i in ids}
    named = set(_CONTROL_ID.findall(group.basis))
    problems += [f"{where}: basis does not name {i}" for i in sorted(controls - named)]
    problems += [
        f"{where}: basis names {i}, which no mapping uses" for i in sorted(named - controls)
    ]
    return problems


def _flat(groups: Iterable[Group]) -> dict[str, Mapping]:
    return {entry_id: entry for group in groups for entry_id, entry in group.map.items()}
