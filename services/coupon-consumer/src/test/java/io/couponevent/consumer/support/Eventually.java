package io.couponevent.consumer.support;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** Polls a condition until it holds or the time is up (no Awaitility on the classpath). */
public final class Eventually {

    private Eventually() {
    }

    public static <T> T await(Duration timeout, Supplier<T> probe, java.util.function.Predicate<T> done)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        T value = probe.get();
        while (!done.test(value) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
            value = probe.get();
        }
        return value;
    }
}
