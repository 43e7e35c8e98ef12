package io.couponevent.common.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Instants in and out of our {@code DATETIME(3)} columns, always as UTC wall-clock time.
 *
 * <p>
 * Bound as a text literal rather than a temporal type: MySQL Connector/J drops the
 * fraction of every temporal parameter when the server's handshake version is below
 * 5.6.4, and MariaDB 10.x announces itself as {@code 5.5.5-10.x}, so a
 * {@code LocalDateTime} or {@code Timestamp} parameter loses its milliseconds there. Both
 * servers parse this literal into a {@code DATETIME(3)} exactly. Reading as
 * {@code LocalDateTime} in UTC also keeps the JVM's default time zone out of it.
 */
public final class SqlDateTime {

	private static final DateTimeFormatter LITERAL = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS");

	private SqlDateTime() {
	}

	/**
	 * The parameter value for a {@code DATETIME(3)} column; millisecond precision, UTC.
	 */
	public static String of(Instant instant) {
		return LITERAL.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
	}

	/**
	 * Reads a {@code DATETIME} column written by {@link #of(Instant)} (or by
	 * {@code UTC_TIMESTAMP(3)}).
	 */
	public static Instant read(ResultSet rs, String column) throws SQLException {
		LocalDateTime value = rs.getObject(column, LocalDateTime.class);
		return value == null ? null : value.toInstant(ZoneOffset.UTC);
	}

}
