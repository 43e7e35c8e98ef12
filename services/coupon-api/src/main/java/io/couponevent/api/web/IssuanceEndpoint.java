package io.couponevent.api.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.issuance.IssuanceService;
import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.web.LeanEndpoints;
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
 * {@code POST /api/v1/coupons/{id}/issuances} without a body, the request a spike is made
 * of, answered here instead of through Spring Security's filter chain and Spring MVC.
 *
 * <p>
 * For one stateless POST those layers (security context, authentication provider,
 * authorization matchers, handler mapping, argument resolution, content negotiation) cost
 * several times the issuance itself: Redis script, Kafka send and bookkeeping were a
 * small share of the API's CPU samples. This endpoint keeps the contract: the same token
 * checks and security headers ({@link LeanEndpoints}), the same problem answers (from
 * {@link ApiExceptionHandler}) and the same metrics. Anything else on the path (a body,
 * an id that is not plain digits, another method) goes on to the MVC controller, so odd
 * requests get the answers they always did.
 */
class IssuanceEndpoint extends OncePerRequestFilter {

	private static final String PATH_PREFIX = "/api/v1/coupons/";

	private static final String PATH_SUFFIX = "/issuances";

	static final String PATH_PATTERN = "/api/v1/coupons/{couponId}/issuances";

	private final IssuanceService issuance;

	private final LeanEndpoints lean;

	private final ApiExceptionHandler problems;

	private final JsonMapper json;

	IssuanceEndpoint(IssuanceService issuance, LeanEndpoints lean, ApiExceptionHandler problems, JsonMapper json) {
		this.issuance = issuance;
		this.lean = lean;
		this.problems = problems;
		this.json = json;
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
		String subject = this.lean.user(request, response);
		if (subject == null) {
			return;
		}
		long couponId;
		IssuanceService.Accepted accepted;
		try {
			couponId = CouponId.parse(couponDigits);
			accepted = this.issuance.issue(couponId, subject, request.getHeader(EntryGate.HEADER));
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

}
