package io.couponevent.consumer.replay;

import org.apache.kafka.common.KafkaException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * RFC 9457 problem details with a machine-readable {@code code}, as coupon-api answers.
 */
@RestControllerAdvice
public class ProblemHandler extends ResponseEntityExceptionHandler {

	@ExceptionHandler(ReplayInProgressException.class)
	ResponseEntity<ProblemDetail> inProgress(ReplayInProgressException e) {
		return problem(HttpStatus.CONFLICT, "REPLAY_IN_PROGRESS", e.getMessage());
	}

	@ExceptionHandler({ KafkaException.class, org.springframework.kafka.KafkaException.class })
	ResponseEntity<ProblemDetail> kafkaDown(RuntimeException e) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header("Retry-After", "5")
			.body(body(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE", "Kafka is unavailable: " + e.getMessage()));
	}

	public static ProblemDetail body(HttpStatus status, String code, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setProperty("code", code);
		return problem;
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String code, String detail) {
		return ResponseEntity.status(status).body(body(status, code, detail));
	}

}
