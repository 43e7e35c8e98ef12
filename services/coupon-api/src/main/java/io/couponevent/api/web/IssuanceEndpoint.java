package io.couponevent.api.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.issuance.IssuanceService;
import io.couponevent.common.entry.EntryGate;
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
import org.springframework.security.oauth2.jwt.Jwt;
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

	private static final Pattern PATH = Pattern.compile("/api/v1/coupons/([0-9]{1,19})/issuances");

	/** Spring Security's bearer token syntax (RFC 6750), as its resolver reads it. */
	private static final Pattern BEARER = Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$",
			Pattern.CASE_INSENSITIVE);

	static final String PATH_PATTERN = "/api/v1/coupons/{couponId}/issuances";

	private final IssuanceService issuance;

	private final JwtDecoder jwts;

	private final ApiExceptionHandler problems;

	private final JsonMapper json;

	private final byte[] tokenRequired;

	private final byte[] tokenInvalid;

	private final byte[] keysUnavailable;

	IssuanceEndpoint(IssuanceService issuance, JwtDecoder jwts, ApiExceptionHandler problems, JsonMapper json) {
		this.issuance = issuance;
		this.jwts = jwts;
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
		Matcher path = PATH.matcher(request.getRequestURI());
		if (!path.matches() || request.getQueryString() != null) {
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
		Matcher bearer = BEARER.matcher(authorization);
		if (!bearer.matches()) {
			unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
			return;
		}
		Jwt jwt;
		try {
			jwt = this.jwts.decode(bearer.group("token"));
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
		long couponId;
		IssuanceService.Accepted accepted;
		try {
			couponId = CouponId.parse(path.group(1));
			accepted = this.issuance.issue(couponId, jwt.getSubject(), request.getHeader(EntryGate.HEADER));
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
		response.setHeader(HttpHeaders.LOCATION, statusUrl);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("couponId", couponId);
		body.put("userId", accepted.userId());
		body.put("status", "PENDING");
		body.put("statusUrl", statusUrl);
		this.json.writeValue(response.getOutputStream(), body);
	}

	/** What Spring Security's header writer adds to every answer of the API. */
	private static void writeSecurityHeaders(HttpServletResponse response) {
		response.setHeader("X-Content-Type-Options", "nosniff");
		response.setHeader("X-XSS-Protection", "0");
		response.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache, no-store, max-age=0, must-revalidate");
		response.setHeader(HttpHeaders.PRAGMA, "no-cache");
		response.setHeader(HttpHeaders.EXPIRES, "0");
		response.setHeader("X-Frame-Options", "DENY");
	}

	private static void unauthorized(HttpServletResponse response, String challenge, byte[] body) throws IOException {
		response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
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
