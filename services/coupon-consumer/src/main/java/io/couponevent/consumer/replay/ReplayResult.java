package io.couponevent.consumer.replay;

/**
 * Answer of {@code POST /api/v1/admin/dead-letters/replay}.
 *
 * @param replayed dead letters republished to the issuance topic (and committed as
 * replayed)
 * @param failed dead letters whose republish failed; they stay uncommitted for the next
 * replay
 */
public record ReplayResult(long replayed, long failed) {
}
