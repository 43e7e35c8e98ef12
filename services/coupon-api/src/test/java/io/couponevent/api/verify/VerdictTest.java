package io.couponevent.api.verify;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.Reservation;
import io.couponevent.api.verify.Verdict.Check;
import io.couponevent.api.verify.Verdict.Observed;
import io.couponevent.api.verify.Verdict.Runner;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verdict's judging, pure: a settled sell-out passes every line, and each crafted
 * violation fails its own line (and the verdict).
 */
class VerdictTest {

	private static final int QUANTITY = 5;

	private static IssuedRow row(String user, int slot) {
		return new IssuedRow(user, slot, Instant.EPOCH, Instant.EPOCH);
	}

	private static Reservation reservation(String user, int slot) {
		return new Reservation(user, slot, Instant.EPOCH);
	}

	/**
	 * A sold-out coupon: five users, each with a row and its reservation; nothing left.
	 */
	private static Observed soldOut(List<IssuedRow> rows, List<Reservation> reservations, long free, long next) {
		return new Observed(42, QUANTITY, rows, reservations, free, next, 0L, "finished",
				List.of(new Runner("run-1", true), new Runner("run-2", true)), false);
	}

	private static List<IssuedRow> rows(int n) {
		List<IssuedRow> rows = new ArrayList<>();
		for (int i = 1; i <= n; i++) {
			rows.add(row("user-" + i, i));
		}
		return rows;
	}

	private static List<Reservation> reservations(int n) {
		List<Reservation> out = new ArrayList<>();
		for (int i = 1; i <= n; i++) {
			out.add(reservation("user-" + i, i));
		}
		return out;
	}

	private static Map<String, Boolean> judged(Observed o) {
		return Verdict.judge(o).stream().filter(c -> c.ok() != null).collect(Collectors.toMap(Check::name, Check::ok));
	}

	private static Check line(Observed o, String name) {
		return Verdict.judge(o).stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
	}

	private static List<String> failing(Observed o) {
		return Verdict.judge(o).stream().filter(c -> Boolean.FALSE.equals(c.ok())).map(Check::name).toList();
	}

	@Test
	void aSettledSellOutPassesEveryLine() {
		Observed o = soldOut(rows(5), reservations(5), 0, 5);
		assertThat(failing(o)).isEmpty();
		assertThat(Verdict.result(Verdict.judge(o))).isEqualTo("PASS");
		assertThat(judged(o)).containsOnlyKeys("TestRun finished", "k6 runners passed their thresholds",
				"never over-issued", "one coupon per user", "slots within 1..quantity", "every 202 persisted",
				"Redis view = MySQL", "no stranded stock", "consumer lag 0");
	}

	@Test
	void stockLeftOnSaleIsNotStranded() {
		// Three of five issued, one slot released back to the free list, one never
		// minted.
		Observed o = soldOut(rows(3), reservations(3), 1, 4);
		assertThat(failing(o)).isEmpty();
	}

	@Test
	void moreRowsThanTheQuantityFail() {
		List<IssuedRow> rows = rows(5);
		rows.add(row("user-6", 6));
		List<Reservation> reservations = reservations(5);
		reservations.add(reservation("user-6", 6));
		assertThat(failing(soldOut(rows, reservations, 0, 6))).contains("never over-issued", "slots within 1..quantity",
				"no stranded stock");
	}

	@Test
	void twoRowsForOneUserFail() {
		List<IssuedRow> rows = rows(4);
		rows.add(row("user-1", 5));
		assertThat(failing(soldOut(rows, reservations(5), 0, 5))).contains("one coupon per user");
	}

	@Test
	void twoUsersOnOneSlotFail() {
		List<IssuedRow> rows = rows(4);
		rows.add(row("user-5", 4));
		assertThat(failing(soldOut(rows, reservations(5), 0, 5))).contains("one coupon per user");
	}

	@Test
	void aReservationWithoutARowFails() {
		// user-5 was told 202 (Redis holds it as issued) and never got a row.
		Check lost = line(soldOut(rows(4), reservations(5), 0, 5), "every 202 persisted");
		assertThat(lost.ok()).isFalse();
		assertThat(lost.detail()).contains("1 of them without a row (user-5)");
		assertThat(failing(soldOut(rows(4), reservations(5), 0, 5))).contains("no stranded stock");
	}

	@Test
	void aRowRedisDoesNotHoldFails() {
		List<Reservation> reservations = reservations(4);
		assertThat(failing(soldOut(rows(5), reservations, 0, 5))).containsExactly("Redis view = MySQL");
	}

	@Test
	void aRowUnderAnotherSlotThanRedisSaysFails() {
		List<Reservation> reservations = reservations(4);
		reservations.add(reservation("user-5", 3));
		assertThat(failing(soldOut(rows(5), reservations, 0, 5))).contains("Redis view = MySQL");
	}

	@Test
	void aLostSlotNumberIsStrandedStock() {
		// Four rows, four reservations, nothing free, yet five numbers minted: one unit
		// is gone.
		assertThat(failing(soldOut(rows(4), reservations(4), 0, 5))).containsExactly("no stranded stock");
	}

	@Test
	void aHeldSlotIsStrandedStockUntilSettled() {
		List<Reservation> reservations = reservations(4);
		reservations.add(reservation(Reservation.heldField(5, "user-5"), 5));
		Check stranded = line(soldOut(rows(4), reservations, 0, 5), "no stranded stock");
		assertThat(stranded.ok()).isFalse();
		assertThat(stranded.detail()).endsWith("1 held");
	}

	@Test
	void consumerLagOrNoAnswerFromKafkaFails() {
		Observed lagging = new Observed(42, QUANTITY, rows(5), reservations(5), 0, 5, 3L, null, List.of(), false);
		assertThat(failing(lagging)).containsExactly("consumer lag 0");
		Observed unknown = new Observed(42, QUANTITY, rows(5), reservations(5), 0, 5, null, null, List.of(), false);
		assertThat(failing(unknown)).containsExactly("consumer lag 0");
	}

	@Test
	void aTestRunInErrorOrAFailedRunnerFails() {
		Observed error = new Observed(42, QUANTITY, rows(5), reservations(5), 0, 5, 0L, "error",
				List.of(new Runner("run-1", true)), false);
		assertThat(failing(error)).containsExactly("TestRun finished");
		Observed thresholds = new Observed(42, QUANTITY, rows(5), reservations(5), 0, 5, 0L, "finished",
				List.of(new Runner("run-1", true), new Runner("run-2", false), new Runner("run-3", null)), false);
		assertThat(failing(thresholds)).containsExactly("k6 runners passed their thresholds");
		assertThat(Verdict.result(Verdict.judge(thresholds))).isEqualTo("FAIL");
	}

	@Test
	void theAdmissionLineIsReportedNotJudged() {
		Observed o = new Observed(42, QUANTITY, rows(5), reservations(5), 0, 5, 0L, null, List.of(), true);
		Check admission = Verdict.judge(o).getLast();
		assertThat(admission.ok()).isNull();
		assertThat(admission.line()).startsWith("INFO issued only after admission: not judged");
		assertThat(Verdict.result(Verdict.judge(o))).isEqualTo("PASS");
	}

}
