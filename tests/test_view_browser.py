"""The replay page in headless Chromium: every step of a Stone Age and an Agricola game shows
without an error, the drawing on the page counts what the position holds, the seat selector
hides what a seat could not see, the controls move through the game, and a 4-player Stone
Age page is small and quick (its figures are printed: ``pytest -s`` shows them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from chromium import CHROMIUM, Browser, browser, shared_browser
from viewing import AGRICOLA_2P, STONE_AGE_4P, page_of, played

from arena.report.view import view_page
from arena.runner.game.record import GameRecord
from arena.runner.game.replay import states

__all__ = ["browser", "shared_browser"]  # the fixtures, shared with the other page tests

pytestmark = pytest.mark.skipif(
    not CHROMIUM.is_file(),
    reason=f"{CHROMIUM} is missing (scripts/setup installs Debian's chromium when run as root)")


def opened(browser: Browser, tmp_path: Path, record: GameRecord,
           path: Path | None = None) -> int:
    """Load ``record``'s page (that of the committed record at ``path``, if given, made once)
    and wait until it is ready; its number of steps."""
    page = tmp_path / f"{record.game_id}.html"
    page.write_text(page_of(path) if path is not None else view_page(record), encoding="utf-8")
    browser.load(page.as_uri())
    deadline = time.monotonic() + 10
    while browser.evaluate("window.arenaReady") is None:
        assert time.monotonic() < deadline, browser.problems()
        time.sleep(0.02)
    return int(browser.evaluate("+document.getElementById('slider').max")) + 1


def show(browser: Browser, step: int, viewer: int = 0) -> None:
    browser.evaluate(f"var v = document.getElementById('viewer'); v.value = '{viewer}';"
                     f"v.onchange(); var s = document.getElementById('slider');"
                     f"s.value = '{step}'; s.oninput();")


def count(browser: Browser, selector: str) -> int:
    return int(browser.evaluate(f"document.querySelectorAll({json.dumps(selector)}).length"))


STEP_ALL = ("(function () { var s = document.getElementById('slider'), n = +s.max;"
            " for (var k = 0; k <= n; k++) { s.value = String(k); s.oninput();"
            " if (!document.querySelector('#board svg, #board details')) { return k; } }"
            " return -1; })()")


@pytest.mark.parametrize("path", [STONE_AGE_4P, AGRICOLA_2P], ids=["stoneage", "agricola"])
def test_every_step_of_a_game_shows_for_every_viewer_without_an_error(
        tmp_path: Path, path: Path, browser: Browser) -> None:
    record = GameRecord.load(path)
    steps = opened(browser, tmp_path, record, path)
    assert steps == len(record.decisions) + 1
    for viewer in range(record.num_players + 1):
        show(browser, 0, viewer)
        assert browser.evaluate(STEP_ALL) == -1
    assert browser.problems() == []


def test_the_drawing_on_the_page_counts_what_the_stone_age_position_holds(
        tmp_path: Path, browser: Browser) -> None:
    record = GameRecord.load(STONE_AGE_4P)
    opened(browser, tmp_path, record, STONE_AGE_4P)
    for k, state in states(record):
        if k % 50:
            continue
        show(browser, k)  # step k is the position before decision k
        obs = state.observation(0)
        for p in obs["players"]:
            s = p["seat"]
            assert count(browser, f'#board [data-member="{s}"]') == p["people"]
            assert count(browser, f'#board [data-hut="{s}"]') == p["buildings"]
        placed = sum(sum(v) for v in obs["board"]["people"].values()) + sum(
            sum(c["people"]) for c in obs["board"]["cards"]) + sum(
            sum(b["people"]) for b in obs["board"]["buildings"])
        assert count(browser, "#board [data-person]") == placed
    assert browser.problems() == []


def test_the_drawing_on_the_page_counts_what_the_agricola_position_holds(
        tmp_path: Path, browser: Browser) -> None:
    record = GameRecord.load(AGRICOLA_2P)
    opened(browser, tmp_path, record, AGRICOLA_2P)
    for k, state in states(record):
        if k % 15:
            continue
        show(browser, k, viewer=1)
        d = state.observation(0)
        for p in d["players"]:
            farm, s = p["farm"], p["seat"]
            within = f'#board [data-seat="{s}"] '
            assert count(browser, within + "[data-room]") == len(farm["rooms"])
            assert count(browser, within + "[data-fence]") == len(farm["fences"])
            assert count(browser, within + "[data-animal]") == sum(
                p["goods"][a] for a in ("sheep", "boar", "cattle"))
        assert count(browser, "#board [data-person]") == len(d["board"]["occupants"])
    assert browser.problems() == []


def test_the_seat_selector_hides_what_that_seat_could_not_see(
        tmp_path: Path, browser: Browser) -> None:
    for seed in range(40):
        record = played("stoneage", 3, seed=seed)
        hidden = [(k, s.to_dict()["hidden"]) for k, s in states(record) if any(
            s.to_dict()["hidden"])]
        if hidden:
            break
    k, cards = hidden[-1]
    opened(browser, tmp_path, record)
    show(browser, k, viewer=0)
    assert count(browser, "#board [data-hidden]") == sum(len(c) for c in cards)
    for seat in range(3):
        show(browser, k, viewer=seat + 1)
        assert count(browser, "#board [data-hidden]") == len(cards[seat])
        assert count(browser, "#board [data-facedown]") == sum(
            len(c) for i, c in enumerate(cards) if i != seat)
    assert browser.problems() == []


def test_keys_play_and_the_jumps_move_through_the_game(tmp_path: Path, browser: Browser) -> None:
    record = played("stoneage", 2, seed=8, failing=1, fail_at=20)
    first_fallback = next(k for k, d in enumerate(record.decisions) if d.by == "fallback")
    steps = opened(browser, tmp_path, record)

    def at() -> int:
        return int(browser.evaluate("+document.body.getAttribute('data-step')"))

    key = ("document.dispatchEvent(new KeyboardEvent('keydown', {key: %s, "
           "bubbles: true}))")
    browser.evaluate(key % '"ArrowRight"')
    browser.evaluate(key % '"ArrowRight"')
    assert at() == 2
    browser.evaluate(key % '"End"')
    assert at() == steps - 1
    browser.evaluate(key % '"Home"')
    browser.evaluate("document.getElementById('failure').click()")
    assert at() == first_fallback + 1
    assert "failed: timeout" in browser.evaluate(
        "document.getElementById('decision').textContent")
    browser.evaluate("document.getElementById('seat').value = '1';"
                     "document.getElementById('seat-next').click()")
    after = at()
    assert record.decisions[after - 1].seat == 1 and after > first_fallback + 1
    rounds = browser.evaluate("document.getElementById('round').options.length")
    assert rounds == record.rounds + 1
    browser.evaluate("var r = document.getElementById('round'); r.value = r.options[3]"
                     ".value; r.onchange()")
    assert browser.evaluate("document.getElementById('where').textContent").find(
        "round 3") > 0
    browser.evaluate(key % '"Home"')
    browser.evaluate("document.getElementById('speed').value = '32';"
                     "document.getElementById('play').click()")
    time.sleep(0.5)
    moved = at()
    browser.evaluate("document.getElementById('play').click()")
    assert moved >= 5
    time.sleep(0.2)
    assert at() in range(moved, moved + 3)
    assert browser.problems() == []


def test_a_four_player_stone_age_page_is_under_a_megabyte() -> None:
    assert len(page_of(STONE_AGE_4P).encode("utf-8")) < 1_000_000


@pytest.mark.slow
def test_a_four_player_stone_age_page_is_under_a_megabyte_and_ready_within_a_second(
        tmp_path: Path) -> None:
    record = GameRecord.load(STONE_AGE_4P)
    start = time.perf_counter()
    page = view_page(record)
    built = time.perf_counter() - start
    size = len(page.encode("utf-8"))
    with Browser() as browser:
        ready = []
        for _ in range(3):
            opened(browser, tmp_path, record, STONE_AGE_4P)
            ready.append(float(browser.evaluate("window.arenaReady")))
        stepping = float(browser.evaluate(
            "(function () { var t = performance.now(), s = document.getElementById('slider');"
            " for (var k = 0; k <= +s.max; k++) { s.value = String(k); s.oninput(); }"
            " return (performance.now() - t) / (+s.max + 1); })()"))
    print(f"\n4-player Stone Age, {len(record.decisions)} decisions: page {size / 1024:.0f} KiB, "
          f"written in {built:.2f} s; interactive after {min(ready):.0f}-{max(ready):.0f} ms "
          f"from navigation start; {stepping:.1f} ms per step shown")
    assert size < 1_000_000
    assert max(ready) < 1000
