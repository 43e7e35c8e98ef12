package io.couponevent.common.kafka;

import io.couponevent.common.IssuanceEvent;

import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * Producer value serializer for {@link IssuanceEvent}, usable by class name
 * ({@code spring.kafka.producer.value-serializer}). Adds no type headers.
 */
public class IssuanceEventSerializer extends JacksonJsonSerializer<IssuanceEvent> {

	public IssuanceEventSerializer() {
		super(IssuanceEventJson.mapper());
		setAddTypeInfo(false);
	}

}
