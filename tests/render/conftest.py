"""Shared fixtures for the renderer tests: one EGL check, one scene."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def gl_available():
    """Fail (never skip) without EGL: CI installs the packages."""
    from sample_videos.render.renderer import EGL_HELP, RenderUnavailable, create_context
    try:
        ctx = create_context()
    except RenderUnavailable as exc:
        pytest.fail(f"{EGL_HELP}: {exc}")
    ctx.release()
    return True


@pytest.fixture(scope="session")
def scene(gl_available):
    from sample_videos.render.scene import build_scene
    return build_scene(seed=3)
