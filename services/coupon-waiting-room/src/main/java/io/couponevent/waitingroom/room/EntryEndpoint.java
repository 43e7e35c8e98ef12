package io.couponevent.waitingroom.room;

import java.io.IOException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.couponevent.common.security.Hs256FastPath;
import io.couponevent.common.web.Problems;
import io.couponevent.waitingroom.web.ApiExceptionHandler;
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
 * Join ({@code POST …/entries} without a body) and poll ({@code GET …/entries/me}), the
 * requests a spike is made of, answered here instead of through Spring Security's filter
 * chain and Spring MVC.
 *
 * <p>
 * A waiting room exists to answer a burst that is larger than the core takes, so its own
 * cost per answer bounds the burst it meets. With the full stack (security context,
 * authorization matchers, firewall, handler mapping, argument resolution, content
 * negotiation) the script call and the token were a small share of a join's CPU; a
 * 12,000-user burst on two shared cores queued joins for seconds. This filter keeps the
 * contract of {@link EntryController}: the same token checks (the application's
 * {@link JwtDecoder} with its validators, or {@link Hs256FastPath} for the common token,
 * which accepts only what the decoder would), the same answers and problems (from
 * {@link ApiExceptionHandler}), the security headers and the request metrics. Anything
 * else on these paths (a body, a query, an id that is not plain digits, another method)
 * goes on to the controller and gets the answers it always did.
 */
class EntryEndpoint extends OncePerRequestFilter {

	private static final Pattern PATH = Pattern.compile("/api/v1/waiting-room/coupons/([0-9]{1,19})/entries(/me)?");

	/** Spring Security's bearer token syntax (RFC 6750), as its resolver reads it. */
	private static final Pattern BEARER = Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$",
			Pattern.CASE_INSENSITIVE);

	private final WaitingRoom room;

	private final JwtDecoder jwts;

	/** Null when tokens are checked against an identity provider's keys. */
	private final Hs256FastPath fastPath;

	private final ApiExceptionHandler problems;

	private final JsonMapper json;

	private final byte[] tokenRequired;

	private final byte[] tokenInvalid;

	private final byte[] keysUnavailable;

	EntryEndpoint(WaitingRoom room, JwtDecoder jwts, Hs256FastPath fastPath, ApiExceptionHandler problems,
			JsonMapper json) {
		this.room = room;
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
		String uri = request.getRequestURI();
		return switch (request.getMethod()) {
			case "POST" -> request.getContentLengthLong() > 0
					|| request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null || !uri.endsWith("/entries");
			case "GET" -> !uri.endsWith("/entries/me");
			default -> true;
		};
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		Matcher path = PATH.matcher(request.getRequestURI());
		boolean join = "POST".equals(request.getMethod());
		if (!path.matches() || request.getQueryString() != null || join == (path.group(2) != null)) {
			chain.doFilter(request, response);
			return;
		}
		ServerHttpObservationFilter.findObservationContext(request)
			.ifPresent((context) -> context.setPathPattern(join ? EntryController.JOIN : EntryController.POLL));
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
		String token = bearer.group("token");
		// the common token without Nimbus; anything it does not accept, the decoder
		// judges
		String user = (this.fastPath != null) ? this.fastPath.subject(token) : null;
		if (user == null) {
			try {
				user = this.jwts.decode(token).getSubject();
			}
			catch (BadJwtException ex) {
				unauthorized(response, Problems.INVALID_TOKEN_CHALLENGE, this.tokenInvalid);
				return;
			}
			catch (JwtException ex) {
				// not the token's fault: the identity provider's keys could not be read
				write(response, HttpStatus.SERVICE_UNAVAILABLE, this.keysUnavailable);
				return;
			}
		}
		Entry entry;
		try {
			long couponId = EntryController.parse(path.group(1));
			entry = join ? this.room.join(user, couponId) : this.room.poll(user, couponId);
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
		response.setStatus(HttpStatus.OK.value());
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		this.json.writeValue(response.getOutputStream(), entry);
	}

	/** What Spring Security's header writer adds to every answer. */
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
		answer.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		ProblemDetail problem = answer.getBody();
		Map<String, Object> members = Problems.members(answer.getStatusCode(),
				String.valueOf(problem.getProperties().get("code")), problem.getDetail());
		// as Spring MVC fills it in for the controller's problems
		members.put("instance", request.getRequestURI());
		this.json.writeValue(response.getOutputStream(), members);
	}

}
