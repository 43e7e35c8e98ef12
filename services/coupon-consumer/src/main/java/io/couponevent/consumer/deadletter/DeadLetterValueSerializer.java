package io.couponevent.consumer.deadletter;

import java.util.LinkedHashMap;
import java.util.Map;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.common.kafka.IssuanceEventSerializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;

import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;

/**
 * Value serializer of the consumer's only producer: dead letters carry either a readable
 * event (written back as the same JSON) or the raw bytes of a poison record, and replays
 * carry raw bytes.
 */
public class DeadLetterValueSerializer extends DelegatingByTypeSerializer {

	public DeadLetterValueSerializer() {
		super(delegates());
	}

	private static Map<Class<?>, Serializer<?>> delegates() {
		Map<Class<?>, Serializer<?>> delegates = new LinkedHashMap<>();
		delegates.put(byte[].class, new ByteArraySerializer());
		delegates.put(IssuanceEvent.class, new IssuanceEventSerializer());
		return delegates;
	}

}
