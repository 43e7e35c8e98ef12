package io.couponevent.waitingroom.room;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.couponevent.common.entry.EntryProperties;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.RequiresHarness;
import io.couponevent.waitingroom.CouponApiStandIn;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, item 12: two room pods whose clocks disagree share one queue. The order is
 * the order of arrival at Redis, whatever either pod's clock says.
 */
@RequiresHarness
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PodClockTest {

	private static final CouponApiStandIn API = CouponApiStandIn.start();

	@Autowired
	Zones zones;

	@Autowired
	RoomStore store;

	@Autowired
	RoomMetrics metrics;

	@Autowired
	CouponStatusClient coupons;

	@Autowired
	EntryProperties entry;

	@DynamicPropertySource
	static void api(DynamicPropertyRegistry registry) {
		registry.add("coupon.waiting-room.api-url", API::url);
	}

	private WaitingRoom pod(Duration clockOff) {
		return new WaitingRoom(this.zones, this.store, this.metrics, this.coupons, this.entry,
				Clock.offset(Clock.systemUTC(), clockOff));
	}

	@Test
	void theQueueFollowsArrivalNotAPodsClock() {
		WaitingRoom ahead = pod(Duration.ofSeconds(30));
		WaitingRoom behind = pod(Duration.ZERO);
		long coupon = Harness.uniqueCouponId();
		Zone zone = ahead.zoneOf(coupon);
		this.store.setMeta(zone, Map.of("mode", "on", "paused", "1"));
		assertThat(ahead.join("first", coupon).position()).isEqualTo(1);
		assertThat(behind.join("second", coupon).position()).as("the later arrival, at a pod 30 s behind").isEqualTo(2);
		assertThat(ahead.poll("first", coupon).position()).isEqualTo(1);
	}

}
