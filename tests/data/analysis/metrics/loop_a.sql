INCLUDE loop_b;
