package io.couponevent.common.web;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/**
 * RFC 9457 problem details with the stable {@code code} property clients switch on: one
 * shape for every service's answers.
 */
public final class Problems {

	/** The 401 answers' details and challenge, wherever a token is checked. */
	public static final String TOKEN_REQUIRED = "a bearer token is required";

	public static final String TOKEN_INVALID = "the bearer token is invalid or expired";

	public static final String INVALID_TOKEN_CHALLENGE = "Bearer error=\"invalid_token\"";

	private Problems() {
	}

	public static ProblemDetail of(HttpStatusCode status, String code, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create("urn:coupon-event:problem:" + code.toLowerCase().replace('_', '-')));
		problem.setProperty("code", code);
		return problem;
	}

	/**
	 * The problem's members (RFC 9457 + {@code code}) for writers outside Spring MVC's
	 * converters: servlet filters answer before MVC is reached.
	 */
	public static Map<String, Object> members(HttpStatusCode status, String code, String detail) {
		ProblemDetail problem = of(status, code, detail);
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("type", problem.getType().toString());
		body.put("title", problem.getTitle());
		body.put("status", problem.getStatus());
		body.put("detail", problem.getDetail());
		body.put("code", code);
		return body;
	}

	/** The default code for a status that no handler named more precisely. */
	public static String codeFor(HttpStatusCode status) {
		return switch (status.value()) {
			case 400 -> "INVALID_REQUEST";
			case 401 -> "UNAUTHENTICATED";
			case 403 -> "FORBIDDEN";
			case 404 -> "NOT_FOUND";
			case 405 -> "METHOD_NOT_ALLOWED";
			case 406 -> "NOT_ACCEPTABLE";
			case 409 -> "CONFLICT";
			case 413 -> "PAYLOAD_TOO_LARGE";
			case 415 -> "UNSUPPORTED_MEDIA_TYPE";
			case 503 -> "UNAVAILABLE";
			default -> status.is4xxClientError() ? "INVALID_REQUEST" : "INTERNAL_ERROR";
		};
	}

}
