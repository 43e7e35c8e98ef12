package io.couponevent.common.kafka;

import io.couponevent.common.IssuanceEvent;

import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;

/**
 * Consumer value deserializer for {@link IssuanceEvent}, usable by class name (as the
 * delegate of Spring Kafka's {@code ErrorHandlingDeserializer}:
 * {@code spring.deserializer.value.delegate.class}). Ignores type headers; throws on bad
 * JSON or on an event the table could never hold.
 */
public class IssuanceEventDeserializer extends JacksonJsonDeserializer<IssuanceEvent> {

	public IssuanceEventDeserializer() {
		super(IssuanceEvent.class, IssuanceEventJson.mapper(), false);
	}

}
