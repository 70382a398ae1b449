"""
test/integration/test_demo_generator.py
    The demo generator's own checks: its SQL implementation of the ISO period rules against the
    doc's vectors and closed forms (demo/test_periods.sql), and the invariants of a built demo
    database (demo/check.sql). The 2.42-vs-2.43 comparison in test_schema_242.py only means
    something if this independent implementation is right.
SPDX-License-Identifier: PostgreSQL
"""
import os

import dve

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sql_period_rules_match_the_doc():
    out = dve.psql("postgres", "-f", os.path.join(REPO, "demo", "test_periods.sql"), timeout=300)
    assert out.returncode == 0, out.stderr


def test_demo_database_invariants(db243):
    out = dve.psql(db243, "-f", os.path.join(REPO, "demo", "check.sql"), timeout=300)
    assert out.returncode == 0, out.stderr
