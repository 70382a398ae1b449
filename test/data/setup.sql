-- test/data/setup.sql: the common top of every pg_regress file (fixture + output settings).
\set ECHO none
\set QUIET on
\ir fixture.sql
\pset format unaligned
\pset tuples_only on
\set QUIET off
\set ECHO all
