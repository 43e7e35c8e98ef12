package io.couponevent.api.config;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Limits on what the public API reads.
 *
 * @param maxBodySize the largest request body on {@code /api/**} (default 8KB: every body
 * the API takes is a small JSON object); larger ones are answered 413
 */
@Validated
@ConfigurationProperties("coupon.http")
public record HttpProperties(@NotNull @DefaultValue("8KB") DataSize maxBodySize) {

	@AssertTrue(message = "coupon.http.max-body-size must be at least 1KB")
	public boolean isMaxBodySizeValid() {
		return maxBodySize == null || maxBodySize.toBytes() >= 1024;
	}

}
