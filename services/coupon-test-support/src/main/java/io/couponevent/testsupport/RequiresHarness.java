package io.couponevent.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that needs the local harness ({@code local/infra.sh up}: Redis Cluster,
 * Kafka, MariaDB). Without it the class is skipped with the reason, so the unit tests
 * still run anywhere; with {@code REQUIRE_HARNESS=1} or {@code CI=true} (as
 * {@code make test-services} and CI run) it fails instead, so no test is skipped there.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(HarnessCondition.class)
public @interface RequiresHarness {

}
