# t/002_crash_recovery.pl
#	  SIGKILL of a backend in the middle of an export: the postmaster restarts the server through
#	  crash recovery, removes the dead export's temporary files, and the next export is
#	  byte-identical to the one before the crash.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use DveTap;

my $node = new_node('crash');
# PostgreSQL::Test::Cluster turns this off; a production server has it on.
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->restart;    # a reload is applied at some later moment; a restart before the crash for sure
load_demo($node, 'demo');
my @calls = (demo_call($node, 'demo', 'json'), demo_call($node, 'demo', 'csv', "style => '2.42'"));
my @reference = map { scalar copy_md5($node, 'demo', $_) } @calls;

my $client = start_stalled_export($node, 'demo', 'dve_crash', $calls[0], $DveTap::TINY_RUNS);
my $pid = wait_until_stalled($node, 'demo', 'dve_crash');
cmp_ok(temp_file_count($node), '>', 0, 'held mid-stream with spilled runs in pgsql_tmp');
my $log_offset = -s $node->logfile;

ok(kill('KILL', $pid), "SIGKILL to the exporting backend $pid");
$client->{harness}->finish;
like(${ $client->{err} }, qr/server closed the connection|terminating connection/, 'the client lost its server');

# The old server may accept a connection before the postmaster has reaped the killed backend:
# wait for the restart itself, then for the server it starts.
$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
ok($node->log_contains(qr/server process \(PID $pid\) was terminated by signal 9/, $log_offset),
	'the postmaster saw the backend die');
ok($node->log_contains(qr/all server processes terminated; reinitializing/, $log_offset), 'crash restart');
$node->wait_for_log(qr/database system is ready to accept connections/, $log_offset);
ok(wait_until_accepting($node), 'the server accepts queries again');
ok($node->log_contains(qr/database system was not properly shut down; automatic recovery in progress/, $log_offset),
	'crash recovery ran');
is(temp_file_count($node), 0, 'the dead export\'s temporary files were removed at restart');

for my $i (0 .. $#calls)
{
	is(copy_md5($node, 'demo', $calls[$i], $DveTap::TINY_RUNS),
		$reference[$i], "export $i after crash recovery is identical");
}
ok(wait_for_no_temp_files($node), 'no temporary files left after the new exports');

$node->stop;
done_testing();
