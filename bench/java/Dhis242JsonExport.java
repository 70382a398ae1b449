/*
 * bench/java/Dhis242JsonExport.java
 *	  The benchmark's DHIS2 2.42 peer: a dataValueSets JSON export done the way DHIS2 2.42 does it,
 *	  so the extension can be timed against the writer it replaces.
 *
 * What it reproduces (dhis2/dhis2-core, branch 2.42, dhis-2/dhis-services/dhis-service-dxf2/src/
 * main/java/org/hisp/dhis/dxf2/datavalueset/):
 *   - SpringDataValueSetStore.getDataValueSql: one SELECT built as a string, literal ids inlined,
 *     the 6-way join plus periodtype, `de.dataelementid in (<ids>)` where the ids are the data
 *     sets' members resolved beforehand, `ou.path like '<path>%'` for children, `dv.deleted is
 *     false`, period containment on start/end dates, and **no ORDER BY** (the superuser form: no
 *     attribute-option-combo sharing clause; UID id schemes);
 *   - its row callback: every column read by label, the ISO period computed per row from the
 *     period type name and start date (PeriodType.createPeriod(...).getIsoDate()), timestamps
 *     through DateUtils.getLongGmtDateString (yyyy-MM-dd'T'HH:mm:ss.SSSZ in UTC, milliseconds
 *     truncated), followup and deleted through ResultSet.getBoolean;
 *   - JsonDataValueSetWriter: a Jackson streaming generator on the response OutputStream with
 *     FLUSH_PASSED_TO_STREAM and AUTO_CLOSE_JSON_CONTENT off, the multi-set shape
 *     {"dataValues":[...]} with every member written (null when NULL), "deleted" only when true.
 * Jackson's factory here is a plain JsonFactory (DHIS2 takes ObjectMapper's, a MappingJsonFactory:
 * the same UTF8JsonGenerator for an OutputStream, so the same bytes and the same code path).
 *
 * Deviations, all in DHIS2's favour: ISO periods and timestamps are formatted with java.time
 * (DHIS2 goes through its Calendar API and Joda-Time, which allocate more per row); there is no
 * servlet, Spring, security or Hibernate layer. Rows stream: autocommit off and a fetch size, so
 * PgJDBC reads them through a portal in batches (DHIS2's JdbcTemplate would otherwise hold the
 * whole result in memory).
 *
 * Protocol (for bench/bench.py): the program connects (a Unix socket through junixsocket when
 * PGHOST is a directory, as libpq does), runs an untimed warm-up export of --warmup-rows rows to
 * /dev/null so the JIT has compiled the row path (DHIS2 is a long-running server), prints
 * "BACKEND_PID <pid>" and "READY", waits for one line on stdin, exports, and prints
 * "DONE <rows> <seconds>", then keeps its session until stdin closes. With --no-wait it exports
 * straight away and exits.
 *
 * Options: --db NAME --data-sets UID,UID,... --start YYYY-MM-DD --end YYYY-MM-DD --org-unit UID
 *          --out PATH [--fetch-size N] [--warmup-rows N] [--no-wait] [--order dhis2]
 * --order dhis2 appends the 2.43 order plus a full tie-break (pe.startdate, pe.enddate,
 * pe.periodid, dv.created, de.uid, ou.path, ou.organisationunitid, coc.uid, aoc.uid), for byte
 * comparisons with the extension only; 2.42 itself has no ORDER BY.
 * SPDX-License-Identifier: PostgreSQL
 */

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.IsoFields;
import java.time.temporal.WeekFields;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

public final class Dhis242JsonExport {
	/* DateUtils.getLongGmtDateString's pattern; 'Z' prints +0000 in UTC. */
	private static final DateTimeFormatter GMT_TIMESTAMP =
	    DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ").withZone(ZoneOffset.UTC);

	private final Map<String, String> options;

	private Dhis242JsonExport(Map<String, String> options) {
		this.options = options;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = parseOptions(args);
		for (String required : new String[] {"db", "data-sets", "start", "end", "org-unit", "out"}) {
			if (!options.containsKey(required)) {
				System.err.println("Dhis242JsonExport: --" + required + " is required");
				System.exit(2);
			}
		}
		new Dhis242JsonExport(options).run();
	}

	private static Map<String, String> parseOptions(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (int i = 0; i < args.length; i++) {
			if (!args[i].startsWith("--")) {
				throw new IllegalArgumentException("unexpected argument " + args[i]);
			}
			String name = args[i].substring(2);
			if (name.equals("no-wait")) {
				options.put(name, "true");
			} else if (i + 1 < args.length) {
				options.put(name, args[++i]);
			} else {
				throw new IllegalArgumentException("--" + name + " needs a value");
			}
		}
		return options;
	}

	private void run() throws Exception {
		try (Connection connection = connect()) {
			connection.setAutoCommit(false); /* a portal: rows come fetch-size at a time */
			int warmupRows = Integer.parseInt(options.getOrDefault("warmup-rows", "200000"));
			if (warmupRows > 0) {
				try (OutputStream sink = new FileOutputStream("/dev/null")) {
					export(connection, sink, " limit " + warmupRows);
				}
				connection.commit();
			}
			if (!options.containsKey("no-wait")) {
				System.out.println("BACKEND_PID " + backendPid(connection));
				System.out.println("READY");
				System.out.flush();
				new BufferedReader(new InputStreamReader(System.in)).readLine();
			}
			long t0 = System.nanoTime();
			long rows;
			try (OutputStream out = new FileOutputStream(options.get("out"))) {
				rows = export(connection, out, "");
			}
			double seconds = (System.nanoTime() - t0) / 1e9;
			connection.commit();
			System.out.println("DONE " + rows + " " + seconds);
			System.out.flush();
			if (!options.containsKey("no-wait")) {
				/* Keep the session (and so its backend) until the driver has read the backend's
				 * CPU and memory; it closes our stdin when it has. */
				new BufferedReader(new InputStreamReader(System.in)).readLine();
			}
		}
	}

	/* libpq's conventions: PGHOST a directory means its Unix socket .s.PGSQL.<port>. */
	private Connection connect() throws SQLException {
		String host = System.getenv().getOrDefault("PGHOST", "/var/run/postgresql");
		String port = System.getenv().getOrDefault("PGPORT", "5432");
		String user = System.getenv().getOrDefault("PGUSER", System.getProperty("user.name"));
		String db = options.get("db");
		String url;
		if (host.startsWith("/")) {
			url = "jdbc:postgresql://localhost:" + port + "/" + db + "?sslmode=disable"
			      + "&socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg"
			      + "&socketFactoryArg=" + host + "/.s.PGSQL." + port;
		} else {
			url = "jdbc:postgresql://" + host + ":" + port + "/" + db + "?sslmode=disable";
		}
		return DriverManager.getConnection(url, user, System.getenv().getOrDefault("PGPASSWORD", ""));
	}

	private static int backendPid(Connection connection) throws SQLException {
		try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
			rs.next();
			return rs.getInt(1);
		}
	}

	/* One export into out; returns the number of data values written. */
	private long export(Connection connection, OutputStream out, String suffix) throws SQLException, IOException {
		String sql = dataValueSql(connection) + orderClause() + suffix;
		JsonFactory factory = new JsonFactory();
		factory.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
		factory.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
		long rows = 0;
		try (JsonGenerator generator = factory.createGenerator(out);
		     Statement statement = connection.createStatement()) {
			statement.setFetchSize(Integer.parseInt(options.getOrDefault("fetch-size", "5000")));
			generator.writeStartObject();
			generator.writeArrayFieldStart("dataValues");
			try (ResultSet rs = statement.executeQuery(sql)) {
				while (rs.next()) {
					writeValue(generator, rs);
					rows++;
				}
			}
			generator.writeEndArray();
			generator.writeEndObject();
		}
		return rows;
	}

	/* One data value, members in JsonDataValueSetWriter.writeValue's order. */
	private static void writeValue(JsonGenerator g, ResultSet rs) throws SQLException, IOException {
		g.writeStartObject();
		g.writeStringField("dataElement", rs.getString("deid"));
		g.writeStringField("period", IsoPeriod.of(rs.getString("ptname"), rs.getDate("pestart").toLocalDate()));
		g.writeStringField("orgUnit", rs.getString("ouid"));
		g.writeStringField("categoryOptionCombo", rs.getString("cocid"));
		g.writeStringField("attributeOptionCombo", rs.getString("aocid"));
		g.writeStringField("value", rs.getString("value"));
		g.writeStringField("storedBy", rs.getString("storedby"));
		g.writeStringField("created", gmtTimestamp(rs.getTimestamp("created")));
		g.writeStringField("lastUpdated", gmtTimestamp(rs.getTimestamp("lastupdated")));
		g.writeStringField("comment", rs.getString("comment"));
		g.writeBooleanField("followup", rs.getBoolean("followup"));
		if (rs.getBoolean("deleted")) {
			g.writeBooleanField("deleted", true);
		}
		g.writeEndObject();
	}

	/* new DateTime(date) keeps Date.getTime()'s milliseconds: sub-millisecond digits are dropped. */
	private static String gmtTimestamp(Timestamp ts) {
		return ts == null ? null : GMT_TIMESTAMP.format(Instant.ofEpochMilli(ts.getTime()));
	}

	/*
	 * The 2.42 SELECT for this request shape. DHIS2 resolves the data sets' members and the org
	 * unit's path through Hibernate before building it; these two lookups do the same.
	 */
	private String dataValueSql(Connection connection) throws SQLException {
		StringJoiner dataElementIds = new StringJoiner(",");
		try (PreparedStatement ps = connection.prepareStatement(
		         "select distinct dse.dataelementid from datasetelement dse join dataset ds on ds.datasetid = dse.datasetid"
		         + " where ds.uid = any(?) order by 1")) {
			Array uids = connection.createArrayOf("text", options.get("data-sets").split(","));
			ps.setArray(1, uids);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					dataElementIds.add(Long.toString(rs.getLong(1)));
				}
			}
		}
		String path;
		try (PreparedStatement ps = connection.prepareStatement("select path from organisationunit where uid = ?")) {
			ps.setString(1, options.get("org-unit"));
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					throw new IllegalArgumentException("no org unit " + options.get("org-unit"));
				}
				path = rs.getString(1);
			}
		}
		if (dataElementIds.length() == 0) {
			throw new IllegalArgumentException("the data sets have no data elements"); /* DHIS2: E2001 */
		}
		return "select de.uid as deid, pe.startdate as pestart, pt.name as ptname, ou.uid as ouid,"
		    + " coc.uid as cocid, aoc.uid as aocid,"
		    + " dv.value, dv.storedby, dv.created, dv.lastupdated, dv.comment, dv.followup, dv.deleted"
		    + " from datavalue dv"
		    + " inner join dataelement de on (dv.dataelementid=de.dataelementid)"
		    + " inner join period pe on (dv.periodid=pe.periodid)"
		    + " inner join periodtype pt on (pe.periodtypeid=pt.periodtypeid)"
		    + " inner join organisationunit ou on (dv.sourceid=ou.organisationunitid)"
		    + " inner join categoryoptioncombo coc on (dv.categoryoptioncomboid=coc.categoryoptioncomboid)"
		    + " inner join categoryoptioncombo aoc on (dv.attributeoptioncomboid=aoc.categoryoptioncomboid)"
		    + " where de.dataelementid in (" + dataElementIds + ")"
		    + " and (ou.path like '" + path.replace("'", "''") + "%')"
		    + " and dv.deleted is false"
		    + " and (pe.startdate >= '" + LocalDate.parse(options.get("start")) + "'"
		    + " and pe.enddate <= '" + LocalDate.parse(options.get("end")) + "')";
	}

	private String orderClause() {
		String order = options.getOrDefault("order", "none");
		if (order.equals("none")) {
			return "";
		}
		if (order.equals("dhis2")) {
			return " order by pe.startdate, pe.enddate, pe.periodid, dv.created, de.uid,"
			    + " ou.path, ou.organisationunitid, coc.uid, aoc.uid";
		}
		throw new IllegalArgumentException("--order must be none or dhis2");
	}

	/*
	 * PeriodType.getPeriodTypeByName(name).createPeriod(start, calendar).getIsoDate() for the ISO
	 * calendar: the period of that type containing the date, labelled as DHIS2 labels it. The
	 * 2.43-only types (WeeklyFriday, FinancialFeb, FinancialAug) are labelled as 2.43 does; DHIS2
	 * 2.42 does not know them. TwoYearly has no ISO form: null.
	 */
	static final class IsoPeriod {
		private static final Map<String, Weekly> WEEKLY = new HashMap<>();
		private static final Map<String, int[]> MONTHLY = new HashMap<>(); /* {anchor month, length} */

		private static final class Weekly {
			final WeekFields fields;
			final String label;

			Weekly(DayOfWeek first, String label) {
				this.fields = WeekFields.of(first, 4);
				this.label = label;
			}
		}

		static {
			WEEKLY.put("Weekly", new Weekly(DayOfWeek.MONDAY, "W"));
			WEEKLY.put("WeeklyWednesday", new Weekly(DayOfWeek.WEDNESDAY, "WedW"));
			WEEKLY.put("WeeklyThursday", new Weekly(DayOfWeek.THURSDAY, "ThuW"));
			WEEKLY.put("WeeklyFriday", new Weekly(DayOfWeek.FRIDAY, "FriW"));
			WEEKLY.put("WeeklySaturday", new Weekly(DayOfWeek.SATURDAY, "SatW"));
			WEEKLY.put("WeeklySunday", new Weekly(DayOfWeek.SUNDAY, "SunW"));
			String[][] shapes = {{"Monthly", "1", "1"}, {"BiMonthly", "1", "2"}, {"Quarterly", "1", "3"},
			                     {"QuarterlyNov", "11", "3"}, {"SixMonthly", "1", "6"}, {"SixMonthlyApril", "4", "6"},
			                     {"SixMonthlyNov", "11", "6"}, {"Yearly", "1", "12"}, {"FinancialFeb", "2", "12"},
			                     {"FinancialApril", "4", "12"}, {"FinancialJuly", "7", "12"}, {"FinancialAug", "8", "12"},
			                     {"FinancialSep", "9", "12"}, {"FinancialOct", "10", "12"}, {"FinancialNov", "11", "12"}};
			for (String[] s : shapes) {
				MONTHLY.put(s[0], new int[] {Integer.parseInt(s[1]), Integer.parseInt(s[2])});
			}
		}

		static String of(String type, LocalDate date) {
			if (type.equals("Daily")) {
				return String.format("%04d%02d%02d", date.getYear(), date.getMonthValue(), date.getDayOfMonth());
			}
			Weekly weekly = WEEKLY.get(type);
			if (weekly != null) {
				return date.get(weekly.fields.weekBasedYear()) + weekly.label
				    + date.get(weekly.fields.weekOfWeekBasedYear());
			}
			if (type.equals("BiWeekly")) {
				/* the Monday of the odd ISO week that starts the pair */
				int week = date.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
				LocalDate start = date.minusDays(date.getDayOfWeek().getValue() - 1).minusDays(week % 2 == 0 ? 7 : 0);
				return start.get(IsoFields.WEEK_BASED_YEAR) + "BiW"
				    + (start.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR) + 1) / 2;
			}
			int[] shape = MONTHLY.get(type);
			if (shape == null) {
				return null; /* TwoYearly, or a type this DHIS2 version does not know */
			}
			int sinceAnchor = (date.getMonthValue() - shape[0] + 12) % 12;
			LocalDate start = date.withDayOfMonth(1).minusMonths(sinceAnchor % shape[1]);
			int y = start.getYear();
			int m = start.getMonthValue();
			int k = (m - shape[0] + 12) % 12; /* months from the anchor to the period's start */
			switch (type) {
			case "Monthly":
				return String.format("%04d%02d", y, m);
			case "BiMonthly":
				return String.format("%04d%02dB", y, (m + 1) / 2);
			case "Quarterly":
				return y + "Q" + ((m - 1) / 3 + 1);
			case "QuarterlyNov": /* Q1 (Nov-Jan) carries the year it ends in */
				return (y + (k / 3 == 0 ? 1 : 0)) + "NovQ" + (k / 3 + 1);
			case "SixMonthly":
				return y + "S" + ((m - 1) / 6 + 1);
			case "SixMonthlyApril":
				return y + "AprilS" + (k / 6 + 1);
			case "SixMonthlyNov": /* S1 (Nov-Apr) carries the year it ends in */
				return (y + (k / 6 == 0 ? 1 : 0)) + "NovS" + (k / 6 + 1);
			case "Yearly":
				return Integer.toString(y);
			case "FinancialNov": /* the one financial year labelled with the year it ends in */
				return (y + 1) + "Nov";
			default: /* FinancialFeb, FinancialApril, FinancialJuly, FinancialAug, FinancialSep, FinancialOct */
				return y + type.substring("Financial".length());
			}
		}
	}
}
