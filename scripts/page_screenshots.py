"""Screenshots of the page for each game on its first bundled sample, desktop and phone, in headless Chromium.

Usage: ``python scripts/page_screenshots.py [--out docs/screenshots] [--games carrotain kaleido cmyk ...]``.
Runs the real Streamlit server on a scratch ledger; writes ``<game>-desktop.png`` and ``<game>-phone.png``
(PNG, palette-reduced to stay small).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser_helpers import chrome, set_viewport, wait_for_text, wait_quiet  # noqa: E402
from tests.server_helpers import streamlit_server  # noqa: E402

PHONE = (390, 844)
DESKTOP = (1200, 1000)
VERDICT_WORDS = ("SUCCESS", "FAILURE", "CONTESTED", "Ranking", "complete junction hexagon", "Move points",
                 "move points", "NOT SCORED", "Not scored")


def shrink_png(path: Path, colours: int = 128) -> None:
    """Re-save a screenshot with a reduced palette (about a third of the size, no visible change)."""
    from PIL import Image

    img = Image.open(path).convert("RGB")
    img.quantize(colors=colours, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def shoot(url: str, game: str, out: Path, phone: bool, tmp: Path) -> Path:
    size = PHONE if phone else DESKTOP
    driver = chrome(tmp / f"profile-{game}-{phone}", size, phone=phone)
    try:
        driver.get(f"{url}/?game={game}&layout={'phone' if phone else 'wide'}")
        wait_for_text(driver, VERDICT_WORDS)
        wait_quiet(driver)
        time.sleep(2.0)  # the image components draw after the script stops
        height = driver.execute_script(
            "return Math.max(document.body.scrollHeight, ...Array.from(document.querySelectorAll("
            "'[data-testid=stMain], [data-testid=stAppViewContainer]')).map(e => e.scrollHeight))")
        set_viewport(driver, size[0], min(int(height) + 40, 1750 if phone else 1900), phone)
        time.sleep(1.5)
        path = out / f"{game}-{'phone' if phone else 'desktop'}.png"
        driver.save_screenshot(str(path))
        shrink_png(path)
        return path
    finally:
        driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    ap.add_argument("--games", nargs="*", default=["carrotain", "kaleido", "cmyk", "ingenious", "genial"])
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for game in args.games:
            with streamlit_server(tmp / f"{game}.sqlite") as url:
                for phone in (False, True):
                    print(shoot(url, game, args.out, phone, tmp))


if __name__ == "__main__":
    main()
