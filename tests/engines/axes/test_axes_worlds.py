"""``resample_world``: re-deals keep everything the seat knows, are uniform over what it does
not, and the uninformed variant also re-deals the seat's own cards."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engines.axes.play import (
    ACTION,
    CARD,
    PICK,
    DealTrace,
    Step,
    Stream,
    draw_chance,
    play_traced,
    stream_length,
)
from engines.axes.population import L0
from engines.axes.worlds import (
    World,
    WorldSampler,
    masked_view,
    replay_steps,
    resample_world,
    unseen_cards,
)
from engines.gbg import presets
from engines.gbg.engine import State
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.spec import GameSpec


def random_deals(spec: GameSpec, n: int, seed: int) -> list[DealTrace]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        moves = Stream(rng.random(stream_length(spec)).tolist())
        _, trace = play_traced(spec, (L0, L0), draw_chance(spec, rng), moves, 6)
        out.append(trace)
    return out


def decisions(spec: GameSpec, trace: DealTrace) -> list[tuple[int, State]]:
    """(steps before, state) at every action step of a deal."""
    out = []
    for i, kind in enumerate(trace.kinds):
        if kind == ACTION:
            state = replay_steps(spec, trace.steps[:i])
            assert state is not None
            out.append((i, state))
    return out


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), generate(5), generate(24)],
    ids=["kuhn", "leduc", "example4643", "seed5", "seed24"],
)
def test_a_world_keeps_what_the_seat_knows_and_changes_what_it_does_not(spec: GameSpec) -> None:
    rng = np.random.default_rng(7)
    worlds = fallbacks = changed = 0
    for trace in random_deals(spec, 25, seed=3):
        for upto, state in decisions(spec, trace):
            seat = state.current_player
            world = resample_world(spec, trace, upto, seat, rng, reference=state)
            worlds += 1
            fallbacks += world.fallback
            assert world.state.current_player == seat
            assert world.state.information_state(seat) == state.information_state(seat)
            assert world.state.legal_actions() == state.legal_actions()
            assert world.actions == {a: a for a in state.legal_actions()}
            assert sorted(world.state.hands[seat]) == sorted(state.hands[seat])
            changed += world.state.hands[1 - seat] != state.hands[1 - seat]
    assert fallbacks <= 0.05 * worlds
    assert changed > 0.3 * worlds  # the opponent's cards really are re-dealt


def _kuhn_first_decision(card: int) -> tuple[DealTrace, State]:
    spec = presets.kuhn()
    from engines.gbg.engine import new_deal

    state = new_deal(spec, explicit_chance=True)
    trace = DealTrace()
    trace.chance(state, card)  # Alice's card
    trace.chance(state, (card + 1) % 3)  # Bob's card
    return trace, state


def test_worlds_are_uniform_over_the_unseen_cards() -> None:
    # Alice holds J (card 0): Bob holds Q or K, each with probability 1/2.
    spec = presets.kuhn()
    trace, state = _kuhn_first_decision(0)
    rng = np.random.default_rng(11)
    n = 2_000
    counts = Counter(
        resample_world(spec, trace, len(trace), 0, rng, reference=state).state.hands[1][0]
        for _ in range(n)
    )
    assert set(counts) == {1, 2}
    assert abs(counts[1] - n / 2) < 4 * (n / 4) ** 0.5  # binomial, 4 standard deviations


def test_the_uninformed_world_re_deals_the_seats_own_cards() -> None:
    spec = presets.kuhn()
    trace, state = _kuhn_first_decision(0)
    assert unseen_cards(state, 0) == [1, 2]
    assert unseen_cards(state, 0, condition_on_own_hand=False) == [0, 1, 2]
    rng = np.random.default_rng(12)
    n = 3_000
    own = Counter(
        resample_world(
            spec, trace, len(trace), 0, rng, reference=state, condition_on_own_hand=False
        ).state.hands[0][0]
        for _ in range(n)
    )
    for card in (0, 1, 2):
        assert abs(own[card] - n / 3) < 4 * (n * 2 / 9) ** 0.5


def test_the_uninformed_world_renames_a_swap_after_the_card_it_now_gives() -> None:
    # example4643 ends with Alice's swap (keep, or swap one of her cards with a random card of
    # Bob's); in a world where her own cards were re-dealt, each swap names her new card.
    spec = presets.example4643()
    rng = np.random.default_rng(5)
    seen = 0
    for trace in random_deals(spec, 60, seed=9):
        for upto, state in decisions(spec, trace):
            if state.phase_id != "swap":
                continue
            world = resample_world(
                spec, trace, upto, 0, rng, reference=state, condition_on_own_hand=False
            )
            if world.fallback:
                continue
            seen += 1
            labels = state.g.label_of
            assert sorted(world.actions.values()) == sorted(world.state.legal_actions())
            assert set(world.actions) == set(state.legal_actions())
            own = sorted(labels[c] for c in world.state.hands[0])
            assert sorted(a[5:] for a in world.actions.values() if a != "keep") == sorted(set(own))
    assert seen >= 5


def test_worlds_are_reproducible_and_fall_back_to_the_true_cards() -> None:
    spec = presets.leduc()
    trace = random_deals(spec, 1, seed=4)[0]
    upto, state = decisions(spec, trace)[-1]
    seat = state.current_player
    first = resample_world(spec, trace, upto, seat, np.random.default_rng(3))
    again = resample_world(spec, trace, upto, seat, np.random.default_rng(3))
    assert first.state.hands == again.state.hands and first.chance == again.chance
    # With no attempt allowed, the world is the deal itself, flagged as a fallback.
    fallback = resample_world(spec, trace, upto, seat, np.random.default_rng(3), attempts=0)
    assert fallback.fallback and fallback.state.hands == state.hands
    with pytest.raises(ValueError, match="not a decision of seat"):
        resample_world(spec, trace, upto, 1 - seat, np.random.default_rng(3))


def _draw_without_memo(sampler: WorldSampler, rng: np.random.Generator) -> World:
    """The draw as the module docstring states it, every attempt replayed from the start: the
    reference for the sampler, which judges each re-deal once and patches only what changes."""
    trace, seat, unseen = sampler.trace, sampler.seat, sampler.unseen
    labels = sampler.labels
    for attempt in range(1, sampler.attempts + 1):
        if not unseen:
            break
        permuted = rng.permutation(len(unseen)).tolist()
        mapping = {card: unseen[j] for card, j in zip(unseen, permuted, strict=True)}
        mapped: list[Step] = []
        for i in range(sampler.upto):
            kind, value = trace.steps[i]
            if trace.kinds[i] == CARD:
                mapped.append((kind, mapping.get(value, value)))
            elif trace.kinds[i] == PICK and seat not in trace.pick_seen[i]:
                mapped.append((kind, int(rng.integers(trace.pick_sizes[i]))))
            elif trace.kinds[i] == ACTION and trace.discards[i] >= 0:
                card = trace.discards[i]
                mapped.append((kind, "swap " + labels[mapping.get(card, card)]))
            else:
                mapped.append((kind, value))
        world = replay_steps(sampler.spec, mapped)
        if world is None or world.current_player != seat:
            continue
        if sampler.masked is None:
            if world.information_state(seat) != sampler.target:
                continue
        elif masked_view(world, seat, sampler.masked) != sampler.target:
            continue
        hand = sampler.hand
        actions = {}
        for a in sampler.menu:
            renamed = a
            if a.startswith("swap "):
                held = [c for c in hand if labels[c] == a[5:]]
                if held:
                    renamed = "swap " + labels[mapping.get(held[0], held[0])]
            actions[a] = renamed
        if any(a not in world.legal_actions() for a in actions.values()):
            continue
        return World(world, actions, draw_chance(sampler.spec, rng), False, attempt)
    return World(
        sampler.reference.clone(),
        {a: a for a in sampler.menu},
        draw_chance(sampler.spec, rng),
        fallback=bool(unseen),
        attempts=sampler.attempts if unseen else 0,
    )


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    complexity=st.floats(min_value=0.5, max_value=4.0, allow_nan=False),
    informed=st.booleans(),
    attempts=st.sampled_from([1, 6, 24]),
)
def test_a_sampler_draws_the_worlds_of_replaying_every_attempt_afresh(
    seed: int, complexity: float, informed: bool, attempts: int
) -> None:
    """Twelve worlds of one decision from one ``WorldSampler`` are, one by one, the worlds
    ``resample_world`` draws and the worlds of replaying every attempt afresh, from generators
    in the same state: the same re-deal, menu renaming, future, fallback and attempts (the
    sampler prepares once what they share and judges each re-deal once).  Its worlds that
    re-dealt alike share one state, which nothing moved."""
    spec = generate(seed, GenerationConfig(complexity=complexity))
    drawn = 0
    for trace in random_deals(spec, 3, seed=seed % 1000):
        for upto, state in decisions(spec, trace)[:4]:
            seat = state.current_player
            sampler = WorldSampler(
                spec,
                trace,
                upto,
                seat,
                condition_on_own_hand=informed,
                attempts=attempts,
                reference=state,
            )
            ours, fresh, afresh = (np.random.default_rng(seed) for _ in range(3))
            kept = []
            for _ in range(12):
                world = sampler.draw(ours)
                one = resample_world(
                    spec,
                    trace,
                    upto,
                    seat,
                    fresh,
                    condition_on_own_hand=informed,
                    attempts=attempts,
                    reference=state,
                )
                for other in (one, _draw_without_memo(sampler, afresh)):
                    assert world.state.history == other.state.history
                    assert world.state.events == other.state.events
                    assert world.actions == other.actions
                    assert (world.chance.rank, world.chance.aux) == (
                        other.chance.rank,
                        other.chance.aux,
                    )
                    assert (world.fallback, world.attempts) == (other.fallback, other.attempts)
                kept.append((world.state, list(world.state.events)))
                drawn += 1
            for shared, events in kept:  # no caller of draw moved a shared state
                assert shared.events == events
    assume(drawn > 0)  # a generated game may have no decision at all (the filter rejects it)


def test_the_sampler_replays_a_re_deal_it_has_judged_no_more() -> None:
    """On Leduc's first decision (five unseen cards for the opponent's one) the 24 worlds
    of a decision need far fewer replays than attempts: each re-deal is judged once."""
    spec = presets.leduc()
    (trace,) = random_deals(spec, 1, seed=3)
    upto, state = decisions(spec, trace)[0]
    sampler = WorldSampler(spec, trace, upto, state.current_player, reference=state)
    rng = np.random.default_rng(11)
    worlds = [sampler.draw(rng) for _ in range(24)]
    assert sum(w.attempts for w in worlds) == 24  # every first attempt is a consistent re-deal
    assert len(sampler.judged) <= len(unseen_cards(state, state.current_player))
    by_deal = {tuple(w.state.hands[1 - state.current_player]): w.state for w in worlds}
    assert all(w.state is by_deal[tuple(w.state.hands[1 - state.current_player])] for w in worlds)
