"""Python API of the vendor feature: score a vendor's answers.

``from assess import score_answers`` returns the model of `assess score --json`; the CLI calls
it. Nothing here prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assess.vendor.scoring.models import ScoreResult


def score_answers(
    answers: str | Path,
    *,
    probe: str | Path | Sequence[str | Path] | None = None,
    deploy_check: str | Path | None = None,
    questionnaire: str | Path | None = None,
    evidence_for_vendor: bool = False,
    period: str | None = None,
) -> ScoreResult:
    """Score the answers file ``answers`` (YAML, JSON, xlsx or csv): findings, a 0-100 risk score
    (higher is riskier) and a tier.

    ``probe`` (one file or several: a canary probe and a cache audit, `assess probe [--mode
    cache] --json`) and ``deploy_check`` (`assess deploy-check --json`) are evidence that can
    contradict the answers; ``questionnaire`` is an id or a file
    (default: the one the answers name). Evidence whose host, model or service is not the
    vendor's, or that is stale (older than the questionnaire's ``evidence_max_age_days`` before
    the answers, or outside ``period`` 'YYYY-MM-DD..YYYY-MM-DD'), is not scored unless
    ``evidence_for_vendor``.

    Raises:
        UsageError: a malformed ``period``; two probe files of one kind.
        InputError: a missing or invalid file (naming file, line and field).
        CatalogueError: an invalid questionnaire.
    """
    from assess.advisories.catalogue import load_advisories
    from assess.kernel.common import hash_file
    from assess.vendor.answers_file import load_answers_and_bank
    from assess.vendor.scoring import score_answers as score
    from assess.vendor.scoring.evidence_file import load_deploy_check, load_probes
    from assess.vendor.scoring.freshness import parse_period

    stated = parse_period(period) if period is not None else None

    bank, checked = load_answers_and_bank(answers, questionnaire)
    probes = [] if probe is None else [probe] if isinstance(probe, str | Path) else list(probe)
    probe_doc, cache_doc = load_probes(probes)
    deploy_doc = load_deploy_check(deploy_check) if deploy_check is not None else None
    inputs = [hash_file(Path(p)) for p in (answers, *probes, deploy_check) if p is not None]
    return score(
        bank,
        checked,
        load_advisories(),
        probe=probe_doc,
        deploy=deploy_doc,
        cache_probe=cache_doc,
        inputs=inputs,
        evidence_for_vendor=evidence_for_vendor,
        period=stated,
    )
