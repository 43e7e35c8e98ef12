package io.couponevent.common.kafka;

import io.couponevent.common.IssuanceEvent;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The wire form of {@link IssuanceEvent}: UTF-8 JSON, ISO-8601 {@code reservedAt}, no
 * type headers (the topic carries one type, so producer and consumer agree on it without
 * {@code __TypeId__}).
 */
public final class IssuanceEventJson {

	private static final JsonMapper MAPPER = JsonMapper.builder()
		.disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
		// A newer producer may add fields; an older consumer must still read the event.
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
		.enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
		.build();

	private IssuanceEventJson() {
	}

	public static JsonMapper mapper() {
		return MAPPER;
	}

	/** Value serializer for the producer. */
	public static Serializer<IssuanceEvent> serializer() {
		return new IssuanceEventSerializer();
	}

	/**
	 * Value deserializer for the consumer. Throws on bad input: wrap it in Spring Kafka's
	 * {@code ErrorHandlingDeserializer} so a poison record reaches the listener as a
	 * failure.
	 */
	public static Deserializer<IssuanceEvent> deserializer() {
		return new IssuanceEventDeserializer();
	}

	public static byte[] toBytes(IssuanceEvent event) {
		return MAPPER.writeValueAsBytes(event);
	}

	public static IssuanceEvent fromBytes(byte[] json) {
		return MAPPER.readValue(json, IssuanceEvent.class);
	}

}
