package io.couponevent.api.coupon;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CouponIdTest {

	@Test
	void acceptsPositive64BitIntegers() {
		assertThat(CouponId.parse("1")).isEqualTo(1L);
		assertThat(CouponId.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void refusesEverythingElse() {
		for (String bad : new String[] { null, "", "0", "007", "-1", "+1", "1e3", "abc", " 1", "9223372036854775808",
				"12345678901234567890" }) {
			// Answered 400 INVALID_REQUEST (ApiExceptionHandlerTest).
			assertThatThrownBy(() -> CouponId.parse(bad)).as(String.valueOf(bad))
				.isInstanceOf(InvalidCouponIdException.class);
		}
	}

}
