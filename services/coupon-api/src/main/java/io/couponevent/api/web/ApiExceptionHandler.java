package io.couponevent.api.web;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.coupon.CouponNotFoundException;
import io.couponevent.api.coupon.InvalidCouponIdException;
import io.couponevent.api.coupon.QuantityBelowIssuedException;
import io.couponevent.api.issuance.IssuanceRefusedException;
import io.couponevent.api.issuance.IssuanceUnavailableException;
import io.couponevent.api.window.InvalidWindowException;
import io.couponevent.common.web.Problems;
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
 * Every error as {@code application/problem+json} with a {@code code}: the one place
 * where the features' exceptions become HTTP answers. Spring MVC's own exceptions
 * (malformed JSON, wrong method, unsupported media type, unknown path…) keep their 4xx
 * status; only a genuine server fault becomes a 500.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

	private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

	private final String retryAfterSeconds;

	ApiExceptionHandler(IssuanceProperties issuance) {
		this.retryAfterSeconds = issuance.retryAfterHeader();
	}

	/** Whether {@link #domain} has an answer for {@code e}. */
	static boolean handles(RuntimeException e) {
		return e instanceof InvalidCouponIdException || e instanceof InvalidWindowException
				|| e instanceof CouponNotFoundException || e instanceof QuantityBelowIssuedException
				|| e instanceof IssuanceRefusedException || e instanceof IssuanceUnavailableException;
	}

	/** The features' exceptions: the one table of their status and {@code code}. */
	@ExceptionHandler({ InvalidCouponIdException.class, InvalidWindowException.class, CouponNotFoundException.class,
			QuantityBelowIssuedException.class, IssuanceRefusedException.class, IssuanceUnavailableException.class })
	ResponseEntity<ProblemDetail> domain(RuntimeException e) {
		return switch (e) {
			case InvalidCouponIdException invalid -> problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
			case InvalidWindowException invalid -> problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
			case CouponNotFoundException notFound -> problem(HttpStatus.NOT_FOUND, "COUPON_NOT_FOUND", e.getMessage());
			case QuantityBelowIssuedException below ->
				problem(HttpStatus.CONFLICT, "QUANTITY_BELOW_ISSUED", e.getMessage());
			case IssuanceRefusedException refused -> problem(switch (refused.refusal()) {
				case NOT_OPEN_YET, CLOSED, PAUSED, ENTRY_REQUIRED -> HttpStatus.FORBIDDEN;
				case ALREADY_ISSUED -> HttpStatus.CONFLICT;
				case SOLD_OUT -> HttpStatus.GONE;
			}, refused.refusal().name(), e.getMessage());
			case IssuanceUnavailableException unavailable ->
				problem(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE", e.getMessage());
			default -> unexpected(e);
		};
	}

	@ExceptionHandler(DataAccessException.class)
	ResponseEntity<ProblemDetail> dataAccess(DataAccessException e) {
		log.warn("data store unavailable: {}", e.toString());
		return problem(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE", "a data store is unavailable, try again shortly");
	}

	@ExceptionHandler(Exception.class)
	ResponseEntity<ProblemDetail> unexpected(Exception e) {
		log.error("unexpected error", e);
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "unexpected error");
	}

	/** Spring MVC's exceptions: same status, our body shape. */
	@Override
	protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		if (RequestShapeFilter.BodyTooLargeException.causes(ex)) {
			// A chunked body ran past the limit while the converter read it.
			status = HttpStatus.CONTENT_TOO_LARGE;
			body = null;
			headers = new HttpHeaders();
		}
		String detail = body instanceof ProblemDetail pd && pd.getDetail() != null ? pd.getDetail() : ex.getMessage();
		if (status.value() == 400) {
			// Jackson's messages can echo large parts of the body; keep the answer short
			// and generic.
			detail = "malformed request: " + shortReason(ex);
		}
		ProblemDetail problem = Problems.of(status, Problems.codeFor(status), detail);
		HttpHeaders out = new HttpHeaders();
		if (headers != null) {
			headers.forEach(out::put);
		}
		out.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		return new ResponseEntity<>(problem, out, status);
	}

	private static String shortReason(Exception ex) {
		String name = ex.getClass().getSimpleName();
		return switch (name) {
			case "HttpMessageNotReadableException" -> "the body is not a valid JSON object";
			case "MethodArgumentNotValidException", "HandlerMethodValidationException" -> validationDetail(ex);
			case "MissingServletRequestParameterException", "MissingPathVariableException" -> ex.getMessage();
			default -> "invalid request";
		};
	}

	private static String validationDetail(Exception ex) {
		if (ex instanceof org.springframework.web.bind.MethodArgumentNotValidException m) {
			return m.getBindingResult()
				.getAllErrors()
				.stream()
				.map(err -> (err instanceof org.springframework.validation.FieldError f ? f.getField() + " " : "")
						+ err.getDefaultMessage())
				.sorted()
				.reduce((a, b) -> a + "; " + b)
				.orElse("invalid body");
		}
		return "invalid request";
	}

	private ResponseEntity<ProblemDetail> problem(HttpStatus status, String code, String detail) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(status)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON);
		if (status == HttpStatus.SERVICE_UNAVAILABLE) {
			builder.header(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
		}
		return builder.body(Problems.of(status, code, detail));
	}

}
