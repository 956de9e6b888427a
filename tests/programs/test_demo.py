"""The traffic-light demo: exact scan counts of every phase at 5 ms scans."""

from fbd.testing import Harness
from programs.demo import traffic_light

OFF = (False, False, False)
RED = (True, False, False)
RED_YELLOW = (True, True, False)
GREEN = (False, False, True)
YELLOW = (False, True, False)


def phases(h: Harness, scans: int) -> list[tuple]:
    """Run ``scans`` scans; return the lights as runs of (RED, YELLOW, GREEN), scan count."""
    runs: list[list] = []
    for _ in range(scans):
        h.scan()
        lights = (h.get("RED"), h.get("YELLOW"), h.get("GREEN"))
        if runs and runs[-1][0] == lights:
            runs[-1][1] += 1
        else:
            runs.append([lights, 1])
    return [tuple(r) for r in runs]


def test_full_cycle_has_exact_phase_lengths_at_5ms_scans():
    h = Harness(traffic_light()).set(ENABLE=True)
    # 3 s, 1 s, 3 s, 1 s; YELLOW one scan longer (the ring's feedback wire).
    cycle = [(RED, 600), (RED_YELLOW, 200), (GREEN, 600), (YELLOW, 201)]
    assert phases(h, 2 * 1601 + 10) == cycle + cycle + [(RED, 10)]
    assert h.get("CYCLES") == 2


def test_cycles_counts_each_cycle_on_the_last_yellow_scan():
    h = Harness(traffic_light()).set(ENABLE=True)
    h.scan(1600)
    assert h.get("CYCLES") == 0
    h.scan()
    assert (h.get("CYCLES"), h.get("YELLOW")) == (1, True)


def test_lights_never_show_a_forbidden_combination():
    h = Harness(traffic_light(red="T#20ms", red_yellow="T#10ms", green="T#20ms",
                              yellow="T#10ms")).set(ENABLE=True)
    seen = {lights for lights, _n in phases(h, 200)}
    assert seen == {RED, RED_YELLOW, GREEN, YELLOW}


def test_disabled_light_flashes_yellow():
    h = Harness(traffic_light())     # ENABLE reads FALSE until set
    # Lit for 500 ms (100 scans), then dark and lit by turns for 500 ms plus one scan.
    assert phases(h, 100 + 4 * 101) == [(YELLOW, 100), (OFF, 101), (YELLOW, 101),
                                        (OFF, 101), (YELLOW, 101)]
    assert h.get("CYCLES") == 0


def test_disabling_mid_cycle_flashes_at_once_and_enabling_restarts_at_red():
    h = Harness(traffic_light()).set(ENABLE=True)
    h.scan(900)                                     # in GREEN
    h.set(ENABLE=False)
    assert phases(h, 150) == [(YELLOW, 100), (OFF, 50)]
    h.set(ENABLE=True)
    assert phases(h, 801) == [(RED, 600), (RED_YELLOW, 200), (GREEN, 1)]
    assert h.get("CYCLES") == 0
