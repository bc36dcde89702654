"""The controls crosswalk: every id we use is in a vendored framework list, every question and
finding id of assess is mapped (or unmapped with a reason), and score carries the controls."""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from assess.controls.catalogue import load_crosswalk
from assess.controls.models import FRAMEWORK_KEYS
from assess.kernel.errors import CatalogueError, InputError
from assess.vendor.bank import load_questionnaire_file
from tests.conftest import REPO

CONTROLS = REPO / "controls"
PACKAGE = REPO / "assess"
INCIDENT = str(REPO / "samples" / "vendors" / "incident-like.yaml")

#: The id shape of each framework as it publishes its ids.
ID_SHAPES = {
    "csa-aicm": r"[A-Z&]{2,4}-\d{2}",
    "iso-42001": r"A\.\d{1,2}(\.\d{1,2}){1,2}",
    "nist-ai-rmf": r"(GOVERN|MAP|MEASURE|MANAGE) \d\.\d{1,2}",
}


def test_the_shipped_crosswalk_loads_and_its_lists_are_the_published_ones() -> None:
    crosswalk = load_crosswalk()
    sizes = {key: len(fw.controls) for key, fw in crosswalk.frameworks.items()}
    # NIST AI 100-1 has 72 subcategories; ISO/IEC 42001:2023 Annex A has 38 controls.
    assert sizes["nist-ai-rmf"] == 72 and sizes["iso-42001"] == 38
    assert crosswalk.frameworks["csa-aicm"].complete is False  # ids and titles used only
    for key, fw in crosswalk.frameworks.items():
        ids = [c.id for c in fw.controls]
        assert len(ids) == len(set(ids)), key
        assert all(re.fullmatch(ID_SHAPES[key], i) for i in ids), key
        assert fw.source.startswith("https://") and fw.list_from.startswith("https://")


def test_the_lists_have_the_published_shape() -> None:
    """NIST AI 100-1: GOVERN 19, MAP 18, MEASURE 22, MANAGE 13 subcategories; ISO/IEC 42001:2023
    Annex A: 3, 2, 5, 4, 9, 5, 4, 3, 3 controls under A.2 .. A.10."""
    crosswalk = load_crosswalk()
    nist = [c.id.split(" ")[0] for c in crosswalk.frameworks["nist-ai-rmf"].controls]
    assert {f: nist.count(f) for f in dict.fromkeys(nist)} == {
        "GOVERN": 19,
        "MAP": 18,
        "MEASURE": 22,
        "MANAGE": 13,
    }
    iso = [c.id.split(".")[1] for c in crosswalk.frameworks["iso-42001"].controls]
    assert [iso.count(str(n)) for n in range(2, 11)] == [3, 2, 5, 4, 9, 5, 4, 3, 3]


def test_no_licensed_control_text_is_vendored() -> None:
    """ISO's and CSA's control text is not ours to copy: their lists hold short titles only."""
    crosswalk = load_crosswalk()
    for key in ("csa-aicm", "iso-42001"):
        longest = max(len(c.title) for c in crosswalk.frameworks[key].controls)
        assert longest <= 70, key
    # and a control has an id and a title, nothing else (extra="forbid")
    assert set(load_crosswalk().frameworks["csa-aicm"].controls[0].model_dump()) == {"id", "title"}


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "controls"
    shutil.copytree(CONTROLS, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_control_id_missing_from_its_framework_list_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "crosswalk.yaml", "[STA-08], iso-42001", "[STA-99], iso-42001")
    with pytest.raises(
        CatalogueError,
        match=r"questions\.engine\.name: csa-aicm has no "
        r"control 'STA-99'",
    ):
        load_crosswalk(folder)


def test_an_id_in_another_frameworks_list_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "crosswalk.yaml", "iso-42001: [A.4.4, A.10.3]", "iso-42001: [MAP 4.2]")
    with pytest.raises(CatalogueError, match="iso-42001 has no control 'MAP 4.2'"):
        load_crosswalk(folder)


def test_a_mapping_to_nothing_must_be_listed_as_unmapped(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(
        folder / "crosswalk.yaml",
        "  slow-disclosure: {csa-aicm: [SEF-07], iso-42001: [A.8.4], nist-ai-rmf: [MANAGE 4.3]}",
        "  slow-disclosure: {}",
    )
    with pytest.raises(CatalogueError, match="findings.slow-disclosure: maps to no control"):
        load_crosswalk(folder)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("version: 2\n", "version: 2\nextra: true\n", "extra"),
        (
            "{csa-aicm: [STA-08], iso-42001: [A.4.4, A.10.3], nist-ai-rmf: [MAP 4.2]}",
            "{cobit: [APO01]}",
            "cobit",
        ),
    ],
)
def test_unknown_keys_and_frameworks_are_input_errors_naming_the_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "crosswalk.yaml", old, new)
    with pytest.raises(InputError, match=rf"crosswalk\.yaml:\d+: .*{message}"):
        load_crosswalk(folder)


def test_the_framework_list_files_are_validated_too(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "frameworks" / "nist-ai-rmf-1.0.yaml", "complete: true\n", "")
    with pytest.raises(InputError, match=r"nist-ai-rmf-1\.0\.yaml.*complete"):
        load_crosswalk(folder)


def test_every_mapping_has_a_source_naming_a_framework_list_and_a_basis() -> None:
    """acc41 m9: "each mapping with its source". Every mapped id is in a group whose `source`
    names, for each framework its controls come from, that framework's list file under controls/
    and the upstream copy the list was checked against (the list's own list_from, at a commit);
    its `basis` names each control it uses."""
    crosswalk = load_crosswalk()
    lists = {
        f"frameworks/{p.name}": fw
        for p in sorted((CONTROLS / "frameworks").glob("*.yaml"))
        for fw in [crosswalk.frameworks[next(k for k in FRAMEWORK_KEYS if k in _key_of(p))]]
    }
    sources = crosswalk.mapping.sources
    mapped = [*crosswalk.questions, *crosswalk.findings, *crosswalk.families]
    assert len(crosswalk.groups) == len(mapped) >= 100
    for (section, entry_id), group in crosswalk.groups.items():
        entry = getattr(crosswalk, section)[entry_id]
        named = {sources[k].file: sources[k] for k in group.source}
        assert set(named) <= set(lists), (section, entry_id)
        for file, source in named.items():
            assert source.checked_against == lists[file].list_from
            assert re.search(r"/[0-9a-f]{40}/", source.checked_against), file  # at a commit
        frameworks = {lists[file].id for file in named}
        assert {key for key, ids in entry.items() if ids} <= frameworks, (section, entry_id)
        assert all(i in group.basis for ids in entry.values() for i in ids), (section, entry_id)
        lines = crosswalk.sources_of(group)
        assert all(line.startswith("controls/frameworks/") for line in lines)
    header = (CONTROLS / "crosswalk.yaml").read_text(encoding="utf-8").split("\nversion:")[0]
    assert "assess's\n#            judgement, not the publishers'" in header


SOURCE = "    source: [csa-aicm-1.0, iso-42001-2023, nist-ai-rmf-1.0]"


def _key_of(path: Path) -> str:
    """``csa-aicm-1.0.yaml`` -> ``csa-aicm``; ``iso-iec-42001...`` -> ``iso-42001``."""
    return path.name.replace("iso-iec-", "iso-")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # the basis of the deploy-check capacity group no longer names I&S-02
        (
            "capacity planning (I&S-02, A.4.5)",
            "capacity planning (A.4.5)",
            "group 'deploy-check: capacity': basis does not name I&S-02",
        ),
        (
            "nist-ai-rmf: [MEASURE 1.3, MEASURE 2.7]}\n\nfrom_question",
            "nist-ai-rmf: [MEASURE 1.3]}\n\nfrom_question",
            "basis names MEASURE 2.7, which no mapping uses",
        ),
        (
            f"{SOURCE}\n    map:\n      pool-smaller-than-context",
            "    source: [csa-aicm-1.0, nist-ai-rmf-1.0]\n    map:\n"
            "      pool-smaller-than-context",
            "group 'deploy-check: capacity': no source names the iso-42001 list",
        ),
        (
            "    file: frameworks/csa-aicm-1.0.yaml",
            "    file: crosswalk.yaml",
            "sources.csa-aicm-1.0: crosswalk.yaml is not a framework list file",
        ),
        (
            "84a3c30719c94f2de6185d85234f60c41682efe5/package",
            "main/package",
            "checked_against is not",
        ),
        (
            "[csa-aicm-1.0, iso-42001-2023, nist-ai-rmf-1.0]",
            "[csa-aicm-2.0, iso-42001-2023, nist-ai-rmf-1.0]",
            "source 'csa-aicm-2.0' is not in sources",
        ),
    ],
)
def test_a_mapping_without_its_source_or_basis_is_refused(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "crosswalk.yaml", old, new)
    with pytest.raises(CatalogueError, match=re.escape(message)):
        load_crosswalk(folder)


def test_an_id_in_two_groups_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    line = "      engine-refused-to-start: {csa-aicm: [I&S-02]}"
    _edit(
        folder / "crosswalk.yaml",
        "      isolation-setting-off: {",
        line + "\n      isolation-setting-off: {",
    )
    with pytest.raises(
        CatalogueError, match="findings.engine-refused-to-start: mapped in two groups"
    ):
        load_crosswalk(folder)


def _questionnaires() -> Iterator[Any]:
    for path in sorted((REPO / "questionnaires").glob("*.y*ml")):
        yield load_questionnaire_file(path)


def test_every_question_is_mapped_or_unmapped_with_a_reason() -> None:
    crosswalk = load_crosswalk()
    missing = [
        f"{bank.id}: {q.id}"
        for bank in _questionnaires()
        for q in bank.questions
        if q.id not in crosswalk.questions and q.id not in crosswalk.mapping.unmapped
    ]
    assert missing == [], "add them to controls/crosswalk.yaml (questions: or unmapped:)"


def test_every_questionnaire_rule_is_mapped() -> None:
    crosswalk = load_crosswalk()
    missing = [
        f"{bank.id}: {r.id}"
        for bank in _questionnaires()
        for r in bank.rules
        if not crosswalk.covers(r.id)
    ]
    assert missing == [], "add them to controls/crosswalk.yaml (findings: or unmapped:)"


# --- finding ids built in code ------------------------------------------------------------
#: How a finding is built, and which argument is its id: ``ctx.finding(id, ...)`` in scoring,
#: ``_finding(node, id, ...)`` in deploy-check.
BUILDERS: dict[str, Callable[[ast.Call], ast.expr | None]] = {
    "finding": lambda call: call.args[0] if call.args else None,
    "_finding": lambda call: call.args[1] if len(call.args) > 1 else None,
}
#: Id arguments that are data, not code (a questionnaire rule's id), checked above.
DATA_IDS = {"rule.id"}


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _strings(node: ast.expr, scope: ast.AST) -> list[str] | None:
    """The ids ``node`` can be: whole ids, or family prefixes ending in '.' for f-strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _strings(node.body, scope), _strings(node.orelse, scope)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.JoinedStr):
        return _prefixes(node, scope)
    if isinstance(node, ast.Name):
        found = [
            s
            for a in ast.walk(scope)
            if isinstance(a, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == node.id for t in a.targets)
            for s in (_strings(a.value, scope) or [])
        ]
        return (found + _loop_values(node.id, scope)) or None
    return None


def _loop_values(name: str, scope: ast.AST) -> list[str]:
    """``for name, ... in (("id", ...), ...)``: the literals bound to ``name``."""
    found: list[str] = []
    for loop in ast.walk(scope):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Tuple)):
            continue
        names = [getattr(t, "id", None) for t in loop.target.elts]
        if name in names and isinstance(loop.iter, ast.Tuple | ast.List):
            at = names.index(name)
            found += [
                row.elts[at].value
                for row in loop.iter.elts
                if isinstance(row, ast.Tuple)
                and isinstance(row.elts[at], ast.Constant)
                and isinstance(row.elts[at].value, str)
            ]
    return found


def _prefixes(node: ast.JoinedStr, scope: ast.AST) -> list[str] | None:
    heads: list[str] = [""]
    for part in node.values:
        if isinstance(part, ast.Constant):
            heads = [h + str(part.value) for h in heads]
            continue
        if heads == [""] and isinstance(part, ast.FormattedValue):
            names = _strings(part.value, scope)
            if names is None:
                return None
            heads = names
            continue
        break
    return [h.split(".")[0] + "." for h in heads if "." in h] or None


def _enclosing_functions(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.Call]]:
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and _called(node) in BUILDERS:
                    yield fn, node


def code_finding_ids(package: Path = PACKAGE) -> tuple[set[str], list[str]]:
    """Return the finding ids (and 'family.' prefixes) the code under ``package`` builds, and the
    calls whose id could not be read."""
    ids: set[str] = set()
    unread: list[str] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn, call in _enclosing_functions(tree):
            arg = BUILDERS[_called(call)](call)
            if arg is None or ast.unparse(arg) in DATA_IDS:
                continue
            found = _strings(arg, fn)
            if found is None:
                unread.append(f"{path.relative_to(REPO)}:{call.lineno}: {ast.unparse(arg)}")
            else:
                ids.update(found)
    return ids, unread


def test_the_scan_reads_every_finding_id_the_code_builds() -> None:
    ids, unread = code_finding_ids()
    assert unread == [], "a finding id the scan cannot read: build it from a literal"
    # the scan sees each way an id is built: literal, f-string family, variable, ternary
    assert {
        "pool-smaller-than-context",
        "control-absent.",
        "advisory-platform-fixed.",
        "cache-probe-shared-within-organisation",
        "attestation-contradicted.cache-probe-shared",
    } <= ids


def test_every_finding_id_the_code_builds_is_mapped() -> None:
    crosswalk = load_crosswalk()
    ids, _ = code_finding_ids()
    missing = []
    for fid in sorted(ids):
        if fid.endswith("."):
            family = fid[:-1]
            ok = family in crosswalk.families or f"{family}.*" in crosswalk.mapping.unmapped
        else:
            ok = crosswalk.covers(fid)
        if not ok:
            missing.append(fid)
    assert missing == [], "add them to controls/crosswalk.yaml (findings:, families: or unmapped:)"


def test_every_exposure_action_of_the_review_is_mapped() -> None:
    """Scope's exposure reaches the review as remediation actions, not findings: mapped too."""
    from assess.report.plan import EXPOSURE_ACTION_IDS

    crosswalk = load_crosswalk()
    assert [a for a in sorted(EXPOSURE_ACTION_IDS) if not crosswalk.for_finding(a)] == []


def test_a_new_unmapped_finding_id_fails_the_check(tmp_path: Path) -> None:
    """The check above can fail: a crosswalk without one id's mapping leaves it uncovered."""
    folder = _copy(tmp_path)
    path = folder / "crosswalk.yaml"
    text = path.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("      engine-refused-to-start:"))
    path.write_text(text.replace(line + "\n", ""), encoding="utf-8")
    crosswalk = load_crosswalk(folder)
    assert not crosswalk.covers("engine-refused-to-start")
    assert load_crosswalk().covers("engine-refused-to-start")


def test_families_resolve_through_the_question_and_repeated_ids() -> None:
    crosswalk = load_crosswalk()
    absent = {(c.framework, c.id) for c in crosswalk.for_finding("control-absent.cache.opt_out")}
    assert absent == {(c.framework, c.id) for c in crosswalk.for_question("cache.opt_out")}
    assert not crosswalk.covers("control-absent.no.such_question")
    unknown = {c.id for c in crosswalk.for_finding("unknown-answer.isolation.kv_canaries")}
    assert {"A&A-02", "I&S-06", "LOG-03"} <= unknown  # the family's and the question's
    again = crosswalk.for_finding("slow-disclosure.2")
    assert again == crosswalk.for_finding("slow-disclosure") != []
    assert (
        crosswalk.covers("evidence-stale.probe") and crosswalk.for_finding("evidence-stale.x") == []
    )


def test_controls_come_in_framework_order_with_version_and_title() -> None:
    refs = load_crosswalk().for_finding("unsalted-prefix-cache-shared")
    assert [r.framework for r in refs] == sorted(
        (r.framework for r in refs), key=FRAMEWORK_KEYS.index
    )
    first = refs[0].model_dump()
    assert first == {
        "framework": "csa-aicm",
        "version": "1.0",
        "id": "AIS-14",
        "title": "AI Cache Protection",
    }


def test_score_json_findings_carry_their_controls(run_cli: Callable[..., Any]) -> None:
    result = run_cli("score", INCIDENT, "--json", "-")
    doc = json.loads(result.stdout)
    by_id = {f["id"]: f for f in doc["findings"]}
    advisory = by_id["advisory.glm-5.3-kv-leak"]["controls"]
    assert {
        "framework": "csa-aicm",
        "version": "1.0",
        "id": "I&S-06",
        "title": "Segmentation and Segregation",
    } in advisory
    assert {c["framework"] for c in advisory} == set(FRAMEWORK_KEYS)
    assert all(f["controls"] for f in doc["findings"] if not f["id"].startswith("evidence-"))


def test_the_docs_say_which_aicm_release_the_ids_are_from() -> None:
    """The AICM ids are v1.0's; docs/controls.md says so and names the ids a later release
    renumbers, each with its v1.0 title as the shipped list has it."""
    text = (REPO / "docs" / "controls.md").read_text(encoding="utf-8")
    aicm = load_crosswalk().frameworks["csa-aicm"]
    section = text[text.index("## Which AICM release") :].split("\n## ")[0]
    assert f"**AICM v{aicm.version}**" in section and "unconfirmed" in section
    rows = re.findall(r"^\| ([A-Z&]{2,4}-\d{2}) ([^|]+?) \|", section, re.MULTILINE)
    titles = {c.id: c.title for c in aicm.controls}
    assert len(rows) == 5
    assert all(titles.get(cid) == title for cid, title in rows), rows
