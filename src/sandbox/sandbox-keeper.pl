# The first process of every command's sandbox, on the host (see sandbox-keeper.ts for why).
# Run as `perl -e <this text> -- <the sandbox chain>`; `npm run check` compiles it (perl -c).
use strict;

# The server spawns the chain detached, so this process leads its own process group: that group, and
# nothing else, is what the watcher may kill. Anything else means a caller that did not set it up.
my $group = $$;
exec { $ARGV[0] } @ARGV or exit 127 if getpgrp() != $group;

my $watcher = fork;
exit 126 unless defined $watcher;
exec { $ARGV[0] } @ARGV or exit 127 if $watcher;

# The watcher's command line drops the chain's, so only bubblewrap's processes carry the plan.
$0 = 'mango-sandbox-keeper';

# The watcher keeps only descriptor 4, bubblewrap's info socket: the server holds its other end until
# the call is over or the sandbox is discarded, and it closes when the server dies. Every other
# descriptor is let go, so no pipe of the call waits for this process.
opendir(my $d, '/proc/self/fd') or exit 0;
my @open = grep { /^\d+$/ && $_ != 4 } readdir($d);
closedir($d);
for my $n (@open) {
    if (open(my $h, '<&=', $n)) { close($h) }
}
open(my $l, '<&=', 4) or exit 0;
while (1) {
    my $n = sysread($l, my $b, 64);
    last if defined $n && $n == 0;
    last if !defined $n && !$!{EINTR};
}
kill('KILL', -$group);
exit 0;
