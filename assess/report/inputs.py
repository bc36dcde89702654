"""Gather what `assess report` combines: score the answers, scope the logs, load the evidence.

Each input is either the raw material (answers file, request logs, server startup logs), run
through the same core the other commands use, or that command's ``--json`` document (detected by
its ``kind``). Every input file is hashed; names shown in the review are relative to the working
folder, or bare file names, so no private folder ends up in ``report.json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from assess.kernel.common import hash_file
from assess.kernel.errors import CatalogueError, InputError, UsageError
from assess.kernel.model import Model
from assess.kernel.output import ProgressCallback
from assess.kernel.resources import data_dir
from assess.kernel.structured import load_document
from assess.report.build import ReportSources
from assess.report.governance import LoadedReview
from assess.report.models import (
    DeployView,
    InputRole,
    ProbeView,
    ReportInput,
    ScopeView,
    ScoreView,
)
from assess.vendor.scoring.evidence import ProbeEvidence
from assess.vendor.scoring.evidence_file import load_probe

ViewT = TypeVar("ViewT", bound=Model)
#: A JSON file larger than this is never opened to look for a ``kind`` (it is a log).
_SNIFF_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True)
class ReportRequest:
    """What the user asked for (paths as given on the command line)."""

    questionnaire: Path
    logs: Sequence[str] = ()
    incident: str | None = None
    preset: str | None = None
    probes: Sequence[Path] = ()
    deploy_check: Path | None = None
    deploy_logs: Sequence[str] = ()
    include_prompts: bool = False
    #: Score probe evidence even when its host or model is not the vendor's (as `assess score`).
    evidence_for_vendor: bool = False
    #: The assessment period 'YYYY-MM-DD..YYYY-MM-DD': evidence outside it is stale (default:
    #: the review file's scope.period).
    period: str | None = None
    #: The governance file (``--review``) and the earlier review (``--previous``).
    review: Path | None = None
    previous: Path | None = None
    #: Count the review file's due dates from the review date (`assess demo`: never overdue).
    due_from_review_date: bool = False
    cwd: Path = field(default_factory=Path.cwd)
    #: Called while the request logs are read (bytes done, total).
    progress: ProgressCallback | None = None


@dataclass(frozen=True)
class Gathered:
    """The loaded sources and, when logs were scoped, the rows of affected-requests.csv."""

    sources: ReportSources
    affected_rows: list[dict[str, Any]] | None


def validate_request(req: ReportRequest) -> None:
    """Check option combinations before any work is done.

    Raises:
        UsageError: for --deploy-check with --deploy-log, --logs without --incident, or
            --evidence-for-vendor with an already scored questionnaire.
    """
    if req.period is not None:
        from assess.vendor.scoring.freshness import parse_period

        parse_period(req.period)
    if req.evidence_for_vendor and document_kind(req.questionnaire) == "assess.score":
        raise UsageError(
            "--evidence-for-vendor only applies to raw answers: an `assess score --json` "
            "result was scored already",
            "Run `assess score ... --evidence-for-vendor --json FILE` and give FILE, or give "
            "the answers file to --questionnaire.",
        )
    if req.deploy_check is not None and req.deploy_logs:
        raise UsageError(
            "--deploy-check and --deploy-log cannot be used together",
            "Give either a deploy-check JSON result or the server logs to check, not both.",
        )
    if req.logs and not req.incident and not _scope_document(req.logs):
        raise UsageError(
            "--logs needs --incident ID: the advisory to scope the logs against",
            "List advisories with `assess advisories list`, e.g. --incident glm-5.3-kv-leak.",
        )
    if (req.incident or req.preset) and not req.logs:
        raise UsageError(
            "--incident and --preset only apply to --logs",
            "Add --logs FILE (request logs to scope) or drop those options.",
        )


def _scope_document(logs: Sequence[str]) -> bool:
    """Return True when ``--logs`` names one `assess scope --json` document."""
    return len(logs) == 1 and document_kind(Path(logs[0])) == "assess.scope"


def display_path(path: Path | str, cwd: Path) -> str:
    """Return how the review names ``path``: ``samples/...`` for a shipped sample, else relative
    to ``cwd`` when it lies inside it, else its bare file name (never a private folder)."""
    p = Path(path).resolve()
    for base, prefix in ((_samples_dir(), "samples/"), (cwd.resolve(), "")):
        if base is not None and p.is_relative_to(base):
            return prefix + p.relative_to(base).as_posix()
    return p.name


def _samples_dir() -> Path | None:
    try:
        return data_dir("samples").resolve()
    except CatalogueError:
        return None


def input_record(path: Path, role: InputRole, cwd: Path) -> ReportInput:
    """Return ``path`` hashed, as an input of the review.

    Raises:
        InputError: when the file cannot be read.
    """
    hashed = hash_file(path)
    return ReportInput(
        role=role, path=display_path(path, cwd), bytes=hashed.bytes, sha256=hashed.sha256
    )


def document_kind(path: Path) -> str | None:
    """Return the ``kind`` of a small JSON document, or None for anything else."""
    if path.suffix.lower() != ".json":
        return None
    try:
        if path.stat().st_size > _SNIFF_LIMIT:
            return None
        with path.open("rb") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def load_view(path: Path, view: type[ViewT], kind: str, option: str) -> tuple[ViewT, Any]:
    """Load a contract document as ``view``; return it and the raw data.

    Raises:
        InputError: when the file is not a ``kind`` document (names file, line and field).
    """
    doc = load_document(path)
    found = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if found != kind:
        raise InputError(
            f"{path}: not an {kind} document (kind is {found!r})",
            f"{option} takes the JSON written by `{kind.replace('.', ' ', 1)} --json`.",
        )
    return view.from_located(doc), doc.data


def gather(req: ReportRequest) -> Gathered:
    """Load, run and hash every input of ``req``.

    Raises:
        AssessError: any input error, naming the file (and line and field where there is one).
    """
    validate_request(req)
    inputs: list[ReportInput] = [input_record(req.questionnaire, "questionnaire", req.cwd)]
    answers = _answers(req.questionnaire)
    probe_docs: list[tuple[ProbeView, ProbeEvidence]] = []
    for path in req.probes:
        view, _ = load_view(path, ProbeView, "assess.probe", "--probe")
        probe_docs.append((view, load_probe(path)))  # the scoring's checks, file and field named
        inputs.append(input_record(path, "probe", req.cwd))
    deploy, deploy_raw = _deploy(req, inputs, _advertised_context(answers))
    review = previous = None
    if req.review is not None:
        from assess.report.governance import load_review

        review = load_review(req.review)
    period = review_period(req, review)
    probes = [evidence for _, evidence in probe_docs]
    score = _score(answers, probes, deploy_raw, req.evidence_for_vendor, period)
    scope: ScopeView | None = None
    preset: str | None = None
    rows: list[dict[str, Any]] | None = None
    if req.logs:
        scope, preset, rows = _scope(req, inputs)
    if req.review is not None:
        inputs.append(input_record(req.review, "review", req.cwd))
    if req.previous is not None:
        from assess.report.plan import load_previous

        previous = load_previous(req.previous)
        inputs.append(input_record(previous.path, "previous", req.cwd))
    sources = ReportSources(
        score=score,
        scope=scope,
        scope_preset=preset,
        probes=[view for view, _ in probe_docs],
        deploy=deploy,
        inputs=inputs,
        unweighed_evidence=_unweighed(req.questionnaire, answers, inputs),
        review=review,
        review_name=display_path(req.review, req.cwd) if req.review is not None else None,
        previous=previous,
        questions=_questions(answers, score),
    )
    return Gathered(sources=sources, affected_rows=rows)


def review_period(req: ReportRequest, review: LoadedReview | None) -> str | None:
    """Return the assessment period evidence is judged by: ``--period``, else the review file's
    ``scope.period``.

    Raises:
        UsageError: when both are given and differ (the message names both and the file).
    """
    if review is None:
        return req.period
    stated = review.review.scope.period
    from_file = f"{stated.start.isoformat()}..{stated.end.isoformat()}"
    if req.period is None:
        return from_file
    from assess.vendor.scoring.freshness import parse_period

    given = parse_period(req.period)
    if (given.start, given.end) != (stated.start, stated.end):
        raise UsageError(
            f"--period {req.period} differs from scope.period {from_file} of "
            f"{review.where('scope', 'period')}",
            "Give the same period in both, or drop --period: the review file's period is used "
            "when --period is absent.",
        )
    return req.period


def _questions(answers: Any, score: ScoreView) -> dict[str, tuple[str, bool]]:
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


def _answers(path: Path) -> Any:
    """Return a finished ScoreView (for an `assess score --json` file) or (bank, answers)."""
    if document_kind(path) == "assess.score":
        view, _ = load_view(path, ScoreView, "assess.score", "--questionnaire")
        return view
    from assess.vendor.answers_file import load_answers_and_bank

    return load_answers_and_bank(path)


#: Input roles whose evidence the scoring weighs (contradictions with the vendor's claims).
_EVIDENCE_ROLES = ("probe", "deploy-check", "deploy-log")


def _unweighed(path: Path, answers: Any, inputs: Sequence[ReportInput]) -> list[str]:
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


def _advertised_context(answers: Any) -> int | None:
    if isinstance(answers, ScoreView):
        answer = answers.answers.get("deployment.advertised_context_tokens")
        value = answer.value if answer is not None else None
    else:
        value = answers[1].value("deployment.advertised_context_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(
    answers: Any,
    probes: list[ProbeEvidence],
    deploy: Any,
    evidence_for_vendor: bool = False,
    period: str | None = None,
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
    result = score_answers(
        bank,
        answer_set,
        load_advisories(),
        probe=probe,
        deploy=DeployEvidence.model_validate(deploy) if deploy is not None else None,
        evidence_for_vendor=evidence_for_vendor,
        period=parse_period(period) if period is not None else None,
    )
    return ScoreView.model_validate(result.model_dump(mode="json"))


def _deploy(
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


def _scope(
    req: ReportRequest, inputs: list[ReportInput]
) -> tuple[ScopeView, str | None, list[dict[str, Any]]]:
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
        return view, preset, affected_rows(view)
    from assess.report.adapters import run_scope

    assert req.incident is not None  # validate_request
    run = run_scope(req.logs, req.incident, req.preset, req.include_prompts, req.progress)
    inputs.extend(_log_inputs(run.files, run.document.get("inputs", []), req.cwd))
    view = ScopeView.model_validate(run.document)
    preset = run.document.get("preset")
    return view, preset if isinstance(preset, str) else None, run.rows


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
