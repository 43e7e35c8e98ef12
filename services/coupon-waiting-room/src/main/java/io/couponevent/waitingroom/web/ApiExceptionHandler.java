package io.couponevent.waitingroom.web;

import io.couponevent.common.web.Problems;
import io.couponevent.waitingroom.room.CouponLookupException;
import io.couponevent.waitingroom.room.CouponNotFoundException;
import io.couponevent.waitingroom.room.InvalidRequestException;
import io.couponevent.waitingroom.room.NotInQueueException;
import io.couponevent.waitingroom.room.UnknownZoneException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error as {@code application/problem+json} with a {@code code}; bad input is a
 * 4xx, only a genuine server fault a 500.
 */
@RestControllerAdvice
public class ApiExceptionHandler extends ResponseEntityExceptionHandler {

	private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

	@ExceptionHandler({ InvalidRequestException.class, NotInQueueException.class, UnknownZoneException.class,
			CouponNotFoundException.class, CouponLookupException.class })
	public ResponseEntity<ProblemDetail> domain(RuntimeException e) {
		return switch (e) {
			case InvalidRequestException invalid -> problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
			case NotInQueueException none -> problem(HttpStatus.NOT_FOUND, "NOT_IN_QUEUE", e.getMessage());
			case UnknownZoneException zone -> problem(HttpStatus.NOT_FOUND, "ZONE_NOT_FOUND", e.getMessage());
			case CouponNotFoundException coupon -> problem(HttpStatus.NOT_FOUND, "COUPON_NOT_FOUND", e.getMessage());
			case CouponLookupException lookup -> unavailable("the coupon cannot be looked up now, try again");
			default -> unexpected(e);
		};
	}

	@ExceptionHandler(DataAccessException.class)
	public ResponseEntity<ProblemDetail> dataAccess(DataAccessException e) {
		log.warn("queue store unavailable: {}", e.toString());
		return unavailable("the queue is unavailable, try again");
	}

	private static ResponseEntity<ProblemDetail> unavailable(String detail) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.header(HttpHeaders.RETRY_AFTER, "2")
			.body(Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE", detail));
	}

	@ExceptionHandler(Exception.class)
	public ResponseEntity<ProblemDetail> unexpected(Exception e) {
		log.error("unexpected error", e);
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "unexpected error");
	}

	/** Whether {@link #domain} answers this exception (else it is unexpected). */
	public static boolean handles(RuntimeException e) {
		return e instanceof InvalidRequestException || e instanceof NotInQueueException
				|| e instanceof UnknownZoneException || e instanceof CouponNotFoundException
				|| e instanceof CouponLookupException;
	}

	/** Spring MVC's own exceptions: same status, our body shape, a short detail. */
	@Override
	protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		String detail = status.value() == 400 ? "malformed request"
				: (body instanceof ProblemDetail pd && pd.getDetail() != null ? pd.getDetail() : ex.getMessage());
		HttpHeaders out = new HttpHeaders();
		if (headers != null) {
			headers.forEach(out::put);
		}
		out.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		return new ResponseEntity<>(Problems.of(status, Problems.codeFor(status), detail), out, status);
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String code, String detail) {
		return ResponseEntity.status(status)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(Problems.of(status, code, detail));
	}

}
