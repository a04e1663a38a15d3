// The GDT's selectors, for C and for the entry code (entry.S pushes the user's CS and SS).
// Plain numbers only: this header is read by the assembler too.
#pragma once

// In Linux's order: SYSRET takes user SS = STAR[63:48] + 8 and user CS = that + 16 (SDM vol.
// 2B, SYSRET), so 32-bit user code, user data and 64-bit user code come in that order.
#define SEG_KCODE  0x08
#define SEG_KDATA  0x10
#define SEG_UCODE32 0x23
#define SEG_UDATA  0x2b
#define SEG_UCODE  0x33
#define SEG_TSS    0x38
