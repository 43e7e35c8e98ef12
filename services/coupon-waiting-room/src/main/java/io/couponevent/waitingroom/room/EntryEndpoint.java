package io.couponevent.waitingroom.room;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.couponevent.common.web.LeanEndpoints;
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
 * contract of {@link EntryController} through {@link LeanEndpoints}: the same token
 * checks (the common token by its fast path, any other by the application's decoder), the
 * same answers and problems (from {@link ApiExceptionHandler}), the security headers, and
 * the request metrics. Anything else on these paths (a body, a query, an id that is not
 * plain digits, another method) goes on to the controller and gets the answers it always
 * did.
 */
class EntryEndpoint extends OncePerRequestFilter {

	private static final Pattern PATH = Pattern.compile("/api/v1/waiting-room/coupons/([0-9]{1,19})/entries(/me)?");

	private final WaitingRoom room;

	private final LeanEndpoints lean;

	private final ApiExceptionHandler problems;

	private final JsonMapper json;

	EntryEndpoint(WaitingRoom room, LeanEndpoints lean, ApiExceptionHandler problems, JsonMapper json) {
		this.room = room;
		this.lean = lean;
		this.problems = problems;
		this.json = json;
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
		String user = this.lean.user(request, response);
		if (user == null) {
			// answered: 401, or 503 when the identity provider's keys cannot be read
			return;
		}
		Entry entry;
		try {
			long couponId = EntryController.parse(path.group(1));
			entry = join ? this.room.join(user, couponId) : this.room.poll(user, couponId);
		}
		catch (DataAccessException ex) {
			this.lean.problem(request, response, this.problems.dataAccess(ex));
			return;
		}
		catch (RuntimeException ex) {
			this.lean.problem(request, response,
					ApiExceptionHandler.handles(ex) ? this.problems.domain(ex) : this.problems.unexpected(ex));
			return;
		}
		response.setStatus(HttpStatus.OK.value());
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		this.json.writeValue(response.getOutputStream(), entry);
	}

}
