/*
 * cli/options.hpp
 *	  Command-line options of datavalue-export, parsed without global state (testable).
 *
 * Connection options are psql's (-d -h -p -U); anything not given is left to libpq, so PG*
 * environment variables, the service file and ~/.pgpass apply as they do for psql. There is
 * deliberately no option that takes a password: a password on the command line is visible to
 * every user through ps. As in psql, -W asks for one on the terminal before connecting, -w never
 * asks, and by default the CLI asks when the server wants a password and a terminal is there.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace datavalue_export::cli {

/* Exit statuses, documented in --help, the man page and the README. */
namespace exit_status {
inline constexpr int kOk = 0;
inline constexpr int kUsage = 2;         /* bad options, URL or conflicting format/compression */
inline constexpr int kConnection = 3;    /* could not connect, or the connection broke */
inline constexpr int kExport = 4;        /* the server refused or failed the export */
inline constexpr int kOutput = 5;        /* the output file could not be created, written or renamed */
inline constexpr int kInterrupted = 130; /* SIGINT (128 + 2), as shells report it */
inline constexpr int kTerminated = 143;  /* SIGTERM (128 + 15) */
inline constexpr int kHungUp = 129;      /* SIGHUP (128 + 1): the terminal or ssh session went away */
inline constexpr int kQuit = 131;        /* SIGQUIT (128 + 3): Ctrl-\ */
} // namespace exit_status

enum class ProgressMode {
	kAuto,  /* a bar when stderr is a terminal (and stdout is not), else nothing */
	kBar,   /* a bar even when stderr is not a terminal */
	kPlain, /* a line every few seconds, for cron and logs */
	kNone,
};

enum class PasswordPrompt {
	kWhenNeeded, /* the server asked and none was found (PGPASSWORD, ~/.pgpass) */
	kAlways,     /* -W */
	kNever,      /* -w, for scripts: fail instead of waiting on a terminal */
};

struct Options {
	std::optional<std::string> dbname; /* a database name, or a conninfo string or URI */
	std::optional<std::string> host;
	std::optional<std::string> port;
	std::optional<std::string> user;
	PasswordPrompt password_prompt = PasswordPrompt::kWhenNeeded;
	std::string output; /* "" or "-": stdout */
	ProgressMode progress = ProgressMode::kAuto;
	std::string target; /* the URL, path or query string */
	bool help = false;
	bool version = false;
};

/* args excludes the program name. Throws UsageError. --help and --version need no target. */
Options ParseOptions(const std::vector<std::string> &args);

/* The --help text. */
std::string UsageText();

} // namespace datavalue_export::cli
