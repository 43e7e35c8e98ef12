package io.couponevent.common.web;

import java.io.IOException;
import java.util.Enumeration;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * The request shapes a service never reads, told apart before anything parses them, and
 * refused: the checks of the waiting room's request filter, and the API's.
 */
public final class RequestShapes {

	private RequestShapes() {
	}

	/**
	 * Whether a {@code Content-Type} may reach the service: it parses, holds no wildcard,
	 * and is no form or multipart type (which make the servlet container and Spring parse
	 * the body as parameters or parts, where malformed input ends in exceptions no
	 * handler maps).
	 */
	public static boolean acceptable(String contentType) {
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

	/**
	 * Two {@code Authorization} headers: the first would authenticate, while a proxy that
	 * reads the last would see another user.
	 */
	public static boolean twoCredentials(HttpServletRequest request) {
		Enumeration<String> credentials = request.getHeaders(HttpHeaders.AUTHORIZATION);
		if (credentials == null || !credentials.hasMoreElements()) {
			return false;
		}
		credentials.nextElement();
		return credentials.hasMoreElements();
	}

	/**
	 * Answers with a problem body, leaving the request's body unread: closing lets the
	 * container drop the connection instead of draining a large upload.
	 */
	public static void refuse(HttpServletResponse response, HttpStatus status, byte[] problem) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(problem.length);
		response.setHeader(HttpHeaders.CONNECTION, "close");
		response.getOutputStream().write(problem);
	}

}
