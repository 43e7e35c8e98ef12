package io.couponevent.api.web;

import java.io.IOException;

import io.couponevent.common.web.Problems;
import io.couponevent.common.web.RequestShapes;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request shapes the API never reads, before anything parses them.
 * <ul>
 * <li>{@code 415} for a {@code Content-Type} that does not parse, holds a wildcard
 * ({@code *}{@code /*}, {@code application/*}), or is a form or multipart type: those
 * make the servlet container and Spring parse the body as parameters or parts, where
 * malformed input ends in exceptions no handler maps (they answered 500).</li>
 * <li>{@code 400} for two {@code Authorization} headers: the first one would
 * authenticate, while a proxy that reads the last one would see another user.</li>
 * <li>{@code 413} for a body over {@code maxBodyBytes}: by {@code Content-Length} at
 * once, and for a chunked body while it is read. Every body the API takes is a small JSON
 * object; without a limit a 60 MB body was read and parsed.</li>
 * </ul>
 */
class RequestShapeFilter extends OncePerRequestFilter {

	private final long maxBodyBytes;

	private final byte[] unsupported;

	private final byte[] tooLarge;

	private final byte[] twoCredentials;

	RequestShapeFilter(long maxBodyBytes, JsonMapper json) {
		this.maxBodyBytes = maxBodyBytes;
		this.unsupported = json.writeValueAsBytes(Problems.members(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
				"UNSUPPORTED_MEDIA_TYPE", "send the body as application/json"));
		this.tooLarge = json.writeValueAsBytes(Problems.members(HttpStatus.CONTENT_TOO_LARGE,
				Problems.codeFor(HttpStatus.CONTENT_TOO_LARGE), "the body is larger than " + maxBodyBytes + " bytes"));
		this.twoCredentials = json.writeValueAsBytes(
				Problems.members(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", "send one Authorization header"));
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String contentType = request.getHeader(HttpHeaders.CONTENT_TYPE);
		if (contentType != null && !RequestShapes.acceptable(contentType)) {
			RequestShapes.refuse(response, HttpStatus.UNSUPPORTED_MEDIA_TYPE, this.unsupported);
			return;
		}
		if (RequestShapes.twoCredentials(request)) {
			RequestShapes.refuse(response, HttpStatus.BAD_REQUEST, this.twoCredentials);
			return;
		}
		long length = request.getContentLengthLong();
		if (length > this.maxBodyBytes) {
			RequestShapes.refuse(response, HttpStatus.CONTENT_TOO_LARGE, this.tooLarge);
			return;
		}
		HttpServletRequest limited = (length < 0) ? new LimitedRequest(request, this.maxBodyBytes) : request;
		// Past the limit, reading throws BodyTooLargeException: ApiExceptionHandler's
		// 413.
		chain.doFilter(limited, response);
	}

	/** Thrown while reading a chunked body past the limit. */
	static final class BodyTooLargeException extends IOException {

		BodyTooLargeException(long limit) {
			super("request body larger than " + limit + " bytes");
		}

		static boolean causes(Throwable ex) {
			for (Throwable t = ex; t != null; t = t.getCause()) {
				if (t instanceof BodyTooLargeException) {
					return true;
				}
			}
			return false;
		}

	}

	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private final long limit;

		private ServletInputStream stream;

		LimitedRequest(HttpServletRequest request, long limit) {
			super(request);
			this.limit = limit;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.stream == null) {
				this.stream = new LimitedStream(super.getInputStream(), this.limit);
			}
			return this.stream;
		}

	}

	private static final class LimitedStream extends ServletInputStream {

		private final ServletInputStream in;

		private final long limit;

		private long read;

		LimitedStream(ServletInputStream in, long limit) {
			this.in = in;
			this.limit = limit;
		}

		@Override
		public int read() throws IOException {
			int b = this.in.read();
			if (b >= 0) {
				count(1);
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int n = this.in.read(buffer, offset, length);
			if (n > 0) {
				count(n);
			}
			return n;
		}

		private void count(int n) throws BodyTooLargeException {
			this.read += n;
			if (this.read > this.limit) {
				throw new BodyTooLargeException(this.limit);
			}
		}

		@Override
		public boolean isFinished() {
			return this.in.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.in.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.in.setReadListener(listener);
		}

	}

}
