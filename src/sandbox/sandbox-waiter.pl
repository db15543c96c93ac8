# PID 1 of every shell sandbox (see sandbox-waiter.ts for what it guarantees and why).
# Mounted read-only into each sandbox and run as `perl <that path>`; `npm run check` compiles it (perl -c).
use strict;

# Descriptor 3 carries the records to the server. $^F is 2, so the copy Perl opens above it is
# close-on-exec: the command cannot write a fake record. Without a descriptor 3 (the start-up probe)
# nothing is reported.
my $r;
if (open(my $s, '>&=', 3)) {
    open($r, '>&', $s) or exit 125;
    close($s);
    syswrite($r, "ready\n");
}

# The call's message arrives on stdin when the call starts: NUL-terminated fields, the argument count,
# the arguments, then NAME=value entries. The interpreter gets /dev/null as its stdin.
my $m = do { local $/; <STDIN> };
open(STDIN, '<', '/dev/null') or exit 124;
exit 0 unless defined $m && length $m;
my @f = split(/\0/, $m, -1);
pop @f;
my $n = shift @f;
my @a = splice(@f, 0, $n);
%ENV = map { /^([^=]+)=(.*)$/s ? ($1, $2) : () } @f;

# What a command makes is writable by its group too: the user's own gid (no one else's), or, in a
# directory granted to several users (setgid, of the grant's group), theirs together.
umask(0002);

# The interpreter is forked and executed here, not with `system`, which retries a fork that failed for
# want of a process slot (EAGAIN) every 5 seconds for as long as it fails: a user at their process
# limit would hold the call instead of hearing why it cannot start. A failed exec comes back through a
# close-on-exec pipe (an exec that worked closes it), so "cannot run" stays apart from an exit status.
pipe(my $er, my $ew) or exit 123;
my $p = fork();
if (!defined $p) {
    my $e = ($! + 0) . " $!";
    syswrite($r, "start-failed fork $e\n") if $r;
    exit 0;
}
if ($p == 0) {
    close($er);
    exec { $a[0] } @a;
    my ($n, $t) = ($! + 0, "$!");
    syswrite($ew, "$n $t");
    print STDERR "cannot run $a[0]: $t\n";
    exit 127;
}
close($ew);
my $x = do { local $/; <$er> };
close($er);

# The real wait status; orphans of the command (reparented to PID 1) are reaped meanwhile, so their
# process slots are free again. Then, as PID 1, everything else in the namespace is killed before the
# waiter exits (kill -1 from PID 1 reaches only its own namespace).
my $c = 0;
while ((my $w = wait()) != -1) {
    if ($w == $p) { $c = $?; last }
}
kill('KILL', -1) if $$ == 1;
syswrite($r, length($x) ? "start-failed exec $x\n" : "status $c\n") if $r;
exit 0;
