"""The HTML audit report renders its plots in a real browser (headless Chromium screenshot).

CI installs Debian's chromium (`apt-get install -y chromium`); without it the browser test is
skipped with that reason, and the self-containedness checks still run."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from verifydp.audit import audit
from verifydp.audit.html import render_html

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
C0 = (31, 119, 180)  # matplotlib's first colour: the exact worst-case points


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rep = audit(ROOT / "examples" / "business_survey_proportional_rounded.toml")
    out = tmp_path_factory.mktemp("html") / "report.html"
    out.write_text(render_html(rep), encoding="utf-8")
    return out


def test_html_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    imgs = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", text)
    assert len(imgs) == 2  # ε' against ε, and δ'(ε')
    for b64 in imgs:
        assert base64.b64decode(b64).startswith(b"\x89PNG")
    assert "http://" not in text and "https://" not in text  # nothing fetched
    assert "bun/lemB.1:corrected" in text and "deterministic rounding" in text


def _coloured_pixels(png: Path, rgb: tuple[int, int, int], tol: int = 12) -> int:
    from matplotlib import image

    img = image.imread(png)  # floats in [0, 1], RGBA
    px = (img[..., :3] * 255).round()
    hit = (abs(px[..., 0] - rgb[0]) <= tol) & (abs(px[..., 1] - rgb[1]) <= tol) & \
        (abs(px[..., 2] - rgb[2]) <= tol)
    return int(hit.sum())


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed "
                                             "(CI: apt-get install -y chromium)")
def test_plots_render_in_headless_chromium(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    blank = tmp_path / "blank.html"
    blank.write_text(re.sub(r"<img[^>]*>", "", page.read_text(encoding="utf-8")),
                     encoding="utf-8")
    counts = []
    for html in (page, blank):
        subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--screenshot={shot}", "--window-size=1200,2400", html.as_uri()],
            check=True, capture_output=True, timeout=120,
        )
        assert shot.exists() and shot.stat().st_size > 0
        counts.append(_coloured_pixels(shot, C0))
        shot.unlink()
    with_plots, without = counts
    assert with_plots > 200, "the exact points of the plot are not visible"
    assert without < 20, "the colour check does not isolate the plots"
