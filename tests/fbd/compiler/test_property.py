"""Property: on random networks, the compiled scan equals a block-by-block
evaluation of the same blocks (fbd.compiler.interp), every block output, every scan.

Hypothesis draws the structure (block types, which output feeds which input,
feedback wires closing loops, literals) and the input sequence, so a failure
shrinks to a small network.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blocks
from fbd import BOOL, INT, TIME, Network, Plc
from fbd.compiler.interp import Interpreter

# name -> (factory, [(input port, type)], [(output port, type)])
PALETTE = {
    "AND": (lambda: blocks.AND(BOOL), [("IN1", BOOL), ("IN2", BOOL)], [("OUT", BOOL)]),
    "OR": (lambda: blocks.OR(BOOL, n=3), [("IN1", BOOL), ("IN2", BOOL), ("IN3", BOOL)], [("OUT", BOOL)]),
    "XOR": (lambda: blocks.XOR(BOOL), [("IN1", BOOL), ("IN2", BOOL)], [("OUT", BOOL)]),
    "NOT": (lambda: blocks.NOT(BOOL), [("IN", BOOL)], [("OUT", BOOL)]),
    "ADD": (lambda: blocks.ADD(INT), [("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "SUB": (lambda: blocks.SUB(INT), [("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "MUL": (lambda: blocks.MUL(INT), [("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "DIV": (lambda: blocks.DIV(INT), [("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "MOD": (lambda: blocks.MOD(INT), [("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "GT": (lambda: blocks.GT(INT), [("IN1", INT), ("IN2", INT)], [("OUT", BOOL)]),
    "EQ": (lambda: blocks.EQ(INT), [("IN1", INT), ("IN2", INT)], [("OUT", BOOL)]),
    "SEL": (lambda: blocks.SEL(INT), [("G", BOOL), ("IN0", INT), ("IN1", INT)], [("OUT", INT)]),
    "MUX": (lambda: blocks.MUX(INT, n=3, types={"TK": INT}),
            [("K", INT), ("IN0", INT), ("IN1", INT), ("IN2", INT)], [("OUT", INT)]),
    "LIMIT": (lambda: blocks.LIMIT(INT), [("MN", INT), ("IN", INT), ("MX", INT)], [("OUT", INT)]),
    "MEMORY": (lambda: blocks.MEMORY(INT), [("IN", INT), ("SET", BOOL)], [("OUT", INT)]),
    "SR": (lambda: blocks.SR(), [("S1", BOOL), ("R", BOOL)], [("Q1", BOOL)]),
    "R_TRIG": (lambda: blocks.R_TRIG(), [("CLK", BOOL)], [("Q", BOOL)]),
    "CTU": (lambda: blocks.CTU(), [("CU", BOOL), ("R", BOOL), ("PV", INT)],
            [("Q", BOOL), ("CV", INT)]),
    "TON": (lambda: blocks.TON(), [("IN", BOOL), ("PT", TIME)], [("Q", BOOL), ("ET", TIME)]),
}
N_INPUTS = {BOOL: 3, INT: 3}


@st.composite
def networks(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(PALETTE)), min_size=1, max_size=25))
    wiring = []
    for kind in kinds:
        _factory, ins, _outs = PALETTE[kind]
        choices = []
        for _port, tp in ins:
            how = draw(st.sampled_from(["earlier", "earlier", "input", "literal", "feedback"]))
            pick = draw(st.integers(0, 10_000))
            value = draw(st.booleans() if tp is BOOL else
                         st.integers(-40_000, 40_000).map(lambda v: max(-32768, min(32767, v)))
                         if tp is INT else st.sampled_from(["T#0ms", "T#5ms", "T#12ms", "T#1s"]))
            choices.append((how, pick, value))
        wiring.append(choices)
    return kinds, wiring


def build(kinds, wiring) -> Network:
    net = Network("Random")
    inputs = {tp: [net.input(f"{tp}{k}", tp) for k in range(n)] for tp, n in N_INPUTS.items()}
    insts = [net.add(f"b{i}", PALETTE[kind][0]()) for i, kind in enumerate(kinds)]

    def outputs_of(indices, tp):
        return [insts[j].port(port) for j in indices
                for port, ptp in PALETTE[kinds[j]][2] if ptp is tp]

    for i, (kind, choices) in enumerate(zip(kinds, wiring)):
        for (port, tp), (how, pick, value) in zip(PALETTE[kind][1], choices):
            earlier = outputs_of(range(i), tp)
            anywhere = outputs_of(range(len(kinds)), tp)
            if how == "earlier" and earlier:
                net.connect(earlier[pick % len(earlier)], insts[i].port(port))
            elif how == "input" and tp in inputs:
                net.connect(inputs[tp][pick % len(inputs[tp])], insts[i].port(port))
            elif how == "feedback" and anywhere:
                net.connect(anywhere[pick % len(anywhere)], insts[i].port(port), feedback=True)
            else:
                net.connect(value, insts[i].port(port))
    for j, inst in enumerate(insts[-3:]):
        port = PALETTE[kinds[len(insts) - len(insts[-3:]) + j]][2][0][0]
        net.output(f"OUT{j}", inst.port(port))
    return net


input_steps = st.lists(
    st.fixed_dictionaries({**{f"BOOL{k}": st.booleans() for k in range(3)},
                           **{f"INT{k}": st.integers(-32768, 32767) for k in range(3)}}),
    min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks(), input_steps)
def test_compiled_scan_equals_block_by_block_evaluation(structure, steps):
    net = build(*structure)
    plc = Plc(net, cycle=0.005)
    ref = Interpreter(plc.program)
    paths = [p for p, info in plc.program.signals.items() if info.kind in ("out", "output")]
    for k, step in enumerate(steps):
        for name, value in step.items():
            plc.set(name, value)
            ref.set(name, value)
        now = plc.now_us
        plc.scan()
        ref.scan(now)
        for path in paths:
            assert plc.get(path) == ref.get(path), f"{path} differs at scan {k + 1}"
