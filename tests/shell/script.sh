# The shell test: Debian's busybox sh runs this script on the kernel (init=/bin/sh --
# /etc/test/script.sh, from the built-in initramfs) and on the host; tests/run.sh compares the
# two outputs line by line, from "== script begin" to "== script end". Every line it prints
# ends in a newline (the console shows a process's unfinished line as a line of its own), and
# it removes its files: LEAK-CHECK counts what is left in /tmp.
t=/tmp/shell-test.$$
echo "== script begin"

# A loop, arithmetic, redirections that append and read back.
for i in 1 2 3 4 5; do
  echo "line $i: $((i * i))" >> $t.a
done
cat $t.a
i=0
while [ $i -lt 3 ]; do i=$((i + 1)); done
echo "while ended at $i"

# Pipelines of ordinary tools over the files in /tmp.
seq 1 20 > $t.b
sort -rn $t.b | head -n 3
grep -c 1 $t.b
tr 'a-z' 'A-Z' < $t.a | grep LINE | tail -n 2
sed -n 's/^line \([0-9]\).*/l\1/p' $t.a | paste -s -d , -
seq 1 1000 | awk '{ s += $1 } END { print "awk sum", s }'
cut -d: -f2 $t.a | sort -n | uniq | wc -l
sha256sum $t.a | cut -d ' ' -f 1
sum=0
while read -r x; do sum=$((sum + x)); done < $t.b
echo "read sum $sum"

# Command substitution, nested.
n=$(wc -l < $t.b)
echo "lines $n, last $(tail -n 1 $(echo $t.b))"

# Background jobs, waited for by pid: one, then two at once.
(sleep 1; echo "from the background" > $t.c) &
pid=$!
wait $pid
echo "waited $?"
cat $t.c
sh -c 'exit 5' &
p5=$!
sh -c 'exit 6' &
p6=$!
wait $p6
s6=$?
wait $p5
echo "waited for both: $? $s6"

# Exit statuses: of a child shell, of false, of a failed grep, of a pipeline's last command.
sh -c 'exit 7'
echo "status $?"
false || echo "false gave $?"
if grep -q nosuch $t.a; then echo "found"; else echo "not found, status $?"; fi
true | false
echo "pipeline status $?"
[ "$(seq 3 | wc -l)" -eq 3 ] && echo "test ok"

# Names and times: mv renames (rename), touch makes and stamps (utimensat), cp and cat copy
# (sendfile), mv moves a directory; the times printed are the ones set.
echo "moved" > $t.m
mv $t.m $t.n
[ -e $t.m ] || cat $t.n
touch $t.t
[ -f $t.t ] && [ ! -s $t.t ] && echo "touch made an empty file"
touch -d @1000000000 $t.t
touch -m -d @1000000005 $t.t
stat -c 'mtime %Y atime %X' $t.t
touch -r $t.t $t.n
stat -c 'reference %Y' $t.n
cp $t.n $t.cp
cat $t.n $t.cp
mkdir $t.d
mv $t.cp $t.d/copy
mv $t.d $t.e
ls $t.e
cat $t.e/copy | wc -c
rm -r $t.e $t.n $t.t

# The files are there, then gone.
ls $t.* | wc -l
rm $t.a $t.b $t.c
ls $t.* 2>/dev/null | wc -l
echo "== script end"
