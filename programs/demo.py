"""A demo program for the CLI: a traffic light built only from library blocks.

``traffic_light()`` returns the network (``fbd run programs.demo:traffic_light``).
"""

from __future__ import annotations

from blocks.counters import CTU
from blocks.edge import R_TRIG
from blocks.logic import AND, NOT, OR
from blocks.memory import RS
from blocks.timers import TON
from fbd import BOOL, Network


def traffic_light(red="T#3s", red_yellow="T#1s", green="T#3s", yellow="T#1s",
                  blink="T#500ms") -> Network:
    """A traffic light: RED, RED+YELLOW, GREEN, YELLOW, round again, while ENABLE.

    Inputs: ``ENABLE`` (BOOL). Outputs: ``RED``, ``YELLOW``, ``GREEN`` (BOOL) and
    ``CYCLES`` (INT, full cycles completed since the PLC started). Located as
    an OpenPLC program would be (``fbd serve programs.demo:traffic_light``):
    ENABLE %IX0.0 (a client writes it at coil 800), the lamps %QX0.0-%QX0.2
    (coils 0-2), CYCLES %QW0 (holding register 0).

    How it works: four steps (RS flip-flops, one per phase) form a ring; each
    step starts its own TON, and when that timer is done the next step is set
    and the step resets itself on the following scan. In that one handover
    scan both steps are set, and the lights show the newer one. A rising edge
    of ENABLE (R_TRIG) sets the RED step; ENABLE FALSE resets every step.

    Timing at a cycle that divides every duration: RED, RED+YELLOW and GREEN
    last exactly their time; YELLOW lasts its time plus one scan, because the
    ring closes through one feedback wire (YELLOW's timer to the RED step),
    which is read a scan late. With the defaults at 5 ms: 600, 200, 600 and
    201 scans, 1601 scans a cycle.

    While ENABLE is FALSE the light is out of service: YELLOW flashes, from two
    TONs of ``blink`` each (lit on the first ``blink``, then dark and lit in
    turn, each for ``blink`` plus one scan: the oscillator's loop costs two
    scans a period).
    """
    net = Network("traffic_light", doc="a traffic light from TON, RS, R_TRIG and CTU blocks")
    enable = net.input("ENABLE", BOOL, at="%IX0.0")
    start = net.add("start", R_TRIG(), CLK=enable)
    off = net.add("off", NOT(), IN=enable)

    # The ring of steps. Each step: set by the previous step's timer, reset by
    # its own timer (feedback: the timer runs after the step) or by ENABLE
    # FALSE. The RED step is also set by ENABLE rising, and its set from the
    # YELLOW timer closes the ring (feedback).
    phases = [("red", red), ("red_yellow", red_yellow), ("green", green), ("yellow", yellow)]
    red_set = net.add("red_set", OR(), IN1=start.Q)
    previous_done = red_set.OUT
    steps, timers = [], []
    for name, duration in phases:
        stop = net.add(f"{name}_stop", OR(), IN2=off.OUT)
        step = net.add(f"{name}_step", RS(), S=previous_done, R1=stop.OUT)
        timer = net.add(f"{name}_time", TON(), IN=step.Q1, PT=duration)
        net.connect(timer.Q, stop.IN1, feedback=True)
        previous_done = timer.Q
        steps.append(step)
        timers.append(timer)
    net.connect(timers[-1].Q, red_set.IN2, feedback=True)
    red_step, red_yellow_step, green_step, yellow_step = steps

    # Out of service: a two-TON oscillator while ENABLE is FALSE.
    blink_free = net.add("blink_free", NOT())
    blink_run = net.add("blink_run", AND(), IN1=off.OUT, IN2=blink_free.OUT)
    blink_dark = net.add("blink_dark", TON(), IN=blink_run.OUT, PT=blink)
    blink_lit = net.add("blink_lit", TON(), IN=blink_dark.Q, PT=blink)
    net.connect(blink_lit.Q, blink_free.IN, feedback=True)
    not_dark = net.add("not_dark", NOT(), IN=blink_dark.Q)
    flash = net.add("flash", AND(), IN1=off.OUT, IN2=not_dark.OUT)

    # Lights. In a handover scan two neighbouring steps are set; a phase shows
    # only while the next step is not yet set.
    no_green = net.add("no_green", NOT(), IN=green_step.Q1)
    red_yellow_only = net.add("red_yellow_only", AND(), IN1=red_yellow_step.Q1, IN2=no_green.OUT)
    no_yellow = net.add("no_yellow", NOT(), IN=yellow_step.Q1)
    green_only = net.add("green_only", AND(), IN1=green_step.Q1, IN2=no_yellow.OUT)
    red_light = net.add("red_light", OR(), IN1=red_step.Q1, IN2=red_yellow_only.OUT)
    yellow_light = net.add("yellow_light", OR(n=3), IN1=red_yellow_only.OUT,
                           IN2=yellow_step.Q1, IN3=flash.OUT)
    # CTU counts while CV < PV (as matiec's): PV at INT's largest counts every cycle
    cycles = net.add("cycles", CTU(), CU=timers[-1].Q, PV=32767)

    net.output("RED", red_light.OUT, at="%QX0.0")
    net.output("YELLOW", yellow_light.OUT, at="%QX0.1")
    net.output("GREEN", green_only.OUT, at="%QX0.2")
    net.output("CYCLES", cycles.CV, at="%QW0")
    return net


__all__ = ["traffic_light"]
