package io.couponevent.api.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/**
 * Only in a process that serves requests: the hook jobs
 * ({@code --coupon.job=migrate|register}) do their one task and exit, without background
 * work.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@ConditionalOnProperty(name = "coupon.job", havingValue = "none", matchIfMissing = true)
public @interface ServingInstance {

}
