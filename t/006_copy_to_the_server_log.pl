# t/006_copy_to_the_server_log.pl
#	  COPY (SELECT export...) TO '/dev/stderr' (or /proc/self/fd/2) names the file the server logs
#	  into when it runs under pg_ctl -l. The export writes such a file in place, as native COPY
#	  does; renamed over, the log file was replaced by the document while the server went on
#	  logging into the unlinked old file, so every later message was lost.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use DveTap;

my $node = new_node('logtarget');
load_demo($node, 'demo', 500);
my $log = $node->logfile;
my $call = demo_call($node, 'demo', 'json', '"limit" => 3');

for my $spelling ('/dev/stderr', '/proc/self/fd/2')
{
	my $inode = (stat($log))[1];
	$node->safe_psql('demo', "COPY (SELECT $call) TO '$spelling'");
	is((stat($log))[1], $inode, "$spelling: the log file is written in place, not replaced");
	like(slurp_file($log), qr/"dataValues":\[/, "$spelling: the document went into it");

	my $marker = "dve logged after the export to $spelling";
	$node->safe_psql('demo', "DO \$\$ BEGIN RAISE LOG '$marker'; END \$\$");
	ok($node->poll_query_until('demo', "SELECT pg_catalog.strpos(pg_catalog.pg_read_file('$log'), '$marker') > 0"),
		"$spelling: the server still logs into its file");
}

$node->stop;
done_testing();
