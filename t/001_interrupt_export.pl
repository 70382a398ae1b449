# t/001_interrupt_export.pl
#	  An export interrupted mid-stream three ways (pg_cancel_backend, pg_terminate_backend, the
#	  client killed): the backend ends, its spilled sort runs leave base/pgsql_tmp, the server
#	  keeps running (no crash restart) and the next export is byte-identical to the first.
#
# Each export is held mid-document by a client that stops reading (t/DveTap.pm), with 64 kB sort
# runs so that temporary files exist while it is held; the test checks they do.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use DveTap;

my $node = new_node('interrupt');
load_demo($node, 'demo');
my $call = demo_call($node, 'demo', 'json');
# A crash restart would end this session (pg_postmaster_start_time() survives one).
my $canary = $node->background_psql('postgres');
my $canary_pid = $canary->query_safe('SELECT pg_backend_pid()');

my ($reference, $size) = copy_md5($node, 'demo', $call, $DveTap::TINY_RUNS);
is(select_md5($node, 'demo', $call), $reference, 'reference export: COPY and SELECT agree');
cmp_ok($size, '>', 4_000_000, 'the document is far larger than pipe and socket buffers');

# Holds an export mid-stream as application $app; checks it has spilled runs open.
sub hold_export
{
	my ($app) = @_;
	my $client = start_stalled_export($node, 'demo', $app, $call, $DveTap::TINY_RUNS);
	my $pid = wait_until_stalled($node, 'demo', $app);
	cmp_ok(temp_file_count($node), '>', 0, "$app: held mid-stream with spilled runs in pgsql_tmp");
	return ($client, $pid);
}

sub server_is_healthy
{
	my ($what) = @_;
	is($canary->query_safe('SELECT pg_backend_pid()'), $canary_pid, "$what: no crash restart");
	is(copy_md5($node, 'demo', $call, $DveTap::TINY_RUNS),
		$reference, "$what: the next export is identical");
	ok(wait_for_no_temp_files($node), "$what: the next export left no temporary files");
}

# pg_cancel_backend: PostgreSQL 15 acts on a cancel of a backend blocked in a client write only
# when the client reads again, so the client then resumes and must get the cancel error, not
# the rest of the document.
{
	my ($client, $pid) = hold_export('dve_cancel');
	is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't', 'cancel sent');
	my $ok = $client->{harness}->finish;
	ok(!$ok, 'cancelled export: psql failed');
	like(${ $client->{err} }, qr/canceling statement due to user request/, 'cancelled export: cancel error');
	cmp_ok(length(${ $client->{out} }), '<', $size, 'cancelled export: the client did not get the whole document');
	ok(wait_for_no_temp_files($node), 'cancelled export: pgsql_tmp is empty');
	server_is_healthy('after cancel');
}

# pg_terminate_backend acts at once, even while the backend is blocked writing.
{
	my ($client, $pid) = hold_export('dve_terminate');
	is($node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)"), 't', 'terminate sent');
	ok(wait_until_backend_gone($node, 'postgres', $pid), 'terminated export: backend gone');
	ok(wait_for_no_temp_files($node), 'terminated export: pgsql_tmp is empty');
	my $ok = $client->{harness}->finish;
	ok(!$ok, 'terminated export: psql failed');
	like(${ $client->{err} }, qr/terminating connection due to administrator command|server closed the connection/,
		'terminated export: the client was told');
	server_is_healthy('after terminate');
}

# The client dies: the backend's next write fails and it ends itself.
{
	my ($client, $pid) = hold_export('dve_client_kill');
	$client->{harness}->signal('KILL');
	$client->{harness}->finish;
	ok(wait_until_backend_gone($node, 'postgres', $pid), 'client killed: backend gone');
	ok(wait_for_no_temp_files($node), 'client killed: pgsql_tmp is empty');
	server_is_healthy('after client kill');
}

ok(!$node->log_contains('terminated by signal'), 'no backend crashed');
$canary->quit;
$node->stop;
done_testing();
