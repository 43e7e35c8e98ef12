package io.couponevent.waitingroom.room;

import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.couponevent.waitingroom.config.WaitingRoomProperties;

import org.springframework.http.HttpStatus;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * The API's public coupon view ({@code GET /api/v1/coupons/{id}}): the only thing the
 * waiting room reads of the issuance core.
 */
@Component
class CouponStatusClient {

	private final RestClient http;

	CouponStatusClient(WaitingRoomProperties properties) {
		JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build());
		factory.setReadTimeout(Duration.ofSeconds(3));
		this.http = RestClient.builder().baseUrl(properties.apiUrl().toString()).requestFactory(factory).build();
	}

	/** The coupon's view, or empty when the API does not know it. */
	Optional<CouponStatus> get(long couponId) {
		try {
			return Optional
				.ofNullable(this.http.get().uri("/api/v1/coupons/{id}", couponId).retrieve().body(CouponStatus.class));
		}
		catch (HttpClientErrorException ex) {
			if (ex.getStatusCode() == HttpStatus.NOT_FOUND) {
				return Optional.empty();
			}
			throw ex;
		}
	}

	/** The fields of the API's coupon view the waiting room uses. */
	record CouponStatus(long id, long remaining, Instant opensAt, Instant closesAt, String state) {

	}

}
