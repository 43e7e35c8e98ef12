package io.couponevent.api.web;

import java.time.Duration;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.coupon.CouponNotFoundException;
import io.couponevent.api.coupon.InvalidCouponIdException;
import io.couponevent.api.coupon.QuantityBelowIssuedException;
import io.couponevent.api.issuance.IssuanceRefusedException;
import io.couponevent.api.issuance.IssuanceRefusedException.Refusal;
import io.couponevent.api.issuance.IssuanceUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The features' exceptions as the HTTP contract answers them (status, {@code code},
 * Retry-After).
 */
class ApiExceptionHandlerTest {

	private final ApiExceptionHandler handler = new ApiExceptionHandler(new IssuanceProperties(Duration.ofSeconds(2),
			Duration.ofSeconds(6), Duration.ofSeconds(3), 1, Duration.ZERO));

	@Test
	void couponIdAndCouponErrors() {
		InvalidCouponIdException invalid = catchThrowableOfType(InvalidCouponIdException.class,
				() -> CouponId.parse("abc"));
		expect(this.handler.domain(invalid), 400, "INVALID_REQUEST");
		expect(this.handler.domain(new CouponNotFoundException(7)), 404, "COUPON_NOT_FOUND");
		expect(this.handler.domain(new QuantityBelowIssuedException(3)), 409, "QUANTITY_BELOW_ISSUED");
	}

	@Test
	void refusalsKeepTheirCodes() {
		expect(refused(Refusal.NOT_OPEN_YET), 403, "NOT_OPEN_YET");
		expect(refused(Refusal.CLOSED), 403, "CLOSED");
		expect(refused(Refusal.PAUSED), 403, "PAUSED");
		expect(refused(Refusal.ALREADY_ISSUED), 409, "ALREADY_ISSUED");
		expect(refused(Refusal.SOLD_OUT), 410, "SOLD_OUT");
		expect(refused(Refusal.ENTRY_REQUIRED), 403, "ENTRY_REQUIRED");
	}

	@Test
	void unavailableSuggestsWhenToRetry() {
		ResponseEntity<ProblemDetail> answer = this.handler.domain(new IssuanceUnavailableException("later"));
		expect(answer, 503, "UNAVAILABLE");
		assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("3");
		assertThat(answer.getBody().getDetail()).isEqualTo("later");
	}

	private ResponseEntity<ProblemDetail> refused(Refusal refusal) {
		return this.handler.domain(new IssuanceRefusedException(refusal));
	}

	private static void expect(ResponseEntity<ProblemDetail> answer, int status, String code) {
		assertThat(answer.getStatusCode().value()).isEqualTo(status);
		assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(answer.getBody().getProperties()).containsEntry("code", code);
		assertThat(answer.getBody().getType().toString())
			.isEqualTo("urn:coupon-event:problem:" + code.toLowerCase().replace('_', '-'));
	}

}
