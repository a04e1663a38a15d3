#!/bin/sh
# Makes a GRUB rescue ISO that boots ELF with the kernel command line CMDLINE, and loads each
# ARCHIVE as a Multiboot2 module (the initramfs archives, unpacked in this order).
# Usage: mkiso.sh ELF CMDLINE OUT.iso [ARCHIVE...]  (BIOS boot through grub-pc-bin's i386-pc)
set -e
elf=$1 cmdline=$2 out=$3
shift 3
root=$(mktemp -d "${TMPDIR:-/tmp}/kiso.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/boot/grub"
cp "$elf" "$root/boot/kernel.elf"
# Each archive as /boot/initrd<N>, its own name (without quotes) as the module's command line:
# the kernel's INITRAMFS line names it. --nounzip: GRUB would gunzip it itself otherwise,
# and the kernel's own gunzip (kernel/lib/gunzip.c) would never run.
modules="" n=0
for a in "$@"; do
  [ -f "$a" ] || { echo "mkiso.sh: no archive $a" >&2; exit 1; }
  cp "$a" "$root/boot/initrd$n"
  name=$(basename "$a" | tr -d "\"'\\ ")
  modules="$modules module2 --nounzip /boot/initrd$n '$name';"
  n=$((n + 1))
done
# GRUB quoting: each word of the command line single-quoted for the multiboot2 line,
# and the menu title free of quotes.
args=""
for w in $cmdline; do
  args="$args '$(printf '%s' "$w" | sed "s/'/'\\\\''/g")'"
done
title=$(printf '%s' "$cmdline" | tr -d "\"'\\\\")
sed -e "s|^menuentry \"kernel @CMDLINE@\"|menuentry \"kernel $title\"|" \
    -e "s|@CMDLINE@|$(printf '%s' "$args" | sed 's/[|&\\]/\\&/g')|" \
    -e "s|@MODULES@|$(printf '%s' "$modules" | sed 's/[|&\\]/\\&/g')|" \
    boot/grub.cfg.in > "$root/boot/grub/grub.cfg"
mkdir -p "$(dirname "$out")"
# A temporary name of this run's own, so two runs making the same image at once don't collide.
tmp=$out.$$.tmp
grub-mkrescue -o "$tmp" "$root" >/dev/null 2>"$root.log" || { cat "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
mv "$tmp" "$out"
