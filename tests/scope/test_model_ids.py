"""Model ids match by equality after normalisation, never by substring."""

from __future__ import annotations

import pytest

from assess.kernel.model_ids import matches, normalise_model_id


@pytest.mark.parametrize(
    "model_id",
    [
        "glm-5.3",
        "GLM-5.3",
        "@cf/zai-org/glm-5.3",
        "zai-org/GLM-5.3",
        "z-ai/glm-5.3",
        "z-ai/glm-5.3:free",
        "us.zai.glm-5.3",
        "global.zai.glm-5.3",
        "zai.glm-5.3-v1:0",
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.zai.glm-5.3-v1:0",
        " glm-5.3 ",
        # a quantised build is the same model (issue 36: the incident deployment's own name)
        "glm-5.3-fp8",
        "zai-org/GLM-5.3-FP8",
    ],
)
def test_ids_of_the_affected_model_match(model_id: str) -> None:
    assert matches(model_id, ["glm-5.3"])


@pytest.mark.parametrize(
    "model_id",
    [
        "glm-5.3-flash",
        "@cf/zai-org/glm-5.3-flash",
        "glm-5.2",
        "glm-5",
        "glm-5.3-v2",
        "glm-5.30",
        "my-glm-5.3",
        "glm-5.3-fp8x",
        "glm-5.3x",
        "glm-5.3/deployment",
        "",
        None,
    ],
)
def test_look_alikes_never_match(model_id: str | None) -> None:
    assert not matches(model_id, ["glm-5.3"])


def test_normalisation_keeps_the_name_when_only_a_prefix_is_left() -> None:
    assert normalise_model_id("us.") == "us."
