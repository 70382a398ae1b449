/*
 * cli/test/options_progress_test.cpp
 *	  Unit tests for cli/options (argument parsing) and cli/progress (the progress text).
 *
 * The progress text is what a person reads; every field (values, estimate, bytes, rate, ETA)
 * is pinned for fixed snapshots, including the cases with no estimate and no value count.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "options.hpp"
#include "progress.hpp"
#include "request_target.hpp"

namespace datavalue_export::cli {
namespace {

Options
Parse(std::vector<std::string> args)
{
	return ParseOptions(args);
}

std::string
UsageMessage(std::vector<std::string> args)
{
	try {
		ParseOptions(args);
	} catch (const UsageError &e) {
		return e.what();
	}
	ADD_FAILURE() << "no UsageError";
	return "";
}

TEST(ParseOptions, ConnectionOptionsAllSpellings)
{
	const Options o = Parse({"-d", "dhis2", "-hdb.example.org", "--port=5433", "--username", "dhis", "dataSet=x"});
	EXPECT_EQ(o.dbname, "dhis2");
	EXPECT_EQ(o.host, "db.example.org");
	EXPECT_EQ(o.port, "5433");
	EXPECT_EQ(o.user, "dhis");
	EXPECT_EQ(o.target, "dataSet=x");
	EXPECT_EQ(o.output, "");
	EXPECT_EQ(o.progress, ProgressMode::kAuto);
}

TEST(ParseOptions, UnsetConnectionOptionsAreLeftToLibpq)
{
	const Options o = Parse({"dataSet=x"});
	EXPECT_FALSE(o.dbname);
	EXPECT_FALSE(o.host);
	EXPECT_FALSE(o.port);
	EXPECT_FALSE(o.user);
	EXPECT_EQ(o.password_prompt, PasswordPrompt::kWhenNeeded);
}

TEST(ParseOptions, PasswordPromptSwitches)
{
	EXPECT_EQ(Parse({"-W", "dataSet=x"}).password_prompt, PasswordPrompt::kAlways);
	EXPECT_EQ(Parse({"--password", "dataSet=x"}).password_prompt, PasswordPrompt::kAlways);
	EXPECT_EQ(Parse({"-w", "dataSet=x"}).password_prompt, PasswordPrompt::kNever);
	EXPECT_EQ(Parse({"--no-password", "dataSet=x"}).password_prompt, PasswordPrompt::kNever);
}

TEST(ParseOptions, OutputProgressAndQuiet)
{
	EXPECT_EQ(Parse({"dataSet=x", "-o", "out.csv"}).output, "out.csv");
	EXPECT_EQ(Parse({"--output=-", "dataSet=x"}).output, "-");
	EXPECT_EQ(Parse({"--progress=plain", "dataSet=x"}).progress, ProgressMode::kPlain);
	EXPECT_EQ(Parse({"--progress", "bar", "dataSet=x"}).progress, ProgressMode::kBar);
	EXPECT_EQ(Parse({"-q", "dataSet=x"}).progress, ProgressMode::kNone);
	EXPECT_EQ(Parse({"--quiet", "dataSet=x"}).progress, ProgressMode::kNone);
	/* After "--" everything is the request, even with a leading dash. */
	EXPECT_EQ(Parse({"--", "-odd"}).target, "-odd");
}

TEST(ParseOptions, FlagsTogetherAndShortenedLongNames)
{
	/* As psql (getopt_long): -qw, a value letter at the end of a group, unique long prefixes. */
	const Options o = Parse({"-qw", "-Wqddhis2", "--db=other", "--user", "dhis", "--outp=x.json", "dataSet=x"});
	EXPECT_EQ(o.progress, ProgressMode::kNone);
	EXPECT_EQ(o.password_prompt, PasswordPrompt::kAlways);
	EXPECT_EQ(o.dbname, "other");
	EXPECT_EQ(o.user, "dhis");
	EXPECT_EQ(o.output, "x.json");
	EXPECT_EQ(Parse({"-qo", "out.csv", "dataSet=x"}).output, "out.csv");
	EXPECT_EQ(Parse({"--prog", "plain", "dataSet=x"}).progress, ProgressMode::kPlain);
	EXPECT_EQ(Parse({"--no", "dataSet=x"}).password_prompt, PasswordPrompt::kNever);
}

TEST(ParseOptions, HelpAndVersionNeedNoRequest)
{
	EXPECT_TRUE(Parse({"--help"}).help);
	EXPECT_TRUE(Parse({"-?"}).help);
	EXPECT_TRUE(Parse({"-V"}).version);
}

TEST(ParseOptions, UsageErrors)
{
	EXPECT_NE(UsageMessage({}).find("no request given"), std::string::npos);
	EXPECT_NE(UsageMessage({"dataSet=x", "period=1"}).find("one request at a time"), std::string::npos);
	EXPECT_NE(UsageMessage({"-X", "dataSet=x"}).find("unknown option \"-X\""), std::string::npos);
	/* Never a password on the command line (ps shows it to every user). */
	EXPECT_NE(UsageMessage({"--password=x", "dataSet=x"}).find("--password takes no value"), std::string::npos);
	EXPECT_NE(UsageMessage({"-Wsecret", "dataSet=x"}).find("unknown option \"-s\" in \"-Wsecret\""), std::string::npos);
	EXPECT_NE(UsageMessage({"--xyz=1", "dataSet=x"}).find("unknown option \"--xyz\""), std::string::npos);
	EXPECT_NE(UsageMessage({"--p=1", "dataSet=x"}).find("ambiguous"), std::string::npos);
	EXPECT_NE(UsageMessage({"--=x", "dataSet=x"}).find("unknown option"), std::string::npos);
	EXPECT_NE(UsageMessage({"dataSet=x", "-d"}).find("option -d needs a value"), std::string::npos);
	EXPECT_NE(UsageMessage({"--progress=fancy", "dataSet=x"}).find("invalid --progress value"), std::string::npos);
	EXPECT_NE(UsageMessage({"--quiet=yes", "dataSet=x"}).find("takes no value"), std::string::npos);
	/* The password remark belongs to --password alone. */
	EXPECT_NE(UsageMessage({"--password=x", "dataSet=x"}).find("asked for on the terminal"), std::string::npos);
	EXPECT_EQ(UsageMessage({"--help=x", "dataSet=x"}).find("password"), std::string::npos);
}

TEST(Format, CountsBytesDurations)
{
	EXPECT_EQ(FormatCount(0), "0");
	EXPECT_EQ(FormatCount(999), "999");
	EXPECT_EQ(FormatCount(1000), "1,000");
	EXPECT_EQ(FormatCount(9900655), "9,900,655");
	EXPECT_EQ(FormatCount(-1234), "-1,234");
	EXPECT_EQ(FormatBytes(0), "0 B");
	EXPECT_EQ(FormatBytes(999), "999 B");
	EXPECT_EQ(FormatBytes(1000), "1.0 kB");
	EXPECT_EQ(FormatBytes(2345678), "2.3 MB");
	EXPECT_EQ(FormatBytes(2775000000.0), "2.77 GB");
	EXPECT_EQ(FormatDuration(0), "0:00");
	EXPECT_EQ(FormatDuration(7.9), "0:07");
	EXPECT_EQ(FormatDuration(754), "12:34");
	EXPECT_EQ(FormatDuration(3723), "1:02:03");
}

TEST(Progress, ValuesCountWhatHasArrived)
{
	/* 10,000 values in 1 MB sent, 250 kB of it arrived (the rest in socket buffers): about 2,500 values. */
	EXPECT_EQ(ValuesReceived(10000, 1000000, 250000), 2500);
	EXPECT_EQ(ValuesReceived(10000, 1000000, 1000000), 10000);
	/* More arrived than the last progress update said was sent (updates lag): the server's count. */
	EXPECT_EQ(ValuesReceived(10000, 1000000, 1200000), 10000);
	EXPECT_EQ(ValuesReceived(0, 0, 500), 0);
	EXPECT_EQ(ValuesReceived(10000, 0, 0), 10000);
}

TEST(Progress, EtaAtTheAverageRate)
{
	ProgressSnapshot s;
	s.elapsed_seconds = 10;
	s.values = 100000;
	s.estimate = 1000000;
	ASSERT_TRUE(EstimateSecondsLeft(s));
	EXPECT_DOUBLE_EQ(*EstimateSecondsLeft(s), 90);
	/* No basis: nothing written yet, no estimate, or the estimate already passed (stale reltuples). */
	s.values = 0;
	EXPECT_FALSE(EstimateSecondsLeft(s));
	s.values = 100;
	s.estimate.reset();
	EXPECT_FALSE(EstimateSecondsLeft(s));
	s.estimate = 50;
	EXPECT_FALSE(EstimateSecondsLeft(s));
}

TEST(Progress, BarShowsEveryField)
{
	ProgressSnapshot s;
	s.elapsed_seconds = 2;
	s.bytes = 2400000;
	s.values = 250000;
	s.estimate = 1000000;
	const std::string line = RenderBar(s, 100);
	EXPECT_EQ(line.size(), 99u);
	EXPECT_EQ(line.substr(line.find(']') + 2), "250,000 / ~1,000,000 values  2.4 MB  1.2 MB/s  ETA ~0:06");
	/* A quarter of the bar is filled. */
	const size_t inside = line.find(']') - 1;
	EXPECT_EQ(line.substr(1, inside), std::string(inside / 4, '#') + std::string(inside - inside / 4, '.'));
}

TEST(Progress, BarWhileBlockedAndWithoutCounts)
{
	ProgressSnapshot s;
	s.elapsed_seconds = 3;
	s.values = 0;
	s.estimate = 20000;
	std::string line = RenderBar(s, 80);
	EXPECT_NE(line.find("[....."), std::string::npos) << line;
	EXPECT_NE(line.find("0 / ~20,000 values  0 B  0 B/s  ETA --"), std::string::npos) << line;
	/* No progress view readable: bytes and rate only. */
	s.values.reset();
	s.bytes = 5000;
	line = RenderBar(s, 80);
	EXPECT_EQ(line.substr(line.find(']') + 2), "5.0 kB  1.7 kB/s  ETA --");
}

TEST(Progress, NarrowTerminalDropsTheBarThenCuts)
{
	ProgressSnapshot s;
	s.elapsed_seconds = 1;
	s.values = 5;
	s.estimate = 10;
	EXPECT_EQ(RenderBar(s, 50), "5 / ~10 values  0 B  0 B/s  ETA ~0:01");
	EXPECT_EQ(RenderBar(s, 20).size(), 19u);
}

TEST(Progress, PlainLineAndSummary)
{
	ProgressSnapshot s;
	s.elapsed_seconds = 65;
	s.bytes = 1300000;
	s.values = 13000;
	s.estimate = 20000;
	EXPECT_EQ(RenderPlainLine(s), "progress: 13,000 of ~20,000 values, 1.3 MB, 20.0 kB/s, ETA ~0:35, elapsed 1:05");
	EXPECT_EQ(RenderSummary(s, true), "done: 13,000 values, 1,300,000 bytes (1.3 MB) in 1:05, 20.0 kB/s");
	s.elapsed_seconds = 2.5;
	EXPECT_EQ(RenderSummary(s, false), "done: ~13,000 values, 1,300,000 bytes (1.3 MB) in 2.5 s, 520.0 kB/s");
}

} // namespace
} // namespace datavalue_export::cli
