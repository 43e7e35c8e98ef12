package io.couponevent.api.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.Reservation;

/**
 * What the reconciler repairs in one coupon's Redis state, decided from what Redis and
 * MySQL hold and when the consumer was last known to have caught up. Pure: the
 * {@link Reconciler} reads both stores, asks here, and applies the answer.
 */
final class Repairs {

	private Repairs() {
	}

	/** One repair of a coupon's Redis state. */
	sealed interface Repair {

	}

	/**
	 * A reservation without a row whose record is behind the barrier: a stale reservation
	 * (or a held slot whose send did not land) goes back into circulation;
	 * {@code reuseSlot} is false when MySQL already uses its slot number.
	 */
	record Release(Reservation reservation, boolean reuseSlot) implements Repair {

	}

	/**
	 * A user whose Redis slot differs from the slot of their MySQL row (a retry after a
	 * compensated send that landed after all): MySQL's slot wins.
	 */
	record Repoint(Reservation reservation, IssuedRow row, boolean reuseSlot) implements Repair {

	}

	/** A MySQL row Redis does not know (a compensated send that still landed). */
	record Adopt(IssuedRow row) implements Repair {

	}

	/**
	 * Lost state is rebuilt from MySQL only once every send that could have been in
	 * flight when it was found missing has timed out ({@code since + inFlightGrace}) and
	 * the consumer has processed every record sent until then ({@code settled}, null when
	 * not known).
	 */
	static boolean rebuildDue(Instant settled, Instant since, Duration inFlightGrace) {
		return settled != null && !settled.isBefore(since.plus(inFlightGrace));
	}

	/**
	 * The repairs of one coupon whose Redis and MySQL disagree, in the order to apply
	 * them: releases and repoints in the order of the reservations, then adoptions.
	 * Reservations last sent at or after {@code staleBefore} are left alone: their record
	 * (or a 409's re-send of it) may still be on its way; with {@code staleBefore} null
	 * (the consumer's progress unknown) none is stale. A held slot is not: it is settled
	 * at once when MySQL holds its slot or its user's row.
	 */
	static List<Repair> plan(List<Reservation> reservations, Collection<IssuedRow> issued, Instant staleBefore) {
		Map<String, IssuedRow> rows = issued.stream().collect(Collectors.toMap(IssuedRow::userId, Function.identity()));
		Set<Integer> slotsInMysql = issued.stream().map(IssuedRow::slot).collect(Collectors.toSet());
		Set<String> inRedis = new HashSet<>();
		List<Repair> repairs = new ArrayList<>();
		for (Reservation r : reservations) {
			inRedis.add(r.userId());
			boolean reuseSlot = !slotsInMysql.contains(r.slot());
			if (r.held()) {
				// Settled as soon as MySQL tells how its send ended: its slot in a row
				// (it
				// landed: dropped, the row adopted), or its user's row under another slot
				// (its record is that user's second, which the consumer never writes: the
				// slot is free again). Otherwise only staleness tells.
				String user = r.heldFor();
				if (!reuseSlot || (user != null && rows.containsKey(user)) || stale(r, staleBefore)) {
					repairs.add(new Release(r, reuseSlot));
				}
				continue;
			}
			IssuedRow row = rows.get(r.userId());
			if (row == null) {
				if (stale(r, staleBefore)) {
					repairs.add(new Release(r, reuseSlot));
				}
			}
			else if (row.slot() != r.slot()) {
				repairs.add(new Repoint(r, row, reuseSlot));
			}
		}
		issued.stream().filter((row) -> !inRedis.contains(row.userId())).map(Adopt::new).forEach(repairs::add);
		return repairs;
	}

	private static boolean stale(Reservation r, Instant staleBefore) {
		return staleBefore != null && r.lastSent().isBefore(staleBefore);
	}

}
