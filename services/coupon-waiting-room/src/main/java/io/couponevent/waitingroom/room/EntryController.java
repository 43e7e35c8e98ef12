package io.couponevent.waitingroom.room;

import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** The user's side: join a coupon's queue, then poll it as told. */
@RestController
class EntryController {

	private final WaitingRoom room;

	EntryController(WaitingRoom room) {
		this.room = room;
	}

	@PostMapping("/api/v1/waiting-room/coupons/{couponId}/entries")
	Entry join(@PathVariable("couponId") String couponId, @AuthenticationPrincipal Jwt jwt) {
		return this.room.join(jwt.getSubject(), parse(couponId));
	}

	@GetMapping("/api/v1/waiting-room/coupons/{couponId}/entries/me")
	Entry poll(@PathVariable("couponId") String couponId, @AuthenticationPrincipal Jwt jwt) {
		return this.room.poll(jwt.getSubject(), parse(couponId));
	}

	static long parse(String couponId) {
		try {
			long id = Long.parseLong(couponId);
			if (id > 0) {
				return id;
			}
		}
		catch (NumberFormatException ex) {
			// answered below
		}
		throw new InvalidRequestException("couponId must be a positive 64-bit integer");
	}

}
