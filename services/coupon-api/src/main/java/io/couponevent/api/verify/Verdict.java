package io.couponevent.api.verify;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.Reservation;

/**
 * The invariants of a coupon event judged after a load test, from what the stores hold:
 * the rows of {@code issued_coupons} (the truth), the issuance Redis's view (its issued
 * users and slot bookkeeping), the consumer group's lag, and the TestRun's own outcome.
 * The local verifier ({@code local/verifier/invariants.py}) judges the same invariants
 * with k6's per-user answers; in the cluster a user the issuance Redis holds as issued
 * stands for a {@code 202}. Pure: no I/O.
 */
final class Verdict {

	/** What k6's runners ended with: {@code null} while unknown (no such Job). */
	record Runner(String name, Boolean succeeded) {
	}

	/**
	 * What one look at the stores found.
	 *
	 * @param coupon the coupon the TestRun attacked
	 * @param quantity its quantity in MySQL
	 * @param rows its rows in MySQL
	 * @param reservations the entries of its issued hash in Redis (users and held slots)
	 * @param free slot numbers on its free list
	 * @param next slot numbers minted
	 * @param lag the consumer group's lag, {@code null} when Kafka did not answer
	 * @param stage the TestRun's last stage, {@code null} without a TestRun to wait for
	 * @param runners the k6 runners' Jobs (empty: not judged)
	 * @param waitingRoom whether the event has a waiting room
	 */
	record Observed(long coupon, int quantity, List<IssuedRow> rows, List<Reservation> reservations, long free,
			long next, Long lag, String stage, List<Runner> runners, boolean waitingRoom) {

		Set<String> usersWithRows() {
			return rows.stream().map(IssuedRow::userId).collect(Collectors.toSet());
		}

		List<Reservation> users() {
			return reservations.stream().filter(r -> !r.held()).toList();
		}

		long held() {
			return reservations.size() - users().size();
		}

		/**
		 * Units still on sale: slot numbers never minted plus released ones.
		 */
		long onSale() {
			return Math.max(0, quantity - next) + free;
		}

	}

	/**
	 * One line of the verdict: {@code ok} is {@code null} for a line reported, not
	 * judged.
	 */
	record Check(String name, Boolean ok, String detail) {

		String line() {
			String mark = ok == null ? "INFO" : ok ? "PASS" : "FAIL";
			return mark + " " + name + ": " + detail;
		}

	}

	static final String PASS = "PASS";

	static final String FAIL = "FAIL";

	private Verdict() {
	}

	static List<Check> judge(Observed o) {
		List<Check> out = new ArrayList<>();
		if (o.stage() != null) {
			out.add(new Check("TestRun finished", "finished".equals(o.stage()), "stage " + o.stage()));
		}
		if (!o.runners().isEmpty()) {
			out.add(runners(o.runners()));
		}
		int rows = o.rows().size();
		out.add(new Check("never over-issued", rows <= o.quantity(), rows + " rows <= quantity " + o.quantity()));
		out.add(onePerUser(o));
		long outside = o.rows().stream().filter(r -> r.slot() < 1 || r.slot() > o.quantity()).count();
		out.add(new Check("slots within 1..quantity", outside == 0,
				outside + " rows with a slot outside 1.." + o.quantity()));
		out.add(everyReservationPersisted(o));
		out.add(redisKnowsEveryRow(o));
		out.add(noStrandedStock(o));
		out.add(o.lag() == null ? new Check("consumer lag 0", false, "Kafka did not answer")
				: new Check("consumer lag 0", o.lag() == 0, "lag " + o.lag()));
		if (o.waitingRoom()) {
			out.add(new Check("issued only after admission", null,
					"not judged: the waiting room keeps no record of past admissions (they expire, a sell-out "
							+ "clears them); while a queue is active the API refuses an issuance without an entry token"));
		}
		return out;
	}

	/** PASS when every judged line holds. */
	static String result(Collection<Check> checks) {
		return checks.stream().allMatch(c -> c.ok() == null || c.ok()) ? PASS : FAIL;
	}

	private static Check runners(List<Runner> runners) {
		List<String> failed = runners.stream()
			.filter(r -> !Boolean.TRUE.equals(r.succeeded()))
			.map(r -> r.name() + (r.succeeded() == null ? " (not found)" : " (failed)"))
			.toList();
		return new Check("k6 runners passed their thresholds", failed.isEmpty(), (runners.size() - failed.size())
				+ " of " + runners.size() + " runners exited 0" + (failed.isEmpty() ? "" : ": " + some(failed)));
	}

	private static Check onePerUser(Observed o) {
		Map<String, Integer> perUser = new HashMap<>();
		Map<Integer, Integer> perSlot = new HashMap<>();
		for (IssuedRow r : o.rows()) {
			perUser.merge(r.userId(), 1, Integer::sum);
			perSlot.merge(r.slot(), 1, Integer::sum);
		}
		List<String> twice = perUser.entrySet()
			.stream()
			.filter(e -> e.getValue() > 1)
			.map(Map.Entry::getKey)
			.sorted()
			.toList();
		long sharedSlots = perSlot.values().stream().filter(n -> n > 1).count();
		return new Check("one coupon per user", twice.isEmpty() && sharedSlots == 0,
				perUser.size() + " distinct users in " + o.rows().size() + " rows, " + twice.size()
						+ " users with more than one" + (twice.isEmpty() ? "" : " (" + some(twice) + ")") + ", "
						+ sharedSlots + " shared slots");
	}

	private static Check everyReservationPersisted(Observed o) {
		Set<String> persisted = o.usersWithRows();
		List<String> lost = o.users()
			.stream()
			.map(Reservation::userId)
			.filter(u -> !persisted.contains(u))
			.sorted()
			.toList();
		return new Check("every 202 persisted", lost.isEmpty(),
				o.users().size() + " users the issuance Redis holds as issued, " + lost.size()
						+ " of them without a row" + (lost.isEmpty() ? "" : " (" + some(lost) + ")"));
	}

	private static Check redisKnowsEveryRow(Observed o) {
		Map<String, Integer> slotOf = new HashMap<>();
		o.users().forEach(r -> slotOf.put(r.userId(), r.slot()));
		List<String> unknown = new ArrayList<>();
		List<String> otherSlot = new ArrayList<>();
		for (IssuedRow r : o.rows()) {
			Integer slot = slotOf.get(r.userId());
			if (slot == null) {
				unknown.add(r.userId());
			}
			else if (!Objects.equals(slot, r.slot())) {
				otherSlot.add(r.userId());
			}
		}
		unknown.sort(null);
		otherSlot.sort(null);
		return new Check("Redis view = MySQL", unknown.isEmpty() && otherSlot.isEmpty(),
				unknown.size() + " rows Redis does not hold" + (unknown.isEmpty() ? "" : " (" + some(unknown) + ")")
						+ ", " + otherSlot.size() + " under another slot"
						+ (otherSlot.isEmpty() ? "" : " (" + some(otherSlot) + ")"));
	}

	/**
	 * Every unit is a row or still on sale: rows + units on sale = quantity, and no slot
	 * is held for a send that may still land. A unit neither issued nor on sale is stock
	 * the event can no longer hand out.
	 */
	private static Check noStrandedStock(Observed o) {
		long rows = o.rows().size();
		long onSale = o.onSale();
		long stranded = o.quantity() - rows - onSale;
		return new Check("no stranded stock", stranded == 0 && o.held() == 0,
				rows + " rows + " + onSale + " on sale (" + Math.max(0, o.quantity() - o.next()) + " never minted, "
						+ o.free() + " released) = " + (rows + onSale) + " of quantity " + o.quantity() + ", "
						+ o.held() + " held");
	}

	private static String some(List<String> items) {
		int n = 5;
		Set<String> seen = new HashSet<>();
		List<String> first = items.stream().filter(seen::add).limit(n).toList();
		return String.join(", ", first) + (items.size() > n ? " and " + (items.size() - n) + " more" : "");
	}

}
