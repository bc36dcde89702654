"""Load each input of `assess report`: score the answers, run the deployment check, scope the
logs, or read the matching command's ``--json`` document (see :mod:`assess.report.inputs`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assess.kernel.errors import CatalogueError, InputError, UsageError
from assess.kernel.structured import load_document
from assess.report.input_files import display_path, document_kind, input_record, load_view
from assess.report.models import ReportInput
from assess.report.views import DeployView, ScopeView, ScoreView
from assess.vendor.scoring.evidence import ProbeEvidence

if TYPE_CHECKING:
    from assess.report.inputs import ReportRequest


def questions_of(answers: Any, score: ScoreView) -> dict[str, tuple[str, bool]]:
    """Return the questionnaire's questions (text, critical) by id, in its order: the bank the
    answers were scored with, or for a score document the shipped questionnaire it names (when
    its version matches; else none, and the appendix shows question ids only)."""
    if isinstance(answers, ScoreView):
        from assess.vendor.bank import load_questionnaire

        try:
            bank = load_questionnaire(score.questionnaire.id)
        except (InputError, CatalogueError):
            return {}
        if str(bank.version) != str(score.questionnaire.version):
            return {}
    else:
        bank = answers[0]
    return {q.id: (q.text, q.critical) for q in bank.questions}


def load_answers(path: Path) -> Any:
    """Return a finished ScoreView (for an `assess score --json` file) or (bank, answers)."""
    if document_kind(path) == "assess.score":
        view, _ = load_view(path, ScoreView, "assess.score", "--answers")
        return view
    from assess.vendor.answers_file import load_answers_and_bank

    return load_answers_and_bank(path)


#: Input roles whose evidence the scoring weighs (contradictions with the vendor's claims).
_EVIDENCE_ROLES = ("probe", "deploy-check", "deploy-log")


def unweighed_evidence(path: Path, answers: Any, inputs: Sequence[ReportInput]) -> list[str]:
    """Return the evidence inputs a given score document was not computed with (by SHA-256).

    Raw answers are scored here with all the evidence, so nothing is left out.
    """
    if not isinstance(answers, ScoreView):
        return []
    listed = load_document(path).data.get("inputs")
    weighed = (
        {item.get("sha256") for item in listed if isinstance(item, dict)}
        if isinstance(listed, list)
        else set()
    )
    return [i.path for i in inputs if i.role in _EVIDENCE_ROLES and i.sha256 not in weighed]


def advertised_context(answers: Any) -> int | None:
    if isinstance(answers, ScoreView):
        answer = answers.answers.get("deployment.advertised_context_tokens")
        value = answer.value if answer is not None else None
    else:
        value = answers[1].value("deployment.advertised_context_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def score_of(
    answers: Any,
    probes: list[ProbeEvidence],
    deploy: Any,
    evidence_for_vendor: bool = False,
    period: str | None = None,
    caches: Sequence[Any] = (),
) -> ScoreView:
    if isinstance(answers, ScoreView):
        return answers
    from assess.advisories.catalogue import load_advisories
    from assess.vendor.scoring import score_answers
    from assess.vendor.scoring.evidence import DeployEvidence
    from assess.vendor.scoring.freshness import parse_period

    bank, answer_set = answers
    # The scoring weighs one probe run: the first that found a leak, else the first given.
    leaky = [p for p in probes if p.leak_found]
    probe = (leaky or probes)[0] if probes else None
    # and one cache audit: the first that found sharing, else the first given
    shared = [c for c in caches if c.verdict.startswith("shared")]
    cache = (shared or list(caches))[0] if caches else None
    result = score_answers(
        bank,
        answer_set,
        load_advisories(),
        probe=probe,
        cache_probe=cache,
        deploy=DeployEvidence.model_validate(deploy) if deploy is not None else None,
        evidence_for_vendor=evidence_for_vendor,
        period=parse_period(period) if period is not None else None,
    )
    return ScoreView.model_validate(result.model_dump(mode="json"))


def load_deploy(
    req: ReportRequest, inputs: list[ReportInput], advertised: int | None
) -> tuple[DeployView | None, Any]:
    if req.deploy_check is not None:
        view, raw = load_view(req.deploy_check, DeployView, "assess.deploy-check", "--deploy-check")
        inputs.append(input_record(req.deploy_check, "deploy-check", req.cwd))
    elif req.deploy_logs:
        from assess.report.adapters import run_deploy_check

        raw, files = run_deploy_check(req.deploy_logs, advertised)
        inputs.extend(input_record(path, "deploy-log", req.cwd) for path in files)
    else:
        return None, None
    raw = _shown_sources(raw, req.cwd)
    return DeployView.model_validate(raw), raw


def _shown_sources(doc: Any, cwd: Path) -> Any:
    """Return the deploy-check document with each node's log path as the review shows it.

    The scoring quotes a node's source in its findings, so this happens before scoring: no private
    folder reaches report.json, and the review does not depend on where the logs were copied.
    """
    if not isinstance(doc, dict):
        return doc
    nodes = [
        {**node, "source": display_path(node["source"], cwd)}
        if isinstance(node, dict) and isinstance(node.get("source"), str) and node["source"] != "-"
        else node
        for node in doc.get("nodes", [])
    ]
    inputs = [
        {**item, "path": display_path(item["path"], cwd)}
        if isinstance(item, dict) and isinstance(item.get("path"), str)
        else item
        for item in doc.get("inputs", [])
    ]
    return {**doc, "nodes": nodes, "inputs": inputs}


def load_scope(
    req: ReportRequest, inputs: list[ReportInput]
) -> tuple[ScopeView, str | None, list[dict[str, Any]], dict[str, str] | None]:
    """The scope view, its preset, the affected-requests rows and the notification pack (None
    from a scope JSON: it holds no per-request rows)."""
    paths = [Path(p) for p in req.logs]
    if len(paths) == 1 and document_kind(paths[0]) == "assess.scope":
        view, raw = load_view(paths[0], ScopeView, "assess.scope", "--logs")
        scoped = view.filter.get("advisory_id", view.filter.get("advisory"))
        if req.incident and scoped and scoped != req.incident:
            raise UsageError(
                f"{paths[0]}: was scoped against advisory '{scoped}', not '{req.incident}'",
                "Drop --incident, or scope the logs again with `assess scope`.",
            )
        record = input_record(paths[0], "logs", req.cwd)
        engine = raw.get("engine")
        if isinstance(engine, dict):  # scoped by an engine running the --emit-sql query
            update = {"engine": engine.get("dialect"), "query_sha256": engine.get("query_sha256")}
            record = record.model_copy(update=update)
        inputs.append(record)
        preset = raw.get("preset") if isinstance(raw.get("preset"), str) else None
        return view, preset, affected_rows(view), None
    from assess.report.adapters import run_scope
    from assess.scope.api import DEFAULT_INCIDENT

    incident = req.incident or DEFAULT_INCIDENT  # the advisory `assess scope` defaults to
    run = run_scope(req.logs, incident, req.preset, req.include_prompts, req.progress, req.platform)
    inputs.extend(_log_inputs(run.files, run.document.get("inputs", []), req.cwd))
    view = ScopeView.model_validate(run.document)
    preset = run.document.get("preset")
    return view, preset if isinstance(preset, str) else None, run.rows, run.pack


def _log_inputs(files: Sequence[Path], read: list[Any], cwd: Path) -> list[ReportInput]:
    """The logs as inputs: a local file hashed again, a URL (s3://, gs://, https://) by the
    evidence scope took while reading it (it is not fetched twice)."""
    from assess.scope.logs.remote import RemoteFile

    records = []
    for index, path in enumerate(files):
        if isinstance(path, RemoteFile) and index < len(read):
            evidence = read[index]
            records.append(
                ReportInput(
                    role="logs", path=str(path), bytes=evidence["bytes"], sha256=evidence["sha256"]
                )
            )
        else:
            records.append(input_record(path, "logs", cwd))
    return records


def affected_rows(scope: ScopeView) -> list[dict[str, Any]]:
    """Return one CSV row per received and per possibly affected request id of a scope JSON
    (the document's ids only: :func:`assess.scope.ids.ids_from_document`)."""
    from assess.scope.ids import ids_from_document

    possible = scope.possibly_affected.get("request_ids", [])
    return ids_from_document(
        scope.affected.request_ids, possible if isinstance(possible, list) else []
    )
