"""loops(): the cycles of a directed graph, as the compiler and the PLCopen export need them."""

from fbd.compiler.graph import loops


def test_components_with_a_cycle_are_found_sorted_and_acyclic_parts_left_out():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["d"], "e": ["a"], "f": []}
    assert loops(graph, graph.__getitem__) == [["a", "b", "c"], ["d"]]


def test_a_graph_without_cycles_has_no_loops():
    graph = {1: [2, 3], 2: [3], 3: []}
    assert loops(graph, graph.__getitem__) == []


def test_edges_reversed_give_the_same_loops():
    succ = {1: [2], 2: [3, 4], 3: [1], 4: [5], 5: [4]}
    pred = {v: [u for u in succ if v in succ[u]] for v in succ}
    assert loops(succ, succ.__getitem__) == loops(pred, pred.__getitem__) == [[1, 2, 3], [4, 5]]


def test_a_chain_far_deeper_than_the_recursion_limit_closes_into_one_loop():
    n = 100_000
    assert loops(range(n), lambda v: [(v + 1) % n]) == [list(range(n))]
