# t/004_concurrent_snapshots.pl
#	  Exports beside a writer: each export shows exactly its own snapshot.
#
#	  1. A writer commits while an export is held mid-stream (unordered, so rows are still being
#	     read; and ordered with spilled runs): the export's bytes are those of before the commit.
#	  2. A writer's transaction is in progress when a REPEATABLE READ transaction takes its
#	     snapshot and commits before the export runs in that transaction: the export leaves the
#	     change out, like the count and checksum the transaction computed from the tables.
#	  3. Exporters in REPEATABLE READ transactions while a writer commits in a loop: in every
#	     transaction the exported values (count, checksum) equal those read from the tables.
# The checks hold whatever the interleaving, so none depends on machine speed.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Digest::MD5;
use IPC::Run;
use DveTap;

my $node = new_node('snapshots');
load_demo($node, 'demo');
my $json = demo_call($node, 'demo', 'json');
my $unordered = demo_call($node, 'demo', 'json', q{"order" => 'none'});

# Count and checksum (data element, period, value) of the values an export of five data sets
# holds (about 5% of the demo, with its hostile strings and edge periods: parsing the whole
# document back in SQL would dominate the test's time): from the tables, and from the exported
# document parsed back (its chunks concatenated in order).
my $sets = q{'{Cx3NF7ThKsO,DZ0JHXT7tf9,EdgePeriods,HostileDSet,K40WzwzFrCV}'};
my $subset = "export_datavalues_json(data_set => $sets, start_date => '1900-01-01', end_date => '2100-12-31', "
  . "org_unit => '{ImspTQPwCqd}', children => true)";
my $from_tables = qq{SELECT count(*) || ' ' || coalesce(sum(hashtext(concat_ws('|', de.uid, pe.iso, dv.value))::bigint), 0)
	FROM datavalue dv JOIN dataelement de USING (dataelementid) JOIN period pe USING (periodid)
	WHERE NOT dv.deleted AND dv.dataelementid IN
		(SELECT dataelementid FROM datasetelement JOIN dataset USING (datasetid) WHERE uid = ANY ($sets))};
my $from_export = qq{SELECT count(*) || ' ' || coalesce(sum(hashtext(concat_ws('|', v->>'dataElement', v->>'period', v->>'value'))::bigint), 0)
	FROM (SELECT string_agg(chunk, '' ORDER BY n)::jsonb AS doc FROM $subset WITH ORDINALITY AS t(chunk, n)) d,
		 jsonb_array_elements(d.doc -> 'dataValues') v};

# One writer step: changes values of one slice of the rows and flips "deleted" on another.
sub write_step
{
	my ($i) = @_;
	return qq{UPDATE datavalue SET value = value || '+$i' WHERE (sourceid + dataelementid) % 11 = $i % 11 AND length(value) < 1000;
		UPDATE datavalue SET deleted = NOT deleted WHERE (sourceid + periodid) % 13 = $i % 13;};
}

my $initial = $node->safe_psql('demo', $from_tables);
like($initial, qr/^\d{4,} -?\d+$/, "the export holds values ($initial)");
is($node->safe_psql('demo', $from_export), $initial, 'exported values equal the tables\' values');

# 1. A commit while an export is held mid-stream.
my $step = 0;
foreach my $case ([ 'unordered', $unordered ], [ 'ordered, spilled runs', $json ])
{
	my ($name, $call) = @$case;
	my ($before, $size) = copy_md5($node, 'demo', $call, $DveTap::TINY_RUNS);
	my $client = start_stalled_export($node, 'demo', 'dve_held', $call, $DveTap::TINY_RUNS);
	wait_until_stalled($node, 'demo', 'dve_held');
	$node->safe_psql('demo', write_step(++$step));
	ok($client->{harness}->finish, "$name: the held export completes");
	is(length(${ $client->{out} }), $size, "$name: held export has the size of before the commit");
	is(Digest::MD5::md5_hex(${ $client->{out} }), $before, "$name: held export has the bytes of before the commit");
	isnt(scalar copy_md5($node, 'demo', $call), $before, "$name: an export after the commit differs");
}

# 2. A writer transaction in progress at the snapshot, committed before the export runs.
{
	my $writer = $node->background_psql('demo');
	my $reader = $node->background_psql('demo');
	$writer->query_safe('BEGIN');
	$writer->query_safe(write_step(++$step));
	$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $snapshot = $reader->query_safe($from_tables);
	$writer->query_safe('COMMIT');
	my $now = $node->safe_psql('demo', $from_tables);
	isnt($now, $snapshot, 'the writer changed the exported values');
	is($reader->query_safe($from_export), $snapshot, 'the export shows its snapshot, not the later commit');
	$reader->query_safe('COMMIT');
	is($reader->query_safe($from_export), $now, 'a new transaction\'s export shows the commit');
	$writer->quit;
	$reader->quit;
}

# 3. Exporters beside a writer committing in a loop: separate psql processes reading their
# scripts from files (so they run on their own while this script waits). How the commits fall
# among the exports is left to the scheduler: every interleaving must pass (1 and 2 above pin
# the interleavings that matter).
{
	my $steps = 20;
	my $dir = $node->basedir;
	my $first = $step + 1;
	open(my $w, '>', "$dir/writer.sql") or die $!;
	print $w 'BEGIN; ' . write_step($step + $_) . " COMMIT;\n" for 1 .. $steps;
	close($w);
	$step += $steps;
	my $rounds = 3;
	open(my $e, '>', "$dir/exporter.sql") or die $!;
	print $e "BEGIN ISOLATION LEVEL REPEATABLE READ;\n$from_tables;\n$from_export;\nCOMMIT;\n" for 1 .. $rounds;
	close($e);

	my @psql = ('psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('demo'), '-f');
	my $writer = IPC::Run::start([ @psql, "$dir/writer.sql" ], '>', '/dev/null', '2>', "$dir/writer.err");
	my @exporters = map {
		IPC::Run::start([ @psql, "$dir/exporter.sql" ], '>', "$dir/exporter$_.out", '2>', "$dir/exporter$_.err")
	} 1 .. 3;
	foreach my $i (1 .. 3)
	{
		ok($exporters[ $i - 1 ]->finish, "exporter $i ran its transactions");
		open(my $fh, '<', "$dir/exporter$i.out") or die $!;
		my @lines = map { chomp; $_ } <$fh>;
		close($fh);
		is(scalar @lines, 2 * $rounds, "exporter $i: one table and one export result per transaction");
		foreach my $r (0 .. $rounds - 1)
		{
			is($lines[ 2 * $r + 1 ], $lines[ 2 * $r ], "exporter $i, transaction $r: export equals its snapshot");
		}
	}
	ok($writer->finish, 'the writer committed all its steps');
	is($node->safe_psql('demo', "SELECT count(*) > 0 FROM datavalue WHERE value LIKE '%+$step'"),
		't', 'the last writer step is visible');
}

$node->stop;
done_testing();
