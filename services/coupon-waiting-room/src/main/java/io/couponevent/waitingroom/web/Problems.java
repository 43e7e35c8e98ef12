package io.couponevent.waitingroom.web;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/** RFC 9457 problem details with the {@code code} property clients switch on. */
public final class Problems {

	private Problems() {
	}

	public static ProblemDetail of(HttpStatusCode status, String code, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create("urn:coupon-event:problem:" + code.toLowerCase().replace('_', '-')));
		problem.setProperty("code", code);
		return problem;
	}

	/** The members of a problem, for the security filters (they answer before MVC). */
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

	static String codeFor(HttpStatusCode status) {
		return switch (status.value()) {
			case 401 -> "UNAUTHENTICATED";
			case 403 -> "FORBIDDEN";
			case 404 -> "NOT_FOUND";
			case 405 -> "METHOD_NOT_ALLOWED";
			case 415 -> "UNSUPPORTED_MEDIA_TYPE";
			case 503 -> "UNAVAILABLE";
			default -> status.is4xxClientError() ? "INVALID_REQUEST" : "INTERNAL_ERROR";
		};
	}

}
