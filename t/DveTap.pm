# t/DveTap.pm
#	  Shared helpers of the TAP tests (t/*.pl): a node with the extension and a small demo
#	  database, exports read to the last byte, and an export held provably mid-stream.
#
# How an export is held without a sleep: psql runs `COPY (SELECT export...) TO STDOUT` with its
# stdout on a pipe this process never reads. Once the pipe and the socket buffers are full, the
# backend blocks in a socket write in the middle of the document; wait_until_stalled() polls
# until pg_stat_activity shows wait_event ClientWrite and pg_stat_progress_copy bytes_processed
# > 0 for it, so "mid-export" is observed, not assumed. The demo export (about 14 MB of JSON at
# 50,000 values) is far larger than those buffers on any machine. An ordered export with a tiny
# datavalue_export.sort_run_memory has spilled its sorted runs to temporary files by the time it
# sends its first byte, and keeps them open until the merge ends.
# SPDX-License-Identifier: PostgreSQL
package DveTap;

use strict;
use warnings;

use Digest::MD5;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(new_node load_demo demo_call copy_md5 select_md5 start_stalled_export
  wait_until_stalled temp_file_count wait_for_no_temp_files wait_until_backend_gone
  wait_until_accepting);

# Values in the demo database: enough for many spilled runs at 64kB, small enough to build fast.
our $DEMO_VALUES = $ENV{DVE_TAP_VALUES} // 50000;

# An ordered export (the default order) with 64 kB runs: hundreds of runs spilled to temp files.
our $TINY_RUNS = "SET datavalue_export.sort_run_memory = '64kB'";

# A started node with settings like test/cluster.sh's (UTC, the library preloaded unless preload => 0).
sub new_node
{
	my ($name, %init) = @_;
	my $preload = delete($init{preload}) // 1;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%init);
	$node->append_conf(
		'postgresql.conf', qq(
timezone = 'UTC'
fsync = off
log_temp_files = 0
));
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'datavalue_export'") if $preload;
	$node->start;
	return $node;
}

# Builds the demo database $db (demo/create_demo_db.sh, run from the repository root as prove
# does) and creates the extension in it.
sub load_demo
{
	my ($node, $db, $values) = @_;
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	local $ENV{PGUSER};
	delete $ENV{PGUSER};
	system_or_bail('bash', 'demo/create_demo_db.sh', '--values', $values // $DEMO_VALUES, $db);
	$node->safe_psql($db, 'CREATE EXTENSION datavalue_export');
	return;
}

# The SQL call of the demo export: every data set, every period, the root with children.
sub demo_call
{
	my ($node, $db, $fmt, $extra) = @_;
	my $sets = $node->safe_psql($db, 'SELECT array_agg(uid ORDER BY uid) FROM dataset');
	my $call =
	  "export_datavalues_$fmt(data_set => '$sets', start_date => '1900-01-01', end_date => '2100-12-31', "
	  . "org_unit => '{ImspTQPwCqd}', children => true";
	$call .= ", $extra" if defined $extra;
	return "$call)";
}

# md5 and size of the exact bytes a client receives from COPY (SELECT $call) TO STDOUT, after
# @settings. psql writes them to a file (capturing tens of MB through a pipe into Perl is slow).
sub copy_md5
{
	my ($node, $db, $call, @settings) = @_;
	my $file = $node->basedir . '/export.out';
	my $err = '';
	my @cmd = ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db), '-o', $file);
	push @cmd, '-c', $_ for @settings;
	push @cmd, '-c', "COPY (SELECT $call) TO STDOUT";
	IPC::Run::run(\@cmd, '2>', \$err)
	  or die "export failed on " . $node->name . ": $err";
	open(my $fh, '<:raw', $file) or die "open $file: $!";
	my $md5 = Digest::MD5->new->addfile($fh)->hexdigest;
	close($fh);
	my $size = -s $file;
	unlink $file;
	return wantarray ? ($md5, $size) : $md5;
}

# md5 of the document the plain SELECT form returns (its chunks concatenated in order).
sub select_md5
{
	my ($node, $db, $call, @settings) = @_;
	my $sql = join('', map { "$_;\n" } @settings)
	  . "SELECT md5(string_agg(chunk, '' ORDER BY n)) FROM $call WITH ORDINALITY AS t(chunk, n)";
	return $node->safe_psql($db, $sql);
}

# Starts psql running the export as application $app with its stdout never read (see the banner).
# Returns the IPC::Run harness; finish() it to read the rest, or kill the client.
sub start_stalled_export
{
	my ($node, $db, $app, $call, @settings) = @_;
	my ($out, $err) = ('', '');
	local $ENV{PGAPPNAME} = $app;
	my @cmd = ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db));
	push @cmd, '-c', $_ for @settings;
	# The socket keeps its default send buffer, so the document stalls well before its end.
	push @cmd, '-c', 'SET datavalue_export.client_send_buffer = 0';
	push @cmd, '-c', "COPY (SELECT $call) TO STDOUT";
	my $h = IPC::Run::start(\@cmd, '>', \$out, '2>', \$err);
	return { harness => $h, out => \$out, err => \$err };
}

# Waits until the backend of application $app is blocked writing to its client mid-document;
# returns its pid.
sub wait_until_stalled
{
	my ($node, $db, $app) = @_;
	my $held = qq(SELECT count(*) = 1 FROM pg_stat_activity a JOIN pg_stat_progress_copy p USING (pid)
		WHERE a.application_name = '$app' AND a.wait_event = 'ClientWrite' AND p.bytes_processed > 0);
	$node->poll_query_until($db, $held)
	  or die "the export of $app never blocked in ClientWrite mid-stream";
	return $node->safe_psql($db, "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'");
}

# Files in the default tablespace's temporary directory (base/pgsql_tmp), read from disk.
sub temp_file_count
{
	my ($node) = @_;
	my $dir = $node->data_dir . '/base/pgsql_tmp';
	return 0 unless -d $dir;
	opendir(my $dh, $dir) or die "opendir $dir: $!";
	my @files = grep { !/^\.\.?$/ } readdir($dh);
	closedir($dh);
	return scalar @files;
}

# Temporary files go at transaction abort, which runs just after the client got the error:
# poll (bounded by the usual TAP timeout) rather than look once.
sub wait_for_no_temp_files
{
	my ($node) = @_;
	foreach my $i (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return 1 if temp_file_count($node) == 0;
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

# Polls until the server answers a query again (after a crash restart). Unlike
# poll_query_until, passes the query with -c: psql may exit before reading its stdin while the
# server is down.
sub wait_until_accepting
{
	my ($node) = @_;
	foreach my $i (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		my ($out, $err) = ('', '');
		IPC::Run::run([ 'psql', '-XAt', '-d', $node->connstr('postgres'), '-c', 'SELECT 42' ],
			'>', \$out, '2>', \$err);
		return 1 if $out =~ /^42$/m;
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

sub wait_until_backend_gone
{
	my ($node, $db, $pid) = @_;
	return $node->poll_query_until($db, "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid");
}

1;
