package io.couponevent.waitingroom.web;

import java.io.IOException;
import java.util.Enumeration;

import io.couponevent.common.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, ahead of every other filter of {@code /api/}, request shapes the room never
 * reads (as the API does):
 * <ul>
 * <li>{@code 415} for a {@code Content-Type} that does not parse, holds a wildcard, or is
 * a form or multipart type, which the container would parse as parameters or parts;</li>
 * <li>{@code 400} for two {@code Authorization} headers (the first would authenticate, a
 * proxy reading the last would see another user);</li>
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
		if (contentType != null && !acceptable(contentType)) {
			refuse(response, HttpStatus.UNSUPPORTED_MEDIA_TYPE, this.unsupported);
			return;
		}
		Enumeration<String> credentials = request.getHeaders(HttpHeaders.AUTHORIZATION);
		if (credentials != null && credentials.hasMoreElements()) {
			credentials.nextElement();
			if (credentials.hasMoreElements()) {
				refuse(response, HttpStatus.BAD_REQUEST, this.twoCredentials);
				return;
			}
		}
		if (request.getContentLengthLong() > MAX_BODY_BYTES) {
			refuse(response, HttpStatus.CONTENT_TOO_LARGE, this.tooLarge);
			return;
		}
		if (request.getContentLengthLong() < 0 && request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
			refuse(response, HttpStatus.LENGTH_REQUIRED, this.lengthRequired);
			return;
		}
		chain.doFilter(request, response);
	}

	/** JSON or no body at all: no wildcard, form or multipart type. */
	static boolean acceptable(String contentType) {
		MediaType type;
		try {
			type = MediaType.parseMediaType(contentType);
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
		return !type.isWildcardType() && !type.isWildcardSubtype() && !"multipart".equals(type.getType())
				&& !MediaType.APPLICATION_FORM_URLENCODED.equalsTypeAndSubtype(type);
	}

	private static void refuse(HttpServletResponse response, HttpStatus status, byte[] body) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		// the body is left unread: the container drops the connection instead of draining
		// it
		response.setHeader(HttpHeaders.CONNECTION, "close");
		response.getOutputStream().write(body);
	}

}
