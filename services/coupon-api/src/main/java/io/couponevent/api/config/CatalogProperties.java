package io.couponevent.api.config;

import java.time.Instant;
import java.util.List;

import io.couponevent.api.window.DeclaredWindow;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Coupons declared in configuration (the chart's {@code event.yaml}); registered by
 * {@code --coupon.job=register} and, when {@code register-on-start}, at every start.
 */
@Validated
@ConfigurationProperties("coupon.catalog")
public record CatalogProperties(@DefaultValue List<@Valid CouponSpec> coupons,
		@DefaultValue("true") boolean registerOnStart) {

	/**
	 * The largest quantity of one coupon, wherever it is set (this catalog, the admin
	 * API): one slot row per unit is written with the coupon, and a rebuild reads every
	 * row.
	 */
	public static final int MAX_QUANTITY = 10_000_000;

	/**
	 * One coupon. {@code opens-at} absent: it opens when first registered, and keeps that
	 * opening at every later registration; {@code closes-at}: an instant or an ISO-8601
	 * duration from the opening ({@link DeclaredWindow}).
	 */
	public record CouponSpec(@NotNull @Positive Long id, @NotBlank @Size(max = 200) String name,
			@NotNull @Min(0) @Max(MAX_QUANTITY) Integer quantity, Instant opensAt, @NotBlank String closesAt) {

		@AssertTrue(message = "closes-at must be an instant or a positive ISO-8601 duration such as PT2H")
		public boolean isClosingReadable() {
			return window().isClosingReadable();
		}

		@AssertTrue(message = "closes-at must be after opens-at")
		public boolean isWindowValid() {
			return window().isOrdered();
		}

		public DeclaredWindow window() {
			return new DeclaredWindow(opensAt, closesAt);
		}
	}
}
