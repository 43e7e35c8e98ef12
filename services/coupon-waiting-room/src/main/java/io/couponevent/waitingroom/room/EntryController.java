package io.couponevent.waitingroom.room;

import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The user's side: join a coupon's queue, then poll it as told. The usual requests are
 * answered by {@link EntryEndpoint} before they reach this controller.
 */
@RestController
class EntryController {

	static final String JOIN = "/api/v1/waiting-room/coupons/{couponId}/entries";

	static final String POLL = "/api/v1/waiting-room/coupons/{couponId}/entries/me";

	private final WaitingRoom room;

	EntryController(WaitingRoom room) {
		this.room = room;
	}

	@PostMapping(JOIN)
	Entry join(@PathVariable("couponId") String couponId, @AuthenticationPrincipal Jwt jwt) {
		return this.room.join(jwt.getSubject(), parse(couponId));
	}

	@GetMapping(POLL)
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
