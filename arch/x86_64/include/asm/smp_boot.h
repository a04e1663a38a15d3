// Shared between the AP trampoline (assembly) and smp.c: where the trampoline page lives.
// SIPI vector = page number, so it must be page aligned below 1 MiB (Intel MP spec, B.4).
#pragma once
#define TRAMPOLINE_PA 0x8000
