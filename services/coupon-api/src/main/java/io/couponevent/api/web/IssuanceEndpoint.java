package io.couponevent.api.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.issuance.IssuanceService;
import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.security.Hs256FastPath;
import io.couponevent.common.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * {@code POST /api/v1/coupons/{id}/issuances} without a body, the request a spike is made
 * of, answered here instead of through Spring Security's filter chain and Spring MVC.
 *
 * <p>
 * For one stateless POST those layers (security context, authentication provider,
 * authorization matchers, handler mapping, argument resolution, content negotiation) cost
 * several times the issuance itself: Redis script, Kafka send and bookkeeping were a
 * small share of the API's CPU samples. This endpoint keeps the contract: the same token
 * checks (the application's {@link JwtDecoder}, with its validators), the same problem
 * answers (from {@link ApiExceptionHandler}), the same security headers and metrics.
 * Anything else on the path (a body, an id that is not plain digits, another method) goes
 * on to the MVC controller, so odd requests get the answers they always did.
 */
class IssuanceEndpoint extends OncePerRequestFilter {

	private static final String PATH_PREFIX = "/api/v1/coupons/";

	private static final String PATH_SUFFIX = "/issuances";

	private static final String BEARER_PREFIX = "Bearer ";

	static final String PATH_PATTERN = "/api/v1/coupons/{couponId}/issuances";

	private final IssuanceService issuance;

	private final JwtDecoder jwts;

	private final Hs256FastPath fastPath;

	private final ApiExceptionHandler problems;

	private final JsonMapper json;

	private final byte[] tokenRequired;

	private final byte[] tokenInvalid;

	private final byte[] keysUnavailable;

	/**
	 * @param fastPath verifies the common HS256 token without the decoder, or
	 * {@code null} (tokens from an identity provider's keys): every token it does not
	 * accept still goes to {@code jwts}
	 */
	IssuanceEndpoint(IssuanceService issuance, JwtDecoder jwts, Hs256FastPath fastPath, ApiExceptionHandler problems,
			JsonMapper json) {
		this.issuance = issuance;
		this.jwts = jwts;
		this.fastPath = fastPath;
		this.problems = problems;
		this.json = json;
		this.tokenRequired = json
			.writeValueAsBytes(Problems.members(HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", Problems.TOKEN_REQUIRED));
		this.tokenInvalid = json
			.writeValueAsBytes(Problems.members(HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", Problems.TOKEN_INVALID));
		this.keysUnavailable = json.writeValueAsBytes(Problems.members(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE",
				"the token keys are unavailable, try again shortly"));
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !"POST".equals(request.getMethod()) || request.getContentLengthLong() > 0
				|| request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null
				|| !request.getRequestURI().endsWith("/issuances");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String couponDigits = couponDigits(request.getRequestURI());
		if (couponDigits == null || request.getQueryString() != null) {
			chain.doFilter(request, response);
			return;
		}
		ServerHttpObservationFilter.findObservationContext(request)
			.ifPresent(context -> context.setPathPattern(PATH_PATTERN));
		writeSecurityHeaders(response);
		String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (authorization == null) {
			unauthorized(response, "Bearer", this.tokenRequired);
			return;
		}
		String token = bearerToken(authorization);
		if (token == null) {
			unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
			return;
		}
		String subject = (this.fastPath != null) ? this.fastPath.subject(token) : null;
		if (subject == null) {
			try {
				subject = this.jwts.decode(token).getSubject();
			}
			catch (BadJwtException ex) {
				unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
				return;
			}
			catch (JwtException ex) {
				// Not the token's fault: the identity provider's keys could not be read.
				write(response, HttpStatus.SERVICE_UNAVAILABLE, this.keysUnavailable);
				return;
			}
		}
		long couponId;
		IssuanceService.Accepted accepted;
		try {
			couponId = CouponId.parse(couponDigits);
			accepted = this.issuance.issue(couponId, subject, request.getHeader(EntryGate.HEADER));
		}
		catch (DataAccessException ex) {
			problem(request, response, this.problems.dataAccess(ex));
			return;
		}
		catch (RuntimeException ex) {
			problem(request, response,
					ApiExceptionHandler.handles(ex) ? this.problems.domain(ex) : this.problems.unexpected(ex));
			return;
		}
		String statusUrl = "/api/v1/coupons/" + couponId + "/issuances/me";
		response.setStatus(HttpStatus.ACCEPTED.value());
		response.addHeader(HttpHeaders.LOCATION, statusUrl);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("couponId", couponId);
		body.put("userId", accepted.userId());
		body.put("status", "PENDING");
		body.put("statusUrl", statusUrl);
		this.json.writeValue(response.getOutputStream(), body);
	}

	/**
	 * The coupon id's digits in {@code /api/v1/coupons/{1–19 digits}/issuances}, or
	 * {@code null} for any other path.
	 */
	static String couponDigits(String uri) {
		int end = uri.length() - PATH_SUFFIX.length();
		int digits = end - PATH_PREFIX.length();
		if (digits < 1 || digits > 19 || !uri.startsWith(PATH_PREFIX) || !uri.endsWith(PATH_SUFFIX)) {
			return null;
		}
		for (int i = PATH_PREFIX.length(); i < end; i++) {
			char c = uri.charAt(i);
			if (c < '0' || c > '9') {
				return null;
			}
		}
		return uri.substring(PATH_PREFIX.length(), end);
	}

	/**
	 * The token of an {@code Authorization} header in Spring Security's bearer syntax
	 * (RFC 6750, as its resolver reads it: {@code Bearer} in any case, one space,
	 * token68), or {@code null}.
	 */
	static String bearerToken(String authorization) {
		if (!authorization.regionMatches(true, 0, BEARER_PREFIX, 0, BEARER_PREFIX.length())) {
			return null;
		}
		int start = BEARER_PREFIX.length();
		int end = authorization.length();
		int padding = end;
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
	 * What Spring Security's header writer adds to every answer of the API. Added, not
	 * set: nothing before this filter writes them, and setting scans the headers so far.
	 */
	private static void writeSecurityHeaders(HttpServletResponse response) {
		response.addHeader("X-Content-Type-Options", "nosniff");
		response.addHeader("X-XSS-Protection", "0");
		response.addHeader(HttpHeaders.CACHE_CONTROL, "no-cache, no-store, max-age=0, must-revalidate");
		response.addHeader(HttpHeaders.PRAGMA, "no-cache");
		response.addHeader(HttpHeaders.EXPIRES, "0");
		response.addHeader("X-Frame-Options", "DENY");
	}

	private static void unauthorized(HttpServletResponse response, String challenge, byte[] body) throws IOException {
		response.addHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
		write(response, HttpStatus.UNAUTHORIZED, body);
	}

	private static void write(HttpServletResponse response, HttpStatus status, byte[] body) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	private void problem(HttpServletRequest request, HttpServletResponse response, ResponseEntity<ProblemDetail> answer)
			throws IOException {
		response.setStatus(answer.getStatusCode().value());
		answer.getHeaders().forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		ProblemDetail problem = answer.getBody();
		Map<String, Object> members = Problems.members(answer.getStatusCode(),
				String.valueOf(problem.getProperties().get("code")), problem.getDetail());
		// As Spring MVC fills it in for the controller's problems.
		members.put("instance", request.getRequestURI());
		this.json.writeValue(response.getOutputStream(), members);
	}

}
