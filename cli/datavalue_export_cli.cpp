/*
 * cli/datavalue_export_cli.cpp
 *	  datavalue-export: a DHIS2 dataValueSets download from the database, for people and cron.
 *
 * Sends COPY (SELECT export_datavalues('<query>')) TO STDOUT over libpq; the extension writes the
 * document as raw CopyData, which goes to the output as it arrives (never whole in memory). A
 * file is written under a temporary name in its folder and renamed only after the server said
 * COPY succeeded and the data is fsync'ed, so a failed or cancelled export never leaves a
 * complete-looking file. SIGINT/SIGTERM/SIGHUP/SIGQUIT send a cancel request to the server
 * (PQcancel is async-signal-safe, libpq documentation "Canceling Queries in Progress"); a second
 * signal exits at once, even while the first one's cancel request still waits for the server.
 * Argument/URL handling and the progress text are pure code in options.cpp, request_target.cpp
 * and progress.cpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <libpq-fe.h>

#include "options.hpp"
#include "progress.hpp"
#include "request_target.hpp"

#ifndef DATAVALUE_EXPORT_VERSION
#define DATAVALUE_EXPORT_VERSION "unknown"
#endif

namespace datavalue_export::cli {
namespace {

constexpr const char *kProgram = "datavalue-export";
constexpr int kBarIntervalMs = 250;
constexpr int kPlainIntervalMs = 5000;
constexpr const char *kQueryCanceled = "57014";
constexpr const char *kUndefinedFunction = "42883";

/* ---- signals: state shared with the handler (async-signal-safe use only) ---- */

/*
 * Signals that cancel the export: Ctrl-C, kill, a closed terminal or ssh session, and Ctrl-\ (whose
 * default, a core dump, would leave the server exporting and the temporary file behind).
 */
constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_connecting = 0; /* in libpq's connect: nothing to cancel, and libpq retries on EINTR */
PGcancel *volatile g_cancel = nullptr;
char g_temp_path[PATH_MAX]; /* the temporary file, for the second signal's immediate exit */

int
StatusForSignal(int signo)
{
	return signo == SIGTERM   ? exit_status::kTerminated
	       : signo == SIGHUP  ? exit_status::kHungUp
	       : signo == SIGQUIT ? exit_status::kQuit
	                          : exit_status::kInterrupted;
}

extern "C" void
OnSignal(int signo)
{
	const int saved_errno = errno;
	if (g_signal != 0 || g_connecting != 0) {
		/*
		 * Second signal: the server did not answer the cancel in time for this user. While
		 * connecting there is no query to cancel, so the first signal exits.
		 */
		if (g_temp_path[0] != '\0')
			unlink(g_temp_path);
		static const char kConnecting[] = "datavalue-export: interrupted while connecting\n";
		static const char kAgain[] = "datavalue-export: second signal: exiting without waiting for the server\n";
		const bool connecting = g_signal == 0;
		if (write(STDERR_FILENO, connecting ? kConnecting : kAgain,
		          connecting ? sizeof kConnecting - 1 : sizeof kAgain - 1) < 0) {
			/* nothing left to tell */
		}
		_exit(StatusForSignal(signo));
	}
	g_signal = signo;
	/*
	 * A write to a reader that stopped reading, entered just after its loop looked at the flag,
	 * would block until a second signal: the alarm interrupts it within a second.
	 */
	alarm(1);
	if (PGcancel *cancel = g_cancel) {
		char message[256];
		PQcancel(cancel, message, sizeof message);
	}
	errno = saved_errno;
}

/* SIGALRM only interrupts a blocked write or wait (OnSignal); the flag is the first signal's. */
extern "C" void
OnAlarm(int)
{
}

void
InstallSignalHandlers()
{
	struct sigaction alarm_action = {};
	alarm_action.sa_handler = OnAlarm;
	sigemptyset(&alarm_action.sa_mask);
	sigaction(SIGALRM, &alarm_action, nullptr); /* no SA_RESTART: the write returns EINTR */
	struct sigaction action = {};
	action.sa_handler = OnSignal;
	sigemptyset(&action.sa_mask);
	/*
	 * No SA_RESTART: poll() returns EINTR so the loop sees the signal. SA_NODEFER: a second
	 * signal reaches the handler while the first one waits in PQcancel for a server that does
	 * not answer, and exits.
	 */
	action.sa_flags = SA_NODEFER;
	for (const int signo : kHandledSignals)
		sigaction(signo, &action, nullptr);
	/*
	 * A message to a closed stderr pipe (a logger that died) must not kill the export and leave its
	 * temporary file; a file size limit (ulimit -f) is an output error (EFBIG, exit 5), not a kill.
	 * The document's own write to a closed pipe still ends the program by SIGPIPE (Output::Write).
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

/* The handled signals held back while alive: a step that must not be cut short. */
class HeldSignals {
  public:
	HeldSignals()
	{
		sigset_t block;
		sigemptyset(&block);
		for (const int signo : kHandledSignals)
			sigaddset(&block, signo);
		sigprocmask(SIG_BLOCK, &block, &saved_);
	}
	~HeldSignals() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }
	HeldSignals(const HeldSignals &) = delete;
	HeldSignals &operator=(const HeldSignals &) = delete;

  private:
	sigset_t saved_;
};

/* Publishes (or withdraws, with nullptr) the cancel object the handler uses. */
void
SetCancel(PGcancel *cancel)
{
	PGcancel *old;
	{
		HeldSignals held;
		old = g_cancel;
		g_cancel = cancel;
	}
	if (old != nullptr)
		PQfreeCancel(old);
}

void
Complain(const std::string &message)
{
	std::fprintf(stderr, "%s: %s\n", kProgram, ShowControlCharacters(message).c_str());
}

std::string
Errno(const std::string &what, const std::string &path)
{
	return what + " \"" + path + "\": " + std::strerror(errno);
}

/* ---- the output: stdout, or a temporary file renamed into place at the end ---- */

class Output {
  public:
	Output() = default;
	Output(const Output &) = delete;
	Output &operator=(const Output &) = delete;
	~Output() { Discard(); }

	/* path "" or "-": stdout. */
	bool Open(std::string path, std::string &error)
	{
		if (path.empty() || path == "-" || path == "/dev/stdout") {
			fd_ = STDOUT_FILENO;
			return true;
		}
		/*
		 * An open descriptor by name (/dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to one) is
		 * written through a copy of it: resolved to the file behind it and renamed over,
		 * "-o /dev/stderr 2>>log" would replace the log it appends to.
		 */
		std::optional<int> descriptor;
		if (!FollowLinks(path, descriptor, error))
			return false;
		if (descriptor)
			return OpenDirect(path, fcntl(*descriptor, F_DUPFD_CLOEXEC, 3), error);
		struct stat st;
		const bool exists = stat(path.c_str(), &st) == 0;
		if (exists && S_ISDIR(st.st_mode)) {
			error = "output \"" + path + "\" is a directory";
			return false;
		}
		/* The file a standard descriptor already writes (a spelling not caught above): through it. */
		if (exists && S_ISREG(st.st_mode))
			for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
				struct stat open_st;
				if (fstat(fd, &open_st) == 0 && open_st.st_dev == st.st_dev && open_st.st_ino == st.st_ino)
					return OpenDirect(path, fcntl(fd, F_DUPFD_CLOEXEC, 3), error);
			}
		/* A device or FIFO (/dev/null, a pipe's reader) is written as it is: a rename would replace it. */
		if (exists && !S_ISREG(st.st_mode))
			return OpenDirect(path, open(path.c_str(), O_WRONLY | O_CLOEXEC), error);
		/* As a shell's redirection would: a file this user may not write is refused, not replaced. */
		if (exists && access(path.c_str(), W_OK) != 0) {
			error = Errno("cannot write", path);
			return false;
		}
		path_ = path;
		const size_t slash = path.rfind('/');
		directory_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
		const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
		/* Refused now, as a shell would, not by the rename after the whole export. */
		const long name_max = pathconf(directory_.c_str(), _PC_NAME_MAX);
		if (!exists && name_max > 0 && base.size() > static_cast<size_t>(name_max)) {
			errno = ENAMETOOLONG;
			error = Errno("cannot create", path);
			return false;
		}
		/*
		 * A file this user may write but not replace is written in place once the document is
		 * complete, as one with other hard links is: another user's file in a sticky folder such as
		 * /tmp (the rename is refused), a mount point such as a container's bind-mounted file (the
		 * rename is refused, or would go to the folder under it).
		 */
		struct stat folder;
		if (exists && stat(directory_.c_str(), &folder) == 0) {
			const uid_t user = geteuid();
			const bool sticky =
			    (folder.st_mode & S_ISVTX) != 0 && user != 0 && st.st_uid != user && folder.st_uid != user;
			copy_in_place_ = sticky || folder.st_dev != st.st_dev;
		}
		/*
		 * Hidden and not ending in the document's extension: it never looks like the finished file.
		 * The name is cut so that the temporary one fits a 255-byte file name too. A folder this user
		 * may not create files in takes no temporary file: it goes to $TMPDIR (or /tmp) and is
		 * copied into an existing file in place.
		 */
		if (!CreateTemporary(directory_ + "/." + base.substr(0, 200) + ".part.XXXXXX", error)) {
			const char *tmpdir = std::getenv("TMPDIR");
			const std::string elsewhere = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
			if (!exists || (errno != EACCES && errno != EROFS) ||
			    !CreateTemporary(elsewhere + "/.datavalue-export.part.XXXXXX", error))
				return false;
			copy_in_place_ = true;
		}
		/*
		 * mkstemp makes 0600; the finished file keeps the mode of the one it replaces, or gets what
		 * a shell redirection would give it.
		 */
		const mode_t mask = umask(0);
		umask(mask);
		fchmod(fd_, exists ? (st.st_mode & 07777) : (0666 & ~mask));
		if (exists) {
			/*
			 * It keeps its owner where this user may give it (root, in a cron job writing a service's
			 * file); a file with other hard links is overwritten in place once the document is complete,
			 * or the other names would keep the old one.
			 */
			if (st.st_uid != geteuid() || st.st_gid != getegid()) {
				if (fchown(fd_, st.st_uid, st.st_gid) != 0) {
					/* not allowed: it becomes this user's, as with mv */
				}
			}
			copy_in_place_ = copy_in_place_ || st.st_nlink > 1;
		}
		return true;
	}

	bool Write(const char *data, size_t size, std::string &error)
	{
		while (size > 0) {
			/*
			 * A signal ends a wait on a reader that stopped reading: the interrupted write returns
			 * EINTR, or the part it wrote before the signal, so look at the flag before each retry.
			 */
			if (g_signal != 0) {
				error = "interrupted";
				return false;
			}
			const ssize_t written = write(fd_, data, size);
			if (written < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EPIPE) {
					/* A reader that stopped (| head): ended by SIGPIPE as any filter is (manual, SIGNALS). */
					signal(SIGPIPE, SIG_DFL);
					raise(SIGPIPE);
				}
				error = Errno("could not write", Shown());
				return false;
			}
			data += written;
			size -= static_cast<size_t>(written);
			written_ += static_cast<uint64_t>(written);
		}
		return true;
	}

	/* Makes the file durable and gives it its name. */
	bool Commit(std::string &error)
	{
		if (direct_) {
			const int fd = fd_;
			fd_ = -1;
			if (close(fd) != 0) {
				error = Errno("could not close", path_);
				return false;
			}
			return true;
		}
		if (temp_.empty())
			return true;
		if (fsync(fd_) != 0) {
			error = Errno("could not fsync", temp_);
			return false;
		}
		const int fd = fd_;
		fd_ = -1;
		if (close(fd) != 0) {
			error = Errno("could not close", temp_);
			return false;
		}
		/* A signal while the file was synced still means "I did not want this file". */
		if (g_signal != 0) {
			error = "interrupted";
			return false;
		}
		if (!copy_in_place_) {
			if (rename(temp_.c_str(), path_.c_str()) == 0) {
				temp_.clear();
				g_temp_path[0] = '\0';
				/* The rename itself is durable once the folder is synced. */
				const int dir = open(directory_.c_str(), O_RDONLY | O_DIRECTORY);
				if (dir >= 0) {
					fsync(dir);
					close(dir);
				}
				return true;
			}
			/*
			 * A file the rename may not replace after all (a bind-mounted file: EBUSY; EPERM, EXDEV)
			 * takes the document in place, as one known beforehand does.
			 */
			const int refused = errno;
			struct stat st;
			if ((refused != EBUSY && refused != EPERM && refused != EXDEV) || stat(path_.c_str(), &st) != 0 ||
			    !S_ISREG(st.st_mode)) {
				error = "could not rename \"" + temp_ + "\" to \"" + path_ + "\": " + std::strerror(refused);
				return false;
			}
		}
		bool started = false;
		if (!CopyInto(temp_, path_, started, error)) {
			/* A signal before the target was touched is a cancel: the caller removes the file. */
			if (!started && g_signal != 0)
				return false;
			/* The target may be cut short now: the complete document stays where it is. */
			error += "; the complete document is in \"" + temp_ + "\"";
			temp_.clear();
			g_temp_path[0] = '\0';
			return false;
		}
		temp_.clear(); /* removed by CopyInto */
		return true;
	}

	void Discard()
	{
		if (direct_ && fd_ >= 0) {
			close(fd_);
			fd_ = -1;
		}
		if (temp_.empty())
			return;
		g_temp_path[0] = '\0';
		if (fd_ >= 0)
			close(fd_);
		fd_ = -1;
		unlink(temp_.c_str());
		temp_.clear();
	}

	std::string Shown() const { return path_.empty() ? "standard output" : path_; }
	/* Bytes the output took, a write cut short by a signal included. */
	uint64_t Written() const { return written_; }
	/* Standard output, a device or a FIFO: what was written stays, whatever happens next. */
	bool WritesInPlace() const { return path_.empty() || direct_; }

  private:
	/* Write to fd (just opened for path, or -1 with errno set) in place, with no temporary file. */
	bool OpenDirect(const std::string &path, int fd, std::string &error)
	{
		if (fd < 0) {
			error = Errno("could not open", path);
			return false;
		}
		fd_ = fd;
		path_ = path;
		direct_ = true;
		return true;
	}

	/*
	 * The descriptor a /dev/stdout, /dev/stderr, /dev/fd/N or /proc/{self,thread-self,PID}/fd/N path
	 * names, with doubled slashes and "." components read as the kernel reads them.
	 */
	static std::optional<int> NamedDescriptor(const std::string &spelled)
	{
		std::string path;
		for (size_t i = 0; i < spelled.size();) {
			if (spelled[i] == '/' && (i + 1 == spelled.size() || spelled[i + 1] == '/')) {
				i++;
				continue;
			}
			if (spelled.compare(i, 2, "/.") == 0 && (i + 2 == spelled.size() || spelled[i + 2] == '/')) {
				i += 2;
				continue;
			}
			path += spelled[i++];
		}
		if (path == "/dev/stdout")
			return STDOUT_FILENO;
		if (path == "/dev/stderr")
			return STDERR_FILENO;
		const std::string own = "/proc/" + std::to_string(getpid()) + "/fd/";
		for (const char *prefix : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own.c_str()}) {
			const size_t length = std::strlen(prefix);
			if (path.compare(0, length, prefix) != 0 || path.size() == length || path.size() > length + 9)
				continue;
			int fd = 0;
			for (size_t i = length; i < path.size(); i++) {
				if (path[i] < '0' || path[i] > '9')
					return std::nullopt;
				fd = fd * 10 + (path[i] - '0');
			}
			return fd;
		}
		return std::nullopt;
	}

	/*
	 * path with its symbolic links followed, even to a file that does not exist yet: the file a
	 * link names is written (or created), and the link stays. A link on the way that names an open
	 * descriptor sets descriptor; a loop is refused, as by a shell.
	 */
	static bool FollowLinks(std::string &path, std::optional<int> &descriptor, std::string &error)
	{
		for (int hops = 0; hops < 40; hops++) {
			if ((descriptor = NamedDescriptor(path)))
				return true;
			char target[PATH_MAX];
			const ssize_t length = readlink(path.c_str(), target, sizeof target - 1);
			if (length <= 0)
				return true;
			target[length] = '\0';
			const size_t slash = path.rfind('/');
			path = target[0] == '/' || slash == std::string::npos ? std::string(target)
			                                                      : path.substr(0, slash + 1) + target;
		}
		errno = ELOOP;
		error = Errno("cannot write", path);
		return false;
	}

	/* mkstemp of pattern into fd_ and temp_ (and the handler's copy of the name); false with errno set. */
	bool CreateTemporary(const std::string &pattern, std::string &error)
	{
		if (pattern.size() >= sizeof g_temp_path) {
			errno = ENAMETOOLONG;
			error = "output path \"" + path_ + "\" is too long";
			return false;
		}
		std::vector<char> name(pattern.begin(), pattern.end());
		name.push_back('\0');
		fd_ = mkstemp(name.data());
		if (fd_ < 0) {
			const int saved = errno;
			const size_t slash = pattern.rfind('/');
			error = Errno("could not create a temporary file in", pattern.substr(0, slash == 0 ? 1 : slash));
			errno = saved;
			return false;
		}
		temp_ = name.data();
		std::memcpy(g_temp_path, temp_.c_str(), temp_.size() + 1);
		return true;
	}

	/*
	 * The complete temporary file copied over the target itself (same inode, owner and links),
	 * synced. Another export copying into the same file waits for this one (an exclusive lock),
	 * so the file ends as one document or the other. Once the target is cut to be rewritten
	 * (started), signals are held until the copy is done: neither is the copy cut short nor the
	 * complete temporary file removed by a second signal.
	 */
	static bool CopyInto(const std::string &from, const std::string &to, bool &started, std::string &error)
	{
		const int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
		if (in < 0) {
			error = Errno("could not open", from);
			return false;
		}
		const int out = open(to.c_str(), O_WRONLY | O_CLOEXEC);
		if (out < 0) {
			error = Errno("could not open", to);
			close(in);
			return false;
		}
		while (flock(out, LOCK_EX) != 0) {
			if (errno != EINTR || g_signal != 0) {
				error = g_signal != 0 ? "interrupted" : Errno("could not lock", to);
				close(in);
				close(out);
				return false;
			}
		}
		HeldSignals held;
		g_temp_path[0] = '\0';
		started = true;
		std::vector<char> buffer(1 << 20);
		bool ok = ftruncate(out, 0) == 0;
		if (!ok)
			error = Errno("could not truncate", to);
		for (ssize_t got; ok && (got = read(in, buffer.data(), buffer.size())) != 0;) {
			if (got < 0) {
				ok = errno == EINTR;
				if (!ok)
					error = Errno("could not read", from);
				continue;
			}
			for (ssize_t done = 0; ok && done < got;) {
				const ssize_t wrote = write(out, buffer.data() + done, static_cast<size_t>(got - done));
				if (wrote < 0 && errno != EINTR) {
					error = Errno("could not write", to);
					ok = false;
				}
				done += wrote > 0 ? wrote : 0;
			}
		}
		if (ok && fsync(out) != 0) {
			error = Errno("could not fsync", to);
			ok = false;
		}
		close(in);
		if (close(out) != 0 && ok) {
			error = Errno("could not close", to);
			ok = false;
		}
		/* Still with signals held: a second signal's exit must find nothing left to remove. */
		if (ok)
			unlink(from.c_str());
		return ok;
	}

	int fd_ = -1;
	bool direct_ = false;        /* a device, FIFO or open descriptor, written in place */
	bool copy_in_place_ = false; /* hard-linked, not replaceable, or no temporary file beside it: copied into */
	uint64_t written_ = 0;
	std::string path_;
	std::string directory_;
	std::string temp_;
};

/* ---- libpq helpers ---- */

struct ConnDeleter {
	void operator()(PGconn *conn) const { PQfinish(conn); }
};
struct ResultDeleter {
	void operator()(PGresult *result) const { PQclear(result); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;
using Result = std::unique_ptr<PGresult, ResultDeleter>;

Conn
Connect(const Options &options, const char *application_name, const std::optional<std::string> &password)
{
	/* dbname first and expanded (a conninfo or URI); explicit options after it override it, as in psql. */
	std::vector<const char *> keys;
	std::vector<const char *> values;
	auto add = [&](const char *key, const std::optional<std::string> &value) {
		if (value) {
			keys.push_back(key);
			values.push_back(value->c_str());
		}
	};
	add("dbname", options.dbname);
	add("host", options.host);
	add("port", options.port);
	add("user", options.user);
	add("password", password);
	keys.push_back("fallback_application_name");
	values.push_back(application_name);
	/* DHIS2 documents are UTF-8; the extension converts its output to the client encoding. */
	keys.push_back("client_encoding");
	values.push_back("UTF8");
	keys.push_back(nullptr);
	values.push_back(nullptr);
	g_connecting = 1;
	Conn conn(PQconnectdbParams(keys.data(), values.data(), 1));
	g_connecting = 0;
	return conn;
}

/*
 * Asks on the terminal (/dev/tty, so it works with stdout redirected) with echo off, as psql's
 * simple_prompt does. nullopt without a terminal or when a signal interrupted the typing.
 */
std::optional<std::string>
PromptPassword()
{
	const int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0)
		return std::nullopt;
	struct termios saved;
	const bool have_termios = tcgetattr(tty, &saved) == 0;
	if (have_termios) {
		struct termios quiet = saved;
		quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
		tcsetattr(tty, TCSAFLUSH, &quiet);
	}
	static const char kPrompt[] = "Password: ";
	std::optional<std::string> password = std::string();
	if (write(tty, kPrompt, sizeof kPrompt - 1) < 0)
		password.reset();
	for (char c; password;) {
		const ssize_t got = read(tty, &c, 1);
		if (got == 1 && c != '\n')
			password->push_back(c);
		else if (got == 0 || (got == 1 && c == '\n'))
			break;
		else if (errno != EINTR || g_signal != 0)
			password.reset();
	}
	if (have_termios)
		tcsetattr(tty, TCSAFLUSH, &saved);
	if (write(tty, "\n", 1) < 0) {
		/* the newline only tidies the screen */
	}
	close(tty);
	return password;
}

std::string
Trimmed(const char *text)
{
	std::string out = text ? text : "";
	while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
		out.pop_back();
	return out;
}

/* The server's error as psql shows it, plus the SQLSTATE scripts can match on. */
void
ReportServerError(const PGresult *result, PGconn *conn)
{
	const char *severity = PQresultErrorField(result, PG_DIAG_SEVERITY);
	const char *primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
	const char *detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
	const char *hint = PQresultErrorField(result, PG_DIAG_MESSAGE_HINT);
	const char *sqlstate = PQresultErrorField(result, PG_DIAG_SQLSTATE);
	if (primary == nullptr) {
		/* A client-side failure (lost connection): libpq's own text. */
		Complain(Trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(conn)));
		return;
	}
	/* The server's text echoes the request: its control characters must not drive the terminal. */
	std::fprintf(stderr, "%s: %s:  %s\n", kProgram, severity ? severity : "ERROR",
	             ShowControlCharacters(primary).c_str());
	if (detail)
		std::fprintf(stderr, "DETAIL:  %s\n", ShowControlCharacters(detail).c_str());
	if (hint)
		std::fprintf(stderr, "HINT:  %s\n", ShowControlCharacters(hint).c_str());
	if (sqlstate && std::strcmp(sqlstate, kUndefinedFunction) == 0)
		std::fprintf(stderr,
		             "HINT:  Is the extension installed in this database (CREATE EXTENSION datavalue_export)?\n");
	if (sqlstate)
		std::fprintf(stderr, "SQLSTATE:  %s\n", sqlstate);
}

/* Waits until conn's socket is readable or timeout_ms passed (or a signal came); false on poll failure. */
bool
WaitReadable(PGconn *conn, int timeout_ms)
{
	struct pollfd fd = {PQsocket(conn), POLLIN, 0};
	return poll(&fd, 1, timeout_ms) >= 0 || errno == EINTR;
}

/* ---- progress display ---- */

class Progress {
  public:
	explicit Progress(ProgressMode mode) : mode_(mode) {}

	bool Enabled() const { return mode_ == ProgressMode::kBar || mode_ == ProgressMode::kPlain; }

	/* The estimate and the second connection; both optional, the display works with bytes alone. */
	void Prepare(PGconn *main, const Options &options, const std::optional<std::string> &password)
	{
		if (!Enabled())
			return;
		Result result(PQexec(main, "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass('datavalue')"));
		if (PQresultStatus(result.get()) == PGRES_TUPLES_OK && PQntuples(result.get()) == 1) {
			const long long reltuples = std::atoll(PQgetvalue(result.get(), 0, 0));
			if (reltuples > 0) /* -1: never analysed */
				snapshot_.estimate = reltuples;
		}
		monitor_ = Connect(options, "datavalue-export progress", password);
		if (PQstatus(monitor_.get()) != CONNECTION_OK)
			monitor_.reset();
		pid_ = std::to_string(PQbackendPID(main));
	}

	void Start(const std::string &output_name)
	{
		started_ = Clock::now();
		if (mode_ == ProgressMode::kPlain) {
			std::string line = std::string(kProgram) + ": exporting to " + output_name;
			if (snapshot_.estimate)
				line += " (table estimate ~" + FormatCount(*snapshot_.estimate) + " values)";
			std::fprintf(stderr, "%s\n", line.c_str());
		}
		Draw(0);
	}

	/* Redraws when the interval has passed. */
	void Tick(uint64_t bytes)
	{
		if (Enabled() &&
		    MillisecondsSince(last_draw_) >= (mode_ == ProgressMode::kBar ? kBarIntervalMs : kPlainIntervalMs))
			Draw(bytes);
	}

	/* Clears the bar before an error message. */
	void Abandon()
	{
		if (mode_ == ProgressMode::kBar && drawn_)
			std::fprintf(stderr, "\r\033[K");
		drawn_ = false;
	}

	void Finish(uint64_t bytes, long long copy_count)
	{
		if (!Enabled())
			return;
		snapshot_.bytes = bytes;
		snapshot_.elapsed_seconds = SecondsSince(started_);
		/* The COPY tag counts values when the library is preloaded; otherwise the last progress row. */
		const bool exact = copy_count > 0;
		if (exact)
			snapshot_.values = copy_count;
		Abandon();
		std::fprintf(stderr, "%s: %s\n", kProgram, RenderSummary(snapshot_, exact).c_str());
	}

  private:
	using Clock = std::chrono::steady_clock;

	static double SecondsSince(Clock::time_point then)
	{
		return std::chrono::duration<double>(Clock::now() - then).count();
	}
	static long long MillisecondsSince(Clock::time_point then)
	{
		return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - then).count();
	}

	void PollValues()
	{
		if (!monitor_)
			return;
		const char *params[1] = {pid_.c_str()};
		Result result(PQexecParams(monitor_.get(),
		                           "SELECT tuples_processed, bytes_processed FROM pg_stat_progress_copy "
		                           "WHERE pid = $1::int",
		                           1, nullptr, params, nullptr, nullptr, 0));
		if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
			monitor_.reset(); /* e.g. the server went away: carry on with bytes */
			return;
		}
		if (PQntuples(result.get()) != 1) {
			/* No row yet (still planning) or any more (finished): keep the last count. */
			if (!snapshot_.values)
				snapshot_.values = 0;
		} else if (PQgetisnull(result.get(), 0, 0)) {
			/* Hidden from this role (another user's backend without pg_read_all_stats): say nothing. */
			snapshot_.values.reset();
			monitor_.reset();
		} else {
			snapshot_.values = ValuesReceived(std::atoll(PQgetvalue(result.get(), 0, 0)),
			                                  std::atoll(PQgetvalue(result.get(), 0, 1)), snapshot_.bytes);
		}
	}

	void Draw(uint64_t bytes)
	{
		if (!Enabled())
			return;
		last_draw_ = Clock::now();
		snapshot_.bytes = bytes;
		PollValues();
		snapshot_.elapsed_seconds = SecondsSince(started_);
		if (mode_ == ProgressMode::kBar) {
			struct winsize size = {};
			const int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
			std::fprintf(stderr, "\r%s\033[K", RenderBar(snapshot_, width).c_str());
			drawn_ = true;
		} else if (bytes > 0 || snapshot_.elapsed_seconds >= 1) { /* not at Start: the start line said it */
			std::fprintf(stderr, "%s: %s\n", kProgram, RenderPlainLine(snapshot_).c_str());
		}
	}

	ProgressMode mode_;
	Conn monitor_;
	std::string pid_;
	ProgressSnapshot snapshot_;
	Clock::time_point started_ = Clock::now();
	Clock::time_point last_draw_ = Clock::now();
	bool drawn_ = false;
};

ProgressMode
EffectiveMode(const Options &options)
{
	if (options.progress != ProgressMode::kAuto)
		return options.progress;
	/*
	 * A bar interleaved with a document on the same terminal helps nobody: standard output on a
	 * terminal, or -o naming the terminal stderr is (/dev/stdout, /dev/stderr, /dev/tty).
	 */
	const bool to_stdout = options.output.empty() || options.output == "-";
	struct stat err, out;
	const bool to_stderr_terminal = !to_stdout && fstat(STDERR_FILENO, &err) == 0 &&
	                                stat(options.output.c_str(), &out) == 0 && S_ISCHR(out.st_mode) &&
	                                (out.st_rdev == err.st_rdev || out.st_rdev == makedev(5, 0) /* /dev/tty */);
	return isatty(STDERR_FILENO) && !(to_stdout && isatty(STDOUT_FILENO)) && !to_stderr_terminal ? ProgressMode::kBar
	                                                                                             : ProgressMode::kNone;
}

/* ---- the export ---- */

class Export {
  public:
	Export(const Options &options, const ResolvedRequest &request)
	    : options_(options), request_(request), progress_(EffectiveMode(options))
	{
	}

	int Run()
	{
		std::string error;
		if (!output_.Open(options_.output, error)) {
			if (g_signal != 0) /* a FIFO's open waits for its reader: a signal ends the wait */
				return Cancelled();
			Complain(error);
			return exit_status::kOutput;
		}

		std::optional<std::string> password;
		if (const int status = ConnectMain(password); status != exit_status::kOk)
			return status;

		char *literal = PQescapeLiteral(conn_.get(), request_.query.c_str(), request_.query.size());
		if (literal == nullptr) {
			/* Not text in the connection's encoding (bytes that are not UTF-8): the request is at fault. */
			Complain("could not quote the query: " + Trimmed(PQerrorMessage(conn_.get())));
			return exit_status::kUsage;
		}
		const std::string sql = std::string("COPY (SELECT export_datavalues(") + literal + ")) TO STDOUT";
		PQfreemem(literal);

		progress_.Prepare(conn_.get(), options_, password);
		SetCancel(PQgetCancel(conn_.get()));
		if (g_signal != 0)
			return Cancelled();
		if (!PQsendQuery(conn_.get(), sql.c_str()))
			return ConnectionLost();
		progress_.Start(output_.Shown());

		Result result = NextResult();
		if (!result)
			return ConnectionLost();
		if (PQresultStatus(result.get()) != PGRES_COPY_OUT)
			return Failed(result.get());
		if (const int status = Stream(); status != exit_status::kOk)
			return status;
		result = NextResult();
		if (!result)
			return ConnectionLost();
		if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
			return Failed(result.get());
		const long long copy_count = std::atoll(PQcmdTuples(result.get()));
		while (Result extra{NextResult()}) {
		}
		SetCancel(nullptr);
		/* A signal after the last byte still means "I did not want this file". */
		if (g_signal != 0)
			return Cancelled();
		if (!output_.Commit(error)) {
			if (g_signal != 0)
				return Cancelled();
			progress_.Abandon();
			Complain(error);
			return exit_status::kOutput;
		}
		/* Held while the document was copied into a hard-linked file: that file is complete now. */
		if (g_signal != 0) {
			progress_.Abandon();
			Complain(std::string(SignalWord()) + " after the document was complete: " + output_.Shown() + " holds it");
			return StatusForSignal(g_signal);
		}
		progress_.Finish(bytes_, copy_count);
		return exit_status::kOk;
	}

  private:
	/* The export's connection, asking for a password as psql does; kOk or the exit status. */
	int ConnectMain(std::optional<std::string> &password)
	{
		if (options_.password_prompt == PasswordPrompt::kAlways)
			password = PromptPassword();
		conn_ = Connect(options_, kProgram, password);
		/* Ask only when the server wanted a password that PGPASSWORD/~/.pgpass did not give. */
		if (PQstatus(conn_.get()) == CONNECTION_BAD && PQconnectionNeedsPassword(conn_.get()) && !password &&
		    options_.password_prompt == PasswordPrompt::kWhenNeeded && g_signal == 0) {
			password = PromptPassword();
			if (password) {
				conn_.reset(); /* close the refused attempt first: a server may serve one at a time */
				conn_ = Connect(options_, kProgram, password);
			}
		}
		if (g_signal != 0)
			return Cancelled();
		if (PQstatus(conn_.get()) != CONNECTION_OK) {
			Complain("could not connect: " + Trimmed(PQerrorMessage(conn_.get())));
			return exit_status::kConnection;
		}
		return exit_status::kOk;
	}

	/* The next result of the running command, waiting (and drawing progress) without blocking signals. */
	Result NextResult()
	{
		while (PQisBusy(conn_.get())) {
			if (!WaitReadable(conn_.get(), kBarIntervalMs))
				return nullptr;
			progress_.Tick(bytes_);
			if (!PQconsumeInput(conn_.get()))
				break; /* PQgetResult reports the broken connection */
		}
		return Result(PQgetResult(conn_.get()));
	}

	/* The COPY data into the output, as it arrives. */
	int Stream()
	{
		std::string error;
		for (;;) {
			char *data = nullptr;
			const int size = PQgetCopyData(conn_.get(), &data, 1);
			if (size > 0) {
				const bool ok = output_.Write(data, static_cast<size_t>(size), error);
				PQfreemem(data);
				if (!ok) {
					if (g_signal != 0)
						return Cancelled();
					/* Stop the server's work too; the connection is closed by the destructor. */
					progress_.Abandon();
					Complain(error);
					return exit_status::kOutput;
				}
				bytes_ += static_cast<uint64_t>(size);
				progress_.Tick(bytes_);
			} else if (size == 0) {
				if (!WaitReadable(conn_.get(), kBarIntervalMs))
					return ConnectionLost();
				progress_.Tick(bytes_);
				if (!PQconsumeInput(conn_.get()))
					return exit_status::kOk; /* the error comes with the next result */
			} else {
				return exit_status::kOk; /* -1 done or -2 failed: the next result says which */
			}
		}
	}

	int Failed(const PGresult *result)
	{
		progress_.Abandon();
		const char *sqlstate = PQresultErrorField(result, PG_DIAG_SQLSTATE);
		if (g_signal != 0 && sqlstate && std::strcmp(sqlstate, kQueryCanceled) == 0)
			return Cancelled();
		ReportServerError(result, conn_.get());
		NoteIncompleteOutput();
		/* FATAL (e.g. pg_terminate_backend) ends the session even before libpq has seen the socket close. */
		const char *severity = PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED);
		if (PQstatus(conn_.get()) == CONNECTION_BAD ||
		    (severity && (std::strcmp(severity, "FATAL") == 0 || std::strcmp(severity, "PANIC") == 0)))
			return exit_status::kConnection;
		if (PQresultStatus(result) != PGRES_FATAL_ERROR)
			Complain("unexpected reply to COPY");
		return exit_status::kExport;
	}

	int ConnectionLost()
	{
		progress_.Abandon();
		Complain("connection lost: " + Trimmed(PQerrorMessage(conn_.get())));
		NoteIncompleteOutput();
		return exit_status::kConnection;
	}

	/* A file is only renamed into place on success; standard output, a device or a FIFO has the bytes already. */
	void NoteIncompleteOutput()
	{
		if (output_.WritesInPlace() && bytes_ > 0)
			Complain(output_.Shown() + " holds an incomplete document (" + std::to_string(bytes_) + " bytes)");
	}

	static const char *SignalWord()
	{
		return g_signal == SIGTERM   ? "terminated"
		       : g_signal == SIGHUP  ? "hung up"
		       : g_signal == SIGQUIT ? "quit"
		                             : "interrupted";
	}

	int Cancelled()
	{
		progress_.Abandon();
		output_.Discard();
		Complain(std::string(SignalWord()) + ": the export was cancelled" +
		         (!output_.WritesInPlace() ? "; no output file was written"
		          : output_.Written() > 0  ? "; " + output_.Shown() + " holds an incomplete document"
		                                   : "; nothing was written to " + output_.Shown()));
		return StatusForSignal(g_signal);
	}

	const Options &options_;
	const ResolvedRequest &request_;
	Output output_;
	Progress progress_;
	Conn conn_;
	uint64_t bytes_ = 0;
};

} // namespace
} // namespace datavalue_export::cli

int
main(int argc, char **argv)
{
	using namespace datavalue_export::cli;
	/*
	 * A closed standard descriptor would be taken by the next open: the server connection on 1
	 * would then receive the document, or the output file on 2 the progress lines. Each gets
	 * /dev/null; a document meant for a closed standard output is an error.
	 */
	bool stdout_closed = false;
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
				return exit_status::kOutput;
			stdout_closed = stdout_closed || fd == STDOUT_FILENO;
		}
	try {
		Options options;
		ResolvedRequest request;
		try {
			options = ParseOptions(std::vector<std::string>(argv + 1, argv + argc));
			if (options.help) {
				std::fputs(UsageText().c_str(), stdout);
				return exit_status::kOk;
			}
			if (options.version) {
				std::printf("%s (datavalue_export) %s\n", kProgram, DATAVALUE_EXPORT_VERSION);
				return exit_status::kOk;
			}
			request = ResolveRequest(options.target, options.output);
			if (stdout_closed && (options.output.empty() || options.output == "-")) {
				std::fprintf(stderr, "%s: standard output is closed; give the output file with -o\n", kProgram);
				return exit_status::kOutput;
			}
		} catch (const UsageError &e) {
			std::fprintf(stderr, "%s: %s\nTry \"%s --help\" for more information.\n", kProgram, e.what(), kProgram);
			return exit_status::kUsage;
		}
		InstallSignalHandlers();
		const int status = Export(options, request).Run();
		SetCancel(nullptr);
		return status;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "%s: %s\n", kProgram, e.what());
		return exit_status::kExport;
	}
}
