package io.couponevent.waitingroom.web;

import java.io.IOException;

import io.couponevent.common.web.Problems;
import io.couponevent.common.web.RequestShapes;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, ahead of every other filter of {@code /api/}, request shapes the room never
 * reads (as the API does, by {@link RequestShapes}):
 * <ul>
 * <li>{@code 415} for a {@code Content-Type} that does not parse, holds a wildcard, or is
 * a form or multipart type;</li>
 * <li>{@code 400} for two {@code Authorization} headers;</li>
 * <li>{@code 413} for a body over {@value #MAX_BODY_BYTES} bytes, and {@code 411} for a
 * body of unannounced length (chunked): the only body the room reads is the admin
 * {@code PUT}'s small JSON object, which every client sends with its length.</li>
 * </ul>
 */
class RequestShapeFilter extends OncePerRequestFilter {

	static final int MAX_BODY_BYTES = 8192;

	private final byte[] unsupported;

	private final byte[] twoCredentials;

	private final byte[] tooLarge;

	private final byte[] lengthRequired;

	RequestShapeFilter(JsonMapper json) {
		this.unsupported = body(json, HttpStatus.UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE",
				"send the body as application/json");
		this.twoCredentials = body(json, HttpStatus.BAD_REQUEST, "INVALID_REQUEST", "send one Authorization header");
		this.tooLarge = body(json, HttpStatus.CONTENT_TOO_LARGE, Problems.codeFor(HttpStatus.CONTENT_TOO_LARGE),
				"the body is larger than " + MAX_BODY_BYTES + " bytes");
		this.lengthRequired = body(json, HttpStatus.LENGTH_REQUIRED, Problems.codeFor(HttpStatus.LENGTH_REQUIRED),
				"send the body with a Content-Length");
	}

	private static byte[] body(JsonMapper json, HttpStatus status, String code, String detail) {
		return json.writeValueAsBytes(Problems.members(status, code, detail));
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String contentType = request.getHeader(HttpHeaders.CONTENT_TYPE);
		long length = request.getContentLengthLong();
		if (contentType != null && !RequestShapes.acceptable(contentType)) {
			RequestShapes.refuse(response, HttpStatus.UNSUPPORTED_MEDIA_TYPE, this.unsupported);
		}
		else if (RequestShapes.twoCredentials(request)) {
			RequestShapes.refuse(response, HttpStatus.BAD_REQUEST, this.twoCredentials);
		}
		else if (length > MAX_BODY_BYTES) {
			RequestShapes.refuse(response, HttpStatus.CONTENT_TOO_LARGE, this.tooLarge);
		}
		else if (length < 0 && request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
			RequestShapes.refuse(response, HttpStatus.LENGTH_REQUIRED, this.lengthRequired);
		}
		else {
			chain.doFilter(request, response);
		}
	}

}
