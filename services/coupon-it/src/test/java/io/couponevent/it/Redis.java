package io.couponevent.it;

import io.couponevent.testsupport.Harness;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/** Faults on the harness's Redis Cluster. */
final class Redis {

	private Redis() {
	}

	/**
	 * Data loss on every master at once (what a Redis Cluster restart without persistence
	 * does).
	 */
	static void flushAllMasters() {
		RedisClusterClient client = RedisClusterClient.create(Harness.redisNodes().stream().map((node) -> {
			String[] hostPort = node.split(":");
			return RedisURI.create(hostPort[0], Integer.parseInt(hostPort[1]));
		}).toList());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			connection.sync().masters().commands().flushall();
		}
		finally {
			client.shutdown();
		}
	}

}
