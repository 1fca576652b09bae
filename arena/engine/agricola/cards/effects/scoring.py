"""Cards that give bonus points at the end: pure functions of the final state,
``(state, owner, seat) -> points``, counted in the breakdown's "cards" entry."""

from __future__ import annotations

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import EFFECTS, CardState, register
from arena.engine.agricola.cards.effects.on_play import STEWARD_WOOD
from arena.engine.agricola.cards.effects.util import organic_pastures

SCORING = Moment.SCORING


def card_points(state: CardState, seat: int) -> dict[str, int]:
    """The bonus points each played card gives ``seat`` (any owner's), cards giving none left
    out: the points kept on its own cards, and every owner's scoring cards."""
    out: dict[str, int] = {}
    occupations, minors = state.played(seat)
    for card in (*occupations, *minors):
        e = EFFECTS.get(card)
        if e is not None and e.kept_points and state.mark(card) and state.mark(card)[0]:
            out[card] = state.mark(card)[0]
    for owner in range(state._n):
        for card in state.hooked(owner, SCORING):
            score = EFFECTS[card].score
            assert score is not None
            pts = score(state, owner, seat)
            if pts:
                out[card] = out.get(card, 0) + pts
    return out


def _stable_architect(state: CardState, owner: int, seat: int) -> int:
    return state._farms[seat].unfenced_stables() if seat == owner else 0


register("A098", SCORING, score=_stable_architect)


# A133 Braggart: by the improvements (majors and minors) in front of the owner.
_BRAGGART = (0, 0, 0, 0, 0, 2, 3, 4, 5, 7, 9)


def _braggart(state: CardState, owner: int, seat: int) -> int:
    if seat != owner:
        return 0
    n = len(state._majors[seat]) + len(state.played(seat)[1])
    return _BRAGGART[min(n, 10)]


register("A133", SCORING, score=_braggart)


# B098 Organic Farmer: pastures with at least 1 animal and room for at least 3 more. Animals
# are counted into pastures as the farm best places them: each type fills the fewest
# pastures (fullest first), so as many pastures as possible keep room.
def _organic(state: CardState, owner: int, seat: int) -> int:
    if seat != owner:
        return 0
    return organic_pastures(state._farms[seat], state._goods[seat])


register("B098", SCORING, score=_organic)


# B099 Tutor: occupations the owner played after this one.
def _tutor(state: CardState, owner: int, seat: int) -> int:
    if seat != owner:
        return 0
    occs = state.played(seat)[0]
    return len(occs) - 1 - occs.index("B099") if "B099" in occs else 0


register("B099", SCORING, score=_tutor)


# A032 Manger: farmyard spaces covered by pastures.
def _manger(state: CardState, owner: int, seat: int) -> int:
    if seat != owner:
        return 0
    cells = state._farms[seat].pastured().bit_count()
    return 4 if cells >= 10 else 3 if cells >= 8 else 2 if cells >= 7 else 1 if cells >= 6 else 0


register("A032", SCORING, score=_manger)


# A038 Wool Blankets: by the owner's house.
def _blankets(state: CardState, owner: int, seat: int) -> int:
    return (3, 2, 0)[state._farms[seat].material] if seat == owner else 0


register("A038", SCORING, score=_blankets)


# B136 House Steward: every player with the most rooms (ties all) gets 3.
def _steward(state: CardState, owner: int, seat: int) -> int:
    most = max(f.num_rooms() for f in state._farms)
    return 3 if state._farms[seat].num_rooms() == most else 0


register("B136", Moment.ON_PLAY, SCORING, events={Moment.ON_PLAY: STEWARD_WOOD},
         score=_steward)
