package io.couponevent.waitingroom.web;

import io.couponevent.waitingroom.config.WaitingRoomProperties;
import org.apache.catalina.connector.Connector;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tomcat gives every open connection a read and a write buffer for as long as it stays
 * open, 8 KB each by default. Each waiting user keeps a connection between polls, so a
 * spike of 12,000 users held about 200 MB of them, and every young collection during the
 * spike copied the new ones: 100-150 ms pauses on two busy cores. The room's requests and
 * answers are a few hundred bytes; Tomcat's documentation advises smaller buffers for
 * many kept-alive connections.
 */
@Configuration(proxyBeanMethods = false)
class ConnectionBuffers {

	@Bean
	TomcatConnectorCustomizer connectionBufferCustomizer(WaitingRoomProperties properties) {
		String bytes = Long.toString(properties.connectionBuffer().toBytes());
		return (connector) -> {
			set(connector, "socket.appReadBufSize", bytes);
			set(connector, "socket.appWriteBufSize", bytes);
		};
	}

	private static void set(Connector connector, String name, String value) {
		if (!connector.setProperty(name, value)) {
			throw new IllegalStateException("Tomcat refused " + name + "=" + value);
		}
	}

}
