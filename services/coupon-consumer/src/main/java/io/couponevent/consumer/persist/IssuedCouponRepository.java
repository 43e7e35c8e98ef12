package io.couponevent.consumer.persist;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.common.jdbc.SqlDateTime;

import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/** SQL for {@code issued_coupons}; callers own the transaction. */
@Repository
public class IssuedCouponRepository {

	/** A committed row, reduced to what classification needs. */
	public record Row(long couponId, String userId, int slot) {
	}

	// Plain INSERT, no ON DUPLICATE KEY: duplicates are filtered out beforehand, so a
	// unique-key error here means a concurrent writer raced us and the batch is
	// re-examined record by record, rather than a silently swallowed slot conflict.
	private static final String INSERT = """
			INSERT INTO issued_coupons (coupon_id, user_id, slot, event_id, reserved_at, issued_at)
			VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(3))""";

	// Two index lookups (uk_issued_coupon_user, uk_issued_coupon_slot) instead of an OR
	// that might scan.
	private static final String FIND = """
			SELECT coupon_id, user_id, slot FROM issued_coupons WHERE coupon_id = :coupon AND user_id IN (:users)
			UNION
			SELECT coupon_id, user_id, slot FROM issued_coupons WHERE coupon_id = :coupon AND slot IN (:slots)""";

	private final JdbcTemplate jdbc;

	private final NamedParameterJdbcTemplate named;

	public IssuedCouponRepository(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		this.named = new NamedParameterJdbcTemplate(jdbc);
	}

	/** Rows that hold any of the events' (coupon, user) or (coupon, slot). */
	public List<Row> findConflicting(Collection<IssuanceEvent> events) {
		Map<Long, List<IssuanceEvent>> byCoupon = events.stream()
			.collect(Collectors.groupingBy(IssuanceEvent::couponId));
		List<Row> rows = new ArrayList<>();
		byCoupon.forEach((coupon, list) -> {
			Set<String> users = list.stream().map(IssuanceEvent::userId).collect(Collectors.toSet());
			Set<Integer> slots = list.stream().map(IssuanceEvent::slot).collect(Collectors.toSet());
			rows.addAll(named.query(FIND, Map.of("coupon", coupon, "users", users, "slots", slots),
					(rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getInt(3))));
		});
		return rows;
	}

	/**
	 * One JDBC batch; with {@code rewriteBatchedStatements=true} a single multi-row
	 * INSERT.
	 */
	public void insert(List<IssuanceEvent> events) {
		if (events.isEmpty()) {
			return;
		}
		jdbc.batchUpdate(INSERT, new BatchPreparedStatementSetter() {
			@Override
			public void setValues(PreparedStatement ps, int i) throws SQLException {
				IssuanceEvent e = events.get(i);
				ps.setLong(1, e.couponId());
				ps.setString(2, e.userId());
				ps.setInt(3, e.slot());
				ps.setString(4, e.eventId().toString());
				ps.setString(5, SqlDateTime.of(e.reservedAt()));
			}

			@Override
			public int getBatchSize() {
				return events.size();
			}
		});
	}

	public boolean couponExists(long couponId) {
		return Boolean.TRUE
			.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM coupons WHERE id = ?)", Boolean.class, couponId));
	}

	public boolean slotExists(long couponId, int slot) {
		return Boolean.TRUE
			.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM coupon_slots WHERE coupon_id = ? AND slot = ?)",
					Boolean.class, couponId, slot));
	}

}
