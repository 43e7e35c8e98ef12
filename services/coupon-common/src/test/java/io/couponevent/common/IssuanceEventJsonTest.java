package io.couponevent.common;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import io.couponevent.common.kafka.IssuanceEventJson;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IssuanceEventJsonTest {

	private static final UUID ID = UUID.fromString("7d0c2f3e-8a43-4b4a-9a55-2f0d7c1e9b10");

	private final IssuanceEvent event = new IssuanceEvent(ID, 42, "user-17", 17,
			Instant.parse("2026-11-21T10:00:00.123Z"));

	@Test
	void keyIsCouponColonUser() {
		assertThat(event.key()).isEqualTo("42:user-17");
		assertThat(IssuanceEvent.key(7, "a:b")).isEqualTo("7:a:b");
	}

	@Test
	void writesTheContractWireFormat() {
		String json = new String(IssuanceEventJson.toBytes(event), StandardCharsets.UTF_8);
		String expected = "{\"eventId\":\"7d0c2f3e-8a43-4b4a-9a55-2f0d7c1e9b10\",\"couponId\":42,"
				+ "\"userId\":\"user-17\",\"slot\":17,\"reservedAt\":\"2026-11-21T10:00:00.123Z\"}";
		assertThat(IssuanceEventJson.mapper().readTree(json)).isEqualTo(IssuanceEventJson.mapper().readTree(expected));
		assertThat(json).contains("\"reservedAt\":\"2026-11-21T10:00:00.123Z\"");
	}

	@Test
	void kafkaSerializerRoundTripsWithoutTypeHeaders() {
		var headers = new RecordHeaders();
		try (var serializer = IssuanceEventJson.serializer(); var deserializer = IssuanceEventJson.deserializer()) {
			byte[] bytes = serializer.serialize("coupon-issuance", headers, event);
			assertThat(headers.toArray()).isEmpty();
			assertThat(deserializer.deserialize("coupon-issuance", headers, bytes)).isEqualTo(event);
		}
	}

	@Test
	void readsUnknownFieldsButRejectsMissingOrInvalidOnes() {
		byte[] extra = ("{\"eventId\":\"" + ID + "\",\"couponId\":42,\"userId\":\"u\",\"slot\":1,"
				+ "\"reservedAt\":\"2026-11-21T10:00:00Z\",\"future\":true}")
			.getBytes(StandardCharsets.UTF_8);
		assertThat(IssuanceEventJson.fromBytes(extra).userId()).isEqualTo("u");

		byte[] noSlot = ("{\"eventId\":\"" + ID + "\",\"couponId\":42,\"userId\":\"u\","
				+ "\"reservedAt\":\"2026-11-21T10:00:00Z\"}")
			.getBytes(StandardCharsets.UTF_8);
		assertThatThrownBy(() -> IssuanceEventJson.fromBytes(noSlot)).isInstanceOf(RuntimeException.class);

		byte[] zeroSlot = ("{\"eventId\":\"" + ID + "\",\"couponId\":42,\"userId\":\"u\",\"slot\":0,"
				+ "\"reservedAt\":\"2026-11-21T10:00:00Z\"}")
			.getBytes(StandardCharsets.UTF_8);
		assertThatThrownBy(() -> IssuanceEventJson.fromBytes(zeroSlot)).isInstanceOf(RuntimeException.class);

		try (var deserializer = IssuanceEventJson.deserializer()) {
			assertThatThrownBy(() -> deserializer.deserialize("t", "not json".getBytes(StandardCharsets.UTF_8)))
				.isInstanceOf(RuntimeException.class);
		}
	}

	@Test
	void rejectsValuesTheTableCannotHold() {
		assertThatThrownBy(() -> new IssuanceEvent(ID, 0, "u", 1, Instant.EPOCH)).hasMessageContaining("couponId");
		assertThatThrownBy(() -> new IssuanceEvent(ID, 1, "x".repeat(65), 1, Instant.EPOCH))
			.hasMessageContaining("userId");
		assertThatThrownBy(() -> new IssuanceEvent(ID, 1, "", 1, Instant.EPOCH)).hasMessageContaining("userId");
	}

}
