package io.couponevent.api.support;

import io.couponevent.testsupport.Kafka;
import io.couponevent.testsupport.RequiresHarness;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The API on a random port against the harness, with the issuance topic in place and a
 * client for it: what every HTTP contract test starts from.
 */
@RequiresHarness
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class ApiServerTest {

	@Autowired
	protected Environment env;

	protected Api api;

	@BeforeAll
	static void issuanceTopic() throws Exception {
		Kafka.ensureIssuanceTopic();
	}

	@BeforeEach
	void apiClient() {
		api = new Api(port());
	}

	protected int port() {
		return env.getRequiredProperty("local.server.port", Integer.class);
	}

}
