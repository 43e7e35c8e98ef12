package io.couponevent.api.window;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A coupon's window as declared (the catalog, the admin API). {@code opensAt} may be
 * absent: the coupon then opens when it is registered, and registering it again keeps the
 * opening it has (one still scheduled for later opens then). {@code closesAt} is an
 * instant or an ISO-8601 duration from the opening ({@code PT2H}, {@code P3D}), so that a
 * declaration can hold no date at all.
 *
 * @param opensAt when issuance opens; {@code null}: at the registration
 * @param closesAt an instant (RFC 3339) or a positive ISO-8601 duration
 */
public record DeclaredWindow(Instant opensAt, String closesAt) {

	/** {@code DATETIME}'s range in MySQL and MariaDB. */
	private static final Instant EARLIEST = Instant.parse("1000-01-01T00:00:00Z");

	private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

	/** Whether {@code closesAt} reads as an instant or a positive duration. */
	public boolean isClosingReadable() {
		return closesAt == null || instant(closesAt).isPresent() || duration(closesAt).isPresent();
	}

	/**
	 * False only when both ends are instants and the closing is not after the opening;
	 * any other window is checked when it is resolved at the registration.
	 */
	public boolean isOrdered() {
		Optional<Instant> closing = closesAt == null ? Optional.empty() : instant(closesAt);
		return opensAt == null || closing.isEmpty() || closing.get().isAfter(opensAt);
	}

	/**
	 * The window to store.
	 * @param stored the opening stored, if the coupon is registered already
	 * @param now the registration time
	 * @throws InvalidWindowException when the closing is not after the opening, or either
	 * lies outside what the database stores
	 */
	public Window resolve(Optional<Instant> stored, Instant now) {
		Instant opening = opensAt != null ? opensAt : stored.filter(earlier -> earlier.isBefore(now)).orElse(now);
		Instant closing = instant(closesAt).orElseGet(() -> after(opening));
		if (!closing.isAfter(opening)) {
			throw new InvalidWindowException("closesAt (" + closing + ") must be after opensAt (" + opening + ")");
		}
		if (opening.isBefore(EARLIEST) || closing.isAfter(LATEST)) {
			throw new InvalidWindowException("opensAt and closesAt must lie between 1000-01-01 and 9999-12-31");
		}
		return new Window(opening, closing);
	}

	private Instant after(Instant opening) {
		Duration length = duration(closesAt)
			.orElseThrow(() -> new InvalidWindowException("closesAt is neither an instant nor a duration"));
		try {
			return opening.plus(length);
		}
		catch (DateTimeException | ArithmeticException tooFar) {
			throw new InvalidWindowException("opensAt and closesAt must lie between 1000-01-01 and 9999-12-31");
		}
	}

	private static Optional<Instant> instant(String text) {
		try {
			return Optional.of(Instant.parse(text));
		}
		catch (DateTimeException notAnInstant) {
			return Optional.empty();
		}
	}

	private static Optional<Duration> duration(String text) {
		try {
			Duration length = Duration.parse(text);
			return length.isPositive() ? Optional.of(length) : Optional.empty();
		}
		catch (DateTimeException | ArithmeticException notADuration) {
			return Optional.empty();
		}
	}

	/** A stored window: both ends known, the closing after the opening. */
	public record Window(Instant opensAt, Instant closesAt) {
	}

}
