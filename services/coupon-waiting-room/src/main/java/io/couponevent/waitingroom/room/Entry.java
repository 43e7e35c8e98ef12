package io.couponevent.waitingroom.room;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A user's place, as join and poll answer it.
 *
 * @param state QUEUED, ADMITTED, SOLD_OUT, CLOSED or PAUSED
 * @param position 1-based place in the queue (0 when not queued)
 * @param etaSeconds estimated wait until admission (queued only)
 * @param pollAfterMs when to poll next: later the further back
 * @param entryToken the token for {@code POST …/issuances} (admitted only)
 * @param expiresAt when the entry token expires (admitted only)
 * @param admittedAt when the user was admitted (admitted only)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record Entry(String state, long position, Long etaSeconds, long pollAfterMs, String entryToken, Instant expiresAt,
		Instant admittedAt) {

}
