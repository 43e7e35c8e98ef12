package io.couponevent.api.web;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint reads its path without a regular expression; this is the expression it
 * replaced, and both readings must agree on every input.
 */
class IssuanceEndpointParsingTest {

	private static final Pattern PATH = Pattern.compile("/api/v1/coupons/([0-9]{1,19})/issuances");

	@Test
	void couponDigitsAsTheRoute() {
		List<String> uris = List.of("/api/v1/coupons/1/issuances", "/api/v1/coupons/1234567890123456789/issuances",
				"/api/v1/coupons/12345678901234567890/issuances", "/api/v1/coupons//issuances",
				"/api/v1/coupons/12a/issuances", "/api/v1/coupons/-1/issuances", "/api/v1/coupons/1/issuances/",
				"/api/v1/coupons/1/issuance", "/api/v2/coupons/1/issuances", "/api/v1/coupons/1/x/issuances",
				"/api/v1/coupons/١٢/issuances", "/api/v1/coupons/+1/issuances", "/api/v1/coupons/issuances",
				"/issuances", "");
		for (String uri : uris) {
			Matcher m = PATH.matcher(uri);
			assertThat(IssuanceEndpoint.couponDigits(uri)).as(uri).isEqualTo(m.matches() ? m.group(1) : null);
		}
	}

}
