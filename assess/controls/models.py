"""The controls crosswalk's files: framework id lists and the mapping (``controls/``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assess.kernel.model import Model

#: The frameworks the crosswalk maps to, by the key the mapping file uses.
FrameworkKey = Literal["csa-aicm", "iso-42001", "nist-ai-rmf"]
FRAMEWORK_KEYS: tuple[FrameworkKey, ...] = ("csa-aicm", "iso-42001", "nist-ai-rmf")

#: Control ids per framework: what one question or finding maps to.
Mapping = dict[FrameworkKey, list[str]]


class Control(Model):
    """One control of a framework: its id and title, never its text."""

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)


class Framework(Model):
    """A framework's published id list (``controls/frameworks/*.yaml``), with its source."""

    id: FrameworkKey
    name: str
    version: str
    published: str = Field(description="When the framework version was published")
    source: str = Field(description="The publisher's page of this version")
    list_from: str = Field(description="Where the ids and titles below were checked")
    licence: str
    complete: bool = Field(description="False: only the controls the crosswalk uses are listed")
    controls: list[Control] = Field(min_length=1)


class Source(Model):
    """Where control ids and titles were checked: a framework list file and its upstream."""

    file: str = Field(min_length=1, description="The list file, relative to controls/")
    checked_against: str = Field(
        min_length=1, description="The upstream copy, at a commit (the list file's list_from)"
    )


class Group(Model):
    """Mappings that share a reason: the reason (``basis``) and where their ids were checked."""

    group: str = Field(min_length=1, description="What the mappings have in common")
    basis: str = Field(
        min_length=1,
        description="Why these controls, naming each one used: assess's judgement, not the "
        "publishers'",
    )
    source: list[str] = Field(min_length=1, description="Keys of the file's sources")
    map: dict[str, Mapping] = Field(min_length=1, description="Id -> controls")


class CrosswalkFile(Model):
    """``controls/crosswalk.yaml``: questions and finding ids mapped to control ids, in groups."""

    version: int
    sources: dict[str, Source] = Field(min_length=1)
    questions: list[Group] = Field(default_factory=list)
    findings: list[Group] = Field(default_factory=list)
    families: list[Group] = Field(
        default_factory=list, description="Finding ids built as '<family>.<suffix>'"
    )
    from_question: list[str] = Field(
        default_factory=list, description="Families whose suffix is a question id"
    )
    unmapped: dict[str, str] = Field(
        default_factory=dict, description="Ids mapped to no control, with the reason"
    )


class ControlRef(Model):
    """A control a question or finding maps to, as score, the review and OSCAL carry it."""

    framework: FrameworkKey = Field(description="csa-aicm, iso-42001 or nist-ai-rmf")
    version: str = Field(description="The framework's version, e.g. '1.0'")
    id: str = Field(description="The control id as the framework writes it, e.g. 'I&S-06'")
    title: str = Field(description="The control's title (no control text)")
