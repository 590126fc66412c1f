// SPDX-License-Identifier: MIT
// Copyright the watcher authors.
//
// Streams through MEGABYTES of memory (default 256) for ever, touching and changing one byte in every 64:
// another program sharing the machine's last-level cache and memory, the way other tenants of a shared host
// do. `Scripts/bench/parse-ab.py --contend` runs it on the other core while it measures.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  size_t size = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
  // volatile: without it the compiler, seeing no use of the bytes, keeps only the loop and spins in place.
  volatile uint8_t *p = malloc(size);
  if (p == NULL) return 1;
  memset((void *)p, 1, size);
  for (;;)
    for (size_t i = 0; i < size; i += 64) p[i]++;
}
