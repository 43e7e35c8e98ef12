package io.couponevent.common.security;

import java.io.IOException;

import io.couponevent.common.web.Problems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * 401 and 403 from the security filters, as problem+json (the filters run before Spring
 * MVC).
 */
public class ProblemSecurityHandlers implements AuthenticationEntryPoint, AccessDeniedHandler {

	private final JsonMapper json;

	public ProblemSecurityHandlers(JsonMapper json) {
		this.json = json;
	}

	@Override
	public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
			throws IOException {
		boolean tokenSent = request.getHeader(HttpHeaders.AUTHORIZATION) != null;
		response.setHeader(HttpHeaders.WWW_AUTHENTICATE, tokenSent ? Problems.INVALID_TOKEN_CHALLENGE : "Bearer");
		write(response, HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED",
				tokenSent ? Problems.TOKEN_INVALID : Problems.TOKEN_REQUIRED);
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
			throws IOException {
		write(response, HttpStatus.FORBIDDEN, "FORBIDDEN", "this operation needs the admin role");
	}

	private void write(HttpServletResponse response, HttpStatus status, String code, String detail) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		json.writeValue(response.getOutputStream(), Problems.members(status, code, detail));
	}

}
