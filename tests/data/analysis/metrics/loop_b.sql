INCLUDE loop_a;
