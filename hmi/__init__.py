"""The HMI: a PyQt6 application shell and one panel per block program.

- :mod:`hmi.app`: the window, the program chooser and the real-time loop
  (``fbd hmi [PROGRAM]``, registered by :mod:`hmi.cli`);
- :mod:`hmi.loop`: the loop's timing model, Qt-free;
- :mod:`hmi.panels`: the registry of panels (one line per program) and the
  panels themselves; :mod:`hmi.panel`: what a panel provides;
- :mod:`hmi.screenshots`: the README's pictures, rendered offscreen.

Panels write only PLC inputs and read only PLC outputs: the game logic lives
in the blocks, a panel only shows it, and the block programs never import Qt
(docs/architecture.md, "Models without widgets").
"""
