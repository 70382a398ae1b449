/*
 * cli/options.cpp
 *	  Option parsing and the --help text of datavalue-export.
 *
 * Accepted spellings follow getopt_long, as psql's: -dNAME, -d NAME, --dbname=NAME, --dbname NAME,
 * flags together (-qw, -qdNAME), a long name shortened to a unique prefix (--db=NAME), and "--"
 * ends the options. Written by hand because getopt keeps global state between calls.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <algorithm>
#include <iterator>

#include "options.hpp"

#include "request_target.hpp"

namespace datavalue_export::cli {
namespace {

struct ValueOption {
	char short_name;
	const char *long_name;
	std::optional<std::string> Options::*member;
};

const ValueOption kValueOptions[] = {
    {'d', "dbname", &Options::dbname},
    {'h', "host", &Options::host},
    {'p', "port", &Options::port},
    {'U', "username", &Options::user},
};

ProgressMode
ParseProgressMode(const std::string &value)
{
	if (value == "auto")
		return ProgressMode::kAuto;
	if (value == "bar")
		return ProgressMode::kBar;
	if (value == "plain")
		return ProgressMode::kPlain;
	if (value == "none")
		return ProgressMode::kNone;
	throw UsageError("invalid --progress value \"" + value + "\"; use auto, bar, plain or none");
}

/* Stores the value of an option that takes one; i is advanced when the value is the next argument. */
void
StoreValue(Options &options, char short_name, const std::string &shown, std::optional<std::string> inline_value,
           const std::vector<std::string> &args, size_t &i)
{
	if (!inline_value) {
		if (i + 1 >= args.size())
			throw UsageError("option " + shown + " needs a value");
		inline_value = args[++i];
	}
	if (short_name == 'o') {
		if (inline_value->empty())
			throw UsageError("option " + shown + " needs a file name (\"-\" for standard output)");
		options.output = *inline_value;
		return;
	}
	if (short_name == 'P') {
		options.progress = ParseProgressMode(*inline_value);
		return;
	}
	for (const ValueOption &option : kValueOptions)
		if (option.short_name == short_name)
			options.*option.member = *inline_value;
}

/* The short letter of a value-taking option (o and P included), or 0. */
char
ValueOptionLetter(const std::string &long_name)
{
	if (long_name == "output")
		return 'o';
	if (long_name == "progress")
		return 'P';
	for (const ValueOption &option : kValueOptions)
		if (long_name == option.long_name)
			return option.short_name;
	return 0;
}

/* The long options that take no value; the value-taking ones are kValueOptions, output and progress. */
const char *const kFlagNames[] = {"help", "version", "quiet", "password", "no-password"};

bool
IsFlagName(const std::string &name)
{
	return std::find(std::begin(kFlagNames), std::end(kFlagNames), name) != std::end(kFlagNames);
}

/* name itself when it is an option, else the one option it begins; throws when none or several. */
std::string
FullLongName(const std::string &name)
{
	if (name.empty())
		throw UsageError("unknown option \"--\" with a value");
	std::vector<std::string> names(std::begin(kFlagNames), std::end(kFlagNames));
	names.insert(names.end(), {"output", "progress"});
	for (const ValueOption &option : kValueOptions)
		names.push_back(option.long_name);
	std::string found;
	for (const std::string &full : names) {
		if (full == name)
			return full;
		if (full.compare(0, name.size(), name) == 0) {
			if (!found.empty())
				throw UsageError("option \"--" + name + "\" is ambiguous (--" + found + ", --" + full + ")");
			found = full;
		}
	}
	if (found.empty())
		throw UsageError("unknown option \"--" + name + "\"");
	return found;
}

bool
IsValueLetter(char letter)
{
	if (letter == 'o')
		return true;
	for (const ValueOption &option : kValueOptions)
		if (option.short_name == letter)
			return true;
	return false;
}

} // namespace

Options
ParseOptions(const std::vector<std::string> &args)
{
	Options options;
	std::vector<std::string> positional;
	bool options_ended = false;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &arg = args[i];
		if (options_ended || arg.size() < 2 || arg[0] != '-') {
			positional.push_back(arg);
		} else if (arg == "--") {
			options_ended = true;
		} else if (arg.compare(0, 2, "--") == 0) {
			const size_t eq = arg.find('=');
			const std::string name = FullLongName(arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2));
			const std::optional<std::string> value =
			    eq == std::string::npos ? std::nullopt : std::optional<std::string>(arg.substr(eq + 1));
			if (IsFlagName(name)) {
				if (value)
					throw UsageError("option --" + name + " takes no value" +
					                 (name == "password" ? " (a password is asked for on the terminal)" : ""));
				if (name == "help")
					options.help = true;
				else if (name == "version")
					options.version = true;
				else if (name == "password")
					options.password_prompt = PasswordPrompt::kAlways;
				else if (name == "no-password")
					options.password_prompt = PasswordPrompt::kNever;
				else
					options.progress = ProgressMode::kNone;
			} else if (const char letter = ValueOptionLetter(name)) {
				StoreValue(options, letter, "--" + name, value, args, i);
			} else {
				throw UsageError("unknown option \"--" + name + "\"");
			}
		} else {
			/* Flags may go together; a letter that takes a value takes the rest, or the next argument. */
			for (size_t k = 1; k < arg.size(); k++) {
				const char letter = arg[k];
				if (IsValueLetter(letter)) {
					StoreValue(options, letter, std::string("-") + letter,
					           k + 1 < arg.size() ? std::optional<std::string>(arg.substr(k + 1)) : std::nullopt, args,
					           i);
					break;
				}
				if (letter == 'q')
					options.progress = ProgressMode::kNone;
				else if (letter == 'W')
					options.password_prompt = PasswordPrompt::kAlways;
				else if (letter == 'w')
					options.password_prompt = PasswordPrompt::kNever;
				else if (letter == 'V')
					options.version = true;
				else if (letter == '?')
					options.help = true;
				else
					throw UsageError("unknown option \"-" + std::string(1, letter) + "\"" +
					                 (arg.size() > 2 ? " in \"" + arg + "\"" : ""));
			}
		}
	}
	if (options.help || options.version)
		return options;
	if (positional.empty())
		throw UsageError("no request given; try 'dataValueSets.json?dataSet=...&period=...&orgUnit=...'");
	if (positional.size() > 1)
		throw UsageError("one request at a time; \"" + positional[1] +
		                 "\" is extra (quote the URL: an unquoted '&' ends the command in a shell)");
	options.target = positional[0];
	return options;
}

std::string
UsageText()
{
	return R"(datavalue-export writes DHIS2 aggregate data values (GET /api/dataValueSets) from a DHIS2
database with the datavalue_export extension, byte for byte as DHIS2 would.

Usage:
  datavalue-export [OPTION]... REQUEST

REQUEST is what you would give curl: a DHIS2 URL, a dataValueSets path or a query string:
  datavalue-export -d dhis2 'dataValueSets.json.gz?dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd' -o out.json.gz
  datavalue-export -d dhis2 'https://play.dhis2.org/api/dataValueSets.csv?dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd' > out.csv
  datavalue-export -d dhis2 'dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd' -o out.csv
Format and compression come from format=/compression= in the query, the URL path extension
(.json .csv .xml .adx .adx+xml .adx.xml, then .gz or .zip), or the output file name; these must
agree (a disagreement is an error, exit status 2). Default: uncompressed JSON.

Options:
  -o, --output=FILE     write to FILE (via a temporary file renamed at the end); "-" or none: stdout
  -q, --quiet           no progress display (same as --progress=none)
      --progress=MODE   auto (a bar when stderr is a terminal), bar, plain (a line every 5 s), none
  -V, --version         print the version and exit
  -?, --help            print this help and exit

Connection options (as psql; PG* environment variables and ~/.pgpass apply):
  -d, --dbname=DBNAME   database name, or a conninfo string or postgresql:// URI
  -h, --host=HOST       server host or socket directory
  -p, --port=PORT       server port
  -U, --username=USER   database user
  -W, --password        ask for a password on the terminal before connecting
  -w, --no-password     never ask (by default: when the server wants one and a terminal is there)

Progress: values from pg_stat_progress_copy (read on a second connection), bytes as written,
the average rate, and an ETA against pg_class.reltuples of datavalue, the whole table's row
estimate, shown with "~": an upper bound, close for full exports, pessimistic for selective ones.

Exit status: 0 done, 2 usage error, 3 connection failed or lost, 4 export error (the server's
message, DETAIL and HINT are printed), 5 output file error, 130 interrupted (SIGINT),
143 terminated (SIGTERM), 129 hung up (SIGHUP), 131 quit (SIGQUIT, Ctrl-\). A cancelled or
failed export leaves no output file behind.
)";
}

} // namespace datavalue_export::cli
