// The test programs of tests/user/, built static by make (build/user/NAME), embedded in the
// image as they are; user_bins.c names them. Until the initramfs gives processes files, these
// are the programs exec can load.
  .macro userbin name
  .section .rodata
  .balign 64
  .globl user_bin_\name, user_bin_\name\()_end
user_bin_\name:
  .incbin "build/user/\name"
user_bin_\name\()_end:
  .endm

  userbin hello
  userbin threads
  userbin mem
  userbin fault
  userbin fpu
  userbin spin
  userbin hostile
  userbin oom
  userbin exitgroup
  userbin clock
