package io.couponevent.api.config;

import jakarta.validation.constraints.NotBlank;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/** Kafka names shared with coupon-consumer (docs/contract.md). */
@Validated
@ConfigurationProperties("coupon.kafka")
public record TopicProperties(
        @NotBlank @DefaultValue("coupon-issuance") String topic,
        @NotBlank @DefaultValue("coupon-consumer") String consumerGroup) {
}
