package io.couponevent.consumer.persist;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.consumer.persist.IssuedCouponRepository.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes a batch of events into {@code issued_coupons} in one transaction and says what
 * became of each. Idempotent: an event whose (coupon, user, slot) is already there is a
 * {@link Outcome.Duplicate}. An event the database refuses (slot held by another user,
 * slot beyond the quantity, unknown coupon) is {@link Outcome.Rejected} without failing
 * the others: when the batch insert hits a constraint, the batch is rolled back and
 * retried one event per transaction to isolate the culprits.
 *
 * <p>
 * Transient database errors propagate so the container's error handler retries the whole
 * batch.
 */
@Service
public class IssuancePersister {

	private static final Logger log = LoggerFactory.getLogger(IssuancePersister.class);

	private final IssuedCouponRepository repository;

	private final TransactionTemplate tx;

	public IssuancePersister(IssuedCouponRepository repository, TransactionTemplate tx) {
		this.repository = repository;
		this.tx = tx;
	}

	/** Outcomes in the order of {@code events}. */
	public List<Outcome> persist(List<IssuanceEvent> events) {
		if (events.isEmpty()) {
			return List.of();
		}
		try {
			return tx.execute(status -> classifyAndInsert(events));
		}
		catch (DataIntegrityViolationException e) {
			log.info("Batch of {} hit a constraint ({}); isolating record by record", events.size(),
					e.getMostSpecificCause().getMessage());
			List<Outcome> outcomes = new ArrayList<>(events.size());
			for (IssuanceEvent event : events) {
				outcomes.add(persistAlone(event));
			}
			return outcomes;
		}
	}

	private Outcome persistAlone(IssuanceEvent event) {
		for (int attempt = 1;; attempt++) {
			try {
				return tx.execute(status -> classifyAndInsert(List.of(event))).getFirst();
			}
			catch (DataIntegrityViolationException e) {
				IssuanceRejectedException missing = diagnoseMissing(event);
				if (missing != null) {
					return new Outcome.Rejected(event, missing);
				}
				// Coupon and slot exist, so a concurrent writer took the user or slot
				// between our read and insert; a fresh transaction sees its committed row
				// and classifies it.
				if (attempt == 2) {
					return rejected(event, DeadLetterReason.OTHER,
							"refused by the database: " + e.getMostSpecificCause().getMessage());
				}
			}
		}
	}

	/**
	 * Looks up the rows that hold the batch's users or slots, decides each event against
	 * them (and against the events before it in the batch), and inserts the new ones in
	 * one JDBC batch.
	 */
	private List<Outcome> classifyAndInsert(List<IssuanceEvent> events) {
		Map<UserKey, Integer> slotOfUser = new HashMap<>();
		Map<SlotKey, String> userOfSlot = new HashMap<>();
		for (Row row : repository.findConflicting(events)) {
			slotOfUser.put(new UserKey(row.couponId(), row.userId()), row.slot());
			userOfSlot.put(new SlotKey(row.couponId(), row.slot()), row.userId());
		}
		List<Outcome> outcomes = new ArrayList<>(events.size());
		List<IssuanceEvent> fresh = new ArrayList<>(events.size());
		for (IssuanceEvent event : events) {
			UserKey user = new UserKey(event.couponId(), event.userId());
			SlotKey slot = new SlotKey(event.couponId(), event.slot());
			Integer heldSlot = slotOfUser.get(user);
			String holder = userOfSlot.get(slot);
			if (heldSlot != null) {
				// Redelivery (same slot), or the user's second record under another slot:
				// a send answered 503 that landed anyway, then a retry. The user holds
				// one coupon either way; the API's reconciler frees the second slot in
				// Redis (repoint_user).
				outcomes.add(new Outcome.Duplicate(event));
			}
			else if (holder != null) {
				outcomes.add(rejected(event, DeadLetterReason.SLOT_CONFLICT,
						"slot " + event.slot() + " of coupon " + event.couponId() + " is held by another user"));
			}
			else {
				slotOfUser.put(user, event.slot());
				userOfSlot.put(slot, event.userId());
				fresh.add(event);
				outcomes.add(new Outcome.Inserted(event));
			}
		}
		repository.insert(fresh);
		return outcomes;
	}

	/**
	 * Names the foreign key a lone event broke, or null when its coupon and slot both
	 * exist.
	 */
	private IssuanceRejectedException diagnoseMissing(IssuanceEvent event) {
		if (!repository.couponExists(event.couponId())) {
			return new IssuanceRejectedException(DeadLetterReason.UNKNOWN_COUPON,
					"coupon " + event.couponId() + " does not exist");
		}
		if (!repository.slotExists(event.couponId(), event.slot())) {
			return new IssuanceRejectedException(DeadLetterReason.SLOT_CONFLICT,
					"slot " + event.slot() + " is beyond the quantity of coupon " + event.couponId());
		}
		return null;
	}

	private static Outcome rejected(IssuanceEvent event, DeadLetterReason reason, String message) {
		return new Outcome.Rejected(event, new IssuanceRejectedException(reason, message));
	}

	private record UserKey(long couponId, String userId) {
	}

	private record SlotKey(long couponId, int slot) {
	}

}
