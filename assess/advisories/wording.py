"""Messages worded from an advisory's own data."""

from __future__ import annotations

from assess.advisories.models import Advisory

#: The engines whose startup logs `assess deploy-check` reads (its ParsedServerLog.engine; a test
#: keeps the two equal: the advisories feature may not import deploy).
LOGGED_ENGINES = ("sglang", "vllm")


def no_scope_reason(advisory: Advisory) -> str:
    """Why ``advisory`` cannot be scoped, and what reads it instead, worded from its own data:
    which of models and window it lacks, the engines or libraries and the answers it is about."""
    missing = [n for n, v in (("models", advisory.models), ("window", advisory.window)) if not v]
    reason = f"this advisory has no scope data: no {' and no '.join(missing)}"
    if advisory.window is not None:
        start, end = (
            t.isoformat(timespec="minutes") for t in (advisory.window.start, advisory.window.end)
        )
        reason += f" (its window, {start} .. {end}, names no model)"
    logs = set(LOGGED_ENGINES)
    names = list(dict.fromkeys(e.name for e in advisory.engines))
    engines = [n for n in names if n in logs]
    libraries = [n for n in names if n not in logs]
    questions = list(dict.fromkeys(a.question for a in advisory.exposed_if))
    about = []
    if engines:
        about.append(f"{' and '.join(engines)} versions and settings")
    if libraries:
        about.append(f"{' and '.join(libraries)} versions (a library, not an inference engine)")
    if not names:
        about.append(
            f"a service's settings ({advisory.behaviour or 'no class'}), no engine version"
        )
    if about:
        reason += f"; it is about {' and '.join(about)}"
    answers = ["engine.name", "engine.version"] if engines else []
    if any(e.deployment_modes for e in advisory.engines if e.name in logs):
        answers.append("deployment.mode")
    answers += [q for q in questions if q not in answers]
    readers = []
    if answers and not advisory.not_checked:
        readers.append(f"`assess score` reads the vendor's answers ({', '.join(answers)})")
    # deploy-check reads these engines' versions and the server settings the advisory names
    logged = [*engines, *(f.engine for f in advisory.settings if f.where == "server")]
    logged = [n for n in dict.fromkeys(logged) if n in logs]
    if logged:
        readers.append(f"`assess deploy-check` reads {' and '.join(logged)} startup logs")
    return reason + (": " + "; ".join(readers) if readers else "")
