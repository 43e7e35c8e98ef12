package io.couponevent.api.web;

import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The API's JSON reading. An empty or blank string where a date-time belongs is a wrong
 * value, answered 400, not an absent one: Jackson would otherwise read
 * {@code "opensAt":""} as {@code null}, which the admin API takes to mean "opens at its
 * registration".
 */
@Configuration(proxyBeanMethods = false)
class JsonConfig {

	@Bean
	JsonMapperBuilderCustomizer emptyDateTimeIsAnError() {
		return (builder) -> builder.withCoercionConfig(LogicalType.DateTime,
				(config) -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
					.setAcceptBlankAsEmpty(true));
	}

}
