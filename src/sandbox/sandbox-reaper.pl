# The sandbox reaper of one server process, on the host (see sandbox-reaper.ts for why).
# Run as `perl -e <this text>` with the server's pipe on stdin; `npm run check` compiles it (perl -c).
use strict;

# Only the end of the server's pipe may end this process: a Ctrl-C or hang-up meant for the server,
# or a stop signal sent to every process of a service, must not take it first.
$SIG{$_} = 'IGNORE' for qw(HUP INT QUIT TERM PIPE);
$0 = 'mango-sandbox-reaper';

# Keep only stdin and the /dev/null of 1 and 2: a descriptor of some call's pipe held here would keep
# that call waiting for its end as long as the server lives.
if (opendir(my $d, '/proc/self/fd')) {
    my @open = grep { /^\d+$/ && $_ > 2 } readdir($d);
    closedir($d);
    for my $n (@open) {
        if (open(my $h, '<&=', $n)) { close($h) }
    }
}

# Lines "+<pgid>" register a sandbox's process group, "-<pgid>" forget it; anything else is ignored.
my %groups;
my $pending = '';
while (1) {
    my $n = sysread(STDIN, my $b, 4096);
    last if defined $n && $n == 0;
    if (!defined $n) {
        next if $!{EINTR};
        last;
    }
    $pending .= $b;
    while ($pending =~ s/^([^\n]*)\n//) {
        my $line = $1;
        next unless $line =~ /^([+-])(\d+)$/;
        if ($1 eq '+') { $groups{$2} = 1 } else { delete $groups{$2} }
    }
    # A line without its end stays pending, unless it is longer than any line the server writes.
    $pending = '' if length($pending) > 64;
}
# End-of-file: the server is gone, whatever way it ended. Kill only the groups it named, never 0 or 1.
for my $g (keys %groups) {
    kill('KILL', -$g) if $g > 1;
}
exit 0;
