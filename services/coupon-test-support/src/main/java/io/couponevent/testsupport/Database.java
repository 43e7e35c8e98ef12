package io.couponevent.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import io.couponevent.common.jdbc.SqlDateTime;

/**
 * Direct reads and writes of the coupon schema, beside the code under test. Failures are
 * unchecked so that the helpers fit in lambdas ({@link Eventually#await}).
 */
public final class Database {

	private final ConnectionSource connections;

	private Database(ConnectionSource connections) {
		this.connections = connections;
	}

	/** The harness's database ({@code DB_URL}, {@code DB_USER}, {@code DB_PASSWORD}). */
	public static Database harness() {
		return new Database(() -> DriverManager.getConnection(Harness.dbUrl(), Harness.dbUser(), Harness.dbPassword()));
	}

	/** The database a Spring test context points at. */
	public static Database of(DataSource dataSource) {
		return new Database(dataSource::getConnection);
	}

	/**
	 * A coupon with slots {@code 1..quantity}, open from an hour ago for a day, as
	 * coupon-api registers it.
	 */
	public void createCoupon(long couponId, int quantity) {
		Instant now = Instant.now();
		run((connection) -> {
			try (PreparedStatement coupon = connection.prepareStatement(
					"INSERT INTO coupons (id, name, quantity, opens_at, closes_at) VALUES (?, ?, ?, ?, ?)")) {
				coupon.setLong(1, couponId);
				coupon.setString(2, "test " + couponId);
				coupon.setInt(3, quantity);
				coupon.setString(4, SqlDateTime.of(now.minus(Duration.ofHours(1))));
				coupon.setString(5, SqlDateTime.of(now.plus(Duration.ofDays(1))));
				coupon.executeUpdate();
			}
			try (PreparedStatement slots = connection
				.prepareStatement("INSERT INTO coupon_slots (coupon_id, slot) VALUES (?, ?)")) {
				for (int slot = 1; slot <= quantity; slot++) {
					slots.setLong(1, couponId);
					slots.setInt(2, slot);
					slots.addBatch();
				}
				slots.executeBatch();
			}
			return null;
		});
	}

	/** Rows of {@code issued_coupons} for a coupon. */
	public long rows(long couponId) {
		return query("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = ?", couponId).stream()
			.mapToLong(Long::parseLong)
			.sum();
	}

	/** Distinct slots among a coupon's rows. */
	public long distinctSlots(long couponId) {
		return query("SELECT COUNT(DISTINCT slot) FROM issued_coupons WHERE coupon_id = ?", couponId).stream()
			.mapToLong(Long::parseLong)
			.sum();
	}

	/** The users holding a row of a coupon. */
	public Set<String> users(long couponId) {
		return new HashSet<>(query("SELECT user_id FROM issued_coupons WHERE coupon_id = ?", couponId));
	}

	/** The user whose row holds a slot, or {@code null}. */
	public String holderOfSlot(long couponId, int slot) {
		List<String> users = query("SELECT user_id FROM issued_coupons WHERE coupon_id = ? AND slot = ?", couponId,
				slot);
		return users.isEmpty() ? null : users.getFirst();
	}

	/** The first column of every row, as text. */
	private List<String> query(String sql, Object... parameters) {
		return run((connection) -> {
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				for (int i = 0; i < parameters.length; i++) {
					statement.setObject(i + 1, parameters[i]);
				}
				List<String> values = new ArrayList<>();
				try (ResultSet rs = statement.executeQuery()) {
					while (rs.next()) {
						values.add(rs.getString(1));
					}
				}
				return values;
			}
		});
	}

	private <T> T run(Work<T> work) {
		try (Connection connection = this.connections.get()) {
			return work.with(connection);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("database access failed: " + ex.getMessage(), ex);
		}
	}

	@FunctionalInterface
	private interface ConnectionSource {

		Connection get() throws SQLException;

	}

	@FunctionalInterface
	private interface Work<T> {

		T with(Connection connection) throws SQLException;

	}

}
