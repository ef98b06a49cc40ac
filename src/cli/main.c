#include <stdio.h>
int main(void) { puts("trak"); return 0; }
