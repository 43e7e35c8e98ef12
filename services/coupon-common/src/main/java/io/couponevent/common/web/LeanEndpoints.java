package io.couponevent.common.web;

import java.io.IOException;
import java.time.Clock;
import java.util.Map;

import io.couponevent.common.security.Hs256FastPath;
import io.couponevent.common.security.JwtProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * What a hot route answered from a servlet filter, instead of through Spring Security and
 * Spring MVC, needs to keep their contract: the same security headers, the same bearer
 * token checks and the same problem answers. The issuance endpoint and the waiting room's
 * join and poll use it.
 */
public final class LeanEndpoints {

	private static final String BEARER_PREFIX = "Bearer ";

	private final JwtDecoder jwts;

	private final Hs256FastPath fastPath;

	private final JsonMapper json;

	private final byte[] tokenRequired;

	private final byte[] tokenInvalid;

	private final byte[] keysUnavailable;

	/**
	 * @param fastPath verifies the common HS256 token without the decoder, or
	 * {@code null} (tokens from an identity provider's keys): every token it does not
	 * accept still goes to {@code jwts}
	 */
	public LeanEndpoints(JwtDecoder jwts, Hs256FastPath fastPath, JsonMapper json) {
		this.jwts = jwts;
		this.fastPath = fastPath;
		this.json = json;
		// Always the same answers: rendered once.
		this.tokenRequired = json
			.writeValueAsBytes(Problems.members(HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", Problems.TOKEN_REQUIRED));
		this.tokenInvalid = json
			.writeValueAsBytes(Problems.members(HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", Problems.TOKEN_INVALID));
		this.keysUnavailable = json.writeValueAsBytes(Problems.members(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE",
				"the token keys are unavailable, try again shortly"));
	}

	/**
	 * For a service's decoder and token settings: with an HS256 secret, the common token
	 * takes {@link Hs256FastPath}.
	 */
	public static LeanEndpoints of(JwtDecoder jwts, JwtProperties properties, JsonMapper json) {
		return new LeanEndpoints(jwts, Hs256FastPath.of(properties, json, Clock.systemUTC()), json);
	}

	/**
	 * Writes the security headers, then reads the user from the bearer token; when there
	 * is none, answers as Spring Security's resource server would ({@code 401} with its
	 * challenge, or {@code 503} when the identity provider's keys cannot be read) and
	 * returns {@code null}.
	 */
	public String user(HttpServletRequest request, HttpServletResponse response) throws IOException {
		writeSecurityHeaders(response);
		String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (authorization == null) {
			unauthorized(response, "Bearer", this.tokenRequired);
			return null;
		}
		String token = bearerToken(authorization);
		if (token == null) {
			unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
			return null;
		}
		String subject = (this.fastPath != null) ? this.fastPath.subject(token) : null;
		if (subject != null) {
			return subject;
		}
		try {
			return this.jwts.decode(token).getSubject();
		}
		catch (BadJwtException ex) {
			unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
			return null;
		}
		catch (JwtException ex) {
			// Not the token's fault: the identity provider's keys could not be read.
			write(response, HttpStatus.SERVICE_UNAVAILABLE, this.keysUnavailable);
			return null;
		}
	}

	/**
	 * The token of an {@code Authorization} header in Spring Security's bearer syntax
	 * (RFC 6750, as its resolver reads it: {@code Bearer} in any case, one space,
	 * token68), or {@code null}.
	 */
	public static String bearerToken(String authorization) {
		if (!authorization.regionMatches(true, 0, BEARER_PREFIX, 0, BEARER_PREFIX.length())) {
			return null;
		}
		int start = BEARER_PREFIX.length();
		int padding = authorization.length();
		while (padding > start && authorization.charAt(padding - 1) == '=') {
			padding--;
		}
		if (padding == start) {
			return null;
		}
		for (int i = start; i < padding; i++) {
			char c = authorization.charAt(i);
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
					|| c == '_' || c == '~' || c == '+' || c == '/')) {
				return null;
			}
		}
		return authorization.substring(start);
	}

	/**
	 * What Spring Security's header writer adds to every answer. Added, not set: nothing
	 * before these filters writes them, and setting scans the headers so far.
	 */
	public static void writeSecurityHeaders(HttpServletResponse response) {
		response.addHeader("X-Content-Type-Options", "nosniff");
		response.addHeader("X-XSS-Protection", "0");
		response.addHeader(HttpHeaders.CACHE_CONTROL, "no-cache, no-store, max-age=0, must-revalidate");
		response.addHeader(HttpHeaders.PRAGMA, "no-cache");
		response.addHeader(HttpHeaders.EXPIRES, "0");
		response.addHeader("X-Frame-Options", "DENY");
	}

	/** A body rendered once, as {@code application/problem+json}. */
	public static void write(HttpServletResponse response, HttpStatus status, byte[] body) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	/**
	 * The answer of the service's exception handler, written as Spring MVC writes it for
	 * a controller (with {@code instance} filled in).
	 */
	public void problem(HttpServletRequest request, HttpServletResponse response, ResponseEntity<ProblemDetail> answer)
			throws IOException {
		response.setStatus(answer.getStatusCode().value());
		answer.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		ProblemDetail problem = answer.getBody();
		Map<String, Object> members = Problems.members(answer.getStatusCode(),
				String.valueOf(problem.getProperties().get("code")), problem.getDetail());
		members.put("instance", request.getRequestURI());
		this.json.writeValue(response.getOutputStream(), members);
	}

	private static void unauthorized(HttpServletResponse response, String challenge, byte[] body) throws IOException {
		response.addHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
		write(response, HttpStatus.UNAUTHORIZED, body);
	}

}
