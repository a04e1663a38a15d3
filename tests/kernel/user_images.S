// The test programs of tests/user/, built static by make (build/user/NAME), embedded in the
// image as they are; user_bins.c names them. The user-* self-tests run them; init= runs one of
// them only when no file of the initramfs has the path it names (kernel/user_init.c).
  .macro userbin name, file
  .section .rodata
  .balign 64
  .globl user_bin_\name, user_bin_\name\()_end
user_bin_\name:
  .incbin "build/user/\file"
user_bin_\name\()_end:
  .endm

  userbin hello, hello
  userbin hello_pie, hello-pie
  userbin threads, threads
  userbin mem, mem
  userbin fmap, fmap
  userbin fault, fault
  userbin fpu, fpu
  userbin spin, spin
  userbin hostile, hostile
  userbin oom, oom
  userbin exitgroup, exitgroup
  userbin clock, clock
  userbin files, files
  userbin names, names
  userbin termios, termios
  userbin pipe, pipe
  userbin pipeproc, pipeproc
  userbin poll, poll
  userbin signals, signals
  userbin proc, proc
  userbin jobctl, jobctl
  userbin conline, conline
