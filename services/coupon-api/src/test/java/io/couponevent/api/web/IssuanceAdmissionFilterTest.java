package io.couponevent.api.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.FilterChain;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** The admission bound in isolation (servlet fakes): who waits, who is turned away, and how. */
class IssuanceAdmissionFilterTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IssuanceAdmissionFilter filter = new IssuanceAdmissionFilter(1, Duration.ofMillis(100),
            Duration.ofSeconds(2), registry);

    private static MockHttpServletRequest post() {
        return new MockHttpServletRequest("POST", "/api/v1/coupons/7/issuances");
    }

    @Test
    void pastTheBoundARequestIsTurnedAwayWithAProblemAndRetryAfter() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicInteger served = new AtomicInteger();
        FilterChain blocking = (req, res) -> {
            served.incrementAndGet();
            inside.countDown();
            try {
                leave.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread first = Thread.ofVirtual().start(() -> {
            try {
                filter.doFilter(post(), new MockHttpServletResponse(), blocking);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.get("coupon.issuance.in.flight").gauge().value()).isEqualTo(1.0);

        MockHttpServletResponse turnedAway = new MockHttpServletResponse();
        filter.doFilter(post(), turnedAway, (req, res) -> served.incrementAndGet());

        assertThat(turnedAway.getStatus()).isEqualTo(503);
        assertThat(turnedAway.getHeader("Retry-After")).isEqualTo("2");
        assertThat(turnedAway.getContentType()).startsWith("application/problem+json");
        assertThat(turnedAway.getContentAsString()).contains("\"code\":\"OVERLOADED\"").contains("\"status\":503");
        assertThat(served).as("the turned-away request never reached the chain").hasValue(1);
        assertThat(registry.get("coupon.issuance.admission.rejected").counter().count()).isEqualTo(1.0);

        leave.countDown();
        first.join(10_000);
        MockHttpServletResponse admitted = new MockHttpServletResponse();
        filter.doFilter(post(), admitted, (req, res) -> served.incrementAndGet());
        assertThat(admitted.getStatus()).isEqualTo(200);
        assertThat(served).as("a turn is given back when a request ends").hasValue(2);
        assertThat(registry.get("coupon.issuance.in.flight").gauge().value()).isZero();
    }

    @Test
    void aRequestThatWaitsWithinTheBoundIsServed() throws Exception {
        // A long wait, so the outcome does not depend on how fast this machine schedules threads.
        IssuanceAdmissionFilter patient = new IssuanceAdmissionFilter(1, Duration.ofSeconds(30), Duration.ofSeconds(1),
                new SimpleMeterRegistry());
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Thread first = Thread.ofVirtual().start(() -> {
            try {
                patient.doFilter(post(), new MockHttpServletResponse(), (req, res) -> {
                    inside.countDown();
                    try {
                        leave.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicInteger served = new AtomicInteger();
        MockHttpServletResponse response = new MockHttpServletResponse();
        Thread second = Thread.ofVirtual().start(() -> {
            try {
                patient.doFilter(post(), response, (req, res) -> served.incrementAndGet());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertThat(served).as("waits while the only turn is taken").hasValue(0);
        leave.countDown();
        first.join(30_000);
        second.join(30_000);
        assertThat(served).hasValue(1);
        assertThat(response.getStatus()).isEqualTo(200);
    }

    @Test
    void statusPollsAndOtherMethodsNeverWait() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Thread first = Thread.ofVirtual().start(() -> {
            try {
                filter.doFilter(post(), new MockHttpServletResponse(), (req, res) -> {
                    inside.countDown();
                    try {
                        leave.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicInteger served = new AtomicInteger();
        filter.doFilter(new MockHttpServletRequest("GET", "/api/v1/coupons/7/issuances/me"),
                new MockHttpServletResponse(), (req, res) -> served.incrementAndGet());
        filter.doFilter(new MockHttpServletRequest("GET", "/api/v1/coupons/7"), new MockHttpServletResponse(),
                (req, res) -> served.incrementAndGet());
        leave.countDown();
        first.join(10_000);
        assertThat(served).hasValue(2);
        assertThat(registry.get("coupon.issuance.admission.rejected").counter().count()).isZero();
    }
}
