package io.couponevent.api.issuance;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Waits until replicas hold what this process wrote to a Redis node (Redis {@code WAIT}):
 * replication is asynchronous, and a master that dies before its replica has a write
 * takes it along, so a reservation is answered only once a replica has it (issue 37, item
 * 2).
 *
 * <p>
 * {@code WAIT} covers the writes sent before it on the same connection, and holds that
 * connection while it waits: a script of another request sent behind it waits too. So one
 * {@code WAIT} at a time goes to a node, on the shared connection that carried the
 * scripts (Lettuce keeps one per node, keyed by host and port), and it answers every
 * caller whose script had returned before it was sent; callers arriving meanwhile share
 * the next one. A replica that lags or is gone costs at most one wait per turn, not one
 * per request.
 */
final class ReplicaAcks {

	private final StringRedisTemplate redis;

	private final int replicas;

	private final ConcurrentMap<String, Node> nodes = new ConcurrentHashMap<>();

	/**
	 * @param replicas how many replicas must acknowledge; 0 waits for none (a Redis
	 * without replicas)
	 */
	ReplicaAcks(StringRedisTemplate redis, int replicas) {
		this.redis = redis;
		this.replicas = replicas;
	}

	/**
	 * True once enough replicas of the node serving {@code key} hold every write this
	 * process had sent it when the call was made; false when they did not by
	 * {@code deadlineMs} (epoch ms).
	 */
	boolean confirm(String key, long deadlineMs) {
		if (this.replicas == 0) {
			return true;
		}
		long budget = deadlineMs - System.currentTimeMillis();
		if (budget <= 0) {
			return false;
		}
		CompletableFuture<Boolean> acked = this.redis
			.execute((RedisCallback<CompletableFuture<Boolean>>) (connection) -> join(connection, key, deadlineMs));
		try {
			return acked != null && acked.get(budget, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException e) {
			return false;
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@SuppressWarnings("unchecked")
	private CompletableFuture<Boolean> join(RedisConnection connection, String key, long deadlineMs) {
		Object nativeConnection = connection.getNativeConnection();
		if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			var shared = ((RedisAdvancedClusterAsyncCommands<byte[], byte[]>) cluster).getStatefulConnection();
			RedisClusterNode master = shared.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
			if (master == null) {
				return CompletableFuture.completedFuture(false);
			}
			RedisURI uri = master.getUri();
			return node(uri.getHost() + ":" + uri.getPort()).join(deadlineMs,
					(timeoutMs) -> shared.getConnectionAsync(uri.getHost(), uri.getPort())
						.thenCompose((node) -> node.async().waitForReplication(this.replicas, timeoutMs)));
		}
		if (nativeConnection instanceof BaseRedisAsyncCommands<?, ?> single) {
			return node("").join(deadlineMs, (timeoutMs) -> single.waitForReplication(this.replicas, timeoutMs));
		}
		throw new IllegalStateException("no WAIT on " + nativeConnection);
	}

	private Node node(String address) {
		return this.nodes.computeIfAbsent(address, (k) -> new Node(this.replicas));
	}

	/** The callers of one node: the batch to send next, and whether one is out. */
	private static final class Node {

		private final int replicas;

		private Batch open;

		private boolean waiting;

		Node(int replicas) {
			this.replicas = replicas;
		}

		CompletableFuture<Boolean> join(long deadlineMs, LongFunction<CompletionStage<Long>> sendWait) {
			Batch mine;
			Batch send = null;
			synchronized (this) {
				if (this.open == null) {
					this.open = new Batch();
				}
				mine = this.open;
				mine.deadlineMs = Math.max(mine.deadlineMs, deadlineMs);
				if (!this.waiting) {
					this.waiting = true;
					send = mine;
					this.open = null;
				}
			}
			if (send != null) {
				send(send, sendWait);
			}
			return mine.acked;
		}

		private void send(Batch batch, LongFunction<CompletionStage<Long>> sendWait) {
			// WAIT 0 would wait forever.
			long timeoutMs = Math.max(1, batch.deadlineMs - System.currentTimeMillis());
			CompletionStage<Long> reply;
			try {
				reply = sendWait.apply(timeoutMs);
			}
			catch (RuntimeException e) {
				reply = CompletableFuture.failedFuture(e);
			}
			reply.whenComplete((acks, error) -> {
				batch.acked.complete(error == null && acks != null && acks >= this.replicas);
				Batch next;
				synchronized (this) {
					next = this.open;
					this.open = null;
					this.waiting = next != null;
				}
				if (next != null) {
					send(next, sendWait);
				}
			});
		}

	}

	private static final class Batch {

		private final CompletableFuture<Boolean> acked = new CompletableFuture<>();

		private long deadlineMs;

	}

}
