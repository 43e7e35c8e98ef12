package io.couponevent.api.coupon;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import io.couponevent.api.window.DeclaredWindow;
import io.couponevent.common.jdbc.SqlDateTime;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * MySQL access. MySQL is the source of truth; none of this is on the issuance hot path.
 */
@Repository
public class CouponRepository {

	private static final int SLOT_CHUNK = 1000;

	private final JdbcTemplate jdbc;

	private final NamedParameterJdbcTemplate named;

	public CouponRepository(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		this.named = new NamedParameterJdbcTemplate(jdbc);
	}

	public List<Coupon> findAll() {
		return jdbc.query("SELECT id, name, quantity, opens_at, closes_at, paused, version FROM coupons",
				CouponRepository::coupon);
	}

	public Optional<Coupon> find(long id) {
		return jdbc
			.query("SELECT id, name, quantity, opens_at, closes_at, paused, version FROM coupons WHERE id = ?",
					CouponRepository::coupon, id)
			.stream()
			.findFirst();
	}

	/**
	 * Inserts or updates a coupon and its slot rows {@code 1..quantity} in one
	 * transaction. The window is resolved with the row locked: a coupon declared without
	 * an opening keeps the one it has ({@link DeclaredWindow#resolve}).
	 * @param beforeLowering called when the quantity goes down, with the changed coupon,
	 * inside the transaction and with its row locked, before the slot rows above the new
	 * quantity are deleted: whatever it throws rolls the change back (coupon-api lowers
	 * Redis there first, which refuses when it has handed out higher slots)
	 * @return the stored coupon and whether it is new or lowered
	 * @throws QuantityBelowIssuedException when a slot above the new quantity is already
	 * issued
	 * @throws io.couponevent.api.window.InvalidWindowException when the resolved window
	 * closes before it opens
	 */
	@Transactional
	public Upserted upsert(long id, String name, int quantity, DeclaredWindow declared,
			Consumer<Coupon> beforeLowering) {
		Optional<Coupon> existing = jdbc.query(
				"SELECT id, name, quantity, opens_at, closes_at, paused, version FROM coupons WHERE id = ? FOR UPDATE",
				CouponRepository::coupon, id)
			.stream()
			.findFirst();
		boolean lowered = existing.isPresent() && quantity < existing.get().quantity();
		DeclaredWindow.Window window = declared.resolve(existing.map(Coupon::opensAt), Instant.now());
		if (existing.isEmpty()) {
			jdbc.update(
					"INSERT INTO coupons (id, name, quantity, opens_at, closes_at, paused, version) VALUES (?, ?, ?, ?, ?, FALSE, 1)",
					id, name, quantity, SqlDateTime.of(window.opensAt()), SqlDateTime.of(window.closesAt()));
		}
		else {
			Integer highestIssued = jdbc.queryForObject("SELECT MAX(slot) FROM issued_coupons WHERE coupon_id = ?",
					Integer.class, id);
			if (highestIssued != null && highestIssued > quantity) {
				throw new QuantityBelowIssuedException(highestIssued);
			}
			jdbc.update(
					"UPDATE coupons SET name = ?, quantity = ?, opens_at = ?, closes_at = ?, version = version + 1, "
							+ "updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?",
					name, quantity, SqlDateTime.of(window.opensAt()), SqlDateTime.of(window.closesAt()), id);
			if (lowered) {
				beforeLowering.accept(find(id).orElseThrow());
			}
			jdbc.update("DELETE FROM coupon_slots WHERE coupon_id = ? AND slot > ?", id, quantity);
		}
		insertMissingSlots(id, quantity);
		return new Upserted(find(id).orElseThrow(), existing.isEmpty(), lowered);
	}

	/**
	 * @param created the coupon is new
	 * @param lowered its quantity went down (and {@code beforeLowering} saw it)
	 */
	public record Upserted(Coupon coupon, boolean created, boolean lowered) {
	}

	/**
	 * Multi-row inserts of literal numbers: fast for large quantities without driver
	 * batch rewriting.
	 */
	private void insertMissingSlots(long id, int quantity) {
		Integer highest = jdbc.queryForObject("SELECT MAX(slot) FROM coupon_slots WHERE coupon_id = ?", Integer.class,
				id);
		int from = highest == null ? 1 : highest + 1;
		for (int start = from; start <= quantity; start += SLOT_CHUNK) {
			int end = Math.min(quantity, start + SLOT_CHUNK - 1);
			StringBuilder sql = new StringBuilder("INSERT INTO coupon_slots (coupon_id, slot) VALUES ");
			for (int slot = start; slot <= end; slot++) {
				if (slot > start) {
					sql.append(',');
				}
				sql.append('(').append(id).append(',').append(slot).append(')');
			}
			jdbc.update(sql.toString());
		}
	}

	@Transactional
	public Optional<Coupon> setPaused(long id, boolean paused) {
		int updated = jdbc.update(
				"UPDATE coupons SET paused = ?, version = version + 1, updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?",
				paused, id);
		return updated == 0 ? Optional.empty() : find(id);
	}

	public long countIssued(long couponId) {
		Long count = jdbc.queryForObject("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = ?", Long.class,
				couponId);
		return count == null ? 0 : count;
	}

	/** One lookup on the {@code (coupon_id, user_id)} unique index. */
	public Optional<IssuedRow> findIssued(long couponId, String userId) {
		return jdbc.query(
				"SELECT user_id, slot, reserved_at, issued_at FROM issued_coupons WHERE coupon_id = ? AND user_id = ?",
				CouponRepository::issued, couponId, userId)
			.stream()
			.findFirst();
	}

	public List<IssuedRow> findAllIssued(long couponId) {
		return jdbc.query("SELECT user_id, slot, reserved_at, issued_at FROM issued_coupons WHERE coupon_id = ?",
				CouponRepository::issued, couponId);
	}

	/** Which of these users have a row. */
	public Set<String> issuedUsers(long couponId, Collection<String> userIds) {
		Set<String> found = new HashSet<>();
		List<String> all = List.copyOf(userIds);
		for (int start = 0; start < all.size(); start += SLOT_CHUNK) {
			List<String> chunk = all.subList(start, Math.min(all.size(), start + SLOT_CHUNK));
			found.addAll(named.queryForList(
					"SELECT user_id FROM issued_coupons WHERE coupon_id = :coupon AND user_id IN (:users)",
					new MapSqlParameterSource("coupon", couponId).addValue("users", chunk), String.class));
		}
		return found;
	}

	/** Which of these slots are used by a row. */
	public Set<Integer> usedSlots(long couponId, Collection<Integer> slots) {
		if (slots.isEmpty()) {
			return Set.of();
		}
		return new HashSet<>(
				named.queryForList("SELECT slot FROM issued_coupons WHERE coupon_id = :coupon AND slot IN (:slots)",
						new MapSqlParameterSource("coupon", couponId).addValue("slots", slots), Integer.class));
	}

	private static Coupon coupon(ResultSet rs, int row) throws SQLException {
		return new Coupon(rs.getLong("id"), rs.getString("name"), rs.getInt("quantity"),
				SqlDateTime.read(rs, "opens_at"), SqlDateTime.read(rs, "closes_at"), rs.getBoolean("paused"),
				rs.getLong("version"));
	}

	private static IssuedRow issued(ResultSet rs, int row) throws SQLException {
		return new IssuedRow(rs.getString("user_id"), rs.getInt("slot"), SqlDateTime.read(rs, "reserved_at"),
				SqlDateTime.read(rs, "issued_at"));
	}

}
