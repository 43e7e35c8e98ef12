package io.couponevent.api.web;

import org.springframework.http.HttpStatus;

/** An answer other than success, with the stable {@code code} of the problem details. */
public class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final String code;

    private ApiException(HttpStatus status, String code, String detail) {
        super(detail);
        this.status = status;
        this.code = code;
    }

    public static ApiException of(HttpStatus status, String code, String detail) {
        return new ApiException(status, code, detail);
    }

    public static ApiException invalid(String detail) {
        return new ApiException(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", detail);
    }

    public static ApiException couponNotFound(long couponId) {
        return new ApiException(HttpStatus.NOT_FOUND, "COUPON_NOT_FOUND", "no coupon " + couponId);
    }

    public static ApiException forbidden(String code, String detail) {
        return new ApiException(HttpStatus.FORBIDDEN, code, detail);
    }

    public static ApiException unavailable(String detail) {
        return new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE", detail);
    }

    public HttpStatus status() {
        return status;
    }

    public String code() {
        return code;
    }
}
