# t/003_standby.pl
#	  A streaming hot standby (pg_basebackup of the primary, streaming from it) exports the same
#	  bytes as the primary, in every shape, after changes replayed from the WAL stream; and an
#	  export held by a client that stops reading holds WAL replay on the standby, even past a
#	  finite max_standby_streaming_delay, until the export's backend is terminated.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use DveTap;

my $primary = new_node('primary', allows_streaming => 1);
load_demo($primary, 'demo');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', 'max_standby_streaming_delay = -1');
$standby->start;
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby is in recovery');

# Changes after the base backup reach the standby only through the WAL stream.
$primary->safe_psql('demo',
	q{UPDATE datavalue SET value = value || '.5', lastupdated = '2025-06-01 12:00:00' WHERE sourceid % 7 = 0});
$primary->wait_for_catchup($standby);

my %calls = (
	'json 2.43' => demo_call($primary, 'demo', 'json'),
	'csv 2.43' => demo_call($primary, 'demo', 'csv'),
	'json 2.42' => demo_call($primary, 'demo', 'json', "style => '2.42'"),
	'csv 2.42 by org unit' => demo_call($primary, 'demo', 'csv', "style => '2.42', \"order\" => 'OU,PE,DE'"),
	'gzip json, zlib level 6' => demo_call($primary, 'demo', 'json', "compression => 'gzip', compression_level => 6"),
	'gzip csv, ISA-L' => demo_call($primary, 'demo', 'csv', "compression => 'gzip'"),);
foreach my $name (sort keys %calls)
{
	my ($on_primary, $size) = copy_md5($primary, 'demo', $calls{$name});
	cmp_ok($size, '>', 100_000, "$name: a real document");
	is(copy_md5($standby, 'demo', $calls{$name}, $DveTap::TINY_RUNS), $on_primary, "$name: standby bytes equal primary bytes");
}

# A client that stops reading on the standby: its export's snapshot conflicts with the replay of
# a VACUUM that removes rows it can see. max_standby_streaming_delay is finite (100ms) from here
# on, but the conflict's cancel is deferred like any cancel of a backend blocked writing, so
# replay still waits; log_recovery_conflict_waits logs "recovery still waiting" once the wait
# passes deadlock_timeout (1s), which proves the wait outlived the delay. Terminating the backend
# frees replay. (Set only now: a finite delay could cancel the comparisons above, should the
# primary's page pruning conflict with them.)
$standby->append_conf(
	'postgresql.conf', q{
max_standby_streaming_delay = 100ms
log_recovery_conflict_waits = on
deadlock_timeout = 1s
});
$standby->restart;    # the startup process applies the settings before the VACUUM below is replayed
my $call = $calls{'json 2.43'};
my $client = start_stalled_export($standby, 'demo', 'dve_standby_held', $call, $DveTap::TINY_RUNS);
my $pid = wait_until_stalled($standby, 'demo', 'dve_standby_held');
my $log_offset = -s $standby->logfile;
$primary->safe_psql('demo', 'DELETE FROM datavalue WHERE sourceid % 5 = 0');
$primary->safe_psql('demo', 'VACUUM datavalue');
my $lsn = $primary->lsn('write');
# Logged by the startup process only once its wait has passed deadlock_timeout.
$standby->wait_for_log(qr/recovery still waiting after [0-9.]+ ms: recovery conflict on snapshot\n.*Conflicting process: $pid/,
	$log_offset);
ok(1, 'replay waits for the held export, beyond max_standby_streaming_delay');
is( $standby->safe_psql(
		'postgres',
		"SELECT pg_last_wal_replay_lsn() < '$lsn' AND EXISTS (SELECT FROM pg_stat_activity WHERE pid = $pid)"),
	't',
	'replay is behind the primary and the held export is still there');
is($standby->safe_psql('postgres', "SELECT pg_terminate_backend($pid)"), 't', 'the held export is terminated');
$client->{harness}->finish;
$primary->wait_for_catchup($standby);
ok(1, 'replay caught up once the export was gone');
ok(wait_for_no_temp_files($standby), 'the terminated export left no temporary files on the standby');
$standby->append_conf('postgresql.conf', 'max_standby_streaming_delay = -1');
$standby->restart;    # a reload is applied at some later moment: the comparison must not meet a finite delay
is(copy_md5($standby, 'demo', $call), copy_md5($primary, 'demo', $call),
	'after the delete: standby bytes equal primary bytes');

$standby->stop;
$primary->stop;
done_testing();
