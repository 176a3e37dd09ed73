"""ExaSAT's model of a loop nest: iteration space, flops, working sets and traffic, registers,
blocking, liveness, communication and dependences."""
