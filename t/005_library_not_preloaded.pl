# t/005_library_not_preloaded.pl
#	  Without shared_preload_libraries, the library loads when a session first calls an export,
#	  after the statement's COPY has passed the ProcessUtility hook. A COPY at the top of the
#	  statement is still seen (it is the portal's); a COPY run from a function (EXECUTE in
#	  PL/pgSQL) is not, and the export must refuse it rather than let COPY write its result rows,
#	  COPY-escaped, into a file that looks complete. Once loaded, the same COPY works.
# SPDX-License-Identifier: PostgreSQL
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Digest::MD5;
use DveTap;

my $node = new_node('unloaded', preload => 0);
load_demo($node, 'demo', 5000);
my $call = demo_call($node, 'demo', 'json');
my $reference = copy_md5($node, 'demo', $call);
my $file = $node->basedir . '/nested.json';
my $nested = "DO \$outer\$ BEGIN EXECUTE \$inner\$COPY (SELECT $call) TO '$file'\$inner\$; END \$outer\$";

sub file_md5
{
	open(my $fh, '<:raw', $file) or die "open $file: $!";
	my $md5 = Digest::MD5->new->addfile($fh)->hexdigest;
	close($fh);
	return $md5;
}

my ($ret, $stdout, $stderr) = $node->psql('demo', $nested);
isnt($ret, 0, 'a COPY from a function in the session that loads the library fails');
like(
	$stderr,
	qr/COPY of an export run from a function needs the datavalue_export library loaded before the statement starts/,
	'the error says what is wrong');
like($stderr, qr/call one of its functions earlier in the session/, 'and a remedy every role has');
unlike(-e $file ? file_md5() : '', qr/^\Q$reference\E$/, 'no complete document was written');
unlink($file);

# The same COPY behind a comment, or among other statements of a SQL function's body, is the same COPY.
my $commented = "DO \$outer\$ BEGIN EXECUTE \$inner\$/* nightly */ COPY (SELECT $call) TO '$file'\$inner\$; END \$outer\$";
($ret, $stdout, $stderr) = $node->psql('demo', $commented);
like($stderr, qr/needs the datavalue_export library loaded/, 'a COPY after a comment is refused too');
ok(!-e $file || file_md5() ne $reference, 'and wrote no complete document');
unlink($file);
($ret, $stdout, $stderr) = $node->psql('demo',
	"CREATE FUNCTION pg_temp.nightly() RETURNS void LANGUAGE sql AS \$\$ SELECT 1; COPY (SELECT $call) TO '$file' \$\$;\n"
	  . "SELECT pg_temp.nightly();");
like($stderr, qr/needs the datavalue_export library loaded/, 'a COPY that is the second statement of a SQL function is refused');
ok(!-e $file || file_md5() ne $reference, 'and wrote no complete document');
unlink($file);

# The hint's remedy: LOAD and session_preload_libraries need a superuser, a call of the library does not.
($ret, $stdout, $stderr) = $node->psql('demo', "SELECT datavalue_export_version();\n$nested");
is($ret, 0, 'after a call of one of its functions, the COPY from a function runs') or diag($stderr);
is(file_md5(), $reference, 'and writes the bytes COPY TO STDOUT gives');

($ret, $stdout, $stderr) = $node->psql('demo', "LOAD 'datavalue_export';\n$nested");
is($ret, 0, 'loaded first, the COPY from a function runs') or diag($stderr);
is(file_md5(), $reference, 'and writes the bytes COPY TO STDOUT gives');

($ret, $stdout, $stderr) = $node->psql('demo', "COPY (SELECT $call) TO '$file'");
is($ret, 0, 'a top-level COPY to a file in the session that loads the library runs') or diag($stderr);
is(file_md5(), $reference, 'and writes the bytes COPY TO STDOUT gives');

done_testing();
