package io.couponevent.api.catalog;

import java.time.Instant;

import io.couponevent.api.catalog.CouponRegistry.Report;
import io.couponevent.api.config.CatalogProperties;
import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.coupon.CouponNotFoundException;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.window.DeclaredWindow;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin operations (JWT with {@code roles: ["admin"]}). */
@RestController
@RequestMapping("/api/v1/admin/coupons/{couponId}")
class AdminController {

	private final CouponRegistry registry;

	private final CouponRepository repository;

	AdminController(CouponRegistry registry, CouponRepository repository) {
		this.registry = registry;
		this.repository = repository;
	}

	/**
	 * {@code opensAt} absent: the coupon opens at its registration; {@code closesAt}: an
	 * instant or an ISO-8601 duration from the opening ({@link DeclaredWindow}). The
	 * ends' range (the database's) is checked once the window is resolved.
	 */
	public record CouponRequest(@NotBlank @Size(max = 200) String name,
			@NotNull @Min(0) @Max(CatalogProperties.MAX_QUANTITY) Integer quantity, Instant opensAt,
			@NotNull String closesAt) {

		@AssertTrue(message = "closesAt must be an instant or a positive ISO-8601 duration such as PT2H")
		public boolean isClosingReadable() {
			return window().isClosingReadable();
		}

		@AssertTrue(message = "closesAt must be after opensAt")
		public boolean isWindowValid() {
			return window().isOrdered();
		}

		DeclaredWindow window() {
			return new DeclaredWindow(opensAt, closesAt);
		}
	}

	@PutMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
	public ResponseEntity<CouponView> put(@PathVariable("couponId") String couponId,
			@Valid @RequestBody CouponRequest request) {
		long id = CouponId.parse(couponId);
		CouponRepository.Upserted saved = registry.upsert(id, request.name(), request.quantity(), request.window());
		return ResponseEntity.status(saved.created() ? HttpStatus.CREATED : HttpStatus.OK)
			.body(CouponView.of(saved.coupon(), registry.remaining(saved.coupon())));
	}

	@PostMapping("/pause")
	public CouponView pause(@PathVariable("couponId") String couponId) {
		return paused(couponId, true);
	}

	@PostMapping("/resume")
	public CouponView resume(@PathVariable("couponId") String couponId) {
		return paused(couponId, false);
	}

	@GetMapping("/reconciliation")
	public Report reconciliation(@PathVariable("couponId") String couponId) {
		long id = CouponId.parse(couponId);
		Coupon coupon = repository.find(id).orElseThrow(() -> new CouponNotFoundException(id));
		return registry.report(coupon);
	}

	private CouponView paused(String couponId, boolean paused) {
		long id = CouponId.parse(couponId);
		Coupon coupon = registry.setPaused(id, paused).orElseThrow(() -> new CouponNotFoundException(id));
		return CouponView.of(coupon, registry.remaining(coupon));
	}

}
