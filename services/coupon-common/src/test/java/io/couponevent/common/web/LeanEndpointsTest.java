package io.couponevent.common.web;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bearer token is read without a regular expression; this is Spring Security's
 * resolver's expression, and both readings must agree on every input.
 */
class LeanEndpointsTest {

	private static final Pattern BEARER = Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$",
			Pattern.CASE_INSENSITIVE);

	@Test
	void bearerTokenAsSpringSecurityReadsIt() {
		List<String> headers = List.of("Bearer abc.def.ghi", "bearer abc", "BEARER abc", "Bearer abc==", "Bearer ==",
				"Bearer a=b", "Bearer  abc", "Bearer abc ", "Bearer", "Bearer ", "Basic abc", "Bearer a-b._~+/c",
				"Bearer a*b", "Bearer é", "Bearerabc", "xBearer abc", "Bearer\tabc", "");
		for (String header : headers) {
			Matcher m = BEARER.matcher(header);
			assertThat(LeanEndpoints.bearerToken(header)).as("'" + header + "'")
				.isEqualTo(m.matches() ? m.group("token") : null);
		}
	}

}
