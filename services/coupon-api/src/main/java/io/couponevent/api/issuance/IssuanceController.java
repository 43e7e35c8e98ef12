package io.couponevent.api.issuance;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.issuance.IssuanceService.UserStatus;
import io.couponevent.common.entry.EntryGate;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A user asks for a coupon (answer in milliseconds) and later checks whether it was
 * persisted.
 */
@RestController
@RequestMapping("/api/v1/coupons/{couponId}/issuances")
class IssuanceController {

	private final IssuanceService issuance;

	IssuanceController(IssuanceService issuance) {
		this.issuance = issuance;
	}

	public record IssuanceAccepted(long couponId, String userId, String status, String statusUrl) {
	}

	/**
	 * The body is optional; when present it must be a JSON object (reserved for future
	 * options).
	 */
	@PostMapping(consumes = { MediaType.APPLICATION_JSON_VALUE, MediaType.ALL_VALUE })
	public ResponseEntity<IssuanceAccepted> issue(@PathVariable("couponId") String couponId,
			@RequestBody(required = false) Map<String, Object> body, @AuthenticationPrincipal Jwt jwt,
			@RequestHeader(name = EntryGate.HEADER, required = false) String entryToken) {
		long id = CouponId.parse(couponId);
		IssuanceService.Accepted accepted = issuance.issue(id, jwt.getSubject(), entryToken);
		String statusUrl = "/api/v1/coupons/" + id + "/issuances/me";
		return ResponseEntity.accepted()
			.location(URI.create(statusUrl))
			.body(new IssuanceAccepted(id, accepted.userId(), "PENDING", statusUrl));
	}

	@GetMapping("/me")
	public Map<String, Object> me(@PathVariable("couponId") String couponId, @AuthenticationPrincipal Jwt jwt) {
		UserStatus status = issuance.status(CouponId.parse(couponId), jwt.getSubject());
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", status.status().name());
		Instant issuedAt = status.issuedAt();
		if (issuedAt != null) {
			body.put("issuedAt", issuedAt.toString());
		}
		return body;
	}

}
