package io.couponevent.common.redis;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

/**
 * How a Redis Cluster client follows failovers and resharding (the API's settings, for
 * every client that writes what the API reads).
 *
 * <p>
 * A failover is learnt from the adaptive triggers (a reconnect attempt to the dead node,
 * whose back-off doubles) or the periodic refresh: nothing redirects a client whose
 * commands for the slot go to the dead master's closed connection, so it learns of the
 * promoted replica at its next refresh. The failover itself takes the node timeout plus a
 * vote (about 8 s with the chart's 5 s); the refresh runs every 2 s (one CLUSTER NODES
 * per node, negligible), so writes resume within 10 s of a master's loss (decision 0049).
 * Commands for a disconnected node are rejected at once instead of buffered: a buffered
 * command would run on reconnection, long after its caller was answered.
 */
public final class ClusterFailover {

	/** The periodic topology refresh, and the adaptive triggers' rate limit. */
	public static final Duration REFRESH = Duration.ofSeconds(2);

	private ClusterFailover() {
	}

	/** The client options, to build on (TLS, for one). */
	public static ClusterClientOptions.Builder options() {
		ClusterClientOptions.Builder options = ClusterClientOptions.builder();
		apply(options);
		return options;
	}

	/**
	 * Adds the settings to options built elsewhere (Spring Boot's, which carry the TLS
	 * bundle and the connect timeout: replacing them would drop both). The topology
	 * settings apply to a cluster client only.
	 */
	public static void apply(ClientOptions.Builder options) {
		if (options instanceof ClusterClientOptions.Builder cluster) {
			cluster
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.adaptiveRefreshTriggersTimeout(REFRESH)
					.enablePeriodicRefresh(REFRESH)
					.build())
				.maxRedirects(5);
		}
		options.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS);
	}

}
