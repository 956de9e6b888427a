"""The RETAIN and online change benchmark runs and prints each of its figures."""

from fbd.tools import retain_bench


def test_the_retain_benchmark_prints_its_figures(capsys):
    assert retain_bench.main(["--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    starts = ["kept_slots, 2048 (", "kept_slots, random network (2,000 blocks, 200 retained",
              "snapshot.take, 200 retained variables: ", "snapshot.write, the same (",
              "online change of 2048 to multi_scan: compile "]
    assert len(lines) == len(starts)
    for line, start in zip(lines, starts):
        assert line.startswith(start) and " ms" in line, line
    assert "759 kept, 0 converted, 552 initialised, 352 dropped" in lines[-1]
