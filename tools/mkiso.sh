#!/bin/sh
# Makes a GRUB rescue ISO that boots ELF with the kernel command line CMDLINE.
# Usage: mkiso.sh ELF CMDLINE OUT.iso  (BIOS boot through grub-pc-bin's i386-pc modules)
set -e
elf=$1 cmdline=$2 out=$3
root=$(mktemp -d "${TMPDIR:-/tmp}/kiso.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/boot/grub"
cp "$elf" "$root/boot/kernel.elf"
# GRUB quoting: each word of the command line single-quoted for the multiboot2 line,
# and the menu title free of quotes.
args=""
for w in $cmdline; do
  args="$args '$(printf '%s' "$w" | sed "s/'/'\\\\''/g")'"
done
title=$(printf '%s' "$cmdline" | tr -d "\"'\\\\")
sed -e "s|^menuentry \"kernel @CMDLINE@\"|menuentry \"kernel $title\"|" \
    -e "s|@CMDLINE@|$(printf '%s' "$args" | sed 's/[|&\\]/\\&/g')|" \
    boot/grub.cfg.in > "$root/boot/grub/grub.cfg"
mkdir -p "$(dirname "$out")"
# A temporary name of this run's own, so two runs making the same image at once don't collide.
tmp=$out.$$.tmp
grub-mkrescue -o "$tmp" "$root" >/dev/null 2>"$root.log" || { cat "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
mv "$tmp" "$out"
