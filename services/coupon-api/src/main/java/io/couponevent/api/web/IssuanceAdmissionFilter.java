package io.couponevent.api.web;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.common.web.Problems;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds the issuance requests a process works on at once. Past {@code maxInFlight}, a
 * request waits up to {@code admissionWait} for a turn (fair: first come, first served)
 * and is then answered {@code 503 OVERLOADED} with {@code Retry-After}, before any Redis
 * or Kafka call, so it holds nothing.
 * <p>
 * Why: unbounded, a spike put thousands of requests on Redis and Kafka at once on a small
 * machine; their client-side timeouts fired (a reservation made, its answer lost),
 * compensations timed out too, and the process spent its CPU on requests whose clients
 * had already given up. A bounded number keeps each call inside its timeout. It runs
 * before Spring Security, so a request turned away costs no token verification.
 */
class IssuanceAdmissionFilter extends OncePerRequestFilter {

	private final Semaphore turns;

	private final long waitNanos;

	private final String retryAfterSeconds;

	private final byte[] overloaded;

	private final Counter rejected;

	IssuanceAdmissionFilter(IssuanceProperties issuance, JsonMapper json, MeterRegistry registry) {
		int maxInFlight = issuance.maxInFlight();
		this.turns = new Semaphore(maxInFlight, true);
		this.waitNanos = issuance.admissionWait().toNanos();
		this.retryAfterSeconds = issuance.retryAfterHeader();
		// Always the same answer: rendered once, not per turned-away request.
		this.overloaded = json.writeValueAsBytes(Problems.members(HttpStatus.SERVICE_UNAVAILABLE, "OVERLOADED",
				"too many issuance requests at once, try again shortly"));
		this.rejected = Counter.builder("coupon.issuance.admission.rejected")
			.description("issuance requests answered 503 OVERLOADED without being worked on")
			.register(registry);
		Gauge.builder("coupon.issuance.in.flight", turns, s -> maxInFlight - s.availablePermits())
			.description("issuance requests being worked on")
			.register(registry);
	}

	/**
	 * Only {@code POST …/issuances}: status polls and coupon reads are cheap and never
	 * wait.
	 */
	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !"POST".equals(request.getMethod()) || !request.getRequestURI().endsWith("/issuances");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		boolean admitted;
		try {
			admitted = turns.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			admitted = false;
		}
		if (!admitted) {
			reject(response);
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		finally {
			turns.release();
		}
	}

	private void reject(HttpServletResponse response) throws IOException {
		rejected.increment();
		response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
		response.setHeader(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.getOutputStream().write(overloaded);
	}

}
